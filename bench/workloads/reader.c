/* reader: the cache-sensitive application of the memoptimizer benchmark.
 *
 *   reader [--block SIZE] [--seed N] [--interval DURATION]
 *          [--duration DURATION] FILE...
 *
 * Reads blocks of SIZE (default 1M) at random block-aligned offsets,
 * uniformly over all the FILEs together, with pread(2) through the page
 * cache, as fast as it can, until SIGTERM/SIGINT or --duration.  Nothing it
 * does drops the cache (no O_DIRECT, no POSIX_FADV_DONTNEED); it only says
 * POSIX_FADV_RANDOM, so that a miss reads the block and no readahead
 * around it.  Pages it finds missing are refaults the kernel counts in
 * /proc/vmstat (workingset_refault_file); a process cannot count its own.
 *
 * Output: one JSON object per line every DURATION (default 1s), and one
 * for the last partial interval:
 *   {"t":T,"s":S,"bytes":B,"mib_s":X,"reads":N,"max_read_us":M}
 * t: CLOCK_MONOTONIC seconds at the interval's end (the clock of the
 * caller's time.monotonic()), s: the interval's length in seconds.
 * Exit status: 0 ok (also when stopped by SIGTERM/SIGINT, its normal end),
 * 1 bad arguments, 2 a file cannot be opened or read.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "workload.h"

#define MAX_FILES 256

static volatile sig_atomic_t stop_sig;

struct file {
        int fd;
        const char *name;
        uint64_t first_block;   /* index of its first block in the whole set */
};

struct set {
        struct file files[MAX_FILES];
        size_t n;
        uint64_t blocks;        /* in all files */
        size_t block;
};

struct opts {
        size_t block;
        uint64_t seed;
        int64_t interval_ns;
        int64_t duration_ns;    /* 0: until a signal */
};

struct interval {
        int64_t start_ns;
        uint64_t bytes, reads;
        int64_t max_read_ns;
};

static void on_signal(int sig)
{
        stop_sig = sig;
}

static int usage(FILE *f, int rc)
{
        fputs("usage: reader [--block SIZE] [--seed N] [--interval DURATION] "
              "[--duration DURATION] FILE...\n"
              "  SIZE: integer bytes with optional K, M or G suffix (1024-based)\n"
              "  DURATION: integer with unit ns, us, ms, s, min or h (e.g. 500ms)\n", f);
        return rc;
}

/* Returns -1 to go on, otherwise the exit status. */
static int parse_args(int argc, char **argv, struct opts *o)
{
        static const struct option lo[] = {
                { "block", required_argument, NULL, 'b' },
                { "seed", required_argument, NULL, 's' },
                { "interval", required_argument, NULL, 'i' },
                { "duration", required_argument, NULL, 'd' },
                { "help", no_argument, NULL, 'h' },
                { NULL, 0, NULL, 0 },
        };
        *o = (struct opts){ .block = 1 << 20, .seed = 1, .interval_ns = NSEC_PER_SEC };
        opterr = 0;
        int c, idx = 0;
        while ((c = getopt_long(argc, argv, "h", lo, &idx)) != -1) {
                char *end;
                bool ok;
                switch (c) {
                case 'b': ok = workload_parse_size(optarg, &o->block) && o->block % 4096 == 0 &&
                               o->block <= (1 << 30); break;
                case 's': ok = workload_parse_u64(optarg, &end, &o->seed) && *end == '\0'; break;
                case 'i': ok = workload_parse_duration(optarg, &o->interval_ns) &&
                               o->interval_ns >= NSEC_PER_SEC / 100; break;
                case 'd': ok = workload_parse_duration(optarg, &o->duration_ns) &&
                               o->duration_ns > 0; break;
                case 'h': return usage(stdout, 0);
                default:
                        fprintf(stderr, "reader: unknown option or missing value: '%s'\n",
                                argv[optind - 1]);
                        return usage(stderr, 1);
                }
                if (!ok) {
                        fprintf(stderr, "reader: invalid value '%s' for --%s\n", optarg, lo[idx].name);
                        return 1;
                }
        }
        if (optind == argc)
                return usage(stderr, 1);
        if (argc - optind > MAX_FILES) {
                fprintf(stderr, "reader: at most %d files\n", MAX_FILES);
                return 1;
        }
        return -1;
}

/* Opens every file; files shorter than a block are refused, not skipped:
 * the set's size is the caller's choice and must be what it asked for. */
