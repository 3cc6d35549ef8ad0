/* cc -O2 -Wall -Wextra -Werror -std=gnu11 -o thp-alloc thp-alloc.c
 *
 * thp-alloc: deterministic anonymous-memory workload for memoptimizer
 * benchmarks.  Maps SIZE bytes (2 MiB aligned), optionally asks for
 * transparent huge pages, touches one byte per 4 KiB page (optionally
 * paced to RATE bytes/s), holds, unmaps; repeats N times.  Times the fault
 * and fill of every 2 MiB region (pacing sleeps excluded): what the
 * application waits for, whether the kernel stalled in reclaim or
 * compaction or not.
 *
 * Output, one line per round:
 *   round=R bytes=B touch_seconds=T.ttt rate_MiBps=X thp_pages=N
 *   regions=N lat_mean_us=X lat_p50_us=X lat_p99_us=X lat_max_us=X
 * (thp_pages: AnonHugePages right after the touch).  --latencies FILE also
 * writes every region's latency in microseconds, one per line, for a
 * caller that merges several processes' percentiles.
 * Exit status: 0 ok, 1 bad arguments, 2 mmap failure or FILE not
 * writable, 128+sig on SIGTERM/SIGINT.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
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

#define PAGE_4K ((size_t)4096)
#define MIB ((double)(1 << 20))
#define SLEEP_SLICE_NS (100 * 1000000LL) /* bound on signal latency */

static volatile sig_atomic_t stop_sig;

struct opts {
        size_t size;
        size_t rate; /* bytes per second, 0 = unpaced */
        size_t chunk;
        int64_t hold_ns;
        int64_t pause_ns;
        unsigned long repeat;
        bool thp;
        const char *latencies; /* file for every region's latency, or NULL */
};

struct round_result {
        size_t bytes;
        double touch_s;
        long thp_pages;
        size_t regions;         /* 2 MiB regions touched */
        struct workload_latency lat;
};

static const char usage_text[] =
        "usage: thp-alloc --size SIZE [--rate RATE] [--hold DURATION] "
        "[--chunk SIZE] [--no-thp] [--repeat N] [--pause DURATION] [--latencies FILE]\n"
        "  SIZE/RATE: integer bytes with optional K, M or G suffix (1024-based)\n"
        "  DURATION:  integer with unit ns, us, ms, s, min or h (e.g. 500ms)\n";

static void usage(FILE *f)
{
        fputs(usage_text, f);
}

/* ---- argument parsing ------------------------------------------------ */

static bool parse_count(const char *s, unsigned long *out)
{
        char *end;
        uint64_t v;
        if (!workload_parse_u64(s, &end, &v) || *end != '\0' || v == 0 || v > ULONG_MAX)
                return false;
        *out = (unsigned long)v;
        return true;
}

static int bad_value(const char *opt, const char *val, const char *want)
{
        fprintf(stderr, "thp-alloc: invalid value '%s' for --%s: expected %s\n",
                val, opt, want);
        return 1;
}

enum { OPT_SIZE = 256, OPT_RATE, OPT_HOLD, OPT_CHUNK, OPT_NO_THP,
       OPT_REPEAT, OPT_PAUSE, OPT_LATENCIES, OPT_HELP };

static const struct option long_opts[] = {
        { "size", required_argument, NULL, OPT_SIZE },
        { "rate", required_argument, NULL, OPT_RATE },
        { "hold", required_argument, NULL, OPT_HOLD },
        { "chunk", required_argument, NULL, OPT_CHUNK },
        { "no-thp", no_argument, NULL, OPT_NO_THP },
        { "repeat", required_argument, NULL, OPT_REPEAT },
        { "pause", required_argument, NULL, OPT_PAUSE },
        { "latencies", required_argument, NULL, OPT_LATENCIES },
        { "help", no_argument, NULL, OPT_HELP },
        { NULL, 0, NULL, 0 },
};

#define SIZE_WANT "a non-zero size like 512M or 9G"
#define DUR_WANT "a duration with unit (ns, us, ms, s, min, h), e.g. 500ms"

/* Returns 0 if handled, 1 on a bad value. */
static int apply_opt(struct opts *o, int c, const char *arg)
{
        const char *name = long_opts[c - OPT_SIZE].name;
        switch (c) {
        case OPT_SIZE:
                return workload_parse_size(arg, &o->size) ? 0 : bad_value(name, arg, SIZE_WANT);
        case OPT_RATE:
                return workload_parse_size(arg, &o->rate) ? 0 : bad_value(name, arg, SIZE_WANT);
        case OPT_CHUNK:
                return workload_parse_size(arg, &o->chunk) ? 0 : bad_value(name, arg, SIZE_WANT);
        case OPT_HOLD:
                return workload_parse_duration(arg, &o->hold_ns) ? 0 : bad_value(name, arg, DUR_WANT);
        case OPT_PAUSE:
                return workload_parse_duration(arg, &o->pause_ns) ? 0 : bad_value(name, arg, DUR_WANT);
        case OPT_REPEAT:
                return parse_count(arg, &o->repeat) ? 0 :
                        bad_value(name, arg, "a positive integer");
        case OPT_NO_THP:
                o->thp = false;
                return 0;
        case OPT_LATENCIES:
                o->latencies = arg;
                return 0;
        default:
                return 1;
        }
}

