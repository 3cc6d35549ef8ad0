#include "wake.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "util.h"

/* Less than this between two samples is no interval to measure a fall over. */
#define WAKE_MIN_INTERVAL 0.05
/* DMA32 must lose more than this in an interval (pages): the fast path is
 * serving from it, not a stray allocation. */
#define WAKE_MIN_FELL 256

void wake_init(struct wake_state *st)
{
        *st = (struct wake_state){ 0 };
}

/* The DMA32 zone and the Normal zone of its node, if the sample has both. */
static bool find_zones(const struct sample *s, const struct zone **normal, const struct zone **dma32)
{
        *normal = *dma32 = NULL;
        for (size_t i = 0; i < s->nr_zones && !*dma32; i++)
                if (strcmp(s->zones[i].name, "DMA32") == 0)
                        *dma32 = &s->zones[i];
        for (size_t i = 0; *dma32 && i < s->nr_zones && !*normal; i++)
                if (s->zones[i].node == (*dma32)->node && strcmp(s->zones[i].name, "Normal") == 0)
                        *normal = &s->zones[i];
        return *normal && *dma32;
}

/* Normal at its low (the fast path goes on to DMA32 from there), with room
 * above its min for the allocations a pulse sends to it before kswapd's
 * reclaim reaches them: half its low-min gap, or, where the page cache has
 * held it at the baseline's low as at most episodes' starts, a sixteenth
 * (wake.h). *floor: where the pulse ends rather than have them reclaim
 * directly, half the room it asked for. */
static bool normal_ready(const struct zone *n, uint64_t *floor)
{
        if (n->wmark_high < n->wmark_low || n->wmark_low < n->wmark_min)
                return false;
        uint64_t gap = n->wmark_low - n->wmark_min;
        if (n->free_pages > n->wmark_low + (n->wmark_high - n->wmark_low) / 4)
                return false;
        uint64_t share = n->free_pages > n->wmark_min + gap / 2 ? 2 : WAKE_SCANT_ROOM;
        *floor = n->wmark_min + gap / (2 * share);
        return n->free_pages > n->wmark_min + gap / share;
}

bool wake_step(struct wake_state *st, const struct sample *s, const struct wake_params *prm,
               struct wake_pulse *p)
{
        const struct zone *n, *d;
        if (!find_zones(s, &n, &d)) {
                wake_init(st);
                return false;
        }
        struct wake_state last = *st;
        *st = (struct wake_state){ .seen = true, .time = s->time, .pgscan_kswapd = s->vm.pgscan_kswapd,
                                   .dma32_free = d->free_pages, .anon_huge = s->mem.anon_huge };
        double dt = s->time - last.time;
        if (!last.seen || dt < WAKE_MIN_INTERVAL || s->wsf <= prm->baseline)
                return false;
        bool asleep = s->vm.pgscan_kswapd == last.pgscan_kswapd;
        uint64_t fell = last.dma32_free > d->free_pages ? last.dma32_free - d->free_pages : 0;
        uint64_t end_floor;
        if (!asleep || fell <= WAKE_MIN_FELL || !normal_ready(n, &end_floor))
                return false;
        uint64_t reserve = prm->dma32_ratio > 0 ? n->managed_pages / (uint64_t)prm->dma32_ratio : 0;
        uint64_t floor = d->wmark_low + reserve;
        double left = d->free_pages > floor ? (double)(d->free_pages - floor) : 0;
        double secs_left = left / ((double)fell / dt);
        if (secs_left >= prm->lead)
                return false;
        bool huge = prm->huge_order > 0 && prm->huge_order < s->nr_orders &&
                    s->mem.anon_huge > last.anon_huge + WAKE_MIN_FELL;
        uint64_t free_huge = huge ? zone_free_at_order(n, s->nr_orders, prm->huge_order) : 0;
        /* it would end at its first poll, having sent those faults to
         * compact in Normal: kswapd, woken for them, finds the node
         * balanced by DMA32 as soon as it opens (a train burst stalled
         * 289 times in such a pulse: bench/README.md, "0.4.16") */
        if (huge && free_huge <= end_floor)
                return false;
        *p = (struct wake_pulse){
                .node = n->node,
                .normal_free = n->free_pages, .normal_min = n->wmark_min,
                .normal_low = n->wmark_low, .normal_high = n->wmark_high,
                .dma32_free = d->free_pages, .dma32_fell = fell, .interval = dt,
                .dma32_left = secs_left,
                .end_high = n->wmark_high,
                .end_floor = end_floor,
                .huge_order = huge ? prm->huge_order : 0,
                .normal_free_huge = free_huge,
        };
        return true;
}

