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

#include "clock.h"
#include "config.h"
#include "recorder.h"
#include "sample-read.h"
#include "trace.h"
#include "util.h"

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
                        if (config_parse_interval(optarg, &o->interval) < 0) {
                                fprintf(stderr, "memoptimizer record: invalid --interval '%s'; allowed: " CONFIG_INTERVAL_RANGE ", with a unit (ms, s, min)\n", optarg);
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

/* Sleep until `until` (monotonic seconds); true when a stop signal came. */
static bool wait_or_signal(const sigset_t *stop, double until)
{
        for (;;) {
                double left = until - clock_secs(CLOCK_MONOTONIC);
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
        double t0 = clock_secs(CLOCK_MONOTONIC);
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
        char path[PATH_MAX];
        snprintf(path, sizeof(path), "%s", recorder_path(rec));
        if ((r = recorder_close(rec)) < 0 && status == 0) {
                fprintf(stderr, "memoptimizer record: writing %s: %s\n", path, strerror(-r));
                status = 2;
        }
        return status;
}
