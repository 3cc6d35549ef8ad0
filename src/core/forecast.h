/* forecast.h — what the window says will happen, per zone and per node.
 *
 * Pure: a window and parameters in, numbers out; no I/O, no clock. Times are
 * seconds from the newest sample; INFINITY means "not at the current trend",
 * 0 means "already there". A trend counts only when its fit has R² of at
 * least min_r2 over at least min_points samples; otherwise the times stay
 * INFINITY. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sample.h"
#include "window.h"

/* Zones smaller than this share of memory (ZONE_DMA) are not steered: a tiny
 * zone's noise would translate into a huge scale factor for every zone. */
#define STEER_MIN_SHARE 0.01

struct forecast_params {
        double min_r2;          /* goodness-of-fit gate */
        unsigned min_points;    /* fewer samples than this show no trend: any
                                 * two points fit a line perfectly */
        unsigned max_order;     /* highest order forecast for exhaustion */
};

struct zone_forecast {
        int node;
        char name[ZONE_NAME_MAX];
        uint64_t managed_pages, wmark_min, wmark_low, wmark_high;
        double free_pages;      /* newest sample */
        bool node_unreclaimable;        /* newest sample: kswapd gave up on the node */
        struct fit free_fit;    /* free pages over time (reported) */
        /* Pages in use, managed - free, over time: its slope is what the
         * zone's users consume net of what is freed or reclaimed. Memory the
         * kernel adds to the zone (lazily initialised at boot, hotplug, a
         * balloon) raises free and managed alike and cannot hide it. */
        struct fit used_fit;
        bool trend;             /* used_fit passes the R² gate */
        double consumption_pages_per_sec;       /* used_fit's slope when trend, else 0 */
        double consumption_last_pages_per_sec;  /* pages in use gained over the last interval */
        /* When free pages reach low / min at the slowest consumption the
         * data support, counting no memory the kernel may still add. */
        double secs_to_low, secs_to_min;
        double drain_age;       /* seconds since pages in use were last at their
                                 * lowest in the window; INFINITY when that was
                                 * the oldest sample (rising for the whole window) */
        double secs_to_exhaust[ORDER_CAP];      /* blocks of order >= k, k <= max_order */
};

struct node_forecast {
        int node;
        uint64_t managed_pages, wmark_low;      /* sums over the node's zones */
        double free_pages;
        double free_at_order[ORDER_CAP];        /* pages in blocks >= k, newest */
        struct fit order_fit[ORDER_CAP];
        double secs_to_exhaust[ORDER_CAP];      /* until < one block of order k */
        double extfrag[ORDER_CAP];              /* unusable_index() for order k, 0..1 */
};

struct forecast {
        double time, dt;        /* newest sample time; length of the last interval */
        long wsf;               /* scale factor in the newest sample */
        unsigned nr_orders, max_order;
        size_t nr_zones, nr_nodes;
        struct zone_forecast *zones;
        struct node_forecast *nodes;
        uint64_t managed_pages;         /* all zones */
        double kswapd_rate;             /* pgsteal_kswapd pages/s, last interval */
        double kswapd_peak;             /* best interval rate in the window */
        double kswapd_window_rate;      /* pgsteal_kswapd pages/s fitted over the window */
        double kswapd_scan_rate;        /* pgscan_kswapd pages/s fitted over the window */
        double direct_rate;             /* pgsteal_direct pages/s, last interval */
        /* What the last interval's demand was made of (pages/s, >= 0):
         * transparent huge pages faulted in (AnonHugePages gained), which
         * kswapd's reclaim of single pages does not serve; page cache that
         * grew clean (file pages gained less Dirty and Writeback gained),
         * which kswapd absorbs by evicting older cache; and what the
         * workload holds that kswapd cannot evict (AnonPages, Shmem, Dirty
         * and Writeback gained). Free memory alone also falls for what
         * nobody took: on a VM reporting free pages to its host, blocks
         * being reported leave the free lists for a moment (100-150 MB dips
         * that come back within a second were seen here). Without those
         * counters in both samples (older traces) parts_known is false and
         * the rates other than thp_rate are 0. */
        double thp_rate, clean_fill_rate, held_rate;
        bool parts_known;
        uint64_t allocstalls, compact_stalls;   /* in the last interval */
        uint64_t reclaimable;           /* MemFree + file LRU, pages */
        /* What kswapd could reclaim to raise free memory: the file LRU, and
         * anonymous and shared memory as far as swap has room for it. */
        uint64_t kswapd_reclaimable;
};

/* Needs at least two samples. out's arrays are (re)allocated. */
int forecast_compute(const struct window *w, const struct forecast_params *p, struct forecast *out);
void forecast_free(struct forecast *f);

/* The zone with the most managed pages: the one whose numbers a decision
 * that names no zone quotes, and is judged by. NULL without zones. */
const struct zone_forecast *forecast_largest_zone(const struct forecast *f);

/* The zone holds at least STEER_MIN_SHARE of managed memory: its numbers
 * count in what is steered. */
bool forecast_zone_steered(const struct forecast *f, const struct zone_forecast *z);
