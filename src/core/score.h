/* score.h — how good the forecasts were, judged by what the trace did
 * afterwards (`memoptimizer replay --score`).
 *
 * Pure: replay feeds, sample by sample, each series (a zone's free pages
 * against its low or min watermark, its pages in blocks of the compaction
 * order or higher against one such block) with the forecast's
 * seconds-to-crossing, every forecast-driven raise, and each node's room
 * (score_node_room()) that the raises are judged by. Owns finding the
 * crossings, matching them with the warnings before them, and the figures
 * memoptimizer(8) defines under SCORES. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "policy.h"
#include "sample.h"

enum score_kind { SCORE_LOW, SCORE_MIN, SCORE_ORDER, _SCORE_KINDS };

struct score_series {
        enum score_kind kind;
        int node;
        char name[ZONE_NAME_MAX];       /* zone */
        bool have_prev, below, forecast_seen, warned;
        double prev_t, prev_d;          /* time and value minus level */
        double warn_t, warn_at;         /* first warning of the current run, its predicted time */
};

struct score_event {
        enum score_kind kind;
        int node;
        char name[ZONE_NAME_MAX];
        double t;               /* interpolated time of the crossing */
        bool seen;
        double lead, error;     /* seconds; when seen */
        double predicted;       /* the time the first warning gave */
};

/* Raises are judged per reason (enum wsf_reason), and those decided on a
 * sample the fast path took at an onset together under this index. */
#define SCORE_ONSET _WSF_REASONS
#define SCORE_REASONS (_WSF_REASONS + 1)

struct score_raise {
        double t, deadline;             /* deadline: the horizon's end, or later (score_in_force()) */
        int reason;                     /* enum wsf_reason, or SCORE_ONSET */
        int node;
        int verdict;                    /* enum score_verdict */
        double crossed;                 /* sample time the node had no room; with verdict 1 */
        double margin, taken;           /* pages: the node's room at the raise; taken since */
        double least;                   /* pages: the least room seen within the horizon */
};

/* What became of a raise. Judged on the node, not on one zone: the
 * allocator falls back from Normal to DMA32 without waking kswapd, so a
 * zone below its low is no pressure while another has room (the mixed
 * bench's THP train: Normal at its low, DMA32 with 800 MB, no stall at the
 * defaults). A daemon's trace shows free memory after the daemon's own
 * raises: one that kept the node's room above nothing leaves no crossing
 * to show it was needed. It is held, not a false alarm, when the workload
 * took more than the room at the raise (score_taken()): at the baseline
 * kswapd sleeps until the room is spent, so without the raise it would
 * have been. */
enum score_verdict {
        SCORE_FALSE_ALARM = -1,         /* nothing ran out, stalled or was taken beyond the margin */
        SCORE_PENDING = 0,
        SCORE_CROSSED = 1,              /* no room left, or a stall, within the horizon */
        SCORE_HELD = 2,                 /* neither, but the workload took more than the margin */
};

/* The raises of one reason: how many, how many were false alarms (free
 * pages did not cross low within the horizon), how many the trace ended
 * too early to judge, and how long before the crossing they came. */
struct score_reason_summary {
        size_t raises, false_alarms, held, unjudged;
        double lead_median;             /* seconds; NAN without crossed raises */
};

struct score {
        double horizon, lead_time;
        struct score_series *series;
        size_t nr_series, series_cap;
        struct score_event *events;
        size_t nr_events, events_cap;
        size_t nr_unscored;             /* crossings before any forecast of their series */
        struct score_raise *raises;
        size_t nr_raises, raises_cap;
};

struct score_summary {
        size_t events[_SCORE_KINDS], seen, missed, unscored;
        double lead_median, error_median, error_p90, within20;  /* NAN without seen events;
                                                                 * within20: SCORE_WITHIN_SHARE */
        size_t within20_n;
        size_t raises, false_alarms, held, unjudged;
        struct score_reason_summary reasons[SCORE_REASONS];
};

void score_init(struct score *s, double horizon, double lead_time);
void score_free(struct score *s);

/* One sample of one series at time t: value and level (pages), and the
 * forecast's seconds until value reaches level (INFINITY: not at the
 * current trend); has_forecast false when there was no forecast. */
int score_point(struct score *s, enum score_kind kind, int node, const char *name, double t,
                double value, double level, double secs, bool has_forecast);

/* A node's room in sample `s` at the scale factor `baseline`: what an
 * allocation that may use its highest zone can take before every zone is
 * below its low -- the point where the allocator wakes kswapd. Each zone
 * counts its free pages above its low at the baseline (the kernel's
 * formula, from its min and managed pages) and, below the highest zone,
 * above its reserve against that zone's allocations (the higher zones'
 * managed pages over `lower_ratio`, vm.lowmem_reserve_ratio's default for
 * DMA and DMA32 being 256; 0: none). Pages. */
double score_node_room(const struct sample *s, int node, long baseline, long lower_ratio);

/* A raise for `reason` (or SCORE_ONSET) on account of node `node`, which
 * had `room` (score_node_room()) at the raise: judged by whether the room
 * runs out within the horizon. 0, -EINVAL for a reason out of range, or
 * -ENOMEM. */
int score_raise(struct score *s, double t, int reason, int node, double room);

/* The node's room at t: a pending raise for it is right if it is gone. */
void score_room(struct score *s, double t, int node, double room);

/* A raised value was in force through the interval ending at t: the
 * memory the raises before t hold back is held back still, so they are
 * judged until it is given back, where that is later than their horizon
 * (an episode longer than the horizon stalled after it, with the raise in
 * force). Call before the other figures of t. */
void score_in_force(struct score *s, double t);

/* Allocations stalled at t (allocstall + compact_stall in the interval
 * ending then): the memory a pending raise was for did run short, whether
 * or not a sample caught free pages below low. */
void score_stalls(struct score *s, double t, uint64_t stalls);

/* The workload took `pages` of free memory in the interval ending at t
 * (what its anonymous, shared and dirty memory grew by; negative: what it
 * gave back): a pending raise whose margin the sum since it exceeds is
 * held. */
void score_taken(struct score *s, double t, double pages);

/* A predicted time counts as "within" when its error is at most this share
 * of the lead time it was predicted with. */
#define SCORE_WITHIN_SHARE 0.2
/* The error percentile reported beside the median. */
#define SCORE_ERROR_PERCENTILE 0.9

/* 0, or -ENOMEM (out is then not to be printed). */
int score_summarize(const struct score *s, struct score_summary *out);
