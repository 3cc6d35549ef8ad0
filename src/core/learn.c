#include "learn.h"

#include <math.h>
#include <string.h>

#include "util.h"

/* A stall shows the gap fell short by at least the pages reclaimed
 * directly; learn this many times that, so that the next episode of the
 * class has room to spare rather than just enough. */
#define LEARN_STALL_GAIN 1.5
/* An episode that left margin unused shows what it did use; keep this much
 * more than that. */
#define LEARN_SAFETY 1.25
/* Shrink towards what an episode used by this share of the difference at a
 * time: one calm episode is not proof that the next will be as calm. */
#define LEARN_SHRINK 0.5
/* kswapd's best rate is remembered across episodes and restarts, halving
 * in weight over a day: what it reclaimed in the last episode is the best
 * guess for the next. */
#define LEARN_KSWAPD_HALF_LIFE (24 * 3600.0)
/* Managed memory may differ this much from what was learnt on. */
#define LEARN_MANAGED_TOLERANCE 0.10

void learn_init(struct learned *l)
{
        *l = (struct learned){ 0 };
}

int learn_class_of(double pages_per_sec, uint64_t managed)
{
        if (managed == 0 || !(pages_per_sec > 0))
                return -1;
        double permyriad = pages_per_sec * PERMYRIAD / (double)managed;
        if (permyriad < 1)
                return -1;
        if (!isfinite(permyriad))
                return LEARN_CLASSES - 1;
        int e;
        frexp(permyriad, &e);   /* permyriad = m * 2^e, 0.5 <= m < 1 */
        int c = e - 1;          /* floor(log2(permyriad)), exactly */
        return c < LEARN_CLASSES ? c : LEARN_CLASSES - 1;
}

size_t learn_nr_classes(const struct learned *l)
{
        size_t n = 0;
        for (int t = 0; t < LEARN_KINDS; t++)
                for (int c = 0; c < LEARN_CLASSES; c++)
                        n += l->classes[t][c].known;
        return n;
}

enum learn_kind learn_kind_of(double pages_per_sec, double thp_pages_per_sec)
{
        return pages_per_sec > 0 && thp_pages_per_sec >= LEARN_THP_SHARE * pages_per_sec ? LEARN_THP : LEARN_BASE;
}

const char *learn_kind_name(enum learn_kind kind)
{
        return kind == LEARN_THP ? "thp" : "base";
}

void learn_expire(struct learned *l, double now, uint64_t managed)
{
        if (l->managed_pages && managed &&
            fabs((double)managed - (double)l->managed_pages) > LEARN_MANAGED_TOLERANCE * (double)l->managed_pages) {
                learn_init(l);
                l->dirty = true;
                return;
        }
        for (int t = 0; t < LEARN_KINDS; t++)
                for (int c = 0; c < LEARN_CLASSES; c++)
                        if (l->classes[t][c].known && now - l->classes[t][c].updated > LEARN_MAX_AGE) {
                                l->classes[t][c] = (struct learn_class){ 0 };
                                l->dirty = true;
                        }
        size_t keep = 0;
        for (size_t i = 0; i < l->nr_history; i++)
                if (now - l->history[i].start <= LEARN_MAX_AGE)
                        l->history[keep++] = l->history[i];
        if (keep != l->nr_history) {
                l->nr_history = keep;
                l->dirty = true;
        }
        if (l->kswapd_capacity_pages_per_sec > 0 && now - l->kswapd_updated > LEARN_MAX_AGE) {
                l->kswapd_capacity_pages_per_sec = 0;
                l->dirty = true;
        }
}

bool learn_tick(struct learned *l, struct learn_clock *c, double now, uint64_t managed)
{
        if (!c->sized) {
                learn_expire(l, now, managed);
                c->sized = true;
        }
        if (!(now - c->aged >= LEARN_AGE_EVERY))
                return false;
        c->aged = now;
        learn_expire(l, now, 0);
        return true;
}

/* What an episode's stalls showed was missing, in pages: what was
 * reclaimed directly (at least a reclaim batch per allocation stall).
 * Compaction stalls count for nothing here: they are fragmentation, which
 * compaction answers (policy.h) -- and no scale factor answers them: in
 * the mixed benchmark's irregular THP burst a static 1000 still had 516
 * and 557 compaction stalls in two of three runs, against 530-1028 at
 * the defaults (bench/results/mixed.json). */
static double stall_shortfall(const struct episode_stats *e)
{
        return dmax(e->direct_pages, (double)e->allocstalls * STALL_PAGES);
}

/* The scale factor whose gap would just have done for e, summed over the
 * steered zones: what it used of the gap (down to the lowest free memory
 * seen) with a quarter to spare, and half again what its stalls showed
 * missing besides. In proportion to the shortfall: a stall while most of
 * the gap was left (a THP burst short of free blocks, not of free pages)
 * adds what it reclaimed directly, not the whole gap and half again --
 * that way a burst held at 308 that reclaimed 330 MB directly while free
 * memory came no closer than 557 MB to min (of a gap of 742 MB) taught
 * its kind 514, and the next kind of THP burst, a train that a static 100
 * kept from stalling, was raised to that. */
static double needed_wsf(const struct episode_stats *e)
{
        double used = dmax(0, e->gap_pages - dmax(0, e->min_margin_pages));
        double gap = used * LEARN_SAFETY + stall_shortfall(e) * LEARN_STALL_GAIN;
        return dmin(gap * PERMYRIAD / (double)e->managed_pages, LEARN_WSF_MAX);
}

