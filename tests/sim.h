/* sim.h — drives the engine (window -> forecast -> policy) over synthetic
 * samples the way the daemon does, with the "kernel" taking every value
 * written. */
#pragma once

#include "engine.h"
#include "synth.h"

struct sim {
        struct engine e;
        struct engine_params p;
        long kernel_wsf;
        double t_offset;        /* added to every step's time (sim_step_shift()) */
};

static inline void sim_init(struct sim *s, long boot)
{
        memset(s, 0, sizeof(*s));
        assert_int_equal(engine_init(&s->e, 8, boot, boot), 0);
        s->kernel_wsf = boot;
        s->p.policy = (struct policy_config){
                .interval = 1, .horizon = 10, .calm_period = 3, .lead_time = 10,
                .max_wsf = 1000, .oom_headroom = 0.05, .compaction = true, .writes = true,
        };
        s->p.forecast = (struct forecast_params){ .min_r2 = 0.6, .min_points = 8 };
        s->p.max_order = 9;
}

/* One interval with /proc/meminfo as given (mem_free plus the file pages
 * are the reclaimable memory, the file pages and what swap has room for
 * what kswapd could reclaim); returns true when the policy decided (there
 * was a forecast). */
static inline bool sim_step_mem(struct sim *s, double t, const struct synth_zone *zs, size_t n,
                                const struct vmstat *vm, const struct meminfo *mem, struct decision *d)
{
        struct sample smp;
        bool restarted;
        synth_sample(&smp, t + s->t_offset, s->kernel_wsf, zs, n, vm, 0);
        smp.mem = *mem;
        int r = engine_step(&s->e, &s->p, &smp, d, &restarted);
        assert_true(r >= 0);
        if (r == 0)
                return false;
        if (d->reason != WSF_KEEP && s->p.policy.writes)
                s->kernel_wsf = d->wsf_new;
        return true;
}

static inline bool sim_step(struct sim *s, double t, const struct synth_zone *zs, size_t n,
                            const struct vmstat *vm, uint64_t reclaimable, struct decision *d)
{
        /* all of it page cache: kswapd could reclaim it */
        struct meminfo mem = { .active_file = reclaimable };
        return sim_step_mem(s, t, zs, n, vm, &mem, d);
}

/* Later steps' times start `secs` after the first step's: the same series
 * again, later. */
static inline void sim_step_shift(struct sim *s, double secs)
{
        s->t_offset += secs;
}

static inline void sim_free(struct sim *s)
{
        engine_free(&s->e);
}
