/* policy.h — what to do about a forecast.
 *
 * Pure: a forecast, the configuration and the policy's own state in; a
 * decision out and the state updated. No I/O, no clock (time comes from the
 * samples). Owns every rule about vm.watermark_scale_factor — raise when a
 * pressure episode starts (episode.h) to the value past episodes of its kind
 * needed (learn.h), or, for a kind never seen, to the value the measured
 * shortfall of kswapd calls for, grown while it does not hold; hold back
 * raises kswapd cannot use, and none above what it could reclaim (the
 * reclaim cap); no raise below the pace floor; give it back
 * once the episode is over (a stall is learnt from, not raised for); the
 * bounds, the OOM guard, adopting an administrator's value — and about
 * compaction (only in calm, ahead of demand, and the exponential back-off
 * when it did not help). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "episode.h"
#include "forecast.h"
#include "learn.h"
#include "recur.h"

/* Capacity for per-node compaction state; nodes past it are not compacted. */
#define POLICY_NODE_CAP 64
/* Before 0.3.3 direct reclaim in an episode raised the value in force by
 * this many times what was reclaimed directly (WSF_RAISE_STALL, still in
 * older traces); now only the learner takes it (learn.h). */
#define POLICY_STALL_GAIN 1.5
/* At an episode's onset, the gap covers this many intervals of the huge
 * pages faulted in (policy.c, onset_gap()). A quarter was tried: the
 * mixed bench's irregular burst then stalled 606-958 times, against 0-728
 * with a whole interval. */
#define POLICY_THP_COVER_INTERVALS 1.0
/* The smallest value a raise goes to. Below it kswapd, once woken, is
 * balanced again after a pass of the zones' summed high watermarks (~116 MB
 * at the kernel's 10 on 24 GiB), sleeps, and is woken again within its
 * tenth of a second while the allocations reclaim and compact themselves:
 * recorded at 0.5 s beside JVM starts, 17-32 such quick re-wakes a run and
 * 754-1113 stalls at 10, raises of 20-40 stalling too, none and 0-2 stalls
 * at a standing 100 (bench/README.md, "0.3.8 outside"). */
#define POLICY_PACE_FLOOR LEARN_RAISED_FLOOR  /* the learner keeps a raised class at it */
/* A compaction that took longer than this (seconds) held the machine's
 * allocations up for that long: it counts as harm, like one that did not
 * help. */
#define POLICY_COMPACT_MAX_SECS 1.0
/* Like the kernel's COMPACT_MAX_DEFER_SHIFT: wait at most 64 intervals. */
#define POLICY_MAX_DEFER_SHIFT 6

struct policy_config {
        double interval, horizon, calm_period, lead_time;      /* seconds */
        long max_wsf;
        double oom_headroom;            /* fraction of managed memory */
        bool compaction;
        bool writes;                    /* false in dry-run and monitor-only */
        /* kswapd's capacity until it is measured; 0: a share of memory */
        double kswapd_prior_pages_per_sec;
};

struct node_compaction {
        int node;
        unsigned defer_shift;
        double next_allowed;            /* sample time */
        bool pending;                   /* compacted; not judged yet */
        double judge_by;                /* sample time: judged by its blocks then, if not before */
        bool too_slow;                  /* the pending one took too long */
        unsigned order;
        double before;                  /* free pages in blocks >= order before */
        unsigned confirmed;             /* samples in a row that called for it */
        bool seen;                      /* blocks_at_last holds a sample */
        double blocks_at_last[ORDER_CAP];       /* free pages in blocks >= each order, then */
        uint32_t fell;                  /* orders (bit k) whose blocks fell by a useful
                                         * compaction's worth into the last sample */
        /* the most free pages in blocks >= each order seen since
         * peak_since, and in the half lead time before it: what a fill that
         * takes the blocks over several intervals, each less than a useful
         * share, has still taken */
        double blocks_peak[ORDER_CAP];
        double blocks_peak_before[ORDER_CAP];
        double peak_since;              /* sample time */
};

/* Why raises are held back: a higher watermark would not help kswapd. */
enum raise_hold {
        HOLD_NONE,
        HOLD_KSWAPD_FAILING,    /* it scans much and reclaims little (a window's fit) */
        HOLD_NODE_UNRECLAIMABLE,        /* the kernel says it gave up on a node (/proc/zoneinfo) */
        HOLD_NOTHING_TO_RECLAIM,        /* a raise called for, too little to reclaim for it (reclaim_cap) */
        _HOLD_REASONS
};

struct policy_state {
        long baseline;          /* boot-time or administrator's value */
        long current;           /* the value in force (virtual in dry-run) */
        long kernel_seen;       /* last value read from or written to the kernel */
        long kernel_refused;    /* lowest value the kernel refused (EINVAL), LONG_MAX if none */
        double last_change, last_raise, last_stall;     /* sample times */
        struct episode_tracker episodes;
        double episode_end;             /* sample time the last episode ended */
        double demand_end;              /* the last sample of an episode's demand */
        double recur_until;             /* a raise for a recurring episode holds until then */
        bool recur_raised;              /* the last raise was that one: given back once it is overdue */
        /* Between samples, watch free memory while an episode's onset could
         * bring it to low within the horizon, and sample at once when it
         * falls faster than the trigger rate (the daemon's fast path). */
        bool onset_armed;
        double onset_trigger_pages_per_sec;
        struct learned learned;         /* kept across restarts by the daemon */
        bool compact_wanted;            /* compaction stalls seen: compact in the next calm */
        enum raise_hold hold;           /* as of the last decision */
        struct node_compaction nodes[POLICY_NODE_CAP];
        size_t nr_nodes;
};

