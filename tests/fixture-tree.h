/* fixture-tree.h — the kernel files of tests/fixtures/ for the unit tests,
 * and a fake kernel made of them under a root prefix: the /proc files of one
 * fixture and a writable watermark_scale_factor. The fixtures' directory
 * comes from the environment (meson test sets FIXTURES), not from the
 * compiler: a path compiled in made the build depend on where the checkout
 * is, and CI's longer path once failed it under -Wformat-truncation. */
#pragma once

#include <stdio.h>
#include <stdlib.h>

static inline const char *fixtures_dir(void)
{
        const char *d = getenv("FIXTURES");
        if (!d || !*d) {
                fprintf(stderr, "FIXTURES is not set: run the unit tests with meson test\n");
                exit(2);
        }
        return d;
}

/* The whole text of the fixture file at rel (caller frees); NULL on error. */
static inline char *fixture_text(const char *rel)
{
        char path[4096];
        if (snprintf(path, sizeof(path), "%s/%s", fixtures_dir(), rel) >= (int)sizeof(path))
                return NULL;
        FILE *f = fopen(path, "re");
        if (!f)
                return NULL;
        char *text = NULL;
        size_t size = 0, len = 0;
        for (;;) {
                if (size - len < 4096) {
                        char *t = realloc(text, size + 65536);
                        if (!t)
                                break;
                        text = t;
                        size += 65536;
                }
                size_t n = fread(text + len, 1, size - len - 1, f);
                len += n;
                if (n == 0)
                        break;
        }
        int bad = ferror(f) || !text;
        fclose(f);
        if (bad) {
                free(text);
                return NULL;
        }
        text[len] = '\0';
        return text;
}

#define FIXTURE_TREE_CMD "mkdir -p '%s/proc/sys/vm' && cp '%s/%s/proc/'* '%s/proc/' && " \
                         "echo %ld > '%s/proc/sys/vm/watermark_scale_factor'"

static inline int fixture_tree(const char *root, const char *fixture, long wsf)
{
        const char *dir = fixtures_dir();
        int n = snprintf(NULL, 0, FIXTURE_TREE_CMD, root, dir, fixture, root, wsf, root);
        if (n < 0)
                return -1;
        char *cmd = malloc((size_t)n + 1);
        if (!cmd)
                return -1;
        snprintf(cmd, (size_t)n + 1, FIXTURE_TREE_CMD, root, dir, fixture, root, wsf, root);
        int r = system(cmd);
        free(cmd);
        return r;
}
