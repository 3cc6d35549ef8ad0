#include "policy.h"

#include <limits.h>
#include <math.h>
#include <string.h>

/* A raise smaller than this fraction of the value in force is not worth a
 * write; keeps the value from dithering on noise. */
#define RAISE_HYSTERESIS 0.10
/* Stalls in the last interval raise the value by at least half. */
#define STALL_GAIN 0.5
/* kswapd's best rate is remembered beyond the window, halving over this
 * long: what it reclaimed in the last burst is the best guess for the next,
 * and an idle window before a burst would otherwise credit it with nothing. */
#define KSWAPD_CAPACITY_HALF_LIFE 600.0
/* After the first lowering, further ones come this many times faster than
 * the calm period: the calm was shown, the rest of the excess is waste. */
#define DECAY_SPEEDUP 8.0
/* Compaction helps only when most free memory sits in blocks too small for
 * the order (the proactive-compaction score of the kernel, as a fraction). */
#define COMPACT_MIN_EXTFRAG 0.5

const char *wsf_reason_str(enum wsf_reason r)
{
        static const char *const s[] = {
                [WSF_KEEP] = "keep", [WSF_RAISE_FORECAST] = "raise",
                [WSF_RAISE_STALL] = "raise-stall", [WSF_LOWER_CALM] = "lower",
                [WSF_LOWER_GUARD] = "lower-guard", [WSF_ADOPT] = "adopt",
        };
        return s[r];
}

void policy_init(struct policy_state *st, long baseline, long in_force)
{
        *st = (struct policy_state){
                .baseline = baseline, .current = in_force, .kernel_seen = in_force,
                .kernel_refused = LONG_MAX,
                .last_change = -INFINITY, .last_raise = -INFINITY, .last_stall = -INFINITY,
                .kswapd_capacity_time = -INFINITY,
        };
}

long wsf_for_gap(double gap, uint64_t managed)
{
        if (managed == 0 || !(gap > 0))
                return 0;
        double v = ceil(gap * 10000.0 / (double)managed);
        return v > (double)INT_MAX ? INT_MAX : (long)v;
}

/* __setup_per_zone_wmarks(): high = min + 2 * max(min / 4, managed * wsf / 10000) */
static double high_sum(const struct forecast *f, long wsf)
{
        double sum = 0;
        for (size_t i = 0; i < f->nr_zones; i++) {
                const struct zone_forecast *z = &f->zones[i];
                uint64_t gap = z->managed_pages * (uint64_t)wsf / 10000;
                if (gap < z->wmark_min / 4)
                        gap = z->wmark_min / 4;
                sum += (double)(z->wmark_min + 2 * gap);
        }
        return sum;
}

long wsf_guard(const struct forecast *f, double oom_headroom, long limit)
{
        double budget = (double)f->reclaimable - oom_headroom * (double)f->managed_pages;
        if (high_sum(f, 0) > budget)
                return 0;
        long lo = 0, hi = limit;        /* high_sum(lo) fits; find the largest */
        while (lo < hi) {
                long mid = lo + (hi - lo + 1) / 2;
                if (high_sum(f, mid) <= budget)
                        lo = mid;
                else
                        hi = mid - 1;
        }
        return lo;
}

static void note_zone(struct decision *d, const struct forecast *f, const struct zone_forecast *z)
{
        d->node = z->node;
        memcpy(d->zone, z->name, sizeof(d->zone));
        d->secs_to_low = z->secs_to_low;
        d->secs_to_min = z->secs_to_min;
        d->reclaim = f->kswapd_rate;
        d->direct = f->direct_rate;
}

/* The best reclaim rate kswapd has shown: this window's peak, or an older
 * one decayed by its age. */
static double kswapd_capacity(struct policy_state *st, const struct forecast *f)
{
        double age = f->time - st->kswapd_capacity_time;
        double old = isfinite(age) && age >= 0 ?
                     st->kswapd_capacity * exp2(-age / KSWAPD_CAPACITY_HALF_LIFE) : 0;
        if (f->kswapd_peak >= old) {
                st->kswapd_capacity = f->kswapd_peak;
                st->kswapd_capacity_time = f->time;
                return f->kswapd_peak;
        }
        return old;
}

/* How long the gap must cover a shortfall: as long again as the drain has
 * lasted so far (a drain seen for one interval is more likely a burst than
 * the start of ten seconds of it), at least one interval, at most the
 * horizon. A drain longer than the window gets the horizon. */
static double cover_time(const struct policy_config *cfg, double drain_age)
{
        if (!(drain_age < cfg->horizon))
                return cfg->horizon;
        return drain_age > cfg->interval ? drain_age : cfg->interval;
}

/* The value whose low-min gap covers what kswapd cannot reclaim in time,
 * for the zone that needs most. Returns the baseline when none needs more. */
