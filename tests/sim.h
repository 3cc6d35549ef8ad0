/* sim.h — drives window -> forecast -> policy over synthetic samples the
 * way the daemon does, with the "kernel" taking every value written. */
#pragma once

#include "forecast.h"
#include "policy.h"
#include "synth.h"
#include "window.h"

struct sim {
        struct window w;
        struct forecast f;
        struct policy_state st;
        struct policy_config cfg;
        struct forecast_params fp;
        long kernel_wsf;
};

static inline void sim_init(struct sim *s, long boot)
{
        memset(s, 0, sizeof(*s));
        assert_int_equal(window_init(&s->w, 8), 0);
        policy_init(&s->st, boot);
        s->kernel_wsf = boot;
        s->cfg = (struct policy_config){
                .interval = 1, .horizon = 10, .calm_period = 30, .lead_time = 10,
                .max_wsf = 1000, .oom_headroom = 0.05, .compaction = true, .writes = true,
        };
        s->fp = (struct forecast_params){ .min_r2 = 0.6, .min_points = 8, .max_order = 9 };
}

/* One interval; returns true when the policy decided (there was a forecast). */
static inline bool sim_step(struct sim *s, double t, const struct synth_zone *zs, size_t n,
                            const struct vmstat *vm, uint64_t reclaimable, struct decision *d)
{
        struct sample smp;
        synth_sample(&smp, t, s->kernel_wsf, zs, n, vm, reclaimable);
        assert_true(window_push(&s->w, &smp) >= 0);
        if (forecast_compute(&s->w, &s->fp, &s->f) < 0)
                return false;
        policy_decide(&s->st, &s->cfg, &s->f, d);
        if (d->reason != WSF_KEEP && s->cfg.writes)
                s->kernel_wsf = d->wsf_new;
        return true;
}

static inline void sim_free(struct sim *s)
{
        window_free(&s->w);
        forecast_free(&s->f);
}
