#include "forecast.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

struct node_order_ref { int node; unsigned order; };
struct zone_order_ref { size_t zone; unsigned order; };

static double series_zone_order(const struct sample *s, const void *arg)
{
        const struct zone_order_ref *r = arg;
        return (double)zone_free_at_order(&s->zones[r->zone], s->nr_orders, r->order);
}

static double series_zone_free(const struct sample *s, const void *arg)
{
        return (double)s->zones[*(const size_t *)arg].free_pages;
}

static double series_zone_used(const struct sample *s, const void *arg)
{
        const struct zone *z = &s->zones[*(const size_t *)arg];
        return (double)z->managed_pages - (double)z->free_pages;
}

static double series_node_order(const struct sample *s, const void *arg)
{
        const struct node_order_ref *r = arg;
        double sum = 0;
        for (size_t i = 0; i < s->nr_zones; i++)
                if (s->zones[i].node == r->node)
                        sum += (double)zone_free_at_order(&s->zones[i], s->nr_orders, r->order);
        return sum;
}

static bool trusted(const struct fit *f, const struct forecast_params *p)
{
        return f->n >= p->min_points && f->n >= 3 && f->r2 >= p->min_r2;
}

/* A fitted slope made conservative: this many standard errors closer to
 * zero, so that noise lining up for a few samples forecasts nothing. */
#define SLOPE_SE_MARGIN 2.0

/* Seconds until a falling series reaches `level`, at the slowest fall the
 * data support. */
static double secs_until(const struct fit *f, bool trend, double now, double level)
{
        if (now <= level)
                return 0;
        double slope = f->slope + SLOPE_SE_MARGIN * f->slope_se;
        if (!trend || slope >= 0)
                return INFINITY;
        return (now - level) / -slope;
}

/* Seconds until free pages reach `level` while the pages in use grow at
 * the slowest rate the used fit supports. */
static double secs_until_consumed(const struct fit *used, bool trend, double free_now, double level)
{
        if (free_now <= level)
                return 0;
        double rate = used->slope - SLOPE_SE_MARGIN * used->slope_se;
        if (!trend || rate <= 0)
                return INFINITY;
        return (free_now - level) / rate;
}

/* How long pages in use have been growing: since the latest sample at the
 * window's lowest. A drain that started before the window is "long". */
static double drain_age(const struct window *w, size_t zone)
{
        size_t bottom = 0;
        for (size_t i = 1; i < w->len; i++)
                if (series_zone_used(window_at(w, i), &zone) <= series_zone_used(window_at(w, bottom), &zone))
                        bottom = i;
        if (bottom == 0)
                return INFINITY;
        return window_newest(w)->time - window_at(w, bottom)->time;
}

static void zone_forecast(const struct window *w, size_t i, const struct forecast_params *p,
                          unsigned max_order, struct zone_forecast *zf)
{
        const struct zone *z = &window_newest(w)->zones[i];
        *zf = (struct zone_forecast){
                .node = z->node, .managed_pages = z->managed_pages,
                .wmark_min = z->wmark_min, .wmark_low = z->wmark_low,
                .wmark_high = z->wmark_high, .free_pages = (double)z->free_pages,
                .node_unreclaimable = z->node_unreclaimable,
        };
        memcpy(zf->name, z->name, sizeof(zf->name));
        (void)window_fit(w, series_zone_free, &i, &zf->free_fit);    /* reported only */
        zf->trend = window_fit(w, series_zone_used, &i, &zf->used_fit) == 0 &&
                    trusted(&zf->used_fit, p);
        zf->consumption_pages_per_sec = zf->trend ? zf->used_fit.slope : 0;
        const struct sample *prev = window_at(w, w->len - 2);
        zf->consumption_last_pages_per_sec =
                (series_zone_used(window_newest(w), &i) - series_zone_used(prev, &i)) /
                (window_newest(w)->time - prev->time);
        zf->secs_to_low = secs_until_consumed(&zf->used_fit, zf->trend, zf->free_pages, (double)z->wmark_low);
        zf->secs_to_min = secs_until_consumed(&zf->used_fit, zf->trend, zf->free_pages, (double)z->wmark_min);
        zf->drain_age = drain_age(w, i);
        for (unsigned k = 0; k <= max_order; k++) {
                struct zone_order_ref ref = { i, k };
                struct fit f;
                bool trend = window_fit(w, series_zone_order, &ref, &f) == 0 && trusted(&f, p);
                zf->secs_to_exhaust[k] = secs_until(&f, trend, series_zone_order(window_newest(w), &ref),
                                                    (double)(1ull << k));
        }
}

static void node_forecast(const struct window *w, const struct forecast_params *p,
                          unsigned max_order, struct node_forecast *nf)
{
        const struct sample *s = window_newest(w);
        for (size_t i = 0; i < s->nr_zones; i++) {
                if (s->zones[i].node != nf->node)
                        continue;
                nf->managed_pages += s->zones[i].managed_pages;
                nf->wmark_low += s->zones[i].wmark_low;
        }
        for (unsigned k = 0; k <= max_order; k++) {
                struct node_order_ref ref = { nf->node, k };
                nf->free_at_order[k] = series_node_order(s, &ref);
                bool trend = window_fit(w, series_node_order, &ref, &nf->order_fit[k]) == 0 &&
                             trusted(&nf->order_fit[k], p);
                nf->secs_to_exhaust[k] = secs_until(&nf->order_fit[k], trend,
                                                    nf->free_at_order[k], (double)(1ull << k));
        }
        nf->free_pages = nf->free_at_order[0];
        for (unsigned k = 0; k <= max_order; k++)
                nf->extfrag[k] = unusable_index(nf->free_pages, nf->free_at_order[k]);
}

