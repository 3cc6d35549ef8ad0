/* publish-overhead: CPU per call of what the daemon adds each cycle to
 * publish its view, on a real sample and forecast of this machine:
 * publish_cycle() (counting, live.json built and written to DIR, and the
 * metrics file too when METRICS_DIR is given and a second has passed), and
 * building each document alone.
 *   usage: publish-overhead CYCLES DIR [METRICS_DIR]
 * Use a tmpfs DIR (/dev/shm) to match /run. Writes nothing to the kernel. */
#include <stdio.h>
#include <stdlib.h>
#include <syslog.h>
#include <sys/resource.h>

#include "forecast.h"
#include "policy.h"
#include "publish.h"
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
        long n = argc >= 3 ? strtol(argv[1], NULL, 10) : 0;
        if (n < 1) {
                fprintf(stderr, "usage: publish-overhead CYCLES DIR [METRICS_DIR]\n");
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
        if (sample_reader_new(&r, "") < 0 || window_init(&w, 8) < 0)
                return 1;
        for (int i = 0; i < 8; i++)
                if (sample_read(r, &s) < 0 || window_push(&w, &s) < 0)
                        return 1;
        if (forecast_compute(&w, &fp, &f) < 0)
                return 1;
        policy_init(&st, 10);
        policy_decide(&st, &pc, &f, &d);

        struct config cfg;
        config_defaults(&cfg);
        snprintf(cfg.metrics_dir, sizeof(cfg.metrics_dir), "%s", argc > 3 ? argv[3] : "");
        cfg.metrics_interval = 1;
        struct logger log;
        log_init(&log, LOG_ERR);
        struct publisher p;
        publish_init(&p);
        struct publish_input in = { .cfg = &cfg, .state_dir = argv[2], .log = &log, .mode = MODE_DRY_RUN,
                                    .sample = &s, .forecast = &f, .decision = &d, .policy = &st };
        double t0 = cpu_seconds();
        for (long i = 0; i < n; i++)
                publish_cycle(&p, &in);
        double cycle = (cpu_seconds() - t0) / (double)n;
        t0 = cpu_seconds();
        for (long i = 0; i < n; i++)
                free(publish_live_json(&p, &in, 1, 1));
        double live = (cpu_seconds() - t0) / (double)n;
        t0 = cpu_seconds();
        for (long i = 0; i < n; i++)
                free(publish_metrics_text(&p, &in, 1, 1));
        double metrics = (cpu_seconds() - t0) / (double)n;
        printf("publish_cycle %.1f us; building live.json %.1f us; building the metrics text %.1f us\n",
               cycle * 1e6, live * 1e6, metrics * 1e6);
        publish_stop(&p, argv[2]);
        forecast_free(&f);
        window_free(&w);
        sample_free(&s);
        sample_reader_free(r);
        return 0;
}