/* After getopt_long returned '?': explain which option was wrong. */
static int bad_option(int argc, char **argv)
{
        int i = optind - 1;
        const char *arg = (i > 0 && i < argc) ? argv[i] : "?";
        if (optopt >= OPT_SIZE && optopt < OPT_HELP)
                fprintf(stderr, "thp-alloc: option --%s requires a value\n",
                        long_opts[optopt - OPT_SIZE].name);
        else
                fprintf(stderr, "thp-alloc: unknown option '%s'\n", arg);
        usage(stderr);
        return 1;
}

static size_t round_up(size_t v, size_t align)
{
        return (v + align - 1) / align * align;
}

/* Returns -1 to continue, otherwise the exit status. */
static int parse_args(int argc, char **argv, struct opts *o)
{
        *o = (struct opts){ .chunk = 64 << 20, .repeat = 1, .thp = true };
        opterr = 0;
        int c;
        while ((c = getopt_long(argc, argv, "h", long_opts, NULL)) != -1) {
                if (c == 'h' || c == OPT_HELP) {
                        usage(stdout);
                        return 0;
                }
                if (c == '?')
                        return bad_option(argc, argv);
                if (apply_opt(o, c, optarg) != 0)
                        return 1;
        }
        if (optind < argc) {
                fprintf(stderr, "thp-alloc: unexpected argument '%s'\n", argv[optind]);
                usage(stderr);
                return 1;
        }
        if (o->size == 0) {
                fputs("thp-alloc: --size is required\n", stderr);
                usage(stderr);
                return 1;
        }
        if (o->size > SIZE_MAX - HUGE_2M - PAGE_4K) {
                fputs("thp-alloc: --size too large\n", stderr);
                return 1;
        }
        o->size = round_up(o->size, PAGE_4K);
        o->chunk = round_up(o->chunk, PAGE_4K);
        return -1;
}

/* ---- time and signals ------------------------------------------------ */

static struct timespec to_timespec(int64_t ns)
{
        return (struct timespec){ .tv_sec = ns / NSEC_PER_SEC,
                                  .tv_nsec = ns % NSEC_PER_SEC };
}

/* Sleep until an absolute CLOCK_MONOTONIC deadline.  Sleeps in slices so
 * that a signal landing just before clock_nanosleep is noticed quickly;
 * each slice ends at an absolute time, so there is no drift. */
static void sleep_until(int64_t deadline)
{
        int64_t t = workload_now_ns();
        while (!stop_sig && t < deadline) {
                int64_t next = t + SLEEP_SLICE_NS;
                struct timespec ts = to_timespec(next < deadline ? next : deadline);
                clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
                t = workload_now_ns();
        }
}

static void on_signal(int sig)
{
        stop_sig = sig;
}

static void install_handlers(void)
{
        struct sigaction sa = { .sa_handler = on_signal };
        sigemptyset(&sa.sa_mask);
        sigaction(SIGTERM, &sa, NULL);
        sigaction(SIGINT, &sa, NULL);
}

/* ---- memory ------------------------------------------------------------ */

/* Touch [from, from + len) of the 2 MiB-aligned base, adding each 2 MiB
 * region's fault-and-fill time to lat_us[region]. */
static void touch_range(char *base, size_t from, size_t len, double *lat_us)
{
        volatile char *v = base;
        size_t end = from + len;
        while (from < end) {
                size_t region = from / HUGE_2M;
                size_t stop = (region + 1) * HUGE_2M < end ? (region + 1) * HUGE_2M : end;
                int64_t t = workload_now_ns();
                for (size_t off = from; off < stop; off += PAGE_4K)
                        v[off] = 1;
                lat_us[region] += (double)(workload_now_ns() - t) / 1e3;
                from = stop;
        }
}

static int64_t pace_offset_ns(size_t done, size_t rate)
{
        size_t secs = done / rate;
        size_t rem = done % rate;
        return (int64_t)secs * NSEC_PER_SEC +
               (int64_t)((double)rem * (double)NSEC_PER_SEC / (double)rate);
}

/* Touch in chunks; returns elapsed seconds (pacing sleeps included) and
 * the bytes touched in *done. */
