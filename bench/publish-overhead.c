/* publish-overhead: CPU per call of what the daemon adds each cycle to
 * publish its view, on a real sample and forecast of this machine:
 * publish_cycle() (counting, live.json built and written to DIR, and the
 * metrics file too when METRICS_DIR is given and a second has passed), and
 * building each document alone.
 *   usage: publish-overhead CYCLES DIR [METRICS_DIR]
 * Use a tmpfs DIR (/dev/shm) to match /run. Writes nothing to the kernel. */
#include <stdlib.h>
#include <syslog.h>

#include "cycle.h"
#include "publish.h"

int main(int argc, char **argv)
{
        long n = argc >= 3 ? strtol(argv[1], NULL, 10) : 0;
        if (n < 1) {
                fprintf(stderr, "usage: publish-overhead CYCLES DIR [METRICS_DIR]\n");
                return 1;
        }
        struct cycle c;
        if (cycle_init(&c) < 0)
                return 1;

        struct config cfg;
        config_defaults(&cfg);
        snprintf(cfg.metrics_dir, sizeof(cfg.metrics_dir), "%s", argc > 3 ? argv[3] : "");
        cfg.metrics_interval = 1;
        struct logger log;
        log_init(&log, LOG_ERR);
        struct publisher p;
        publish_init(&p);
        struct publish_input in = { .cfg = &cfg, .state_dir = argv[2], .log = &log, .mode = MODE_DRY_RUN,
                                    .sample = &c.sample, .forecast = &c.engine.forecast,
                                    .decision = &c.decision, .policy = &c.engine.policy };
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
        cycle_free(&c);
        return 0;
}
