#include "process.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"

/* Fields after the ")" that ends comm: state is the first (field 3 of the
 * line), starttime the 20th (field 22). */
#define STAT_STARTTIME_AFTER_COMM 20

/* A decimal count at p, ended by a space, a newline or the end. */
static int parse_ticks(const char *p, uint64_t *out)
{
        char *end;
        errno = 0;
        unsigned long long v = strtoull(p, &end, 10);
        if (end == p || errno || (*end && *end != ' ' && *end != '\n'))
                return -EBADMSG;
        *out = v;
        return 0;
}

int process_read(long pid, struct process_id *out)
{
        char path[64], *buf = NULL;
        size_t size = 0;
        snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
        ssize_t n = read_file_at("", path, &buf, &size);
        if (n < 0) {
                free(buf);
                return n == -ESRCH ? -ENOENT : (int)n;
        }
        /* comm may hold spaces and parentheses: it ends at the last ")" */
        char *open = strchr(buf, '('), *close = strrchr(buf, ')');
        int r = -EBADMSG;
        if (open && close && close > open) {
                size_t len = (size_t)(close - open - 1);
                *out = (struct process_id){ .pid = pid };
                snprintf(out->comm, sizeof(out->comm), "%.*s", (int)(len < PROCESS_COMM_MAX ? len : PROCESS_COMM_MAX - 1),
                         open + 1);
                char state = 0;
                const char *p = close + 1;
                for (int field = 1; p && field <= STAT_STARTTIME_AFTER_COMM; field++) {
                        p += strspn(p, " ");
                        if (field == 1)
                                state = *p;
                        else if (field == STAT_STARTTIME_AFTER_COMM)
                                r = parse_ticks(p, &out->start_ticks);
                        p = strchr(p, ' ');
                }
                out->gone = state == 'Z' || state == 'X';
        }
        free(buf);
        return r;
}

bool process_visible(void)
{
        struct process_id init;
        /* pid 1 is root's: visible to all unless /proc hides it */
        return process_read(1, &init) == 0;
}
