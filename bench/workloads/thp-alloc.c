/* cc -O2 -Wall -Wextra -Werror -std=gnu11 -o thp-alloc thp-alloc.c
 *
 * thp-alloc: deterministic anonymous-memory workload for memoptimizer
 * benchmarks.  Maps SIZE bytes (2 MiB aligned), optionally asks for
 * transparent huge pages, touches one byte per 4 KiB page (optionally
 * paced to RATE bytes/s), holds, unmaps; repeats N times.
 *
 * Output, one line per round:
 *   round=R bytes=B touch_seconds=T.ttt rate_MiBps=X thp_pages=N
 * Exit status: 0 ok, 1 bad arguments, 2 mmap failure, 128+sig on
 * SIGTERM/SIGINT.
 */
#define _GNU_SOURCE

#include <errno.h>
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

#include "workload.h"

#define PAGE_4K ((size_t)4096)
#define MIB ((double)(1 << 20))
#define NSEC_PER_SEC 1000000000LL
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
};

struct round_result {
        size_t bytes;
        double touch_s;
        long thp_pages;
};

static const char usage_text[] =
        "usage: thp-alloc --size SIZE [--rate RATE] [--hold DURATION] "
        "[--chunk SIZE] [--no-thp] [--repeat N] [--pause DURATION]\n"
        "  SIZE/RATE: integer bytes with optional K, M or G suffix (1024-based)\n"
        "  DURATION:  integer with unit ns, us, ms, s, min or h (e.g. 500ms)\n";

static void usage(FILE *f)
{
        fputs(usage_text, f);
}

/* ---- argument parsing ------------------------------------------------ */

static bool parse_u64(const char *s, char **end, uint64_t *out)
{
        if (*s < '0' || *s > '9')
                return false;
        errno = 0;
        unsigned long long v = strtoull(s, end, 10);
        if (errno == ERANGE)
                return false;
        *out = v;
        return true;
}

static int64_t unit_ns(const char *unit)
{
        static const struct { const char *name; int64_t ns; } units[] = {
                { "ns", 1 }, { "us", 1000 }, { "ms", 1000000 },
                { "s", NSEC_PER_SEC }, { "min", 60 * NSEC_PER_SEC },
                { "h", 3600 * NSEC_PER_SEC },
        };
        for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
                if (strcmp(unit, units[i].name) == 0)
                        return units[i].ns;
        return 0;
}

static bool parse_duration(const char *s, int64_t *out)
{
        char *end;
        uint64_t v;
        if (!parse_u64(s, &end, &v))
                return false;
        int64_t mult = unit_ns(end);
        if (mult == 0 || v > (uint64_t)(INT64_MAX / mult))
                return false;
        *out = (int64_t)v * mult;
        return true;
}

static bool parse_count(const char *s, unsigned long *out)
{
        char *end;
        uint64_t v;
        if (!parse_u64(s, &end, &v) || *end != '\0' || v == 0 || v > ULONG_MAX)
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
       OPT_REPEAT, OPT_PAUSE, OPT_HELP };

static const struct option long_opts[] = {
        { "size", required_argument, NULL, OPT_SIZE },
        { "rate", required_argument, NULL, OPT_RATE },
        { "hold", required_argument, NULL, OPT_HOLD },
        { "chunk", required_argument, NULL, OPT_CHUNK },
        { "no-thp", no_argument, NULL, OPT_NO_THP },
        { "repeat", required_argument, NULL, OPT_REPEAT },
        { "pause", required_argument, NULL, OPT_PAUSE },
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
                return parse_duration(arg, &o->hold_ns) ? 0 : bad_value(name, arg, DUR_WANT);
        case OPT_PAUSE:
                return parse_duration(arg, &o->pause_ns) ? 0 : bad_value(name, arg, DUR_WANT);
        case OPT_REPEAT:
                return parse_count(arg, &o->repeat) ? 0 :
                        bad_value(name, arg, "a positive integer");
        case OPT_NO_THP:
                o->thp = false;
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

static int64_t now_ns(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

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
        int64_t t = now_ns();
        while (!stop_sig && t < deadline) {
                int64_t next = t + SLEEP_SLICE_NS;
                struct timespec ts = to_timespec(next < deadline ? next : deadline);
                clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
                t = now_ns();
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

static void touch_range(char *p, size_t len)
{
        volatile char *v = p;
        for (size_t off = 0; off < len; off += PAGE_4K)
                v[off] = 1;
}

static int64_t pace_offset_ns(size_t done, size_t rate)
{
        size_t secs = done / rate;
        size_t rem = done % rate;
        return (int64_t)secs * NSEC_PER_SEC +
               (int64_t)((double)rem * (double)NSEC_PER_SEC / (double)rate);
}

/* Touch in chunks; returns elapsed seconds (pacing sleeps included). */
static double touch_all(char *p, const struct opts *o)
{
        int64_t t0 = now_ns();
        size_t done = 0;
        while (done < o->size && !stop_sig) {
                size_t n = o->size - done < o->chunk ? o->size - done : o->chunk;
                touch_range(p + done, n);
                done += n;
                if (o->rate)
                        sleep_until(t0 + pace_offset_ns(done, o->rate));
        }
        return (double)(now_ns() - t0) / (double)NSEC_PER_SEC;
}

/* AnonHugePages of the whole process, in 2 MiB pages; -1 if unreadable. */
static long read_thp_pages(void)
{
        long kb = workload_anon_huge_kb();
        return kb < 0 ? -1 : kb / 2048;
}

/* ---- rounds ------------------------------------------------------------ */

/* Returns 0 on success, 2 if mmap failed. */
static int run_round(const struct opts *o, struct round_result *r)
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
        r->touch_s = touch_all(p, o);
        if (!stop_sig)
                sleep_until(now_ns() + o->hold_ns);
        r->thp_pages = stop_sig ? -1 : read_thp_pages();
        munmap(p, o->size);
        return 0;
}

static void print_round(unsigned long round, const struct round_result *r)
{
        double rate = r->touch_s > 0 ? (double)r->bytes / MIB / r->touch_s : 0;
        printf("round=%lu bytes=%zu touch_seconds=%.3f rate_MiBps=%.1f thp_pages=%ld\n",
               round, r->bytes, r->touch_s, rate, r->thp_pages);
        fflush(stdout);
}

static int run_all(const struct opts *o)
{
        for (unsigned long i = 1; i <= o->repeat && !stop_sig; i++) {
                if (i > 1)
                        sleep_until(now_ns() + o->pause_ns);
                if (stop_sig)
                        break;
                struct round_result r;
                int rc = run_round(o, &r);
                if (rc != 0)
                        return rc;
                if (!stop_sig)
                        print_round(i, &r);
        }
        return stop_sig ? 128 + stop_sig : 0;
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