static int open_set(struct set *s, char **names, size_t n, size_t block)
{
        s->n = 0;
        s->blocks = 0;
        s->block = block;
        for (size_t i = 0; i < n; i++) {
                struct file *f = &s->files[s->n];
                struct stat st;
                f->name = names[i];
                f->fd = open(names[i], O_RDONLY | O_CLOEXEC);
                if (f->fd < 0 || fstat(f->fd, &st) != 0) {
                        fprintf(stderr, "reader: %s: %s\n", names[i], strerror(errno));
                        return 2;
                }
                s->n++;
                if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size < block) {
                        fprintf(stderr, "reader: %s: not a regular file of at least one block (%zu bytes)\n",
                                names[i], block);
                        return 2;
                }
                f->first_block = s->blocks;
                s->blocks += (uint64_t)st.st_size / block;
                posix_fadvise(f->fd, 0, 0, POSIX_FADV_RANDOM);
        }
        return 0;
}

/* xorshift64*: cheap, and the same sequence for the same seed. */
static uint64_t next_random(uint64_t *x)
{
        *x ^= *x >> 12;
        *x ^= *x << 25;
        *x ^= *x >> 27;
        return *x * UINT64_C(2685821657736338717);
}

static const struct file *file_of(const struct set *s, uint64_t block)
{
        size_t lo = 0, hi = s->n;       /* the last file whose first_block <= block */
        while (hi - lo > 1) {
                size_t mid = (lo + hi) / 2;
                if (s->files[mid].first_block <= block)
                        lo = mid;
                else
                        hi = mid;
        }
        return &s->files[lo];
}

/* Reads one whole block; returns bytes read or -1 with errno set. */
static ssize_t read_block(const struct file *f, char *buf, size_t block, off_t off)
{
        size_t done = 0;
        while (done < block) {
                ssize_t r = pread(f->fd, buf + done, block - done, off + (off_t)done);
                if (r < 0 && errno == EINTR && !stop_sig)
                        continue;
                if (r <= 0)
                        return r < 0 ? -1 : (ssize_t)done;
                done += (size_t)r;
        }
        return (ssize_t)done;
}

static void report(const struct interval *iv, int64_t now)
{
        double s = (double)(now - iv->start_ns) / (double)NSEC_PER_SEC;
        printf("{\"t\":%.3f,\"s\":%.3f,\"bytes\":%llu,\"mib_s\":%.1f,\"reads\":%llu,\"max_read_us\":%.1f}\n",
               (double)now / (double)NSEC_PER_SEC, s, (unsigned long long)iv->bytes,
               s > 0 ? (double)iv->bytes / (double)(1 << 20) / s : 0.0,
               (unsigned long long)iv->reads, (double)iv->max_read_ns / 1e3);
        fflush(stdout);
}

static int read_loop(const struct set *s, const struct opts *o, char *buf)
{
        if (s->blocks == 0)     /* open_set refuses that; for the reader of this code */
                return 2;
        uint64_t x = o->seed ? o->seed : 1;
        int64_t start = workload_now_ns();
        struct interval iv = { .start_ns = start };
        while (!stop_sig) {
                uint64_t b = next_random(&x) % s->blocks;
                const struct file *f = file_of(s, b);
                int64_t t = workload_now_ns();
                ssize_t r = read_block(f, buf, s->block, (off_t)((b - f->first_block) * s->block));
                int64_t now = workload_now_ns();
                if (r < 0 && !stop_sig) {
                        fprintf(stderr, "reader: %s: %s\n", f->name, strerror(errno));
                        return 2;
                }
                iv.bytes += r > 0 ? (uint64_t)r : 0;
                iv.reads++;
                if (now - t > iv.max_read_ns)
                        iv.max_read_ns = now - t;
                if (o->duration_ns && now - start >= o->duration_ns)
                        break;
                if (now - iv.start_ns >= o->interval_ns) {
                        report(&iv, now);
                        iv = (struct interval){ .start_ns = now };
                }
        }
        report(&iv, workload_now_ns());
        return 0;
}

int main(int argc, char **argv)
{
        struct opts o;
        int rc = parse_args(argc, argv, &o);
        if (rc >= 0)
                return rc;
        static struct set s;
        rc = open_set(&s, argv + optind, (size_t)(argc - optind), o.block);
        char *buf = rc == 0 ? aligned_alloc(4096, o.block) : NULL;
        if (rc == 0 && !buf) {
                fputs("reader: out of memory for the buffer\n", stderr);
                rc = 2;
        }
        if (rc == 0) {
                struct sigaction sa = { .sa_handler = on_signal };
                sigemptyset(&sa.sa_mask);
                sigaction(SIGTERM, &sa, NULL);
                sigaction(SIGINT, &sa, NULL);
                rc = read_loop(&s, &o, buf);
        }
        free(buf);
        for (size_t i = 0; i < s.n; i++)
                close(s.files[i].fd);
        return rc;
}
