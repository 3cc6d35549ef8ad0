/* cycle.h — one daemon cycle on this machine's real /proc, for the
 * overhead benchmarks: sample_read() then the engine's step (window,
 * forecast, policy) with the default configuration, as in dry-run (nothing
 * is written to the kernel). */
#pragma once

#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "config.h"
#include "engine.h"
#include "sample-read.h"

struct cycle {
        struct sample_reader *reader;
        struct sample sample;
        struct engine engine;
        struct engine_params params;
        struct decision decision;
};

static inline double cpu_seconds(void)
{
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
               (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

/* Returns 1 when the policy decided, 0 when there was no forecast yet. */
static inline int cycle_step(struct cycle *c)
{
        bool restarted;
        int e = sample_read(c->reader, &c->sample);
        if (e >= 0)
                e = engine_step(&c->engine, &c->params, &c->sample, &c->decision, &restarted);
        if (e < 0)
                fprintf(stderr, "cycle: %s\n", strerror(-e));
        return e;
}

/* Ready with a full window, so that every later step forecasts. */
static inline int cycle_init(struct cycle *c)
{
        struct config cfg;
        memset(c, 0, sizeof(*c));
        config_defaults(&cfg);
        config_engine_params(&c->params, &cfg, false, 4096, 2 << 20);
        if (sample_reader_new(&c->reader, "") < 0 || engine_init(&c->engine, cfg.window, 10, 10) < 0)
                return -1;
        for (unsigned i = 0; i < cfg.window; i++)
                if (cycle_step(c) < 0)
                        return -1;
        return 0;
}

static inline void cycle_free(struct cycle *c)
{
        engine_free(&c->engine);
        sample_free(&c->sample);
        sample_reader_free(c->reader);
}