static void remember(struct learned *l, const struct episode_stats *e)
{
        if (l->nr_history == LEARN_HISTORY) {
                memmove(&l->history[0], &l->history[1], (LEARN_HISTORY - 1) * sizeof(l->history[0]));
                l->nr_history--;
        }
        l->history[l->nr_history++] = (struct learn_episode){
                .start = e->start, .duration = e->end - e->start,
                .peak_demand_pages_per_sec = e->peak_demand_pages_per_sec,
                .demand_pages = e->demand_pages, .peak_thp_pages_per_sec = e->peak_thp_pages_per_sec,
                .min_margin_pages = e->min_margin_pages,
                .wsf_max = e->wsf_max, .stalls = e->allocstalls + e->compact_stalls,
        };
}

void learn_episode(struct learned *l, const struct episode_stats *e)
{
        if (e->managed_pages == 0)
                return;
        l->managed_pages = e->managed_pages;
        l->dirty = true;
        remember(l, e);
        learn_kswapd(l, e->kswapd_pressed_pages_per_sec, e->end);
        int c = learn_class_of(e->peak_demand_pages_per_sec, e->managed_pages);
        if (c < 0)
                return;
        struct learn_class *k =
                &l->classes[learn_kind_of(e->peak_demand_pages_per_sec, e->peak_thp_pages_per_sec)][c];
        bool stalled = stall_shortfall(e) > 0;
        double need = needed_wsf(e);
        /* An unused margin shrinks what was held towards what was used, half
         * way: for a kind never seen, what was held is the value in force
         * during it, which did the job (what it used of the gap alone would
         * not have: kswapd woke early because of it). */
        double held = k->known ? k->wsf : (double)e->wsf_max;
        /* A stall teaches in proportion to what it showed missing (need),
         * and never less than what was held: the stalls are no evidence
         * that less would have done. Not the onset rule's whole size: a
         * burst at the learnt 100 that stalled 6 times (3 MB reclaimed
         * directly, 3 GB free above min) taught 849 so, and THP bursts
         * that stalled with 1.4-2.4 GB free above min, where no gap helps,
         * taught outside's JVM starts 331 with 151 in force (bench/README.md,
         * "A stall lesson in proportion"). Compaction stalls alone teach
         * nothing: compaction answers them. */
        if (stalled)
                k->wsf = dmax(need, held);
        else if (need >= held)
                k->wsf = need;
        else if (e->wsf_max >= LEARN_RAISED_FLOOR)
                k->wsf = dmax(held - LEARN_SHRINK * (held - need), dmin(held, LEARN_RAISED_FLOOR));
        else
                k->wsf = held - LEARN_SHRINK * (held - need);
        k->known = true;
        k->episodes++;
        k->stalled += stalled;
        k->updated = e->end;
}

/* 2^-x for x >= 0, halving over each whole unit and linearly within it:
 * exactly 2^-x at whole x, within 6 % of it between (libc has no exp2; a
 * prior's weight needs no more). */
static double halved(double x)
{
        if (!(x > 0))
                return 1;
        if (x > 1100)
                return 0;       /* below the smallest double */
        int n = (int)x;
        return ldexp(1 - (x - n) / 2, -n);
}

double learn_kswapd_capacity(const struct learned *l, double now)
{
        double age = now - l->kswapd_updated;
        return l->kswapd_capacity_pages_per_sec * halved(age / LEARN_KSWAPD_HALF_LIFE);
}

void learn_kswapd(struct learned *l, double pages_per_sec, double time)
{
        double old = learn_kswapd_capacity(l, time);
        if (!(pages_per_sec > old))
                return;
        l->kswapd_capacity_pages_per_sec = pages_per_sec;
        l->kswapd_updated = time;
        l->dirty = true;
}

/* The nearest known class of `kind` to c within LEARN_NEIGHBOURS: its own,
 * then the ones above (a faster demand's size is the safe side), then
 * below; -1 when none. */
static int nearest_class(const struct learned *l, enum learn_kind kind, int c)
{
        const struct learn_class *k = l->classes[kind];
        for (int d = 0; d <= LEARN_NEIGHBOURS; d++) {
                if (c + d < LEARN_CLASSES && k[c + d].known)
                        return c + d;
                if (d > 0 && c - d >= 0 && k[c - d].known)
                        return c - d;
        }
        return -1;
}

struct learn_key learn_class_for(const struct learned *l, enum learn_kind kind, double pages_per_sec,
                                 uint64_t managed)
{
        int c = learn_class_of(pages_per_sec, managed);
        if (c < 0 || (unsigned)kind >= LEARN_KINDS)
                return (struct learn_key){ kind, -1 };
        int k = nearest_class(l, kind, c);
        if (k >= 0)
                return (struct learn_key){ kind, k };
        enum learn_kind other = kind == LEARN_THP ? LEARN_BASE : LEARN_THP;
        return (struct learn_key){ other, nearest_class(l, other, c) };
}

long learn_class_wsf(const struct learned *l, struct learn_key key)
{
        /* A class above is not scaled down to the slower demand: the
         * demand an onset sample sees is a fraction of what a burst
         * reaches a second later (bench bursts' second burst: 0.9-1.9 GB/s
         * at onset, 4.6-5.2 GB/s at its peak). Halving the value once per
         * class of difference stalled that burst 36 and 362 times where
         * the value as it is had none (bench/README.md, 2026-12-06). */
        if (key.class < 0 || key.class >= LEARN_CLASSES || (unsigned)key.kind >= LEARN_KINDS)
                return -1;
        const struct learn_class *k = &l->classes[key.kind][key.class];
        return k->known ? (long)dceil(k->wsf) : -1;
}

long learn_wsf_for(const struct learned *l, enum learn_kind kind, double pages_per_sec, uint64_t managed)
{
        return learn_class_wsf(l, learn_class_for(l, kind, pages_per_sec, managed));
}