static int alloc_arrays(struct forecast *f, size_t nr_zones)
{
        if (f->zones && f->nr_zones == nr_zones)
                return 0;
        forecast_free(f);
        f->zones = calloc(nr_zones, sizeof(*f->zones));
        f->nodes = calloc(nr_zones, sizeof(*f->nodes));  /* at most one node per zone */
        if (!f->zones || !f->nodes) {
                forecast_free(f);
                return -ENOMEM;
        }
        f->nr_zones = nr_zones;
        return 0;
}

static void node_list(const struct sample *s, struct forecast *f)
{
        f->nr_nodes = 0;
        for (size_t i = 0; i < s->nr_zones; i++) {
                size_t j = 0;
                while (j < f->nr_nodes && f->nodes[j].node != s->zones[i].node)
                        j++;
                if (j == f->nr_nodes)
                        f->nodes[f->nr_nodes++] = (struct node_forecast){ .node = s->zones[i].node };
        }
}

static void rates(const struct window *w, struct forecast *f)
{
        struct fit fit;
        f->kswapd_peak = 0;
        for (size_t i = 1; i < w->len; i++) {
                const struct sample *a = window_at(w, i - 1), *b = window_at(w, i);
                double dt = b->time - a->time;
                if (dt > 0 && b->vm.pgsteal_kswapd > a->vm.pgsteal_kswapd)
                        f->kswapd_peak = dmax(f->kswapd_peak,
                                              (double)(b->vm.pgsteal_kswapd - a->vm.pgsteal_kswapd) / dt);
        }
        f->kswapd_rate = window_last_delta(w, offsetof(struct vmstat, pgsteal_kswapd)) / f->dt;
        f->direct_rate = window_last_delta(w, offsetof(struct vmstat, pgsteal_direct)) / f->dt;
        f->allocstalls = (uint64_t)window_last_delta(w, offsetof(struct vmstat, allocstall));
        f->compact_stalls = (uint64_t)window_last_delta(w, offsetof(struct vmstat, compact_stall));
        const struct sample *s = window_newest(w), *prev = window_at(w, w->len - 2);
        f->thp_rate = dmax(0, ((double)s->mem.anon_huge - (double)prev->mem.anon_huge) / f->dt);
        f->clean_fill_rate = f->held_rate = 0;
        f->parts_known = s->mem.parts_known && prev->mem.parts_known;
        if (f->parts_known) {
                double file = (double)(s->mem.active_file + s->mem.inactive_file) -
                              (double)(prev->mem.active_file + prev->mem.inactive_file);
                double dirty = (double)(s->mem.dirty + s->mem.writeback) -
                               (double)(prev->mem.dirty + prev->mem.writeback);
                double held = meminfo_held(&s->mem) - meminfo_held(&prev->mem);
                f->clean_fill_rate = dmax(0, file - dmax(0, dirty)) / f->dt;
                f->held_rate = dmax(0, held) / f->dt;
        }
        f->kswapd_window_rate = window_fit_counter(w, offsetof(struct vmstat, pgsteal_kswapd), &fit) == 0 ?
                                fit.slope : 0;
        f->kswapd_scan_rate = window_fit_counter(w, offsetof(struct vmstat, pgscan_kswapd), &fit) == 0 ?
                              fit.slope : 0;
}

int forecast_compute(const struct window *w, const struct forecast_params *p, struct forecast *f)
{
        if (w->len < 2)
                return -EAGAIN;
        const struct sample *s = window_newest(w);
        double dt = s->time - window_at(w, w->len - 2)->time;
        if (dt <= 0)
                return -EINVAL;
        int r = alloc_arrays(f, s->nr_zones);
        if (r < 0)
                return r;

        f->time = s->time;
        f->dt = dt;
        f->wsf = s->wsf;
        f->nr_orders = s->nr_orders;
        f->max_order = p->max_order < s->nr_orders ? p->max_order : s->nr_orders - 1;
        f->managed_pages = 0;
        for (size_t i = 0; i < s->nr_zones; i++) {
                zone_forecast(w, i, p, f->max_order, &f->zones[i]);
                f->managed_pages += s->zones[i].managed_pages;
        }
        node_list(s, f);
        for (size_t j = 0; j < f->nr_nodes; j++)
                node_forecast(w, p, f->max_order, &f->nodes[j]);
        rates(w, f);
        f->reclaimable = s->mem.mem_free + s->mem.active_file + s->mem.inactive_file;
        /* anonymous and shared memory go to swap as far as it has room
         * (swap_free is 0 where unknown: traces from before 0.4.9) */
        uint64_t swappable = s->mem.anon_pages + s->mem.shmem;
        if (swappable > s->mem.swap_free)
                swappable = s->mem.swap_free;
        f->kswapd_reclaimable = s->mem.active_file + s->mem.inactive_file + swappable;
        return 0;
}

void forecast_free(struct forecast *f)
{
        free(f->zones);
        free(f->nodes);
        f->zones = NULL;
        f->nodes = NULL;
        f->nr_zones = f->nr_nodes = 0;
}

bool forecast_zone_steered(const struct forecast *f, const struct zone_forecast *z)
{
        return (double)z->managed_pages >= STEER_MIN_SHARE * (double)f->managed_pages;
}

const struct zone_forecast *forecast_largest_zone(const struct forecast *f)
{
        const struct zone_forecast *best = NULL;
        for (size_t i = 0; i < f->nr_zones; i++)
                if (!best || f->zones[i].managed_pages > best->managed_pages)
                        best = &f->zones[i];
        return best;
}