static long forecast_target(const struct policy_state *st, const struct policy_config *cfg,
                            const struct forecast *f, double capacity, struct decision *d)
{
        long target = st->baseline;
        for (size_t i = 0; i < f->nr_zones; i++) {
                const struct zone_forecast *z = &f->zones[i];
                double share = (double)z->managed_pages / (double)f->managed_pages;
                if (share < STEER_MIN_SHARE || !z->trend || z->consumption_pages_per_sec <= 0 ||
                    z->secs_to_low >= cfg->horizon)
                        continue;
                /* The fit sees consumption net of reclaim; add reclaim back
                 * to get what consumers take, then compare with the best
                 * reclaim rate kswapd has shown (its share for this zone). */
                double drain = z->consumption_pages_per_sec + share * (f->kswapd_rate + f->direct_rate);
                double shortfall = drain - share * capacity;
                if (shortfall <= 0)
                        continue;
                double cover = cover_time(cfg, z->drain_age);
                long w = wsf_for_gap(shortfall * cover, z->managed_pages);
                if (w > target) {
                        target = w;
                        note_zone(d, f, z);
                        d->drain = drain;
                        d->cover = cover;
                }
        }
        return target;
}

/* Stalls mean the forecast came too late or the gap was too small: raise by
 * half at least, and enough to have covered the direct reclaim seen for the
 * whole horizon. Not by the drain's age, as a forecast raise is: a stall is
 * the harm the daemon exists to prevent, and a burst that already stalls
 * within one interval shows no age worth the name (measured: sized by age,
 * a 2 s cover let the next interval stall ten times as much). */
static long stall_target(const struct policy_state *st, const struct policy_config *cfg,
                         const struct forecast *f)
{
        long by_gain = st->current + (long)ceil((double)st->current * STALL_GAIN);
        long by_direct = wsf_for_gap(f->direct_rate * cfg->horizon, f->managed_pages);
        return by_gain > by_direct ? by_gain : by_direct;
}

static bool any_zone_falling(const struct forecast *f)
{
        for (size_t i = 0; i < f->nr_zones; i++)
                if (f->zones[i].consumption_pages_per_sec > 0)
                        return true;
        return false;
}

/* Lower once a calm period has passed since the last raise and the last
 * stall, then step on faster while the calm lasts. */
static long calm_target(const struct policy_state *st, const struct policy_config *cfg,
                        const struct forecast *f, long target)
{
        double now = f->time;
        double step = fmax(cfg->interval, cfg->calm_period / DECAY_SPEEDUP);
        if (st->current <= st->baseline || now - st->last_stall < cfg->calm_period ||
            now - st->last_raise < cfg->calm_period || now - st->last_change < step ||
            any_zone_falling(f))
                return st->current;
        long v = st->baseline + (st->current - st->baseline) / 2;
        if (v - st->baseline <= 1)
                v = st->baseline;
        return v > target ? v : target;
}

static void decide_wsf(struct policy_state *st, const struct policy_config *cfg,
                       const struct forecast *f, struct decision *d)
{
        long limit = cfg->max_wsf;
        if (st->kernel_refused != LONG_MAX && st->kernel_refused - 1 < limit)
                limit = st->kernel_refused - 1;
        long guard = wsf_guard(f, cfg->oom_headroom, limit);
        d->ceiling = guard > st->baseline ? guard : st->baseline;

        double capacity = kswapd_capacity(st, f);
        d->reclaim_peak = capacity;
        long target = forecast_target(st, cfg, f, capacity, d);
        enum wsf_reason up = WSF_RAISE_FORECAST;
        d->stalls = f->allocstalls + f->compact_stalls;
        if (d->stalls > 0 || f->direct_rate > 0) {
                st->last_stall = f->time;
                long s = stall_target(st, cfg, f);
                if (s > target) {
                        target = s;
                        up = WSF_RAISE_STALL;
                        d->cover = cfg->horizon;
                        d->reclaim = f->kswapd_rate;
                        d->direct = f->direct_rate;
                }
        }

        long v = st->current;
        if (st->current > d->ceiling) {
                v = d->ceiling;
                d->reason = WSF_LOWER_GUARD;
        } else if (target > st->current) {
                long want = target < d->ceiling ? target : d->ceiling;
                long step = st->current / 10 > 1 ? (long)(st->current * RAISE_HYSTERESIS) : 1;
                if (want - st->current >= step) {
                        v = want;
                        d->reason = up;
                }
        } else {
                v = calm_target(st, cfg, f, target);
                if (v < st->current)
                        d->reason = WSF_LOWER_CALM;
        }
        if (d->reason == WSF_KEEP)
                return;
        d->wsf_new = v;
        if (v > st->current)
                st->last_raise = f->time;
        st->current = v;
        st->last_change = f->time;
        if (cfg->writes)
                st->kernel_seen = v;
}

