/* page-touch: what waking once a second and touching N pages costs on this
 * machine, apart from any /proc read. Wakes from a timerfd through epoll, as
 * the daemon's event loop does, and writes one byte in each of N distinct
 * pages of an anonymous buffer that was touched in full before the first
 * wake, then sleeps again. Its CPU time, measured from outside
 * (bench/wake-cost), is what the machine charges a woken task per page it
 * touches. With HUGE = 1 the buffer is madvise(MADV_HUGEPAGE)d, so the same
 * bytes lie in a few 2 MiB pages instead of N 4 KiB ones.
 *   usage: page-touch N [INTERVAL_MS [HUGE]]        Runs until killed. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "tick.h"

#define HUGE_SIZE (2UL << 20)

struct pages {
        volatile char *buf;
        long n;
};

static void touch(void *arg)
{
        const struct pages *p = arg;
        for (long i = 0; i < p->n; i++)
                p->buf[i * 4096] += 1;
}

int main(int argc, char **argv)
{
        char *end = NULL;
        long n = argc > 1 ? strtol(argv[1], &end, 10) : -1;
        long ms = argc > 2 ? strtol(argv[2], NULL, 10) : 1000;
        int huge = argc > 3 && argv[3][0] == '1';
        if (argc < 2 || argc > 4 || *end || n < 0 || n > 1 << 20 || ms < 1) {
                fprintf(stderr, "usage: page-touch N [INTERVAL_MS [HUGE]]\n");
                return 2;
        }
        size_t len = ((size_t)n * 4096 + HUGE_SIZE) & ~(HUGE_SIZE - 1);
        char *raw = mmap(NULL, len + HUGE_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (raw == MAP_FAILED) {
                perror("page-touch: mmap");
                return 1;
        }
        /* aligned to 2 MiB so that HUGE can give whole huge pages */
        volatile char *buf = (char *)(((uintptr_t)raw + HUGE_SIZE - 1) & ~(HUGE_SIZE - 1));
        if (madvise((void *)buf, len, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE) < 0) {
                perror("page-touch: madvise");
                return 1;
        }
        for (size_t i = 0; i < len; i += 4096)
                buf[i] = 1;
        struct pages p = { .buf = buf, .n = n };
        return tick_run("page-touch", ms, touch, &p);
}
