/* cc -O2 -Wall -Wextra -Werror -std=gnu11 -o frag frag.c
 *
 * frag: the "fragmented THP demand" workload of the memoptimizer benchmark.
 *
 *   frag fragment SIZE   Fault in SIZE bytes of anonymous memory in 4 KiB
 *                        pages, then free all of it except one page in every
 *                        2 MiB physical block it got (physical addresses from
 *                        /proc/self/pagemap, which needs root).  Prints one
 *                        line, then holds the kept pages until SIGTERM/SIGINT.
 *   frag demand SIZE     Map SIZE bytes with MADV_HUGEPAGE and touch them,
 *                        timing the fault and fill of every 2 MiB region
 *                        (the fault that tries for a huge page, compaction
 *                        included, and the rest of its 4 KiB pages), as
 *                        thp-alloc does.  Prints the share of SIZE that came as
 *                        huge pages and the latency percentiles.
 *
 * SIZE: integer bytes with optional K, M or G suffix (1024-based).
 * Output (one line each, key=value):
 *   fragment: bytes=B kept_pages=N seconds=T
 *   demand:   bytes=B thp_bytes=B thp_share=F regions=N p50_us=X p90_us=X
 *             p99_us=X max_us=X mean_us=X seconds=T
 * Exit status: 0 ok, 1 bad arguments, 2 system call failure.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "workload.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

#define PAGE_4K ((size_t)4096)
#define PAGES_PER_BLOCK (HUGE_2M / PAGE_4K)
#define PFN_MASK ((UINT64_C(1) << 55) - 1)
#define PM_PRESENT (UINT64_C(1) << 63)
#define PAGEMAP_BATCH ((size_t)65536) /* entries read per pread */

static volatile sig_atomic_t stop_sig;

static void on_signal(int sig)
{
        stop_sig = sig;
}

static double now_s(void)
{
        return (double)workload_now_ns() / (double)NSEC_PER_SEC;
}

static int fail(const char *what)
{
        fprintf(stderr, "frag: %s: %s\n", what, strerror(errno));
        return 2;
}

/* ---- fragment ---------------------------------------------------------- */

struct blocks {                 /* which 2 MiB physical blocks keep a page */
        unsigned char *seen;
        size_t cap;
        size_t count;
};

/* Returns true the first time a page of this block is seen. */
static bool first_in_block(struct blocks *b, uint64_t pfn)
{
        size_t i = (size_t)(pfn / PAGES_PER_BLOCK);
        if (i >= b->cap) {
                size_t cap = (i + 1) * 2;
                unsigned char *p = realloc(b->seen, cap);
                if (!p)
                        abort();
                memset(p + b->cap, 0, cap - b->cap);
                b->seen = p;
                b->cap = cap;
        }
        if (b->seen[i])
                return false;
        b->seen[i] = 1;
        b->count++;
        return true;
}

static void free_run(char *base, size_t first, size_t end)
{
        if (end > first)
                madvise(base + first * PAGE_4K, (end - first) * PAGE_4K, MADV_DONTNEED);
}

/* Frees every page except the first one met in each physical block.
 * Returns the number of pages kept, or -1 if pagemap cannot be read. */
static long keep_one_per_block(char *base, size_t pages)
{
        int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -1;
        uint64_t *pm = malloc(PAGEMAP_BATCH * sizeof(*pm));
        struct blocks b = { 0 };
        long kept = 0;
        size_t run = 0;         /* first page of the current run to free */
        for (size_t i = 0; pm && i < pages; i += PAGEMAP_BATCH) {
                size_t n = pages - i < PAGEMAP_BATCH ? pages - i : PAGEMAP_BATCH;
                off_t off = (off_t)(((uintptr_t)base / PAGE_4K + i) * sizeof(*pm));
                if (pread(fd, pm, n * sizeof(*pm), off) != (ssize_t)(n * sizeof(*pm))) {
                        kept = -1;
                        break;
                }
                for (size_t j = 0; j < n; j++) {
                        uint64_t pfn = pm[j] & PFN_MASK;
                        if (!(pm[j] & PM_PRESENT) || pfn == 0 || !first_in_block(&b, pfn))
                                continue;
                        free_run(base, run, i + j);
                        run = i + j + 1;
                        kept++;
                }
        }
        if (kept >= 0)
                free_run(base, run, pages);
        if (kept == 0)          /* no PFNs: not root, pagemap hides them */
                kept = -1;
        free(pm);
        free(b.seen);
        close(fd);
        return kept;
}

struct span {
        char *p;
        size_t len;
};