static struct node_compaction *node_state(struct policy_state *st, int node)
{
        for (size_t i = 0; i < st->nr_nodes; i++)
                if (st->nodes[i].node == node)
                        return &st->nodes[i];
        if (st->nr_nodes == POLICY_NODE_CAP)
                return NULL;
        st->nodes[st->nr_nodes] = (struct node_compaction){ .node = node, .next_allowed = -INFINITY };
        return &st->nodes[st->nr_nodes++];
}

/* Judge the compaction done after the previous sample, like the kernel's
 * defer_compaction(): no new block of the order means wait twice as long. */
static void judge_compaction(struct node_compaction *ns, const struct policy_config *cfg,
                             const struct forecast *f, const struct node_forecast *n,
                             struct decision *d)
{
        ns->pending = false;
        double after = n->free_at_order[ns->order];
        if (after >= ns->before + (double)(1ull << ns->order)) {
                ns->defer_shift = 0;
                return;
        }
        if (ns->defer_shift < POLICY_MAX_DEFER_SHIFT)
                ns->defer_shift++;
        double wait = cfg->interval * (double)(1u << ns->defer_shift);
        ns->next_allowed = f->time + wait;
        d->backoff[d->nr_backoff++] = (struct compact_backoff){
                .node = n->node, .order = ns->order, .defer_shift = ns->defer_shift,
                .before = ns->before, .after = after, .retry_in = wait,
        };
}

/* The highest order that will run out within the lead time while enough of
 * the node's free memory is fragmented for compaction to make blocks. */
static int order_to_compact(const struct policy_config *cfg, const struct forecast *f,
                            const struct node_forecast *n)
{
        for (unsigned k = f->max_order; k >= 1; k--) {
                double block = (double)(1ull << k);
                if (n->secs_to_exhaust[k] < cfg->lead_time &&
                    n->extfrag[k] >= COMPACT_MIN_EXTFRAG &&
                    n->free_pages - n->free_at_order[k] >= 2 * block &&
                    n->free_pages >= (double)n->wmark_low + 2 * block)
                        return (int)k;
        }
        return -1;
}

static void decide_compaction(struct policy_state *st, const struct policy_config *cfg,
                              const struct forecast *f, struct decision *d)
{
        for (size_t i = 0; i < f->nr_nodes; i++) {
                const struct node_forecast *n = &f->nodes[i];
                struct node_compaction *ns = node_state(st, n->node);
                if (!ns)
                        continue;
                if (ns->pending)
                        judge_compaction(ns, cfg, f, n, d);
                if (!cfg->compaction || f->time < ns->next_allowed)
                        continue;
                int k = order_to_compact(cfg, f, n);
                if (k < 0)
                        continue;
                d->compact[d->nr_compact++] = (struct compact_order){
                        .node = n->node, .order = (unsigned)k,
                        .secs_to_exhaust = n->secs_to_exhaust[k],
                        .free_at_order = n->free_at_order[k], .extfrag = n->extfrag[k],
                };
                ns->pending = true;
                ns->order = (unsigned)k;
                ns->before = n->free_at_order[k];
                ns->next_allowed = f->time + cfg->interval;
        }
}

void policy_decide(struct policy_state *st, const struct policy_config *cfg,
                   const struct forecast *f, struct decision *d)
{
        *d = (struct decision){ .wsf_old = st->current, .wsf_new = st->current, .node = -1 };
        /* A value inherited above the baseline (from a previous instance) is
         * held for a calm period, as if just set: we do not know its history. */
        if (st->last_change == -INFINITY && st->current != st->baseline)
                st->last_change = st->last_raise = f->time;
        if (f->wsf != st->kernel_seen) {
                /* Somebody else wrote the sysctl: theirs is the new baseline. */
                d->reason = WSF_ADOPT;
                d->wsf_new = f->wsf;
                st->baseline = st->current = st->kernel_seen = f->wsf;
                st->last_change = f->time;
        } else {
                decide_wsf(st, cfg, f, d);
        }
        decide_compaction(st, cfg, f, d);
}

void policy_write_failed(struct policy_state *st, const struct decision *d, bool keep_intent)
{
        st->kernel_seen = d->wsf_old;
        if (!keep_intent)
                st->current = d->wsf_old;
}

long policy_kernel_refused(struct policy_state *st, long accepted, long refused)
{
        if (refused < st->kernel_refused)
                st->kernel_refused = refused;
        long next = accepted + (refused - accepted) / 2;
        if (next <= accepted)
                next = accepted;
        st->current = st->kernel_seen = next;
        return next;
}
