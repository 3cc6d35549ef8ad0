/* synth.h — synthetic samples for the forecast and policy tests: one zone
 * per node whose watermarks follow the kernel's formula and whose free pages
 * are split between order 0 and blocks of one high order. */
#pragma once

#include <stdint.h>
#include <string.h>

#include "sample.h"
#include "window.h"

struct synth_zone {
        int node;
        uint64_t managed, wmark_min;
        uint64_t free_pages;    /* total */
        uint64_t high_pages;    /* of which in blocks of order `order` */
        unsigned order;
        bool node_unreclaimable;
};

static inline void synth_fill(struct zone *z, const struct synth_zone *sz, long wsf)
{
        memset(z, 0, sizeof(*z));
        z->node = sz->node;
        strcpy(z->name, "Normal");
        z->managed_pages = sz->managed;
        z->node_unreclaimable = sz->node_unreclaimable;
        uint64_t gap = sz->managed * (uint64_t)wsf / 10000;
        if (gap < sz->wmark_min / 4)
                gap = sz->wmark_min / 4;
        z->wmark_min = sz->wmark_min;
        z->wmark_low = sz->wmark_min + gap;
        z->wmark_high = sz->wmark_min + 2 * gap;
        z->nr_free[sz->order] = sz->high_pages >> sz->order;
        z->nr_free[0] = sz->free_pages - (z->nr_free[sz->order] << sz->order);
        zone_sum_orders(z, 11);
}

/* Zone `name` of node 0 with `free` pages, all at order 0, and the
 * kernel's watermarks at `wsf`. */
static inline void synth_named(struct zone *z, const char *name, uint64_t managed, uint64_t min, long wsf,
                               uint64_t free)
{
        synth_fill(z, &(struct synth_zone){ .managed = managed, .wmark_min = min, .free_pages = free }, wsf);
        strcpy(z->name, name);
}

/* Build a sample at time t from n zones; counters and meminfo from vm/mem. */
static inline void synth_sample(struct sample *s, double t, long wsf, const struct synth_zone *zs,
                                size_t n, const struct vmstat *vm, uint64_t reclaimable)
{
        static struct zone zones[8];
        for (size_t i = 0; i < n; i++)
                synth_fill(&zones[i], &zs[i], wsf);
        *s = (struct sample){ .time = t, .wsf = wsf, .nr_orders = 11, .nr_zones = n, .zones = zones };
        if (vm)
                s->vm = *vm;
        s->mem.active_file = reclaimable;      /* page cache: kswapd could reclaim it */
}
