/* episode.h — pressure episodes: from the first interval in which the
 * workload takes memory faster than it is given back, towards the low
 * watermark, to the return of free memory above the high watermark.
 *
 * Owns telling, sample by sample, when an episode starts and ends, and
 * what it showed: how much the workload took and how fast, how fast
 * kswapd reclaimed once woken, how close free memory came to min, what
 * stalled. Each ended episode is an experiment the learner (learn.h) uses
 * to size the next raise. Pure: forecasts in, numbers out; no I/O, no
 * clock (times are the samples'). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "forecast.h"

/* Pages one allocation stall stands for when no direct reclaim was counted
 * (the kernel's SWAP_CLUSTER_MAX): the least it shows was missing. */
#define STALL_PAGES 32.0

/* What one episode showed. Pages are summed over the steered zones (those
 * with at least STEER_MIN_SHARE of managed memory). */
struct episode_stats {
        double start, end;                      /* sample times, seconds */
        /* Highest gross demand in one interval, and of it huge pages
         * faulted in: what a sample over a shorter time (the fast path's)
         * saw counts for the interval (episode_per_interval()). */
        double peak_demand_pages_per_sec;
        double peak_thp_pages_per_sec;
        double demand_pages;                    /* pages taken in all: in use gained + reclaimed */
        double kswapd_peak_pages_per_sec;       /* best kswapd reclaim in one interval */
        /* Best kswapd reclaim over an interval that ended with free memory
         * below low: kswapd awake and behind, so its rate is its capacity
         * (elsewhere it reclaims only as fast as it must). 0: none. */
        double kswapd_pressed_pages_per_sec;
        double kswapd_pages;                    /* reclaimed by kswapd during it */
        double direct_pages;                    /* reclaimed by the allocating tasks (stalls) */
        double min_margin_pages;                /* lowest free - min seen */
        double gap_pages;                       /* low - min in force at that point */
        long wsf_max;                           /* highest scale factor in force */
        uint64_t allocstalls, compact_stalls;
        uint64_t managed_pages;                 /* of the steered zones */
};

struct episode_params {
        double horizon;         /* seconds: an onset must head for low within it */
        /* An interval's gross demand of at least this share of managed
         * memory per second starts (or keeps alive) an episode: below it
         * nothing can head for low fast enough to matter. */
        double onset_share_per_sec;
        double interval;        /* seconds: the sampling interval */
};

struct episode_tracker {
        bool active;
        struct episode_stats cur;
        unsigned calm_samples;  /* in a row, above high with no demand */
};

/* One interval of the steered zones, summed: the numbers the tracker and
 * the policy decide on. */
struct pressure {
        uint64_t managed_pages;
        double free_pages, wmark_min, wmark_low, wmark_high;    /* pages */
        double consumption_pages_per_sec;       /* in use gained, last interval (net of frees) */
        /* of the consumption, page cache that grew clean: kswapd absorbs it
         * by evicting older cache (forecast.h) */
        double clean_fill_pages_per_sec;
        double thp_pages_per_sec;               /* huge pages faulted in, last interval */
        /* anonymous and shared memory and dirty page cache gained, last
         * interval; -1 when unknown (older traces) */
        double held_pages_per_sec;
        double demand_pages_per_sec;            /* gross: consumption less the clean fill,
                                                 * plus reclaim, >= 0 */
        double kswapd_pages_per_sec, direct_pages_per_sec;
        uint64_t allocstalls, compact_stalls;   /* in the last interval */
};

/* The steered zones of f summed into *p. */
void pressure_of(const struct forecast *f, struct pressure *p);

/* Free memory the workload took in the last interval (pages/s): the
 * consumption less a clean fill of the page cache, which kswapd gives
 * back at once. */
double pressure_taken(const struct pressure *p);

/* A rate measured over dt seconds as a rate over an interval: what it
 * took in dt, spread over the interval when dt is shorter. A sample the
 * fast path took at an onset measures a burst at its page-zeroing speed
 * over a fraction of a second (5.4 GB/s over a third of one in the bench's
 * bursts); an interval of that speed is more than the burst takes, and the
 * same burst caught a second in measures a fraction of it. */
double episode_per_interval(const struct episode_params *ep, double rate, double dt);

void episode_init(struct episode_tracker *t);

/* Feed one interval. Returns 1 when an episode started at this sample, -1
 * when one ended (its numbers in *ended), 0 otherwise. wsf is the scale
 * factor in force during the interval. */
int episode_step(struct episode_tracker *t, const struct episode_params *ep, const struct pressure *p,
                 double time, double dt, long wsf, struct episode_stats *ended);
