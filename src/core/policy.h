/* policy.h — what to do about a forecast.
 *
 * Pure: a forecast, the configuration and the policy's own state in; a
 * decision out and the state updated. No I/O, no clock (time comes from the
 * samples). Owns every rule about vm.watermark_scale_factor (raise to the
 * value the numbers call for, decay in calm, the bounds and the OOM guard,
 * adopting an administrator's value) and about compaction (when, and the
 * exponential back-off when it did not help). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "forecast.h"

/* Capacity for per-node compaction state; nodes past it are not compacted. */
#define POLICY_NODE_CAP 64
/* Like the kernel's COMPACT_MAX_DEFER_SHIFT: wait at most 64 intervals. */
#define POLICY_MAX_DEFER_SHIFT 6

struct policy_config {
        double interval, horizon, calm_period, lead_time;      /* seconds */
        long max_wsf;
        double oom_headroom;            /* fraction of managed memory */
        bool compaction;
        bool writes;                    /* false in dry-run and monitor-only */
};

struct node_compaction {
        int node;
        unsigned defer_shift;
        double next_allowed;            /* sample time */
        bool pending;                   /* compacted; judge on the next sample */
        unsigned order;
        double before;                  /* free pages in blocks >= order before */
};

struct policy_state {
        long baseline;          /* boot-time or administrator's value */
        long current;           /* the value in force (virtual in dry-run) */
        long kernel_seen;       /* last value read from or written to the kernel */
        long kernel_refused;    /* lowest value the kernel refused (EINVAL), LONG_MAX if none */
        double last_change, last_raise, last_stall;
        double kswapd_capacity;         /* best pgsteal_kswapd rate seen, decaying */
        double kswapd_capacity_time;
        struct node_compaction nodes[POLICY_NODE_CAP];
        size_t nr_nodes;
};

enum wsf_reason {
        WSF_KEEP,
        WSF_RAISE_FORECAST,     /* free pages cross low before kswapd can keep up */
        WSF_RAISE_STALL,        /* stalls or direct reclaim in the last interval */
        WSF_LOWER_CALM,         /* calm period passed: halve the excess */
        WSF_LOWER_GUARD,        /* the OOM guard no longer allows the value */
        WSF_ADOPT,              /* somebody else wrote the sysctl */
};

struct compact_order {
        int node;
        unsigned order;
        double secs_to_exhaust, free_at_order, extfrag;
};

struct compact_backoff {
        int node;
        unsigned order, defer_shift;
        double before, after, retry_in;
};

struct decision {
        enum wsf_reason reason;
        long wsf_old, wsf_new;
        long ceiling;                   /* min(max_wsf, kernel_refused - 1, guard), >= baseline */
        /* the zone that called for the value, and its numbers */
        int node;
        char zone[ZONE_NAME_MAX];
        double secs_to_low, secs_to_min, drain, reclaim, reclaim_peak, direct;
        double cover;                   /* seconds of shortfall the gap was sized for */
        uint64_t stalls;
        size_t nr_compact, nr_backoff;
        struct compact_order compact[POLICY_NODE_CAP];
        struct compact_backoff backoff[POLICY_NODE_CAP];
};

/* baseline: the value to restore; in_force: the value the kernel has now. */
void policy_init(struct policy_state *st, long baseline, long in_force);

/* Decide for one forecast. st is updated as if the decision were carried
 * out; the caller reports a failed write with policy_write_failed(). */
void policy_decide(struct policy_state *st, const struct policy_config *cfg,
                   const struct forecast *f, struct decision *d);

/* Writing d->wsf_new failed for a reason other than EINVAL: the kernel
 * still has d->wsf_old. With keep_intent (monitor-only from now on) the
 * decided value stays in force virtually, so it is not decided again. */
void policy_write_failed(struct policy_state *st, const struct decision *d, bool keep_intent);

/* The kernel refused `value` with EINVAL: it is above the kernel's maximum,
 * which is probed this way rather than assumed (1000 before Linux 5.19, 3000 after).
 * `accepted` is still in force. Bisects: returns the value to try next, or
 * `accepted` when there is nothing left between them. */
long policy_kernel_refused(struct policy_state *st, long accepted, long refused);

/* Scale factor whose low-min gap is `gap` pages in a zone of `managed` pages. */
long wsf_for_gap(double gap, uint64_t managed);

/* Largest scale factor (<= limit) for which the sum of every zone's high
 * watermark stays within the reclaimable memory minus the headroom. */
long wsf_guard(const struct forecast *f, double oom_headroom, long limit);

const char *wsf_reason_str(enum wsf_reason r);
