/* Writing traces: the recorder the daemon uses, and `memoptimizer record`. */
#include "record.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "daemon.h"
#include "trace.h"
#include "util.h"

struct recorder {
        FILE *f;
        bool own;
        char path[4096];
        char *root;                     /* for the header of a new file */
        char source[16];
        double interval;
        uint64_t max_size;              /* 0: no limit */
};

static void header_from_system(struct trace_header *h, const char *root, const char *source,
                               double interval)
{
        struct utsname u;
        *h = (struct trace_header){ .version = TRACE_VERSION, .interval = interval,
                                    .page_size = sysconf(_SC_PAGESIZE),
                                    .thp_pmd_size = thp_pmd_size(root) };
        snprintf(h->source, sizeof(h->source), "%s", source);
        snprintf(h->program, sizeof(h->program), "memoptimizer %s", PACKAGE_VERSION);
        snprintf(h->kernel, sizeof(h->kernel), "%s", uname(&u) == 0 ? u.release : "unknown");
        time_t now = time(NULL);
        struct tm tm;
        if (gmtime_r(&now, &tm))
                strftime(h->started, sizeof(h->started), "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* Create or truncate r->path (or take standard output) and write its header. */
static int open_file(struct recorder *r)
{
        r->f = r->own ? fopen(r->path, "we") : stdout;
        if (!r->f)
                return -errno;
        struct trace_header h;
        header_from_system(&h, r->root, r->source, r->interval);
        return trace_write_header(r->f, &h);
}

static void recorder_free(struct recorder *r)
{
        if (r->f && r->own)
                fclose(r->f);
        free(r->root);
        free(r);
}

int recorder_open(struct recorder **out, const char *path, const char *root, const char *source,
                  double interval, uint64_t max_size, char *err, size_t errsz)
{
        struct recorder *r = calloc(1, sizeof(*r));
        if (!r)
                return -ENOMEM;
        bool is_stdout = strcmp(path, "-") == 0;
        snprintf(r->path, sizeof(r->path), "%s", is_stdout ? "standard output" : path);
        snprintf(r->source, sizeof(r->source), "%s", source);
        r->interval = interval;
        r->max_size = is_stdout ? 0 : max_size;
        r->own = !is_stdout;
        r->root = strdup(root ? root : "");
        int e = r->root ? open_file(r) : -ENOMEM;
        if (e < 0) {
                snprintf(err, errsz, "cannot write %s: %s", r->path, strerror(-e));
                recorder_free(r);
                return e;
        }
        *out = r;
        return 0;
}

/* FILE becomes FILE.1 (replacing an older one) and FILE starts afresh with
 * its own header, so both are traces replay reads whole. */
static int rotate(struct recorder *r)
{
        char old[sizeof(r->path) + 2];
        snprintf(old, sizeof(old), "%s.1", r->path);
        int e = fclose(r->f) == 0 ? 0 : -errno;
        r->f = NULL;
        if (e == 0 && rename(r->path, old) < 0)
                e = -errno;
        return e < 0 ? e : open_file(r);
}

int recorder_configure(struct recorder *r, double interval, uint64_t max_size)
{
        if (r->own)
                r->max_size = max_size;
        if (interval == r->interval)
                return 0;
        r->interval = interval;
        if (!r->own)
                return 0;
        int e = rotate(r);
        return e < 0 ? e : 1;
}

int recorder_sample(struct recorder *r, const struct sample *s)
{
        int rotated = 0;
        if (r->max_size) {
                long at = ftell(r->f);
                if (at < 0)
                        return -errno;
                if ((uint64_t)at >= r->max_size) {
                        int e = rotate(r);
                        if (e < 0)
                                return e;
                        rotated = 1;
                }
        }
        int e = trace_write_sample(r->f, s);
        return e < 0 ? e : rotated;
}

int recorder_decision(struct recorder *r, double time, const struct decision *d, bool acting)
{
        if (!trace_decision_worth(d))
                return 0;
        struct trace_decision td = { .time = time, .acting = acting, .d = *d };
        return trace_write_decision(r->f, &td);
}

int recorder_close(struct recorder *r)
{
        if (!r)
                return 0;
        int e = 0;
        if (r->f) {             /* NULL after a failed rotation */
                e = fflush(r->f) == 0 ? 0 : -errno;
                if (r->own && fclose(r->f) != 0 && e == 0)
                        e = -errno;
                r->f = NULL;
        }
        recorder_free(r);
        return e;
}

const char *recorder_path(const struct recorder *r)
{
        return r->path;
}

/* ---- memoptimizer record ------------------------------------------------- */

struct record_opts {
        const char *output;
        double interval, duration;      /* duration 0: until a signal */
};

static void record_usage(FILE *out)
{
        fprintf(out, "Usage: memoptimizer record [-o FILE] [--interval=D] [--duration=D]\n"
                     "Write the kernel's memory state every interval to FILE (default: standard\n"
                     "output) as a trace for `memoptimizer replay`. Needs no root; writes nothing to\n"
                     "the kernel. Stops on SIGINT or SIGTERM, or after --duration. See memoptimizer(8).\n");
}

/* Returns -1 to go on, else an exit status. */
static int record_args(int argc, char **argv, struct record_opts *o)
{
        static const struct option longopts[] = {
                { "output", required_argument, NULL, 'o' },
                { "interval", required_argument, NULL, 'i' },
                { "duration", required_argument, NULL, 'd' },
                { "help", no_argument, NULL, 'h' },
                {}
        };
        int ch;
        while ((ch = getopt_long(argc, argv, "o:i:d:h", longopts, NULL)) != -1) {
                switch (ch) {
                case 'o':
                        o->output = optarg;
                        break;
                case 'i':
                        if (parse_duration(optarg, &o->interval) < 0 || o->interval < 0.1 || o->interval > 60) {
                                fprintf(stderr, "memoptimizer record: invalid --interval '%s'; allowed: 100ms..60s, with a unit (ms, s, min)\n", optarg);
                                return 1;
                        }
                        break;
                case 'd':
                        if (parse_duration(optarg, &o->duration) < 0 || o->duration <= 0) {
                                fprintf(stderr, "memoptimizer record: invalid --duration '%s'; a positive duration with a unit (ms, s, min, h)\n", optarg);
                                return 1;
                        }
                        break;
                case 'h':
                        record_usage(stdout);
                        return 0;
                default:
                        fprintf(stderr, "Try 'memoptimizer record --help'.\n");
                        return 1;
                }
        }
        if (optind < argc) {
                fprintf(stderr, "memoptimizer record: unexpected argument '%s'\n", argv[optind]);
                return 1;
        }
        return -1;
}

static double now_mono(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Sleep until `until` (monotonic seconds); true when a stop signal came. */
static bool wait_or_signal(const sigset_t *stop, double until)
{
        for (;;) {
                double left = until - now_mono();
                if (left <= 0)
                        return false;
                struct timespec ts = { .tv_sec = (time_t)left,
                                       .tv_nsec = (long)((left - floor(left)) * 1e9) };
                int sig = sigtimedwait(stop, NULL, &ts);
                if (sig > 0)
                        return true;
                if (errno != EINTR)
                        return false;
        }
}

static int record_loop(struct recorder *rec, const struct record_opts *o, const sigset_t *stop)
{
        struct sample_reader *reader;
        int r = sample_reader_new(&reader, "");
        if (r < 0) {
                fprintf(stderr, "memoptimizer record: cannot set up sampling: %s\n", strerror(-r));
                return 2;
        }
        struct sample s = { 0 };
        double t0 = now_mono();
        unsigned long n = 0, failed = 0;
        int status = 0;
        for (unsigned long k = 0; ; k++) {
                r = sample_read(reader, &s);
                if (r < 0 && failed++ == 0)
                        fprintf(stderr, "memoptimizer record: skipping a sample: reading /proc failed: %s\n", strerror(-r));
                if (r >= 0 && (r = recorder_sample(rec, &s)) < 0) {
                        fprintf(stderr, "memoptimizer record: writing %s: %s\n", recorder_path(rec), strerror(-r));
                        status = 2;
                        break;
                }
                n += r >= 0;
                double next = t0 + (double)(k + 1) * o->interval;
                if (o->duration > 0 && next - t0 >= o->duration - 1e-9)
                        break;
                if (wait_or_signal(stop, next))
                        break;
        }
        sample_free(&s);
        sample_reader_free(reader);
        if (status == 0)
                fprintf(stderr, "memoptimizer record: %lu samples written to %s%s\n", n, recorder_path(rec),
                        failed ? " (some samples could not be read)" : "");
        return status;
}

int record_main(int argc, char **argv)
{
        struct record_opts o = { .output = "-", .interval = 1 };
        int r = record_args(argc, argv, &o);
        if (r >= 0)
                return r;
        /* Stop signals are taken synchronously, between samples, so the
         * last line is always complete. */
        sigset_t stop;
        sigemptyset(&stop);
        sigaddset(&stop, SIGINT);
        sigaddset(&stop, SIGTERM);
        sigprocmask(SIG_BLOCK, &stop, NULL);
        signal(SIGPIPE, SIG_IGN);
        char err[ERR_MSG_MAX];
        struct recorder *rec;
        if (recorder_open(&rec, o.output, "", "record", o.interval, 0, err, sizeof(err)) < 0) {
                fprintf(stderr, "memoptimizer record: %s\n", err);
                return 1;
        }
        int status = record_loop(rec, &o, &stop);
        char path[sizeof(rec->path)];
        snprintf(path, sizeof(path), "%s", recorder_path(rec));
        if ((r = recorder_close(rec)) < 0 && status == 0) {
                fprintf(stderr, "memoptimizer record: writing %s: %s\n", path, strerror(-r));
                status = 2;
        }
        return status;
}
