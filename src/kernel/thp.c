#include "thp.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine.h"
#include "fileio.h"

long thp_pmd_size(const char *root)
{
        long pmd;
        return read_long_at(root, "/sys/kernel/mm/transparent_hugepage/hpage_pmd_size", &pmd) == 0 ? pmd : 0;
}

unsigned resolve_max_order(const char *root, int configured, unsigned nr_orders)
{
        long pmd = configured == ENGINE_ORDER_AUTO ? thp_pmd_size(root) : 0;
        return engine_max_order(configured, nr_orders, sysconf(_SC_PAGESIZE), pmd);
}

int thp_choice(const char *text, char *out, size_t size)
{
        const char *open = strchr(text, '['), *close = open ? strchr(open, ']') : NULL;
        if (!close || close == open + 1 || (size_t)(close - open - 1) >= size)
                return -EBADMSG;
        size_t n = (size_t)(close - open - 1);
        if (memchr(open + 1, ' ', n) || strchr(close + 1, '['))
                return -EBADMSG;        /* one word, one choice */
        memcpy(out, open + 1, n);
        out[n] = '\0';
        return 0;
}

int thp_policy_read(const char *root, struct thp_policy *out)
{
        static const char dir[] = "/sys/kernel/mm/transparent_hugepage/";
        struct { const char *name; char *into; size_t size; } files[] = {
                { "enabled", out->enabled, sizeof(out->enabled) },
                { "defrag", out->defrag, sizeof(out->defrag) },
        };
        char *buf = NULL;
        size_t size = 0;
        int r = 0;
        for (size_t i = 0; i < sizeof(files) / sizeof(files[0]) && r == 0; i++) {
                char path[sizeof(dir) + 16];
                snprintf(path, sizeof(path), "%s%s", dir, files[i].name);
                ssize_t n = read_file_at(root, path, &buf, &size);
                r = n < 0 ? (int)n : thp_choice(buf, files[i].into, files[i].size);
        }
        free(buf);
        return r;
}
