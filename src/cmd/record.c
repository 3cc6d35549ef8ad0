/* Writing traces: the recorder the daemon uses, and `memoptimizer record`. */
#include "record.h"

#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "loop.h"
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

/* A tick due at the end of --duration ends it, whatever the rounding of
 * interval and duration to microseconds. */
#define DURATION_ROUNDING_SEC 1e-6

/* One run: the loop's timer samples; a stop signal or --duration ends it. */
struct record_run {
        struct recorder *rec;
        struct sample_reader *reader;
        struct sample s;
        double interval, duration;      /* duration 0: until a signal */
        uint64_t t0;                    /* when the first tick was due, µs */
        unsigned long ticks, written, failed;
};

static int on_tick(sd_event_source *src, uint64_t usec, void *userdata)
{
        struct record_run *x = userdata;
        sd_event *e = sd_event_source_get_event(src);
        if (x->ticks++ == 0)
                x->t0 = usec;
        int r = sample_read(x->reader, &x->s);
        if (r < 0 && x->failed++ == 0)
                fprintf(stderr, "memoptimizer record: skipping a sample: reading /proc failed: %s\n", strerror(-r));
        if (r >= 0 && (r = recorder_sample(x->rec, &x->s)) < 0) {
                fprintf(stderr, "memoptimizer record: writing %s: %s\n", recorder_path(x->rec), strerror(-r));
                return sd_event_exit(e, r);
        }
        x->written += r >= 0;
        uint64_t next;
        if ((r = loop_timer_next(src, x->interval)) < 0 || (r = sd_event_source_get_time(src, &next)) < 0)
                return sd_event_exit(e, r);
        if (x->duration > 0 && (double)(next - x->t0) / USEC_PER_SEC >= x->duration - DURATION_ROUNDING_SEC)
                return sd_event_exit(e, 0);
        return 0;
}

static int record_loop(struct record_run *x)
{
        int r = sample_reader_new(&x->reader, "");
        if (r < 0) {
                fprintf(stderr, "memoptimizer record: cannot set up sampling: %s\n", strerror(-r));
                return 2;
        }
        sd_event *e = NULL;
        sd_event_source *timer = NULL;
        if ((r = loop_new(&e, loop_stop, NULL, NULL)) >= 0 && (r = loop_timer_add(e, &timer, on_tick, x)) >= 0)
                r = sd_event_loop(e);
        else
                fprintf(stderr, "memoptimizer record: cannot set up the event loop: %s\n", strerror(-r));
        sd_event_source_unref(timer);
        sd_event_unref(e);
        sample_free(&x->s);
        sample_reader_free(x->reader);
        if (r < 0)
                return 2;
        fprintf(stderr, "memoptimizer record: %lu samples written to %s%s\n", x->written, recorder_path(x->rec),
                x->failed ? " (some samples could not be read)" : "");
        return 0;
}

int record_main(int argc, char **argv)
{
        struct record_opts o = { .output = "-", .interval = 1 };
        int r = record_args(argc, argv, &o);
        if (r >= 0)
                return r;
        /* The stop signals wait for the loop (blocked in main()), which
         * takes them between samples: the last line is always complete. */
        char err[ERR_MSG_MAX];
        struct record_run x = { .interval = o.interval, .duration = o.duration };
        if (recorder_open(&x.rec, o.output, "", "record", o.interval, 0, false, err, sizeof(err)) < 0) {
                fprintf(stderr, "memoptimizer record: %s\n", err);
                return 1;
        }
        int status = record_loop(&x);
        char path[PATH_MAX];
        snprintf(path, sizeof(path), "%s", recorder_path(x.rec));
        if ((r = recorder_close(x.rec)) < 0 && status == 0) {
                fprintf(stderr, "memoptimizer record: writing %s: %s\n", path, strerror(-r));
                status = 2;
        }
        return status;
}
