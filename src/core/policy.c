#include "policy.h"

#include <limits.h>
#include <math.h>
#include <string.h>

#include "util.h"

/* A raise smaller than this fraction of the value in force is not worth a
 * write; keeps the value from dithering on noise. */
#define RAISE_HYSTERESIS 0.10
/* kswapd's capacity before it has been measured (kswapd_rate_prior auto):
 * this share of managed memory per second. Not zero (clean page cache is
 * reclaimed at gigabytes per second; a fill of the page cache must not look
 * like a shortfall), nor so high that a real shortfall would be missed
 * (stalls correct it, and the first episode below low measures it). */
#define KSWAPD_PRIOR_SHARE_PER_SEC 0.05
/* An interval's demand of this share of managed memory per second starts
 * or keeps alive an episode (with free memory heading for low). */
#define EPISODE_ONSET_SHARE_PER_SEC 0.002
/* kswapd is failing when it scans at least this share of managed memory per
 * second and reclaims less than this share of what it scans: a higher
 * watermark would only make it burn more CPU. */
#define KSWAPD_BUSY_SHARE_PER_SEC 0.01
#define KSWAPD_MIN_EFFICIENCY 0.10
/* A raise in force holds while free memory, at the rate the workload takes
 * it, stays above low for this many intervals: the next sample can still
 * act before kswapd would wake behind. */
#define HOLD_INTERVALS 2.0
/* A recurring episode is raised for this long before it is due: at least
 * this many intervals, or this share of its period if longer, so that
 * kswapd has the head start before the episode begins. */
#define RECUR_LEAD_INTERVALS 2.0
#define RECUR_LEAD_SHARE 0.10
/* Compaction helps only when most free memory sits in blocks too small for
 * the order (the proactive-compaction score of the kernel, as a fraction). */
#define COMPACT_MIN_EXTFRAG 0.5
/* A compaction helped only when it made at least this share of the node's
 * memory into new blocks of its order: one block is not worth a whole-node
 * compaction. */
#define COMPACT_USEFUL_SHARE 0.01
/* An exhaustion of blocks must be forecast on this many samples in a row
 * before a compaction: noise that lines up once must not cost one. */
#define COMPACT_CONFIRM 2
/* Huge pages faulted in after a compaction that found its blocks: at most
 * one compaction stall for this many blocks taken (bench fragmented: 0-9
 * stalls for ~3550 huge pages after a compaction, ~1350 without). */
#define COMPACT_FAULTS_PER_STALL 100

const char *wsf_reason_str(enum wsf_reason r)
{
        static const char *const s[] = {
                [WSF_KEEP] = "keep", [WSF_RAISE_FORECAST] = "raise",
                [WSF_RAISE_STALL] = "raise-stall", [WSF_LOWER_CALM] = "lower",
                [WSF_LOWER_GUARD] = "lower-guard", [WSF_ADOPT] = "adopt",
                [WSF_RAISE_LEARNED] = "raise-learned", [WSF_RAISE_RECUR] = "raise-recurrence",
        };
        return r >= 0 && r < _WSF_REASONS ? s[r] : "?";
}

const char *raise_hold_str(enum raise_hold h)
{
        static const char *const s[] = {
                [HOLD_NONE] = "none", [HOLD_KSWAPD_FAILING] = "kswapd-failing",
                [HOLD_NODE_UNRECLAIMABLE] = "node-unreclaimable",
                [HOLD_NOTHING_TO_RECLAIM] = "nothing-to-reclaim",
        };
        return h >= 0 && h < _HOLD_REASONS ? s[h] : "?";
}

void policy_init(struct policy_state *st, long baseline, long in_force)
{
        *st = (struct policy_state){
                .baseline = baseline, .current = in_force, .kernel_seen = in_force,
                .kernel_refused = LONG_MAX,
                .last_change = -INFINITY, .last_raise = -INFINITY, .last_stall = -INFINITY,
                .episode_end = -INFINITY, .demand_end = -INFINITY, .recur_until = -INFINITY,
        };
        episode_init(&st->episodes);
        learn_init(&st->learned);
}

long wsf_for_gap(double gap, uint64_t managed)
{
        if (managed == 0 || !(gap > 0))
                return 0;
        double v = dceil(gap * PERMYRIAD / (double)managed);
        return v > (double)INT_MAX ? INT_MAX : (long)v;
}

/* Every zone's high at wsf: min plus twice the gap (wmark_gap()). */
static double high_sum(const struct forecast *f, long wsf)
{
        double sum = 0;
        for (size_t i = 0; i < f->nr_zones; i++) {
                const struct zone_forecast *z = &f->zones[i];
                sum += (double)z->wmark_min + 2 * wmark_gap(z->managed_pages, z->wmark_min, wsf);
        }
        return sum;
}

