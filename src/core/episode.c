#include "episode.h"

#include <math.h>
#include <string.h>

#include "util.h"

/* An episode ends when free memory has been back above high with no
 * demand for this many samples in a row, or has had no demand for
 * EPISODE_QUIET_SECS whatever free memory does (memory full of what
 * kswapd cannot reclaim: holding the watermarks up would only burn CPU). */
#define EPISODE_CALM_SAMPLES 2
#define EPISODE_QUIET_SECS 5.0

void pressure_of(const struct forecast *f, struct pressure *p)
{
        *p = (struct pressure){ 0 };
        for (size_t i = 0; i < f->nr_zones; i++) {
                const struct zone_forecast *z = &f->zones[i];
                if (!forecast_zone_steered(f, z))
                        continue;
                p->managed_pages += z->managed_pages;
                p->free_pages += z->free_pages;
                p->wmark_min += (double)z->wmark_min;
                p->wmark_low += (double)z->wmark_low;
                p->wmark_high += (double)z->wmark_high;
                p->consumption_pages_per_sec += z->consumption_last_pages_per_sec;
        }
        /* Reclaim frees pages in use: what the workload took is the net
         * gain plus what was reclaimed meanwhile; a clean fill of the page
         * cache (a reader) takes nothing kswapd cannot give back at once. */
        p->kswapd_pages_per_sec = f->kswapd_rate;
        p->direct_pages_per_sec = f->direct_rate;
        p->clean_fill_pages_per_sec = dmin(f->clean_fill_rate, dmax(0, p->consumption_pages_per_sec));
        p->thp_pages_per_sec = f->thp_rate;
        p->held_pages_per_sec = f->parts_known ? f->held_rate : -1;
        p->demand_pages_per_sec = dmax(0, p->consumption_pages_per_sec - p->clean_fill_pages_per_sec +
                                              f->kswapd_rate + f->direct_rate);
        p->allocstalls = f->allocstalls;
        p->compact_stalls = f->compact_stalls;
}

double pressure_taken(const struct pressure *p)
{
        return p->consumption_pages_per_sec - p->clean_fill_pages_per_sec;
}

double episode_per_interval(const struct episode_params *ep, double rate, double dt)
{
        return dt > 0 && dt < ep->interval ? rate * dt / ep->interval : rate;
}

void episode_init(struct episode_tracker *t)
{
        *t = (struct episode_tracker){ 0 };
}

/* The onset share of managed memory, in pages per second. */
static double onset_share(const struct episode_params *ep, const struct pressure *p)
{
        return ep->onset_share_per_sec * (double)p->managed_pages;
}

/* Free memory falling, on its way to low within the horizon or below it
 * already, because the workload took it; or something stalled. Demand that
 * kswapd absorbs while free memory holds (a reader churning its page cache
 * at a raised watermark) is no episode, and neither is free memory taken by
 * page cache that grows clean (a reader refilling what an episode evicted),
 * nor a fall with nothing held growing (free pages being reported to a
 * VM's host): counting them would keep a raise up for as long as the raise
 * makes kswapd evict what is read again. */
static bool pressing(const struct episode_params *ep, const struct pressure *p)
{
        if (p->allocstalls + p->compact_stalls > 0)
                return true;
        /* free memory taken at the onset share (the demand is at least that) */
        double share = onset_share(ep, p);
        double taken = pressure_taken(p);
        if (taken < share || (p->held_pages_per_sec >= 0 && p->held_pages_per_sec < share))
                return false;
        if (p->free_pages <= p->wmark_low)
                return true;
        return (p->free_pages - p->wmark_low) / taken < ep->horizon;
}

static void account(struct episode_stats *e, const struct episode_params *ep, const struct pressure *p,
                    double dt, long wsf)
{
        e->peak_demand_pages_per_sec = dmax(e->peak_demand_pages_per_sec,
                                            episode_per_interval(ep, p->demand_pages_per_sec, dt));
        e->peak_thp_pages_per_sec = dmax(e->peak_thp_pages_per_sec,
                                         episode_per_interval(ep, p->thp_pages_per_sec, dt));
        e->demand_pages += p->demand_pages_per_sec * dt;
        e->kswapd_peak_pages_per_sec = dmax(e->kswapd_peak_pages_per_sec, p->kswapd_pages_per_sec);
        if (p->free_pages < p->wmark_low)
                e->kswapd_pressed_pages_per_sec = dmax(e->kswapd_pressed_pages_per_sec,
                                                       p->kswapd_pages_per_sec);
        e->kswapd_pages += p->kswapd_pages_per_sec * dt;
        e->direct_pages += p->direct_pages_per_sec * dt;
        double margin = p->free_pages - p->wmark_min;
        if (margin < e->min_margin_pages) {
                e->min_margin_pages = margin;
                e->gap_pages = p->wmark_low - p->wmark_min;
        }
        if (wsf > e->wsf_max)
                e->wsf_max = wsf;
        e->allocstalls += p->allocstalls;
        e->compact_stalls += p->compact_stalls;
        e->managed_pages = p->managed_pages;
}

/* Within an episode: the workload still takes memory, and kswapd gives it
 * what it takes -- memory held (anonymous, shared, dirty) grows at the
 * onset share while kswapd reclaims at it, so free memory holds. At the
 * raised watermark kswapd keeps pace (a JVM touching its heap in huge pages
 * at 1 GB/s, bench/README.md "Outside"); by free memory alone that is calm,
 * and the raise would be given back in the middle of it, to stalls a
 * second later. Not a start: demand kswapd absorbs at the value in force
 * needs no raise. A reader refilling its cache holds nothing more. */
static bool still_taking(const struct episode_params *ep, const struct pressure *p)
{
        double share = onset_share(ep, p);
        return p->held_pages_per_sec >= share && p->kswapd_pages_per_sec >= share;
}

int episode_step(struct episode_tracker *t, const struct episode_params *ep, const struct pressure *p,
                 double time, double dt, long wsf, struct episode_stats *ended)
{
        if (!t->active) {
                if (!pressing(ep, p))
                        return 0;
                t->active = true;
                t->calm_samples = 0;
                t->cur = (struct episode_stats){ .start = time - dt, .min_margin_pages = INFINITY };
                account(&t->cur, ep, p, dt, wsf);
                t->cur.end = time;
                return 1;
        }
        account(&t->cur, ep, p, dt, wsf);
        if (pressing(ep, p) || still_taking(ep, p)) {
                t->cur.end = time;
                t->calm_samples = 0;
                return 0;
        }
        t->calm_samples++;
        bool recovered = p->free_pages >= p->wmark_high && t->calm_samples >= EPISODE_CALM_SAMPLES;
        if (!recovered && time - t->cur.end < EPISODE_QUIET_SECS)
                return 0;
        *ended = t->cur;
        t->active = false;
        return -1;
}