enum wsf_reason {
        WSF_KEEP,
        WSF_RAISE_FORECAST,     /* an episode of a kind not seen before, or one the value in force does
                                 * not cover: grown by an interval of kswapd's shortfall */
        WSF_RAISE_STALL,        /* direct reclaim in the last interval: grown by what it showed
                                 * (daemons before 0.3.3; read from their traces) */
        WSF_LOWER_CALM,         /* the episode is over: back to the baseline */
        WSF_LOWER_GUARD,        /* the OOM guard no longer allows the value */
        WSF_ADOPT,              /* somebody else wrote the sysctl */
        WSF_RAISE_LEARNED,      /* an episode of a known kind: what it needed before */
        WSF_RAISE_RECUR,        /* an episode of a recurring kind is due: ahead of it */
        _WSF_REASONS
};

struct compact_order {
        int node;
        unsigned order;
        double secs_to_exhaust, free_at_order, extfrag;
        /* asked for by the last episode's compaction stalls, not by a
         * forecast exhaustion (secs_to_exhaust may then be infinite) */
        bool stalled;
        /* asked for at the interval in which the workload let go of its
         * memory in single pages, the blocks having fallen before it: a
         * fragmenting fill that ended, whose fall the window's trend does
         * not trust yet (secs_to_exhaust may then be infinite) */
        bool released;
};

struct compact_backoff {
        int node;
        unsigned order, defer_shift;
        double before, after, retry_in;
        /* it took longer than a compaction may hold the machine's
         * allocations up (whatever it made); false: it made too few */
        bool too_slow;
        /* judged by the huge-page faults after it: their compaction stalls,
         * and the blocks of its order they took (0, 0: judged by its blocks) */
        uint64_t fault_stalls;
        double faulted_blocks;
};

struct decision {
        enum wsf_reason reason;
        long wsf_old, wsf_new;
        long ceiling;                   /* min(max_wsf, kernel_refused - 1, guard), >= baseline */
        /* The highest value whose extra free memory (the zones' high above
         * the baseline's) kswapd could reclaim, less the OOM headroom:
         * wsf_reclaim_cap(); raises go no higher. */
        long reclaim_cap;
        uint64_t kswapd_reclaimable;    /* what it is sized by (forecast.h), pages */
        /* the zone that called for the value, and its numbers */
        int node;
        char zone[ZONE_NAME_MAX];
        double secs_to_low, secs_to_min;
        double drain, reclaim, reclaim_peak, direct;    /* pages per second: demand, kswapd's
                                                         * rate, its capacity, direct reclaim */
        double thp;                     /* of the demand, huge pages (pages per second) */
        double cover;                   /* seconds of shortfall the gap was sized for */
        double thp_cover;               /* seconds of the huge pages (of thp) it covers */
        bool wake_capped;               /* held to the value that puts low at free memory */
        bool paced;                     /* lifted to POLICY_PACE_FLOOR */
        bool reclaim_capped;            /* held to reclaim_cap */
        int demand_class;               /* learn_class_of() the episode's demand; -1 none */
        enum learn_kind demand_kind;    /* learn_kind_of() it */
        uint64_t stalls;
        bool episode_ended;             /* an episode ended at this sample: */
        struct episode_stats episode;   /* what it showed */
        long learned_wsf;               /* and what its class needs now; -1 none */
        int learned_above;              /* learned_wsf taken from the class this many above
                                         * demand_class (below if < 0; learn_class_for()) */
        enum learn_kind learned_kind;   /* of that class: demand_kind's unless it knew none */
        bool onset;                     /* decided on a sample the fast path took early */
        enum raise_hold hold;           /* raises held back now, and why */
        bool hold_changed;              /* since the last decision: say so once */
        enum raise_hold hold_was;       /* at the last decision */
        int hold_node;                  /* the node kswapd gave up on (HOLD_NODE_UNRECLAIMABLE) */
        double hold_scan, hold_steal;   /* kswapd's window rates (HOLD_KSWAPD_FAILING), pages/s */
        struct recurrence recur;        /* the recurring pattern seen, if any */
        double recur_due_in;            /* seconds until its next episode is due */
        bool recur_overdue;             /* lowered: the recurring episode raised for did not come */
        /* lowered at the same point (a quarter period after it was due),
         * but the episode came, and its demand has stopped */
        bool recur_came;
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

/* Compacting `node` took `seconds`: a long one counts as harm at its
 * judgement. */
void policy_compaction_took(struct policy_state *st, int node, double seconds);

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

/* Largest scale factor (<= limit, >= baseline) for which what the zones'
 * high watermarks add above the baseline's stays within what kswapd could
 * reclaim (forecast.kswapd_reclaimable) minus the headroom. */
long wsf_reclaim_cap(const struct forecast *f, double oom_headroom, long baseline, long limit);

/* The name of a reason in logs, traces and live.json; at most
 * WSF_REASON_NAME_MAX - 1 characters. */
#define WSF_REASON_NAME_MAX 24
const char *wsf_reason_str(enum wsf_reason r);
/* "none", "kswapd-failing", "node-unreclaimable", "nothing-to-reclaim": the
 * journal's HOLD field. */
const char *raise_hold_str(enum raise_hold h);