/* The largest value in lo..hi whose zones' high watermarks sum to at most
 * budget pages, given that lo's do. */
static long highest_within(const struct forecast *f, double budget, long lo, long hi)
{
        while (lo < hi) {
                long mid = lo + (hi - lo + 1) / 2;
                if (high_sum(f, mid) <= budget)
                        lo = mid;
                else
                        hi = mid - 1;
        }
        return lo;
}

long wsf_guard(const struct forecast *f, double oom_headroom, long limit)
{
        double budget = (double)f->reclaimable - oom_headroom * (double)f->managed_pages;
        if (high_sum(f, 0) > budget)
                return 0;
        return highest_within(f, budget, 0, limit);
}

/* A raise has kswapd keep the extra free memory by reclaiming: with less
 * to reclaim than that, it evicts all of it and then fails until it gives
 * up on the node (bench fragmented: raised to 1000 during a 20 GB fill of
 * anonymous memory with 10 MB of page cache, kswapd gave up within the
 * run in 3 of 10; it was woken at no setting after that). */
long wsf_reclaim_cap(const struct forecast *f, double oom_headroom, long baseline, long limit)
{
        double room = (double)f->kswapd_reclaimable - oom_headroom * (double)f->managed_pages;
        if (limit <= baseline || room <= 0)
                return baseline;
        return highest_within(f, high_sum(f, baseline) + room, baseline, limit);
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

/* What kswapd can reclaim: the best rate it has shown while free memory was
 * below low (measured in past episodes, learn.h) or, before any such
 * measurement, a prior share of memory per second; and never less than
 * what it reclaimed in an interval of this window. */
static double kswapd_capacity(const struct policy_state *st, const struct policy_config *cfg,
                              const struct forecast *f, uint64_t managed)
{
        double known = learn_kswapd_capacity(&st->learned, f->time);
        double prior = cfg->kswapd_prior_pages_per_sec > 0 ? cfg->kswapd_prior_pages_per_sec :
                       KSWAPD_PRIOR_SHARE_PER_SEC * (double)managed;
        return dmax(f->kswapd_peak, known > 0 ? known : prior);
}

/* The value in force holds: free memory, at the rate the workload takes it
 * (net of a clean fill of the page cache), stays above low for
 * HOLD_INTERVALS. */
static bool holding(const struct policy_config *cfg, const struct pressure *p)
{
        double falling = pressure_taken(p);
        return falling < EPISODE_ONSET_SHARE_PER_SEC * (double)p->managed_pages ||
               p->free_pages - p->wmark_low >= HOLD_INTERVALS * cfg->interval * falling;
}

/* An episode of a kind never seen: the gap that covers what kswapd, at its
 * capacity, cannot reclaim of the demand, until the next sample. kswapd's
 * capacity is in single pages: huge pages faulted in take whole blocks,
 * which only free memory already there (or a compaction) provides however
 * fast kswapd reclaims -- a burst of 0.5 GB/s of THP stalled 552 times at
 * the defaults beside a kswapd reclaiming 1.1 GB/s -- so that part of the
 * demand is a shortfall whole, and a raise wakes kswapd early. The gap
 * covers a whole interval of it (POLICY_THP_COVER_INTERVALS): a quarter,
 * which static values' gaps suggested, left the mixed bench's irregular
 * burst stalling as much as the defaults (kswapd's single pages make no
 * huge page until kcompactd has run). Only while free
 * memory is above low: below it kswapd is awake already, and a higher
 * watermark makes it reclaim no faster now, only longer after the episode
 * (page cache lost; a bench run raised 10 -> 743 four seconds into a burst
 * that was over). What a stall shows, and what is learnt, still raise.
 * The rates are the episode's per interval (episode_per_interval()): a
 * burst the fast path caught early is sized by what it took, not by an
 * interval at the speed of its first fraction of a second. */
static double onset_gap(double demand, double thp, double capacity, double interval)
{
        return dmax(0, demand - thp - capacity) * interval + thp * POLICY_THP_COVER_INTERVALS * interval;
}

static long shortfall_target(const struct policy_state *st, const struct policy_config *cfg,
                             const struct forecast *f, const struct pressure *p, double demand,
                             double capacity, struct decision *d)
{
        bool raised = st->current > st->baseline;
        /* Huge pages count whole only at the onset, to wake kswapd early.
         * Once a raise is in force kswapd is awake or about to be, and its
         * reclaim feeds kcompactd: what huge pages still lack shows as
         * stalls (which the learner takes), not as a forecast -- counted
         * whole again, a train of 1.3 GB/s THP bursts grew 510 -> 1000 here
         * beside a kswapd reclaiming 2.6 GB/s, with no stall, where a
         * static 100 had none either. */
        double thp = dmin(st->episodes.cur.peak_thp_pages_per_sec, demand);
        double gap = raised ? dmax(0, demand - thp - capacity) * cfg->interval :
                     onset_gap(demand, thp, capacity, cfg->interval);
        d->thp = raised ? 0 : thp;      /* what the gap was sized for */
        if (gap <= 0 || p->free_pages < p->wmark_low)
                return 0;
        /* A raise in force that holds is enough: growing it with the
         * episode's age would only have kswapd evict more (a burst here went
         * 222 -> 305 -> 1000 while free memory rose). One that does not
         * grows by another interval of the shortfall: closed loop, each
         * step sized by what the last one failed to cover. */
        double in_force = 0;
        if (raised) {
                if (holding(cfg, p))
                        return 0;
                in_force = (double)st->current * (double)p->managed_pages / PERMYRIAD;
        }
        const struct zone_forecast *z = forecast_largest_zone(f);
        if (z)
                note_zone(d, f, z);
        d->cover = cfg->interval;
        d->thp_cover = raised ? 0 : POLICY_THP_COVER_INTERVALS * cfg->interval;
        return wsf_for_gap(in_force + gap, p->managed_pages);
}

/* kswapd scans much and reclaims little of it over the window. */
static bool kswapd_failing(const struct forecast *f, uint64_t managed)
{
        return f->kswapd_scan_rate >= KSWAPD_BUSY_SHARE_PER_SEC * (double)managed &&
               f->kswapd_window_rate < KSWAPD_MIN_EFFICIENCY * f->kswapd_scan_rate;
}

/* Whether a higher watermark can help kswapd now: not on a node it gave
 * up on (it is no longer woken there until an allocation reclaims some
 * memory itself), nor while it fails where it reclaims. */
static enum raise_hold raise_hold_of(const struct forecast *f, uint64_t managed, struct decision *d)
{
        for (size_t i = 0; i < f->nr_zones; i++) {
                const struct zone_forecast *z = &f->zones[i];
                if (z->node_unreclaimable && forecast_zone_steered(f, z)) {
                        d->hold_node = z->node;
                        return HOLD_NODE_UNRECLAIMABLE;
                }
        }
        d->hold_scan = f->kswapd_scan_rate;
        d->hold_steal = f->kswapd_window_rate;
        return kswapd_failing(f, managed) ? HOLD_KSWAPD_FAILING : HOLD_NONE;
}

/* Feed the episode tracker; what an ended episode showed is learnt. */
static void follow_episodes(struct policy_state *st, const struct policy_config *cfg,
                            const struct forecast *f, const struct pressure *p, struct decision *d)
{
        struct episode_params ep = { .horizon = cfg->horizon,
                                     .onset_share_per_sec = EPISODE_ONSET_SHARE_PER_SEC,
                                     .interval = cfg->interval };
        int step = episode_step(&st->episodes, &ep, p, f->time, f->dt, st->current, &d->episode);
        if (st->episodes.active)
                st->demand_end = st->episodes.cur.end;
        if (step < 0) {
                learn_episode(&st->learned, &d->episode);
                st->demand_end = d->episode.end;
                st->episode_end = f->time;
                d->episode_ended = true;
                d->demand_kind = learn_kind_of(d->episode.peak_demand_pages_per_sec,
                                               d->episode.peak_thp_pages_per_sec);
                d->learned_wsf = learn_wsf_for(&st->learned, d->demand_kind, d->episode.peak_demand_pages_per_sec,
                                               d->episode.managed_pages);
        }
}

/* What the recurring episode in d->recur needs now, if it is due within
 * the lead and needs more than `above` (noted in d); 0 if not. */
static long recur_due(const struct learned *l, const struct policy_config *cfg, const struct pressure *p,
                      double now, long above, struct decision *d)
{
        if (!d->recur.expected)
                return 0;
        double lead = dmax(RECUR_LEAD_INTERVALS * cfg->interval, RECUR_LEAD_SHARE * d->recur.period);
        if (now < d->recur.next_start - lead)
                return 0;
        long w = learn_wsf_for(l, d->recur.kind, d->recur.peak_demand_pages_per_sec, p->managed_pages);
        if (w <= above)
                return 0;
        d->drain = d->recur.peak_demand_pages_per_sec;
        d->demand_class = learn_class_of(d->drain, p->managed_pages);
        d->demand_kind = d->recur.kind;
        d->learned_wsf = w;
        d->recur_due_in = d->recur.next_start - now;
        return w;
}

/* What an episode still taking memory calls for: what its class needed,
 * at once; where a raise is in force and does not hold (a kind of episode
 * larger than its class learnt: the same rate for longer), what the
 * shortfall calls for as well. */
static long episode_target(struct policy_state *st, const struct policy_config *cfg, const struct forecast *f,
                           const struct pressure *p, double capacity, long target, struct decision *d,
                           enum wsf_reason *why)
{
        double demand = st->episodes.cur.peak_demand_pages_per_sec;
        d->drain = demand;
        d->demand_class = learn_class_of(demand, p->managed_pages);
        d->demand_kind = learn_kind_of(demand, st->episodes.cur.peak_thp_pages_per_sec);
        struct learn_key k = learn_class_for(&st->learned, d->demand_kind, demand, p->managed_pages);
        long learned = learn_class_wsf(&st->learned, k);
        d->learned_wsf = learned;
        d->learned_kind = k.kind;
        if (k.class >= 0)
                d->learned_above = k.class - d->demand_class;
        long s = learned < 0 || st->current > st->baseline ?
                 shortfall_target(st, cfg, f, p, demand, capacity, d) : 0;
        bool by_class = learned >= s;
        long w = by_class ? learned : s;
        if (w > target) {
                target = w;
                *why = by_class ? WSF_RAISE_LEARNED : WSF_RAISE_FORECAST;
        }
        return target;
}

/* What a recurring episode due within the lead calls for. */
static long recurrence_target(struct policy_state *st, const struct policy_config *cfg, const struct forecast *f,
                              const struct pressure *p, bool receding, long target, struct decision *d,
                              enum wsf_reason *why)
{
        if (!st->episodes.active) {
                recur_find(&st->learned, p->managed_pages, f->time, &d->recur);
                long w = recur_due(&st->learned, cfg, p, f->time, target, d);
                if (w > 0) {
                        target = w;
                        *why = WSF_RAISE_RECUR;
                        st->recur_until = d->recur.next_start + RECUR_TOLERANCE * d->recur.period;
                }
        } else if (receding && st->current > st->baseline) {
                /* Given back while the episode is still open (free memory
                 * below the raised high): once it ends, the pattern it
                 * continues may have the next one due within the lead. Give
                 * back only to what that one needs, not to the baseline and
                 * up again a sample later (twice per burst of the bench's
                 * train). Not held for it: it is not due until this one has
                 * ended, and then the rule above holds it. */
                struct learned after = st->learned;
                learn_episode(&after, &st->episodes.cur);
                recur_find(&after, p->managed_pages, f->time, &d->recur);
                long w = recur_due(&after, cfg, p, f->time, target, d);
                if (w > 0)
                        target = w;
        }
        return target;
}

/* What the fast path watches for: a fall that would start an episode --
 * at the onset share, and fast enough to bring free memory to low within
 * the horizon -- while one at kswapd's capacity could. Not kswapd's
 * capacity itself: kswapd sleeps until low, and huge pages stall long
 * before it falls behind (bursts here fault at 0.4-2.4 GB/s against a
 * prior of 1.3 GB/s). A false alarm costs one sample: the sample
 * decides. */
static void arm_onset_watch(struct policy_state *st, const struct policy_config *cfg, const struct pressure *p,
                            double capacity)
{
        double above_low = p->free_pages - p->wmark_low;
        st->onset_trigger_pages_per_sec = dmax(EPISODE_ONSET_SHARE_PER_SEC * (double)p->managed_pages,
                                               above_low / cfg->horizon);
        /* also between the bursts of an episode: the value is given back
         * when its demand stops (calm()), and the next burst is its onset */
        bool taking = st->episodes.active && st->episodes.calm_samples == 0;
        st->onset_armed = !taking && above_low < capacity * cfg->horizon;
}

/* What the value should be now, and why. */
static long wsf_target(struct policy_state *st, const struct policy_config *cfg, const struct forecast *f,
                       const struct pressure *p, struct decision *d, enum wsf_reason *why)
{
        long target = st->baseline;
        *why = WSF_KEEP;
        double capacity = kswapd_capacity(st, cfg, f, p->managed_pages);
        d->reclaim_peak = capacity;
        /* No demand in the last interval (what the workload took, counting
         * what reclaim gave it): it has passed. A raise now, whatever
         * showed it needed (a stall that is over, a class's size), would
         * only have kswapd evict page cache after the fact: a stall raise
         * seen a second late, after a THP burst had freed its memory, made
         * it reclaim 1.7 GB more here. What it showed is learnt all the
         * same. */
        bool receding = p->demand_pages_per_sec < EPISODE_ONSET_SHARE_PER_SEC * (double)p->managed_pages;
        if (st->episodes.active && !receding)
                target = episode_target(st, cfg, f, p, capacity, target, d, why);
        target = recurrence_target(st, cfg, f, p, receding, target, d, why);
        /* A stall is evidence about the interval that has passed, and the
         * learner sizes the next episode of its kind by it (learn.h). It
         * does not raise the value in force: by the time it is seen a
         * short burst is ending, and the raise only had kswapd evict page
         * cache after it (mixed bench, 3 rounds: the same stalls without
         * it, 3.9 M refaults instead of 5.7 M, the reader's loss 13.5 %
         * instead of 22.5 %; bench/README.md). A long episode that the
         * value in force does not cover grows it by the shortfall
         * (shortfall_target()). It does keep the value in force from being
         * given back until calm_period has passed (calm()). */
        if (p->allocstalls > 0 || p->direct_pages_per_sec > 0)
                st->last_stall = f->time;
        if (p->compact_stalls > 0)
                st->compact_wanted = true;
        d->hold = raise_hold_of(f, p->managed_pages, d);
        /* Said only while a raise is called for: a small page cache is no
         * news until then, and would come and go with it. */
        if (d->hold == HOLD_NONE && target > st->current && d->reclaim_cap <= st->current)
                d->hold = HOLD_NOTHING_TO_RECLAIM;
        d->hold_was = st->hold;
        d->hold_changed = d->hold != st->hold;
        st->hold = d->hold;
        if (target > st->current && d->hold != HOLD_NONE)
                target = st->current;   /* a higher watermark would only burn CPU */
        arm_onset_watch(st, cfg, p, capacity);
        return target;
}

/* The raise for a recurring episode has run out: a quarter period after
 * the episode was due, with no demand or stall since then. Only a value
 * raised for it: one a forecast raised and a recurrence found later merely
 * covered is the calm period's to give back (an administrator's long
 * calm_period was cut short here by 0.4.0). */
static bool recur_expired(const struct policy_state *st, double now)
{
        return now >= st->recur_until && st->recur_raised && st->recur_until > st->demand_end &&
               st->recur_until > st->last_stall;
}

/* An episode began after the last raise: for a raise for a recurring
 * episode (made only while none is under way), the one it was for. */
static bool recur_came(const struct policy_state *st)
{
        return (st->episodes.active && st->episodes.cur.start >= st->last_raise) ||
               st->episode_end > st->last_raise;
}

/* Give the memory back once the workload has stopped taking memory: no
 * demand (and no stall, no raise) for the calm period -- not once the
 * episode is over. An episode ends with free memory back above high, and a
 * raised high is reached only by kswapd evicting page cache up to it after
 * the demand has gone (the bench's reader then read 3-5 GB back at this
 * VM's host-fault speed: 1 GB/s instead of 10 for a whole calm phase).
 * If the demand comes back, its onset is raised for again. And no
 * recurring episode due. A raise for a recurring episode that did not come
 * is given back as soon as it is overdue: a pattern that stops costs at
 * most its lead and tolerance. */
static bool calm(const struct policy_state *st, const struct policy_config *cfg, double now)
{
        if (now < st->recur_until)
                return false;
        if (recur_expired(st, now))
                return true;
        if (st->episodes.active && st->episodes.calm_samples == 0)
                return false;   /* still taking memory */
        return now - st->demand_end >= cfg->calm_period && now - st->last_stall >= cfg->calm_period &&
               now - st->last_raise >= cfg->calm_period;
}

/* The value at which every steered zone's low reaches its free memory: an
 * allocation falls back from zone to zone and wakes kswapd only when all
 * of them are below low, so this wakes it at the next allocation, and a
 * wider gap makes it reclaim no sooner, only further, after the burst (a
 * 1.4 GB burst seen faulting at 5.5 GB/s for a quarter second asked for
 * 1000 here). While one zone holds much of the free memory (DMA32 here,
 * which a full page cache leaves alone) it is beyond any limit: kswapd
 * sleeps until the burst has taken that zone's share, whatever the value. */
static long wsf_wakes_kswapd(const struct forecast *f)
{
        long w = 0;
        for (size_t i = 0; i < f->nr_zones; i++) {
                const struct zone_forecast *z = &f->zones[i];
                if (!forecast_zone_steered(f, z))
                        continue;
                long need = wsf_for_gap(z->free_pages - (double)z->wmark_min, z->managed_pages);
                if (need > w)
                        w = need;
        }
        return w;
}

/* Lift a value above the baseline to the pace floor (policy.h), within
 * the ceiling; whether it did. */
static bool paced(long *wsf, long ceiling)
{
        long floor = POLICY_PACE_FLOOR < ceiling ? POLICY_PACE_FLOOR : ceiling;
        if (*wsf >= floor)
                return false;
        *wsf = floor;
        return true;
}

static void decide_wsf(struct policy_state *st, const struct policy_config *cfg,
                       const struct forecast *f, struct decision *d)
{
        long limit = cfg->max_wsf;
        if (st->kernel_refused != LONG_MAX && st->kernel_refused - 1 < limit)
                limit = st->kernel_refused - 1;
        long guard = wsf_guard(f, cfg->oom_headroom, limit);
        d->ceiling = guard > st->baseline ? guard : st->baseline;
        d->reclaim_cap = wsf_reclaim_cap(f, cfg->oom_headroom, st->baseline, d->ceiling);
        d->kswapd_reclaimable = f->kswapd_reclaimable;

        struct pressure p;
        pressure_of(f, &p);
        d->stalls = p.allocstalls + p.compact_stalls;
        follow_episodes(st, cfg, f, &p, d);
        enum wsf_reason up;
        long target = wsf_target(st, cfg, f, &p, d, &up);

        long wake_now = wsf_wakes_kswapd(f);
        long v = st->current;
        if (st->current > d->ceiling) {
                v = d->ceiling;
                d->reason = WSF_LOWER_GUARD;
        } else if (target > st->current) {
                long want = target < d->reclaim_cap ? target : d->reclaim_cap;
                if (want > wake_now) {
                        want = wake_now;
                        d->wake_capped = true;
                }
                /* ...but not below the pace floor: the cap saves what a
                 * wider gap would evict later, not a kswapd that sleeps
                 * again after one pass */
                if (paced(&want, d->reclaim_cap)) {
                        d->paced = true;
                        d->wake_capped = false;
                }
                /* held to the cap: what was asked for, or the pace floor,
                 * cut short by it rather than by the OOM guard */
                d->reclaim_capped = want == d->reclaim_cap && d->reclaim_cap < d->ceiling && !d->wake_capped &&
                                    (d->paced ? want < POLICY_PACE_FLOOR : d->reclaim_cap < target);
                long step = st->current / 10 > 1 ? (long)((double)st->current * RAISE_HYSTERESIS) : 1;
                if (want - st->current >= step) {
                        v = want;
                        d->reason = up;
                }
        } else if (st->current > st->baseline && calm(st, cfg, f->time)) {
                v = target;     /* kept for what a recurring episode needs */
                if (v <= st->baseline)
                        v = st->baseline;
                else
                        paced(&v, d->ceiling);
                if (v < st->current) {
                        d->reason = WSF_LOWER_CALM;
                        /* given back at the same point whether it came or
                         * not; the log must not say it did not come */
                        bool expired = recur_expired(st, f->time), came = recur_came(st);
                        d->recur_overdue = expired && !came;
                        d->recur_came = expired && came;
                }
        }
        if (d->reason == WSF_KEEP)
                return;
        d->wsf_new = v;
        if (v > st->current) {
                st->last_raise = f->time;
                st->recur_raised = d->reason == WSF_RAISE_RECUR;
        }
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

/* Huge pages faulted in at a rate of at least the blocks a useful
 * compaction must make (COMPACT_USEFUL_SHARE of memory) an interval: the
 * workload is taking blocks now, faster than a compaction could stay ahead
 * of, and each fault compacts for itself. A whole-node compaction beside
 * them only makes them wait: in the bench's fragmented scenario it ran 1.4
 * s into faults of ~0.9 GB/s outside any episode and "did not help"
 * (bench/README.md, "No compaction while huge pages are faulted in"). A
 * rate, not a count: a sample the fast path takes early covers less than
 * an interval (a second compaction came half a second into faults of 350
 * MB/s, after a judgement that no longer waited for the next full sample). */
static bool faulting_huge_pages(const struct policy_config *cfg, const struct forecast *f)
{
        return f->thp_rate * cfg->interval >= COMPACT_USEFUL_SHARE * (double)f->managed_pages;
}

/* Blocks of `order` the huge pages faulted in over the last interval took. */
static double blocks_taken(const struct forecast *f, unsigned order)
{
        return f->thp_rate * f->dt / (double)(1ull << order);
}

/* What the huge pages faulted in over the last interval say of the
 * compaction before them: it helped when they found blocks, stalling to
 * compact for themselves at most once in COMPACT_FAULTS_PER_STALL of the
 * blocks of its order they took. Stalls and faults are the machine's. */
static bool faults_found_blocks(const struct node_compaction *ns, const struct forecast *f)
{
        return (double)f->compact_stalls * COMPACT_FAULTS_PER_STALL <= blocks_taken(f, ns->order);
}

/* Judge the compaction done earlier, like the kernel's
 * defer_compaction(): when it made too few new blocks of the order to
 * matter it did harm (it cost CPU and blocked allocations for nothing):
 * wait twice as long before the next. Its blocks may not show at the next
 * sample: the pages it freed wait on the per-cpu page lists (auto-tuned
 * to hold up to an eighth of a zone since Linux 6.7), and a block merges
 * only once they are drained -- by the next allocation that fails, or over
 * seconds (bench/README.md, "Compaction's blocks wait on the per-cpu
 * lists"). So a compaction whose blocks have not shown is judged by the
 * huge-page faults after it, if they come within the lead time, and by
 * its blocks only then. Returns false while it waits. */
static bool judge_compaction(struct node_compaction *ns, const struct policy_config *cfg,
                             const struct forecast *f, const struct node_forecast *n,
                             struct decision *d)
{
        double after = n->free_at_order[ns->order];
        bool too_slow = ns->too_slow;
        bool grew = after >= ns->before + COMPACT_USEFUL_SHARE * (double)n->managed_pages;
        bool faults = faulting_huge_pages(cfg, f);
        if (!too_slow && !grew && !faults && f->time < ns->judge_by)
                return false;
        ns->pending = false;
        ns->too_slow = false;
        if (!too_slow && (grew || (faults && faults_found_blocks(ns, f)))) {
                ns->defer_shift = 0;
                return true;
        }
        if (ns->defer_shift < POLICY_MAX_DEFER_SHIFT)
                ns->defer_shift++;
        double wait = cfg->interval * (double)(1u << ns->defer_shift);
        ns->next_allowed = f->time + wait;
        d->backoff[d->nr_backoff++] = (struct compact_backoff){
                .node = n->node, .order = ns->order, .defer_shift = ns->defer_shift,
                .before = ns->before, .after = after, .retry_in = wait, .too_slow = too_slow,
                .fault_stalls = faults && !too_slow ? f->compact_stalls : 0,
                .faulted_blocks = faults && !too_slow ? blocks_taken(f, ns->order) : 0,
        };
        return true;
}

/* The highest order worth compacting for: blocks of it will run out within
 * the lead time (or compaction stalls asked for it), and enough of the
 * node's free memory is fragmented for a compaction to make a useful number
 * of blocks. */
static int order_to_compact(const struct policy_config *cfg, const struct forecast *f,
                            const struct node_forecast *n, bool stalled, uint32_t taken)
{
        double useful = COMPACT_USEFUL_SHARE * (double)n->managed_pages;
        for (unsigned k = f->max_order; k >= 1; k--) {
                double block = (double)(1ull << k);
                bool wanted = n->secs_to_exhaust[k] < cfg->lead_time || (stalled && k == f->max_order) ||
                              (k < 32 && (taken >> k & 1));
                if (wanted && n->extfrag[k] >= COMPACT_MIN_EXTFRAG &&
                    n->free_pages - n->free_at_order[k] >= useful &&
                    n->free_pages >= (double)n->wmark_low + 2 * block)
                        return (int)k;
        }
        return -1;
}

/* The orders (bit k) whose blocks fell by a useful compaction's worth
 * since the last sample. */
static uint32_t blocks_fell(const struct node_compaction *ns, const struct forecast *f,
                            const struct node_forecast *n)
{
        double useful = COMPACT_USEFUL_SHARE * (double)n->managed_pages;
        uint32_t fell = 0;
        for (unsigned k = 0; ns->seen && k <= f->max_order && k < ORDER_CAP; k++)
                if (ns->blocks_at_last[k] - n->free_at_order[k] >= useful)
                        fell |= UINT32_C(1) << k;
        return fell;
}

/* The orders (bit k) for which the workload let go of memory in single
 * pages since the last sample: free memory rose by a useful share more
 * than reclaim freed and than the blocks of order k grew. A fragmenting
 * fill that ends leaves its memory so, and its demand is over whatever the
 * episode's bookkeeping still says; a burst of huge pages that ends gives
 * its blocks back whole. */
static uint32_t let_go_fragmented(const struct node_compaction *ns, const struct forecast *f,
                                  const struct node_forecast *n)
{
        double useful = COMPACT_USEFUL_SHARE * (double)n->managed_pages;
        double rose = n->free_pages - ns->blocks_at_last[0] - (f->kswapd_rate + f->direct_rate) * f->dt;
        uint32_t let_go = 0;
        for (unsigned k = 1; ns->seen && k <= f->max_order && k < ORDER_CAP; k++) {
                double grew = n->free_at_order[k] - ns->blocks_at_last[k];
                if (rose - (grew > 0 ? grew : 0) >= useful)
                        let_go |= UINT32_C(1) << k;
        }
        return let_go;
}

/* The orders (bit k) whose blocks fell by a useful compaction's worth
 * within the lead time: from the most seen in it (blocks_peak) to now. A
 * fill that took them fast, then slowly before it let go, is caught by
 * this, not by blocks_fell(): bench fragmented's fill once took 5.1 M
 * pages of Normal's order-9 blocks over nine intervals, the last two 56 k
 * and 44 k (a useful share: 62 k), let go in single pages, and the huge
 * pages after it stalled 1459 times with no compaction before them
 * (results/steps/short-0.4.13, fragmented-memoptimizer-1). */
static uint32_t blocks_fell_within(const struct node_compaction *ns, const struct forecast *f,
                                   const struct node_forecast *n)
{
        double useful = COMPACT_USEFUL_SHARE * (double)n->managed_pages;
        uint32_t fell = 0;
        for (unsigned k = 0; ns->seen && k <= f->max_order && k < ORDER_CAP; k++)
                if (dmax(ns->blocks_peak[k], ns->blocks_peak_before[k]) - n->free_at_order[k] >= useful)
                        fell |= UINT32_C(1) << k;
        return fell;
}

/* Keep the blocks seen, and their most in two spans of half the lead time
 * each: together they cover between half the lead time and all of it. */
static void remember_blocks(struct node_compaction *ns, const struct policy_config *cfg,
                            const struct forecast *f, const struct node_forecast *n, uint32_t fell)
{
        bool next_span = !ns->seen || f->time - ns->peak_since >= cfg->lead_time / 2;
        for (unsigned k = 0; k <= f->max_order && k < ORDER_CAP; k++) {
                double now = n->free_at_order[k];
                if (next_span) {
                        ns->blocks_peak_before[k] = ns->seen ? ns->blocks_peak[k] : now;
                        ns->blocks_peak[k] = now;
                } else {
                        ns->blocks_peak[k] = dmax(ns->blocks_peak[k], now);
                }
                ns->blocks_at_last[k] = now;
        }
        if (next_span)
                ns->peak_since = f->time;
        ns->fell = fell;
        ns->seen = true;
}

/* Compact ahead of demand, as the kernel's proactive compaction does: only
 * while no episode is under way and no huge pages are being faulted in
 * (compacting while the workload faults makes its faults wait for the
 * compaction), and only once an exhaustion forecast has held for
 * COMPACT_CONFIRM samples. A fall of the blocks seen, by a useful share,
 * counts as a forecast where the window's trend does not trust a fall
 * that young: at the sample after it, or at once when the workload let go
 * of its memory in single pages after its blocks fell within the lead time
 * -- a fragmenting fill that ends leaves its memory so, and the next
 * demand may come within the second (bench/README.md, "0.4.10: a
 * compaction at a fill's release"). */
static void decide_compaction(struct policy_state *st, const struct policy_config *cfg,
                              const struct forecast *f, struct decision *d)
{
        bool stalled = st->compact_wanted;
        for (size_t i = 0; i < f->nr_nodes; i++) {
                const struct node_forecast *n = &f->nodes[i];
                struct node_compaction *ns = node_state(st, n->node);
                if (!ns)
                        continue;
                /* one compaction at a time per node: the next waits for the last's judgement */
                bool waiting = ns->pending && !judge_compaction(ns, cfg, f, n, d);
                uint32_t fell = blocks_fell(ns, f, n);
                /* orders whose blocks fell, then were let go of in single
                 * pages; the fall within the lead time holds this
                 * interval's (blocks_peak holds the last sample's blocks),
                 * not always the one before it (measured to that sample) */
                uint32_t taken = (ns->fell | blocks_fell_within(ns, f, n)) & let_go_fragmented(ns, f, n);
                int k = order_to_compact(cfg, f, n, stalled, taken);
                ns->confirmed = k >= 0 ? ns->confirmed + 1 : 0;
                bool released = k >= 0 && (taken >> k & 1);
                bool seen_fall = k >= 0 && ((ns->fell >> k & 1) || released);
                remember_blocks(ns, cfg, f, n, fell);
                if (waiting || !cfg->compaction || (st->episodes.active && !released) || faulting_huge_pages(cfg, f) ||
                    f->time < ns->next_allowed || k < 0 ||
                    (ns->confirmed < COMPACT_CONFIRM && !seen_fall && !stalled))
                        continue;
                d->compact[d->nr_compact++] = (struct compact_order){
                        .node = n->node, .order = (unsigned)k,
                        .secs_to_exhaust = n->secs_to_exhaust[k],
                        .free_at_order = n->free_at_order[k], .extfrag = n->extfrag[k],
                        .stalled = stalled && !(n->secs_to_exhaust[k] < cfg->lead_time),
                };
                struct compact_order *c = &d->compact[d->nr_compact - 1];
                c->released = released && !c->stalled && !(n->secs_to_exhaust[k] < cfg->lead_time);
                ns->pending = true;
                ns->order = (unsigned)k;
                ns->before = n->free_at_order[k];
                ns->next_allowed = f->time + cfg->interval;
                ns->judge_by = f->time + cfg->lead_time;
                st->compact_wanted = false;
        }
}

void policy_compaction_took(struct policy_state *st, int node, double seconds)
{
        struct node_compaction *ns = node_state(st, node);
        if (ns && seconds > POLICY_COMPACT_MAX_SECS)
                ns->too_slow = true;
}

void policy_decide(struct policy_state *st, const struct policy_config *cfg,
                   const struct forecast *f, struct decision *d)
{
        *d = (struct decision){ .wsf_old = st->current, .wsf_new = st->current, .node = -1,
                                .demand_class = -1, .learned_wsf = -1, .hold = st->hold, .hold_node = -1 };
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