static void *populate(void *arg)
{
        struct span *s = arg;
        if (madvise(s->p, s->len, MADV_POPULATE_WRITE) != 0) {
                volatile char *v = s->p;        /* kernels before 5.14 */
                for (size_t off = 0; off < s->len; off += PAGE_4K)
                        v[off] = 1;
        }
        return NULL;
}

/* Fault the range in with one thread per CPU: faulting is CPU-bound. */
static void populate_parallel(char *p, size_t size)
{
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        size_t n = cpus < 1 ? 1 : cpus > 16 ? 16 : (size_t)cpus;
        size_t part = (size / n + HUGE_2M - 1) / HUGE_2M * HUGE_2M;
        pthread_t tid[16];
        struct span sp[16];
        size_t started = 0;
        for (size_t i = 0; i < n && i * part < size; i++) {
                sp[i] = (struct span){ p + i * part, size - i * part < part ? size - i * part : part };
                if (pthread_create(&tid[i], NULL, populate, &sp[i]) != 0) {
                        populate(&sp[i]);
                        continue;
                }
                started |= (size_t)1 << i;
        }
        for (size_t i = 0; i < n; i++)
                if (started & ((size_t)1 << i))
                        pthread_join(tid[i], NULL);
}

static int fragment(size_t size)
{
        double t0 = now_s();
        size = (size + HUGE_2M - 1) / HUGE_2M * HUGE_2M;
        char *p = workload_map_aligned(size);
        if (!p)
                return fail("mmap");
        if (madvise(p, size, MADV_NOHUGEPAGE) != 0)
                return fail("madvise(MADV_NOHUGEPAGE)");
        populate_parallel(p, size);
        long kept = keep_one_per_block(p, size / PAGE_4K);
        if (kept < 0) {
                fputs("frag: cannot read physical addresses from /proc/self/pagemap (needs root)\n", stderr);
                return 2;
        }
        printf("bytes=%zu kept_pages=%ld seconds=%.3f\n", size, kept, now_s() - t0);
        fflush(stdout);
        struct timespec slice = { .tv_nsec = 100L * 1000 * 1000 };
        while (!stop_sig)
                nanosleep(&slice, NULL);
        return 0;
}

/* ---- demand ------------------------------------------------------------ */

static int demand(size_t size)
{
        double t0 = now_s();
        size_t regions = (size + HUGE_2M - 1) / HUGE_2M;
        size = regions * HUGE_2M;
        double *lat = calloc(regions, sizeof(*lat));
        char *p = workload_map_aligned(size);
        if (!lat || !p || madvise(p, size, MADV_HUGEPAGE) != 0) {
                free(lat);
                return fail(!lat || !p ? "allocating" : "madvise(MADV_HUGEPAGE)");
        }
        volatile char *v = p;
        for (size_t r = 0; r < regions && !stop_sig; r++) {
                double a = now_s();
                for (size_t off = 0; off < HUGE_2M; off += PAGE_4K)
                        v[r * HUGE_2M + off] = 1;
                lat[r] = (now_s() - a) * 1e6;
        }
        if (stop_sig) {
                munmap(p, size);
                free(lat);
                return 128 + stop_sig;
        }
        long kb = workload_anon_huge_kb();
        size_t thp = kb < 0 ? 0 : (size_t)kb * 1024;
        double secs = now_s() - t0;
        struct workload_latency l = workload_latency_summary(lat, regions);
        printf("bytes=%zu thp_bytes=%zu thp_share=%.4f regions=%zu p50_us=%.1f p90_us=%.1f "
               "p99_us=%.1f max_us=%.1f mean_us=%.1f seconds=%.3f\n",
               size, thp, (double)thp / (double)size, regions,
               l.p50, l.p90, l.p99, l.max, l.mean, secs);
        fflush(stdout);
        munmap(p, size);
        free(lat);
        return 0;
}

int main(int argc, char **argv)
{
        size_t size;
        if (argc != 3 || !workload_parse_size(argv[2], &size) ||
            (strcmp(argv[1], "fragment") != 0 && strcmp(argv[1], "demand") != 0)) {
                fputs("usage: frag fragment SIZE | frag demand SIZE\n"
                      "  SIZE: integer bytes with optional K, M or G suffix (1024-based)\n", stderr);
                return 1;
        }
        struct sigaction sa = { .sa_handler = on_signal };
        sigemptyset(&sa.sa_mask);
        sigaction(SIGTERM, &sa, NULL);
        sigaction(SIGINT, &sa, NULL);
        return strcmp(argv[1], "fragment") == 0 ? fragment(size) : demand(size);
}
