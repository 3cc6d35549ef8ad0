/* overhead: the cost of one daemon cycle (sample, window, forecast, decide)
 * on this machine's real /proc, and the memory it needs.
 *   usage: overhead [CYCLES [GAP_MS]]
 * GAP_MS sleeps between cycles, as the daemon does, so caches go cold.
 * Prints CPU microseconds per cycle (user+system, from getrusage) and the
 * peak resident set. Under `valgrind --tool=callgrind` the instruction
 * count of the run is the stable figure. Writes nothing to the kernel. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "forecast.h"
#include "policy.h"
#include "sample.h"
#include "window.h"

static double cpu_seconds(void)
{
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
               (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

int main(int argc, char **argv)
{
        long cycles = argc > 1 ? strtol(argv[1], NULL, 10) : 10000;
        long gap_ms = argc > 2 ? strtol(argv[2], NULL, 10) : 0;
        if (cycles < 1 || gap_ms < 0) {
                fprintf(stderr, "usage: overhead [CYCLES [GAP_MS]]\n");
                return 1;
        }
        struct sample_reader *r;
        struct sample s = { 0 };
        struct window w;
        struct forecast f = { 0 };
        struct policy_state st;
        struct decision d;
        struct forecast_params fp = { .min_r2 = 0.6, .min_points = 8, .max_order = 9 };
        struct policy_config pc = { .interval = 1, .horizon = 10, .calm_period = 30, .lead_time = 10,
                                    .max_wsf = 1000, .oom_headroom = 0.05, .compaction = true };
        int e = sample_reader_new(&r, "");
        if (e < 0 || window_init(&w, 8) < 0) {
                fprintf(stderr, "overhead: setup failed: %s\n", strerror(-e));
                return 1;
        }
        policy_init(&st, 10);
        long decisions = 0;
        double t0 = cpu_seconds();
        struct timespec gap = { gap_ms / 1000, (gap_ms % 1000) * 1000000L };
        for (long i = 0; i < cycles; i++) {
                if (gap_ms)
                        nanosleep(&gap, NULL);
                if ((e = sample_read(r, &s)) < 0 || window_push(&w, &s) < 0) {
                        fprintf(stderr, "overhead: sample failed: %s\n", strerror(-e));
                        return 1;
                }
                st.kernel_seen = s.wsf;         /* decisions are not carried out */
                if (forecast_compute(&w, &fp, &f) == 0) {
                        policy_decide(&st, &pc, &f, &d);
                        decisions += d.reason != WSF_KEEP || d.nr_compact;
                }
        }
        double per = (cpu_seconds() - t0) / (double)cycles;
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        printf("cycles %ld\ncpu_us_per_cycle %.1f\nshare_of_core_at_1s %.4f%%\nmax_rss_kib %ld\ndecisions %ld\n",
               cycles, per * 1e6, per * 100, ru.ru_maxrss, decisions);
        forecast_free(&f);
        window_free(&w);
        sample_free(&s);
        sample_reader_free(r);
        return 0;
}
