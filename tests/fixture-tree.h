/* fixture-tree.h — a fake kernel under a root prefix: the /proc files of one
 * of tests/fixtures/ and a writable watermark_scale_factor. The command is
 * sized at run time because the checkout's path (in FIXTURES) has no bound:
 * a fixed buffer is a build error under -Wformat-truncation when CI clones
 * into a longer path than ours. */
#pragma once

#include <stdio.h>
#include <stdlib.h>

#define FIXTURE_TREE_CMD "mkdir -p '%s/proc/sys/vm' && cp '%s/%s/proc/'* '%s/proc/' && " \
                         "echo %ld > '%s/proc/sys/vm/watermark_scale_factor'"

static inline int fixture_tree(const char *root, const char *fixture, long wsf)
{
        int n = snprintf(NULL, 0, FIXTURE_TREE_CMD, root, FIXTURES, fixture, root, wsf, root);
        if (n < 0)
                return -1;
        char *cmd = malloc((size_t)n + 1);
        if (!cmd)
                return -1;
        snprintf(cmd, (size_t)n + 1, FIXTURE_TREE_CMD, root, FIXTURES, fixture, root, wsf, root);
        int r = system(cmd);
        free(cmd);
        return r;
}