enum wake_end wake_end_due(const struct wake_pulse *p, uint64_t normal_free, uint64_t normal_free_huge,
                           double held)
{
        if (normal_free >= p->end_high)
                return WAKE_END_HIGH;
        if (normal_free <= p->end_floor)
                return WAKE_END_NEAR_MIN;
        if (p->huge_order > 0 && normal_free_huge <= p->end_floor)
                return WAKE_END_NO_HUGE;
        if (held >= WAKE_MAX_SECONDS)
                return WAKE_END_TIMEOUT;
        return WAKE_HOLD;
}

/* What each end is called in a log line and in the journal field WAKE_END. */
static const struct {
        const char *name, *field;
} wake_ends[] = {
        [WAKE_HOLD] = { "held", "held" },
        [WAKE_END_HIGH] = { "Normal at its high", "high" },
        [WAKE_END_NEAR_MIN] = { "Normal near its min", "near-min" },
        [WAKE_END_TIMEOUT] = { "held for the longest a pulse lasts", "timeout" },
        [WAKE_END_UNREADABLE] = { "Normal's free memory unreadable", "unreadable" },
        [WAKE_END_NO_HUGE] = { "Normal out of huge blocks while huge pages are faulted in", "no-huge" },
};

const char *wake_end_name(enum wake_end e)
{
        return (size_t)e < ARRAY_SIZE(wake_ends) ? wake_ends[e].name : "?";
}

const char *wake_end_field(enum wake_end e)
{
        return (size_t)e < ARRAY_SIZE(wake_ends) ? wake_ends[e].field : "?";
}

int lowmem_ratio_parse(const char *text, struct lowmem_ratio *out)
{
        struct lowmem_ratio r = { 0 };
        const char *p = text;
        for (;;) {
                p += strspn(p, " \t");
                if (*p == '\n' || *p == '\0')
                        break;
                if (r.n == LOWMEM_MAX_ZONES || *p < '0' || *p > '9')
                        return -EBADMSG;
                long v = 0;
                for (; *p >= '0' && *p <= '9'; p++) {
                        if (v > (INT_MAX - (*p - '0')) / 10)
                                return -EBADMSG;
                        v = v * 10 + (*p - '0');
                }
                if (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\0')
                        return -EBADMSG;
                r.v[r.n++] = v;
        }
        if (r.n == 0 || (*p == '\n' && p[1] != '\0'))
                return -EBADMSG;
        *out = r;
        return 0;
}

void lowmem_ratio_format(const struct lowmem_ratio *r, char *buf, size_t size)
{
        size_t len = 0;
        if (size == 0)
                return;
        buf[0] = '\0';
        for (size_t i = 0; i < r->n && len < size; i++) {
                int n = snprintf(buf + len, size - len, "%s%ld", i ? " " : "", r->v[i]);
                if (n < 0)
                        return;
                len += (size_t)n;
        }
        if (len + 1 < size)
                snprintf(buf + len, size - len, "\n");
}

bool lowmem_ratio_equal(const struct lowmem_ratio *a, const struct lowmem_ratio *b)
{
        if (a->n != b->n)
                return false;
        for (size_t i = 0; i < a->n; i++)
                if (a->v[i] != b->v[i])
                        return false;
        return true;
}

int lowmem_ratio_closed(const struct lowmem_ratio *boot, size_t normal, struct lowmem_ratio *closed)
{
        if (normal == 0 || normal >= boot->n)
                return -EINVAL;
        *closed = *boot;
        for (size_t i = 0; i < normal; i++)
                closed->v[i] = 1;
        return 0;
}