static double touch_all(char *p, const struct opts *o, double *lat_us, size_t *done)
{
        int64_t t0 = workload_now_ns();
        *done = 0;
        while (*done < o->size && !stop_sig) {
                size_t n = o->size - *done < o->chunk ? o->size - *done : o->chunk;
                touch_range(p, *done, n, lat_us);
                *done += n;
                if (o->rate)
                        sleep_until(t0 + pace_offset_ns(*done, o->rate));
        }
        return (double)(workload_now_ns() - t0) / (double)NSEC_PER_SEC;
}

static size_t regions_of(size_t bytes)
{
        return (bytes + HUGE_2M - 1) / HUGE_2M;
}

/* Returns false if the file could not be written. */
static bool write_latencies(FILE *f, const double *lat_us, size_t n)
{
        for (size_t i = 0; i < n; i++)
                fprintf(f, "%.1f\n", lat_us[i]);
        return fflush(f) == 0 && !ferror(f);
}

/* AnonHugePages of the whole process, in 2 MiB pages; -1 if unreadable. */
static long read_thp_pages(void)
{
        long kb = workload_anon_huge_kb();
        return kb < 0 ? -1 : kb / 2048;
}

/* ---- rounds ------------------------------------------------------------ */

/* Returns 0 on success, 2 if mmap failed or latf could not be written. */
static int run_round(const struct opts *o, double *lat_us, FILE *latf, struct round_result *r)
{
        char *p = workload_map_aligned(o->size);
        if (!p) {
                fprintf(stderr, "thp-alloc: mmap of %zu bytes failed: %s\n",
                        o->size, strerror(errno));
                return 2;
        }
        if (o->thp && madvise(p, o->size, MADV_HUGEPAGE) != 0)
                fprintf(stderr, "thp-alloc: warning: madvise(MADV_HUGEPAGE): %s\n",
                        strerror(errno));
        r->bytes = o->size;
        memset(lat_us, 0, regions_of(o->size) * sizeof(*lat_us));
        size_t done;
        r->touch_s = touch_all(p, o, lat_us, &done);
        r->thp_pages = stop_sig ? -1 : read_thp_pages();
        r->regions = regions_of(done);
        if (!stop_sig)
                sleep_until(workload_now_ns() + o->hold_ns);
        munmap(p, o->size);
        if (latf && !write_latencies(latf, lat_us, r->regions)) {
                fprintf(stderr, "thp-alloc: cannot write %s: %s\n", o->latencies, strerror(errno));
                return 2;
        }
        r->lat = workload_latency_summary(lat_us, r->regions);
        return 0;
}

static void print_round(unsigned long round, const struct round_result *r)
{
        double rate = r->touch_s > 0 ? (double)r->bytes / MIB / r->touch_s : 0;
        printf("round=%lu bytes=%zu touch_seconds=%.3f rate_MiBps=%.1f thp_pages=%ld "
               "regions=%zu lat_mean_us=%.1f lat_p50_us=%.1f lat_p99_us=%.1f lat_max_us=%.1f\n",
               round, r->bytes, r->touch_s, rate, r->thp_pages, r->regions,
               r->lat.mean, r->lat.p50, r->lat.p99, r->lat.max);
        fflush(stdout);
}

static int run_rounds(const struct opts *o, double *lat_us, FILE *latf)
{
        for (unsigned long i = 1; i <= o->repeat && !stop_sig; i++) {
                if (i > 1)
                        sleep_until(workload_now_ns() + o->pause_ns);
                if (stop_sig)
                        break;
                struct round_result r;
                int rc = run_round(o, lat_us, latf, &r);
                if (rc != 0)
                        return rc;
                if (!stop_sig)
                        print_round(i, &r);
        }
        return stop_sig ? 128 + stop_sig : 0;
}

/* The file is the caller's (the benchmark's): refuse a symlink rather than
 * write through it. */
static FILE *open_latencies(const char *path)
{
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
        FILE *f = fd < 0 ? NULL : fdopen(fd, "w");
        if (!f) {
                fprintf(stderr, "thp-alloc: cannot open %s: %s\n", path, strerror(errno));
                if (fd >= 0)
                        close(fd);
        }
        return f;
}

static int run_all(const struct opts *o)
{
        double *lat_us = calloc(regions_of(o->size), sizeof(*lat_us));
        if (!lat_us) {
                fputs("thp-alloc: out of memory for the latencies\n", stderr);
                return 2;
        }
        FILE *latf = NULL;
        if (o->latencies && !(latf = open_latencies(o->latencies))) {
                free(lat_us);
                return 2;
        }
        int rc = run_rounds(o, lat_us, latf);
        if (latf && fclose(latf) != 0 && rc == 0) {
                fprintf(stderr, "thp-alloc: cannot write %s: %s\n", o->latencies, strerror(errno));
                rc = 2;
        }
        free(lat_us);
        return rc;
}

int main(int argc, char **argv)
{
        struct opts o;
        int rc = parse_args(argc, argv, &o);
        if (rc >= 0)
                return rc;
        install_handlers();
        return run_all(&o);
}
