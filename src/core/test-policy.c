/* The policy, driven through the engine over synthetic samples (sim.h):
 * episodes raise by what the shortfall or past episodes call for, stalls
 * grow it in proportion, the value comes back once the episode is over,
 * compaction comes in calm, and the bounds hold. */
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "sim.h"
#include "util.h"

#define MANAGED 6000000
#define WMIN 16000
#define PLENTY 20000000         /* reclaimable pages: the guard never binds */
/* kswapd's capacity before it showed any: 5 % of managed pages per second */
#define PRIOR 300000.0

static struct synth_zone zone_free(uint64_t free)
{
        return (struct synth_zone){ .managed = MANAGED, .wmark_min = WMIN, .free_pages = free };
}

/* Steps the sim from t0 to t1 over free pages given by fn(t); stops at the
 * first decision other than keep when stop is set. Returns the time of the
 * last decision other than keep, -1 if none. */
static int run(struct sim *s, int t0, int t1, uint64_t (*fn)(int), const struct vmstat *vm, bool stop,
               struct decision *d)
{
        int last = -1;
        for (int t = t0; t <= t1; t++) {
                struct synth_zone z = zone_free(fn(t));
                if (sim_step(s, t, &z, 1, vm, PLENTY, d) && d->reason != WSF_KEEP) {
                        last = t;
                        if (stop)
                                break;
                }
        }
        return last;
}

/* Flat at 5000000, then 600000 pages/s from t = 4 on: a kind of episode the
 * daemon has not seen, twice what kswapd is credited with. */
static uint64_t fast_fall(int t)
{
        return t <= 4 ? 5000000 : 5000000 - 600000 * (uint64_t)(t - 4);
}

/* At t = 5 free pages (4400000) head for low within the 10 s horizon: the
 * episode starts. The shortfall (600000 - 300000 pages/s) is covered for as
 * long as the episode has lasted, one interval: 300000 pages, ceil(300000 *
 * 10000 / 6000000) = 500. That holds while free memory stays above low
 * (316000 now) for two intervals at the rate it falls: until t = 9 (2000000
 * free, 2.8 s from low). At t = 10 (1.8 s) it does not: the gap grows by
 * another interval of the shortfall, to 600000 pages: 1000. */
static void unknown_episode_sized_by_shortfall(void **state)
{
        (void)state;
        struct sim s;
        sim_init(&s, 10);
        struct decision d;
        assert_int_equal(run(&s, 0, 5, fast_fall, NULL, true, &d), 5);
        assert_int_equal(d.reason, WSF_RAISE_FORECAST);
        assert_int_equal(d.wsf_new, 500);
        assert_float_equal(d.cover, 1, 1e-9);
        assert_float_equal(d.drain, 600000, 1e-6);
        assert_float_equal(d.reclaim_peak, PRIOR, 1e-6);
        assert_int_equal(d.learned_wsf, -1);
        assert_int_equal(run(&s, 6, 10, fast_fall, NULL, true, &d), 10);
        assert_int_equal(d.reason, WSF_RAISE_FORECAST);
        assert_int_equal(d.wsf_new, 1000);
        assert_float_equal(d.cover, 1, 1e-9);
        sim_free(&s);
}

/* The same episode as unknown_episode_sized_by_shortfall, but from t = 6
 * on free memory holds at 4400000 under the raise: the gap in force is
 * enough, and the value is not grown with the episode's age
 * (unknown_episode_sized_by_shortfall: 1000 at t = 6). The demand stopped
 * after t = 5: the value is given back the calm period (3 s) after it, at
 * t = 8 -- whether the episode has ended (t = 7) or not. */
static uint64_t fall_then_hold(int t)
{
        return fast_fall(t <= 5 ? t : 5);
}

static void raise_that_holds_not_grown(void **state)
{
        (void)state;
        struct sim s;
        sim_init(&s, 10);
        struct decision d;
        for (int t = 0; t <= 9; t++) {
                struct synth_zone z = zone_free(fall_then_hold(t));
                if (!sim_step(&s, t, &z, 1, NULL, PLENTY, &d))
                        continue;
                if (t == 5)
                        assert_int_equal(d.wsf_new, 500);
                else if (t == 8)
                        assert_int_equal(d.reason, WSF_LOWER_CALM);
                else
                        assert_int_equal(d.reason, WSF_KEEP);
        }
        assert_false(s.e.policy.episodes.active);
        assert_int_equal(s.kernel_wsf, 10);
        sim_free(&s);
}

/* Free memory steady at `before` for 5 s, then a burst of huge pages at
 * thp pages/s that leaves `after`; the second a decision changed the value
 * (-1: none). */
static int thp_burst(struct sim *s, uint64_t before, uint64_t after, uint64_t thp, struct decision *d)
{
        int raised = -1;
        for (int t = 0; t <= 5 && raised < 0; t++) {
                uint64_t free = t <= 4 ? before : after, huge = t <= 4 ? 0 : thp;
                struct meminfo mem = { .mem_free = free, .active_file = PLENTY, .anon_huge = huge,
                                       .anon_pages = huge, .parts_known = true };
                struct synth_zone z = zone_free(free);
                if (sim_step_mem(s, t, &z, 1, NULL, &mem, d) && d->reason != WSF_KEEP)
                        raised = t;
        }
        return raised;
}

/* A burst of huge pages at 600000 pages/s that found 400000 pages free
 * (from 1000000): a gap for an interval of it is 600000 pages (1000), but
 * a gap wider than free memory above min (384000 pages, 640) would only
 * have kswapd reclaim longer after the burst -- low at free memory already
 * wakes it at once. Raised to 640. */
static void raise_held_where_it_wakes_kswapd(void **state)
{
        (void)state;
        struct sim s;
        sim_init(&s, 10);
        struct decision d;
        assert_int_equal(thp_burst(&s, 1000000, 400000, 600000, &d), 5);
        assert_int_equal(d.reason, WSF_RAISE_FORECAST);
        assert_int_equal(d.wsf_new, wsf_for_gap(400000 - WMIN, MANAGED));
        assert_int_equal(d.wsf_new, 640);
        assert_true(d.wake_capped);
        sim_free(&s);
}

/* A small burst of huge pages, 40000 pages/s with 300000 free: an
 * interval of it is a gap of 40000 pages (67), but at that value kswapd,
 * once woken, is balanced again after a pass and sleeps: lifted to the pace
 * floor, said so; and no higher than the ceiling where that is lower. */
static void small_raise_lifted_to_the_pace_floor(void **state)
{
        (void)state;
        struct sim s;
        sim_init(&s, 10);
        struct decision d;
        assert_int_equal(thp_burst(&s, 300000, 260000, 40000, &d), 5);
        assert_int_equal(d.reason, WSF_RAISE_FORECAST);
        assert_int_equal(d.thp, 40000);
        assert_int_equal(d.wsf_new, POLICY_PACE_FLOOR);
        assert_true(d.paced);
        assert_false(d.wake_capped);
        sim_free(&s);

        sim_init(&s, 10);
        s.p.policy.max_wsf = 50;
        assert_int_equal(thp_burst(&s, 300000, 260000, 40000, &d), 5);
        assert_int_equal(d.wsf_new, 50);
        assert_int_equal(d.ceiling, 50);
        sim_free(&s);
}

/* The same burst on two zones: the larger one (5000000 pages) is left with
 * 100000 free, a smaller one (1000000 pages, as DMA32 beside a full page
 * cache) still has 300000. An allocation falls back from zone to zone and
 * wakes kswapd only when both are below low, which no value up to 2970
 * does: the bound does not apply, and the raise is the whole interval of
 * the shortfall, 1000 (the sum of the zones would have held it to 637). */
static void raise_not_held_while_a_zone_has_free_memory(void **state)
{
        (void)state;
        struct sim s;
        sim_init(&s, 10);
        struct decision d;
        int raised = -1;
        for (int t = 0; t <= 5 && raised < 0; t++) {
                struct synth_zone z[2] = {
                        { .node = 0, .managed = 5000000, .wmark_min = 15000, .free_pages = t <= 4 ? 700000 : 100000 },
                        { .node = 0, .managed = 1000000, .wmark_min = 3000, .free_pages = 300000 },
                };
                uint64_t thp = t <= 4 ? 0 : 600000;
                struct meminfo mem = { .mem_free = 400000, .active_file = PLENTY, .anon_huge = thp,
                                       .anon_pages = thp, .parts_known = true };
                if (sim_step_mem(&s, t, z, 2, NULL, &mem, &d) && d.reason != WSF_KEEP)
                        raised = t;
        }
        assert_int_equal(raised, 5);
        assert_int_equal(d.reason, WSF_RAISE_FORECAST);
        assert_int_equal(d.wsf_new, 1000);
        assert_false(d.wake_capped);
        sim_free(&s);
}

/* A burst that took free memory below low within one interval (from
 * 5000000 to 20000 pages; low is 22000) and goes on at 600000 pages/s with
 * kswapd behind and the allocating tasks stalling: kswapd is awake already,
 * a higher low would not make it faster, only keep it reclaiming after the
 * burst. No raise for the shortfall nor for the stalls; the same demand
 * seen above low raises (unknown_episode_sized_by_shortfall), and so do the
 * same stalls (stall_grows_the_gap_in_proportion). */
static uint64_t below_low_at_once(int t)
{
        return t <= 4 ? 5000000 : 20000;
}

static void below_low_no_raise(void **state)
{
        (void)state;
        struct sim s;
        sim_init(&s, 10);
        struct decision d;
        struct vmstat vm = { 0 };
        for (int t = 0; t <= 8; t++) {
                if (t >= 5) {
                        vm.pgsteal_kswapd += 300000;    /* kswapd at its prior, below the demand */
                        vm.allocstall += 100;
                        vm.pgsteal_direct += 50000;
                }
                struct synth_zone z = zone_free(below_low_at_once(t));
                if (sim_step(&s, t, &z, 1, &vm, PLENTY, &d))
                        assert_int_equal(d.reason, WSF_KEEP);
        }
        assert_true(s.e.policy.episodes.active);
        assert_int_equal(s.kernel_wsf, 10);
        sim_free(&s);
}

/* The page cache filling (or any demand kswapd can absorb): 200000 pages/s
 * heads free memory for low, an episode for the learner, but below what
 * kswapd reclaims: no raise. (A reader warming 20 GiB of cache once moved
 * the daemon from 10 to 1000 and cost the reader 14 % of its throughput.) */
static uint64_t cache_fill(int t)
{
        return 3000000 - 200000 * (uint64_t)t;
}

static void demand_kswapd_absorbs_no_raise(void **state)
{
        (void)state;
        struct sim s;
        sim_init(&s, 10);
        struct decision d;
        assert_int_equal(run(&s, 0, 14, cache_fill, NULL, false, &d), -1);
        assert_true(s.e.policy.episodes.active);
        assert_int_equal(s.kernel_wsf, 10);
        sim_free(&s);
}

/* Free memory falling 600000 pages/s (as fast_fall) with the page cache
 * growing as fast. Clean (Dirty and Writeback flat), it is a reader
 * refilling its cache, which kswapd absorbs by evicting older cache: no
 * episode, no raise (in the mixed benchmark a reader refilled what each
 * episode had evicted at 0.5 GB/s for seconds, and a raise then only
 * evicted it again). Dirty (writers), it is demand like any other: the
 * episode starts and is raised for at t = 5, as in
 * unknown_episode_sized_by_shortfall. Returns the first raise, -1 if none. */
static int fill_raises(bool dirty, bool *episode)
{
        struct sim s;
        sim_init(&s, 10);
        struct decision d;
        int raised = -1;
        *episode = false;
        for (int t = 0; t <= 6 && raised < 0; t++) {
                uint64_t free = fast_fall(t), grown = 5000000 - free;
                struct meminfo mem = { .mem_free = free, .active_file = 1000000 + grown,
                                       .dirty = dirty ? grown : 0, .parts_known = true };
                struct synth_zone z = zone_free(free);
                if (sim_step_mem(&s, t, &z, 1, NULL, &mem, &d) && d.reason != WSF_KEEP)
                        raised = t;
                *episode |= s.e.policy.episodes.active;
        }
        sim_free(&s);
        return raised;
}

static void clean_fill_no_episode(void **state)
{
        (void)state;
        bool episode;
        assert_int_equal(fill_raises(false, &episode), -1);
        assert_false(episode);
        assert_int_equal(fill_raises(true, &episode), 5);
        assert_true(episode);
}

/* Free memory falling 600000 pages/s (as fast_fall) while nothing the
 * workload holds grows -- no anonymous or shared memory, no page cache:
 * what a VM's free page reporting does for a moment (dips of 100-150 MB
 * within a quarter second were seen on the project's VM, and taken for
 * bursts by the fast path). No episode. With anonymous memory growing as
 * fast it is one, raised for at t = 5; and so it is where the samples do
 * not tell (older traces). */
static int fall_raises(uint64_t anon_per_sec, bool parts_known)
{
        struct sim s;
        sim_init(&s, 10);
        struct decision d;
        int raised = -1;
        for (int t = 0; t <= 6 && raised < 0; t++) {
                uint64_t free = fast_fall(t);
                struct meminfo mem = { .mem_free = free, .active_file = 1000000,
                                       .anon_pages = t > 4 ? anon_per_sec * (uint64_t)(t - 4) : 0,
                                       .parts_known = parts_known };
                struct synth_zone z = zone_free(free);
                if (sim_step_mem(&s, t, &z, 1, NULL, &mem, &d) && d.reason != WSF_KEEP)
                        raised = t;
        }
        sim_free(&s);
        return raised;
}

static void fall_with_nothing_held_no_episode(void **state)
{
        (void)state;
        assert_int_equal(fall_raises(0, true), -1);
        assert_int_equal(fall_raises(600000, true), 5);
        assert_int_equal(fall_raises(0, false), 5);
}

/* Huge pages at 400000 pages/s, above kswapd's prior: raised at the onset
 * (t = 7, free memory within 10 s of low) for an interval of them (400000
 * pages, 667); when that stops holding (t = 14: free memory 1000000, under
 * two intervals of the fall above low) the raise does
 * not grow: huge pages are out of the shortfall once raised, and the rest
 * of the demand (none) is within kswapd's capacity. (Taken as single pages
 * beyond kswapd's capacity, they grew it.) */
static uint64_t thp_fall(int t)
{
        return t <= 4 ? 5000000 : 5000000 - 400000 * (uint64_t)(t - 4);
}

static void huge_pages_above_capacity_not_regrown(void **state)
{
        (void)state;
        struct sim s;
        sim_init(&s, 10);
        struct decision d;
        int raises = 0;
        for (int t = 0; t <= 14; t++) {
                uint64_t thp = 5000000 - thp_fall(t);
                struct meminfo mem = { .mem_free = thp_fall(t), .active_file = PLENTY, .anon_huge = thp,
                                       .anon_pages = thp, .parts_known = true };
                struct synth_zone z = zone_free(thp_fall(t));
                if (!sim_step_mem(&s, t, &z, 1, NULL, &mem, &d) || d.reason == WSF_KEEP)
                        continue;
                raises++;
                assert_int_equal(t, 7);
                assert_int_equal(d.wsf_new, 667);
        }
        assert_int_equal(raises, 1);
        assert_int_equal(s.kernel_wsf, 667);
        sim_free(&s);
}

/* The onset watch is disarmed while an episode takes memory (the samples
 * see it), and armed again as soon as its demand pauses, though the
 * episode is not over: the value is given back when the demand stops, and
 * the next burst of a train is an onset to catch. */
static uint64_t one_step_down(int t)
{
        return t < 5 ? 2000000 : 1400000;
}

static void onset_armed_between_bursts(void **state)
{
        (void)state;
        struct sim s;
        sim_init(&s, 10);
        struct decision d;
        run(&s, 0, 4, one_step_down, NULL, false, &d);
        assert_true(s.e.policy.onset_armed);
        run(&s, 5, 5, one_step_down, NULL, false, &d);
        assert_true(s.e.policy.episodes.active);
        assert_false(s.e.policy.onset_armed);
        run(&s, 6, 6, one_step_down, NULL, false, &d);
        assert_true(s.e.policy.episodes.active);
        assert_true(s.e.policy.onset_armed);
        sim_free(&s);
}

/* Huge pages faulted in at 200000 pages/s, below kswapd's prior (300000):
 * as single pages kswapd would absorb them (demand_kswapd_absorbs_no_raise,
 * the same fall), but reclaiming single pages makes no blocks, and kswapd
 * sleeps until low: the THP demand is a shortfall whole. Raised for at the
 * episode's first sample (t = 5, free memory within 10 s of low), for one
 * interval: ceil(200000 * 10000 / 6000000) = 334. */
static void huge_pages_raise_below_capacity(void **state)
{
        (void)state;
        struct sim s;
        sim_init(&s, 10);
        struct decision d;
        int raised = -1;
        for (int t = 0; t <= 14 && raised < 0; t++) {
                struct meminfo mem = { .mem_free = cache_fill(t), .inactive_file = PLENTY,
                                       .anon_huge = 200000 * (uint64_t)t,
                                       .anon_pages = 200000 * (uint64_t)t, .parts_known = true };
                struct synth_zone z = zone_free(cache_fill(t));
                if (sim_step_mem(&s, t, &z, 1, NULL, &mem, &d) && d.reason != WSF_KEEP)
                        raised = t;
        }
        assert_int_equal(raised, 5);
        assert_int_equal(d.reason, WSF_RAISE_FORECAST);
        assert_int_equal(d.wsf_new, 334);
        assert_float_equal(d.thp, 200000, 1e-6);
        assert_float_equal(d.reclaim_peak, PRIOR, 1e-6);
        sim_free(&s);
}

/* A burst of huge pages the fast path caught a quarter of a second in:
 * 200000 pages taken at 800000 pages/s, its page-zeroing speed. It counts
 * as 200000 pages in the interval, as it would have in a sample a second
 * after the last: the gap covers that (334), not an interval of the speed
 * (800000 pages: 1334, the cap); its class is that of 200000 pages/s. */
static void onset_caught_early_sized_by_what_it_took(void **state)
{
        (void)state;
        struct sim s;
        sim_init(&s, 10);
        struct decision d;
        static const double at[] = { 0, 1, 2, 3, 4, 4.25 };
        bool raised = false;
        for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
                uint64_t huge = at[i] > 4 ? 200000 : 0;
                struct meminfo mem = { .mem_free = 2000000 - huge, .inactive_file = PLENTY,
                                       .anon_huge = huge, .anon_pages = huge, .parts_known = true };
                struct synth_zone z = zone_free(2000000 - huge);
                raised = sim_step_mem(&s, at[i], &z, 1, NULL, &mem, &d) && d.reason != WSF_KEEP;
        }
        assert_true(raised);
        assert_int_equal(d.reason, WSF_RAISE_FORECAST);
        assert_int_equal(d.wsf_new, 334);
        assert_float_equal(d.thp, 200000, 1e-6);
        assert_float_equal(s.e.policy.episodes.cur.peak_demand_pages_per_sec, 200000, 1e-6);
        sim_free(&s);
}

/* The same burst of huge pages, on until free memory nears low: the
 * raise at its onset (334) does not hold from t = 12 on (free memory 2
 * intervals from low), but it is not grown by the huge pages again --
 * once raised, kswapd wakes and feeds kcompactd, and only a stall shows
 * that blocks are still missing (a train of THP bursts here grew 510 ->
 * 1000 that way beside a kswapd reclaiming twice as fast, without a
 * stall). Nothing of the demand is beyond kswapd's capacity: no growth. */
static void huge_pages_counted_whole_once(void **state)
{
        (void)state;
        struct sim s;
        sim_init(&s, 10);
        struct decision d;
        int raises = 0;
        for (int t = 0; t <= 13; t++) {
                struct meminfo mem = { .mem_free = cache_fill(t), .active_file = PLENTY,
                                       .anon_huge = 200000 * (uint64_t)t,
                                       .anon_pages = 200000 * (uint64_t)t, .parts_known = true };
                struct synth_zone z = zone_free(cache_fill(t));
                if (!sim_step_mem(&s, t, &z, 1, NULL, &mem, &d) || d.reason == WSF_KEEP)
                        continue;
                raises++;
                assert_int_equal(t, 5);
                assert_int_equal(d.wsf_new, 334);
        }
        assert_int_equal(raises, 1);
        assert_true(s.e.policy.episodes.active);
        assert_int_equal(s.kernel_wsf, 334);
        sim_free(&s);
}

/* A JVM touching its heap in huge pages (bench outside): free memory falls
 * 300000 pages/s at t = 5-6 and is raised for; from t = 7 kswapd, woken at
 * the raised value, reclaims as fast as the heap grows, so free memory holds
 * while anonymous memory still grows 300000 pages/s. The workload is still
 * taking memory: the value stays up through t = 12 (before, it was lowered
 * calm_period after the fall, t = 9, in the middle of the touching). At
 * t = 13 the growth stops, at t = 14 the JVM exits (its heap freed): the
 * value goes back once calm_period has passed without demand. */
static void heap_growth_kswapd_keeps_pace_keeps_the_raise(void **state)
{
        (void)state;
        struct sim s;
        sim_init(&s, 10);
        struct decision d;
        int raised = -1, lowered = -1;
        uint64_t steal = 0, anon = 0, cache = 4000000;
        for (int t = 0; t <= 20; t++) {
                uint64_t free = 1000000;
                if (t == 5 || t == 6)
                        anon += 300000, free = 1000000 - 300000 * (uint64_t)(t - 4);
                else if (t >= 7 && t <= 12)
                        anon += 300000, steal += 300000, cache -= 300000, free = 400000;
                else if (t == 13)
                        free = 400000;
                else if (t >= 14)
                        free = 400000 + anon, anon = 0;
                struct vmstat vm = { .pgsteal_kswapd = steal, .pgscan_kswapd = steal };
                struct meminfo mem = { .mem_free = free, .active_file = cache, .anon_huge = anon,
                                       .anon_pages = anon, .parts_known = true };
                struct synth_zone z = zone_free(free);
                if (!sim_step_mem(&s, t, &z, 1, &vm, &mem, &d) || d.reason == WSF_KEEP)
                        continue;
                if (d.wsf_new > d.wsf_old && raised < 0)
                        raised = t;
                if (d.wsf_new < d.wsf_old && lowered < 0)
                        lowered = t;
        }
        assert_int_equal(raised, 5);
        assert_true(lowered >= 13);
        assert_int_equal(s.kernel_wsf, 10);
        sim_free(&s);
}

/* Between samples the fast path watches for a fall that would start an
 * episode: one that brings free memory to low within the horizon, and at
 * least the onset share (0.2 % of memory per second) -- not a fall faster
 * than kswapd's capacity (the prior, 300000 pages/s here, is above the
 * rate at which many a THP burst faults on the project's VM). Armed while
 * a fall at that capacity could reach low within the horizon. */
static void onset_trigger_starts_an_episode(void **state)
{
        (void)state;
        static const struct { uint64_t free; bool armed; double trigger; } at[] = {
                { 2022000, true, (2022000 - 22000) / 10.0 },    /* low is 22000 */
                { 100000, true, 0.002 * MANAGED },              /* the onset share */
                { 3022000, false, 0 },                          /* out of reach */
        };
        for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
                struct sim s;
                sim_init(&s, 10);
                struct decision d;
                for (int t = 0; t <= 3; t++) {
                        struct synth_zone z = zone_free(at[i].free);
                        sim_step(&s, t, &z, 1, NULL, PLENTY, &d);
                }
                double trigger;
                assert_int_equal(engine_onset_watch(&s.e, &trigger), at[i].armed);
                if (at[i].armed)
                        assert_float_equal(trigger, at[i].trigger, 1e-6);
                sim_free(&s);
        }
}

/* A first episode takes free memory below low (20000 pages; low is 22000)
 * while kswapd reclaims `kswapd` pages/s: that is its capacity, measured.
 * Much later a demand of `demand` pages/s heads for low from 2000000: raised for only when it exceeds the measured capacity,
 * whether that is above or below the prior (300000). Returns the first
 * raise after the first episode, -1 if none. */
static uint64_t squeeze_then_fall(int t, uint64_t demand)
{
        if (t <= 2)
                return 5000000;
        if (t == 3)
                return 20000;                   /* below low: kswapd behind */
        if (t < 20)
                return 2000000;
        return 2000000 - demand * (uint64_t)(t - 20);
}

static int first_raise_after(uint64_t kswapd, uint64_t demand)
{
        struct sim s;
        sim_init(&s, 10);
        s.p.policy.max_wsf = 1;                 /* the first episode raises nothing */
        struct decision d;
        uint64_t steal = 0;
        int raised_at = -1;
        for (int t = 0; t <= 28 && raised_at < 0; t++) {
                if (t == 20)
                        s.p.policy.max_wsf = 1000;
                steal += t == 3 ? kswapd : 0;
                struct vmstat vm = { .pgsteal_kswapd = steal };
                struct synth_zone z = zone_free(squeeze_then_fall(t, demand));
                if (sim_step(&s, t, &z, 1, &vm, PLENTY, &d) && d.reason != WSF_KEEP && t >= 20)
                        raised_at = t;
        }
        assert_float_equal(s.e.policy.learned.kswapd_capacity_pages_per_sec, (double)kswapd, 1);
        sim_free(&s);
        return raised_at;
}

static void capacity_measured_below_low(void **state)
{
        (void)state;
        /* measured 700000: a demand of 500000 (above the prior) is kswapd's */
        assert_int_equal(first_raise_after(700000, 500000), -1);
        /* measured 100000 (a slow machine): a demand of 200000 (below the
         * prior) is a shortfall */
        assert_int_equal(first_raise_after(100000, 200000), 21);
}

/* A freshly booted machine of the project's kind: the kernel adds pages
 * to the zone as a program touches memory, so managed grows 1 GiB/s while
 * free pages stay flat (the daemon saw no drain and never raised: the
 * root-raise-restore test failed on the first run after boot). The
 * consumption is seen at the first forecast. */
static void added_memory_still_raises(void **state)
{
        (void)state;
        struct sim s;
        sim_init(&s, 10);
        struct decision d;
        int raised_at = -1;
        for (int t = 0; t <= 12 && raised_at < 0; t++) {
                struct synth_zone z = { .managed = 1100000 + 262144 * (uint64_t)t, .wmark_min = WMIN,
                                        .free_pages = 300000 };
                if (sim_step(&s, t, &z, 1, NULL, PLENTY, &d) && d.reason != WSF_KEEP) {
                        raised_at = t;
                        assert_int_equal(d.reason, WSF_RAISE_FORECAST);
                        assert_float_equal(d.drain, 262144, 1e-6);
                }
        }
        assert_int_equal(raised_at, 1);
        sim_free(&s);
}

/* An episode that dips to 500000 free pages (margin over min 484000) at
 * 300000 pages/s after a first interval of 600000, then recovers. */
static uint64_t dip(int t)
{
        static const uint64_t at[] = { 1400000, 800000, 500000 };
        return t >= 5 && t <= 7 ? at[t - 5] : 2000000;
}

/* util.h's stand-ins for libm agree with libm (this test links it) on
 * whole and half values, the edges of 2^52, infinities and NaN. */
static void same_double(double a, double b)
{
        assert_true(isnan(a) ? isnan(b) : a == b);
}

static void libm_stand_ins(void **state)
{
        (void)state;
        const double v[] = { 0, -0.0, 0.25, -0.25, 0.5, -0.5, 1, -1, 1.5, -1.5, 2.999999, -2.999999,
                             1e9 + 0.5, -1e9 - 0.5, 0x1p52 - 0.5, -0x1p52 + 0.5, 0x1p52, 0x1p53 + 2,
                             -0x1p60, 1e300, -1e300, INFINITY, -INFINITY, NAN };
        for (size_t i = 0; i < ARRAY_SIZE(v); i++) {
                same_double(dceil(v[i]), ceil(v[i]));
                same_double(dfloor(v[i]), floor(v[i]));
                same_double(dsqrt(fabs(v[i])), sqrt(fabs(v[i])));
                for (size_t j = 0; j < ARRAY_SIZE(v); j++) {
                        same_double(dmax(v[i], v[j]), fmax(v[i], v[j]));
                        same_double(dmin(v[i], v[j]), fmin(v[i], v[j]));
                }
        }
}

/* A demand's class is floor(log2) of its share of managed memory in parts
 * per 10000: the boundaries fall on the powers of two, exactly. */
static void learn_class_boundaries(void **state)
{
        (void)state;
        const uint64_t managed = 10000;  /* a page per second is one permyriad */
        assert_int_equal(learn_class_of(0.999, managed), -1);
        assert_int_equal(learn_class_of(1, managed), 0);
        assert_int_equal(learn_class_of(1.999, managed), 0);
        assert_int_equal(learn_class_of(2, managed), 1);
        assert_int_equal(learn_class_of(1023.9, managed), 9);
        assert_int_equal(learn_class_of(1024, managed), 10);
        assert_int_equal(learn_class_of(1e300, managed), LEARN_CLASSES - 1);
        assert_int_equal(learn_class_of(INFINITY, managed), LEARN_CLASSES - 1);
        assert_int_equal(learn_class_of(NAN, managed), -1);
        assert_int_equal(learn_class_of(100, 0), -1);
}

/* An unknown class borrows the nearest known one within two, as it is:
 * its own first, then above, then below; learn_class_for() names it. */
static void neighbour_class_borrowed(void **state)
{
        (void)state;
        const uint64_t managed = 10000;
        const enum learn_kind B = LEARN_BASE;
        struct learned l;
        learn_init(&l);
        assert_int_equal(learn_wsf_for(&l, B, 128, managed), -1);
        assert_int_equal(learn_class_for(&l, B, 128, managed).class, -1);
        l.classes[B][9] = (struct learn_class){ .known = true, .wsf = 431.5, .episodes = 1 };
        assert_int_equal(learn_wsf_for(&l, B, 600, managed), 432);      /* its own, rounded up */
        assert_int_equal(learn_class_for(&l, B, 600, managed).class, 9);
        assert_int_equal(learn_wsf_for(&l, B, 300, managed), 432);      /* one above */
        assert_int_equal(learn_wsf_for(&l, B, 128, managed), 432);      /* two above */
        assert_int_equal(learn_class_for(&l, B, 128, managed).class, 9);
        assert_int_equal(learn_wsf_for(&l, B, 127, managed), -1);       /* three: none */
        assert_int_equal(learn_class_for(&l, B, 127, managed).class, -1);
        assert_int_equal(learn_wsf_for(&l, B, 1100, managed), 432);     /* one below */
        assert_int_equal(learn_class_for(&l, B, 2100, managed).class, 9);       /* two below */
        assert_int_equal(learn_class_for(&l, B, 4100, managed).class, -1);
        l.classes[B][7] = (struct learn_class){ .known = true, .wsf = 100, .episodes = 1 };
        assert_int_equal(learn_class_for(&l, B, 300, managed).class, 9);        /* above before below */
        assert_int_equal(learn_wsf_for(&l, B, 170, managed), 100);      /* its own first */
        assert_int_equal(learn_class_for(&l, B, 170, managed).class, 7);
        assert_int_equal(learn_class_wsf(&l, (struct learn_key){ B, 8 }), -1);  /* not known */
        assert_int_equal(learn_class_wsf(&l, (struct learn_key){ B, -1 }), -1);
        assert_int_equal(learn_class_wsf(&l, (struct learn_key){ B, LEARN_CLASSES }), -1);
        assert_int_equal(learn_class_wsf(&l, (struct learn_key){ LEARN_KINDS, 7 }), -1);
}

/* The two kinds are learnt apart: a THP episode teaches the THP classes
 * only, and a demand of either kind takes its own kind's value -- the
 * other kind's only where its own knows no class within the neighbours. */
static void kinds_learnt_apart(void **state)
{
        (void)state;
        struct learned l;
        learn_init(&l);
        int c = learn_class_of(600000, MANAGED);
        struct episode_stats e = {
                .start = 0, .end = 3, .peak_demand_pages_per_sec = 600000, .peak_thp_pages_per_sec = 400000,
                .demand_pages = 1500000, .min_margin_pages = 44000, .gap_pages = 372600, .wsf_max = 621,
                .direct_pages = 60000, .allocstalls = 10, .managed_pages = MANAGED,
        };
        assert_int_equal(learn_kind_of(600000, 400000), LEARN_THP);
        assert_int_equal(learn_kind_of(600000, 200000), LEARN_BASE);
        assert_int_equal(learn_kind_of(0, 0), LEARN_BASE);
        learn_episode(&l, &e);
        assert_true(l.classes[LEARN_THP][c].known);
        assert_false(l.classes[LEARN_BASE][c].known);
        long thp = learn_wsf_for(&l, LEARN_THP, 600000, MANAGED);
        assert_true(thp > 621);
        /* a base demand borrows it while its own kind knows nothing near */
        struct learn_key k = learn_class_for(&l, LEARN_BASE, 600000, MANAGED);
        assert_int_equal(k.kind, LEARN_THP);
        assert_int_equal(k.class, c);
        /* a base episode of the class that needed less, used 100 of its gap */
        e.peak_thp_pages_per_sec = 0;
        e.wsf_max = 100;
        e.direct_pages = 0;
        e.allocstalls = 0;
        e.gap_pages = 60000;
        e.min_margin_pages = 40000;
        learn_episode(&l, &e);
        assert_true(l.classes[LEARN_BASE][c].known);
        long base = learn_wsf_for(&l, LEARN_BASE, 600000, MANAGED);
        assert_true(base < thp);
        assert_int_equal(learn_wsf_for(&l, LEARN_THP, 600000, MANAGED), thp);  /* untouched */
        assert_int_equal(learn_class_for(&l, LEARN_BASE, 600000, MANAGED).kind, LEARN_BASE);
        assert_int_equal(l.history[1].peak_thp_pages_per_sec, 0);
        assert_true(l.history[0].peak_thp_pages_per_sec == 400000);
}

/* kswapd's best rate counts half after a day, a quarter after two, and
 * falls steadily between, within 6 % of 2^-days; never more than shown. */
static void kswapd_capacity_halves_per_day(void **state)
{
        (void)state;
        const double day = 24 * 3600.0;
        struct learned l;
        learn_init(&l);
        learn_kswapd(&l, 1000, 100);
        assert_true(learn_kswapd_capacity(&l, 100) == 1000);
        assert_true(learn_kswapd_capacity(&l, 50) == 1000);     /* a time before it: not more */
        assert_true(learn_kswapd_capacity(&l, 100 + day) == 500);
        assert_true(learn_kswapd_capacity(&l, 100 + 2 * day) == 250);
        double last = 1000;
        for (int i = 1; i <= 96; i++) {
                double t = i * day / 32, c = learn_kswapd_capacity(&l, 100 + t);
                assert_true(c < last);
                assert_true(fabs(c / (1000 * exp2(-t / day)) - 1) < 0.065);
                last = c;
        }
        assert_true(learn_kswapd_capacity(&l, 100 + 2000 * day) == 0);
}

/* The same kind of episode (600000 pages/s in its first interval), which
 * then slows to 300000 and 200000 pages/s and stops at 900000 free pages:
 * at a learned 621 (low 388600) free memory stays above low for more than
 * two intervals at each rate, and the learned raise holds. */
static uint64_t gentle_dip(int t)
{
        static const uint64_t at[] = { 1400000, 1100000, 900000 };
        return t >= 5 && t <= 7 ? at[t - 5] : 2000000;
}

/* What the class of a 600000 pages/s episode of a kind needs: the
 * learner's own rule, computed here from its numbers. */
static long kind_class_wsf(const struct sim *s, enum learn_kind kind)
{
        int c = learn_class_of(600000, MANAGED);
        assert_true(c >= 0);
        assert_true(s->e.policy.learned.classes[kind][c].known);
        return (long)ceil(s->e.policy.learned.classes[kind][c].wsf);
}

static long class_wsf(const struct sim *s)
{
        return kind_class_wsf(s, LEARN_BASE);
}

/* The first episode raises by the shortfall (500, then 1000: a gap of
 * 600000 pages) and leaves 484000 of it unused: it used 116000 pages, with
 * a quarter to spare 145000, wsf 242. What was held (1000) did the job, and
 * what it used alone would not have (kswapd woke early because of it): the
 * class learns half way from the one to the other, 621. The same kind of
 * episode again (gentle_dip) is raised at once to that (its class's), which
 * holds, and leaves the whole gap unused: the class shrinks by half again,
 * to 311 (310.5). */
static void learned_size_shrinks_after_unused_margin(void **state)
{
        (void)state;
        struct sim s;
        sim_init(&s, 10);
        struct decision d;
        run(&s, 0, 14, dip, NULL, false, &d);
        assert_false(s.e.policy.episodes.active);
        assert_int_equal(class_wsf(&s), 621);
        assert_int_equal(s.kernel_wsf, 10);             /* given back */

        sim_step_shift(&s, 20);
        assert_int_equal(run(&s, 0, 5, gentle_dip, NULL, true, &d), 5);
        assert_int_equal(d.reason, WSF_RAISE_LEARNED);
        assert_int_equal(d.wsf_new, 621);
        assert_int_equal(d.learned_wsf, 621);
        assert_int_equal(run(&s, 6, 7, gentle_dip, NULL, false, &d), -1);      /* it holds */
        run(&s, 8, 14, gentle_dip, NULL, false, &d);
        assert_int_equal(class_wsf(&s), 311);
        sim_free(&s);
}

/* A kind not seen, two classes below one learnt at 400: raised at once
 * (raise-learned) to that value, and the decision names the class it was
 * taken from. */
static void slower_kind_raised_to_a_faster_class(void **state)
{
        (void)state;
        struct sim s;
        sim_init(&s, 10);
        int c = learn_class_of(600000, MANAGED);
        s.e.policy.learned.classes[LEARN_BASE][c + 2] = (struct learn_class){ .known = true, .wsf = 400, .episodes = 1 };
        s.e.policy.learned.managed_pages = MANAGED;
        struct decision d;
        assert_int_equal(run(&s, 0, 5, gentle_dip, NULL, true, &d), 5);
        assert_int_equal(d.reason, WSF_RAISE_LEARNED);
        assert_int_equal(d.wsf_new, 400);
        assert_int_equal(d.learned_wsf, 400);
        assert_int_equal(d.demand_class, c);
        assert_int_equal(d.learned_above, 2);
        sim_free(&s);
}

/* A class raised for (to the pace floor) in an episode that left its gap
 * unused shrinks no further than the floor: below the baseline its next
 * episode would get no raise at all. An episode with no raise in force
 * shows the class needs none, and shrinks it past the floor. */
static double shrunk(double wsf, long wsf_max)
{
        struct learned l;
        learn_init(&l);
        int c = learn_class_of(600000, MANAGED);
        l.classes[LEARN_BASE][c] = (struct learn_class){ .known = true, .wsf = wsf, .episodes = 1 };
        struct episode_stats e = {
                .start = 0, .end = 3, .peak_demand_pages_per_sec = 600000, .demand_pages = 1500000,
                .min_margin_pages = 60000, .gap_pages = 60000, .wsf_max = wsf_max, .managed_pages = MANAGED,
        };
        learn_episode(&l, &e);
        return l.classes[LEARN_BASE][c].wsf;
}

static void raised_class_kept_at_the_floor(void **state)
{
        (void)state;
        assert_true(shrunk(150, 100) == 100);           /* 75 without the floor */
        assert_true(shrunk(300, 300) == 150);           /* above it: half way, as before */
        assert_true(shrunk(40, 100) == 40);             /* below it already: kept */
        assert_true(shrunk(150, 10) == 75);             /* no raise in force: no floor */
}

/* A class that needs 621 (a gap of 372600 pages here), and an episode of
 * it that used all but 44000 pages of that gap -- free memory fell to
 * 60000, min is 16000 -- while the allocating tasks reclaimed 60000 pages
 * themselves (10 allocation stalls): the gap fell short. The class learns
 * what the episode used of its gap, with a quarter to spare, and 1.5 times
 * the shortfall: (372600 - 44000) * 1.25 + 90000 pages, 835. The same
 * episode with most of the gap left (margin 284000) shows no shortage of
 * the gap: 88600 * 1.25 + 90000 pages (335) is less, and 621 stays: a
 * stall is no evidence that less would have done. A class held at 100
 * learns those 335, what the stall showed, and a kind not seen at least
 * the 621 in force during it. known: the class's value, 0 for none. */
static long learnt_after_stall(double margin, double known)
{
        struct learned l;
        learn_init(&l);
        int c = learn_class_of(600000, MANAGED);
        if (known > 0)
                l.classes[LEARN_BASE][c] = (struct learn_class){ .known = true, .wsf = known, .episodes = 1 };
        struct episode_stats e = {
                .start = 0, .end = 3, .peak_demand_pages_per_sec = 600000, .demand_pages = 1500000,
                .min_margin_pages = margin, .gap_pages = 372600, .wsf_max = 621,
                .direct_pages = 60000, .allocstalls = 10, .managed_pages = MANAGED,
        };
        learn_episode(&l, &e);
        assert_int_equal(l.classes[LEARN_BASE][c].stalled, 1);
        return learn_wsf_for(&l, LEARN_BASE, 600000, MANAGED);
}

static void learned_size_grows_after_stall(void **state)
{
        (void)state;
        assert_int_equal(learnt_after_stall(44000, 621),
                         (long)ceil(((372600 - 44000) * 1.25 + 1.5 * 60000) * 10000 / MANAGED));
        assert_true(learnt_after_stall(44000, 621) > 621);
        assert_int_equal(learnt_after_stall(284000, 621), 621);
        assert_int_equal(learnt_after_stall(284000, 100),
                         (long)ceil(((372600 - 284000) * 1.25 + 1.5 * 60000) * 10000 / MANAGED));
        assert_int_equal(learnt_after_stall(284000, 0), 621);
}

/* A class of huge-page bursts held at the pace floor (100) meets a burst
 * like huge_pages_raise_below_capacity's, whose onset the onset rule alone
 * would size at 334 (an interval of its huge pages): raised to the 100
 * learnt, it stalls 6 times, with no page reclaimed directly and free
 * memory far above min. That shows 6 x 32 pages missing at most: the class
 * keeps 100. (Floored at the onset rule's size, a first burst at the learnt
 * 100 that stalled 6 times taught its class 849 on the bench's VM.) */
static void few_stalls_teach_in_proportion(void **state)
{
        (void)state;
        struct sim s;
        sim_init(&s, 10);
        int c = learn_class_of(200000, MANAGED);
        s.e.policy.learned.classes[LEARN_THP][c] = (struct learn_class){ .known = true, .wsf = 100, .episodes = 2 };
        s.e.policy.learned.managed_pages = MANAGED;
        struct decision d;
        struct vmstat vm = { 0 };
        bool ended = false;
        for (int t = 0; t <= 20 && !ended; t++) {
                uint64_t huge = t <= 7 ? 200000 * (uint64_t)t : 0;
                uint64_t free = t <= 7 ? cache_fill(t) : 3000000;
                struct meminfo mem = { .mem_free = free, .inactive_file = PLENTY, .anon_huge = huge,
                                       .anon_pages = huge, .parts_known = true };
                struct synth_zone z = zone_free(free);
                if (t == 6)
                        vm.allocstall += 6;
                if (!sim_step_mem(&s, t, &z, 1, &vm, &mem, &d))
                        continue;
                if (t == 5) {
                        assert_int_equal(d.reason, WSF_RAISE_LEARNED);
                        assert_int_equal(d.wsf_new, 100);
                }
                ended = d.episode_ended;
        }
        assert_true(ended);
        assert_int_equal(d.episode.allocstalls, 6);
        assert_true(s.e.policy.learned.classes[LEARN_THP][c].stalled >= 1);
        assert_int_equal((long)ceil(s.e.policy.learned.classes[LEARN_THP][c].wsf), 100);
        sim_free(&s);
}

/* Huge pages at 200000 pages/s from t = 0 (as huge_pages_raise_below_capacity:
 * raised at the onset, t = 5, by the onset rule to 334), then one interval
 * at 600000 pages/s with a raise in force (t = 8), in which the allocating
 * tasks reclaimed 6000 pages themselves; at t = 9 the memory is freed and
 * the episode ends. The stall teaches what was held, 334 (what it showed
 * missing is less), not the gap the onset rule would
 * have called for at the late interval (600000 pages, 1000): a JVM's heap
 * re-touching memory the last one freed at 3 GB/s taught 1180-1260 so,
 * and the next starts were raised to 1000 with 2.5 GB of the gap unused. */
static uint64_t spike_free(int t)
{
        return t <= 7 ? cache_fill(t) : t == 8 ? cache_fill(7) - 600000 : 3000000;
}

static void late_spike_not_learnt_as_onset(void **state)
{
        (void)state;
        struct sim s;
        sim_init(&s, 10);
        struct decision d;
        struct vmstat vm = { 0 };
        bool ended = false;
        for (int t = 0; t <= 12 && !ended; t++) {
                uint64_t thp = t <= 8 ? 3000000 - spike_free(t) : 0;
                struct meminfo mem = { .mem_free = spike_free(t), .active_file = PLENTY, .anon_huge = thp,
                                       .anon_pages = thp, .parts_known = true };
                struct synth_zone z = zone_free(spike_free(t));
                if (t == 8)
                        vm.pgsteal_direct += 6000, vm.allocstall += 1;
                /* no decision before the window fills: d is then unwritten */
                if (!sim_step_mem(&s, t, &z, 1, &vm, &mem, &d))
                        continue;
                if (d.reason != WSF_KEEP && t == 5)
                        assert_int_equal(d.wsf_new, 334);
                ended = d.episode_ended;
        }
        assert_true(ended);
        assert_int_equal(d.episode.allocstalls, 1);
        assert_int_equal(kind_class_wsf(&s, LEARN_THP), 334);
        sim_free(&s);
}

/* The same stall, but with most of the gap left: free memory at its
 * tightest (gentle_dip, 900000 at t = 7) far above low. The stall does not
 * raise the value in force (the next episode of the kind is sized by it)
 * and it shows no shortage of the gap the class needs: a burst short of
 * free blocks rather than of free pages (on the bench's VM a static 100
 * and a daemon holding 250-500 both had 100-470 allocation stalls in the
 * same THP burst). The class keeps 621: it grows only by what was used
 * and missing (90000 pages, 150), which is less. */
static void stall_with_gap_left_not_learnt_larger(void **state)
{
        (void)state;
        struct sim s;
        sim_init(&s, 10);
        struct decision d;
        run(&s, 0, 14, dip, NULL, false, &d);
        sim_step_shift(&s, 20);
        struct vmstat vm = { 0 };
        for (int t = 0; t <= 14; t++) {
                if (t == 7)
                        vm.pgsteal_direct += 60000, vm.allocstall += 10;
                run(&s, t, t, gentle_dip, &vm, false, &d);
                if (t == 7) {
                        assert_int_equal(d.stalls, 10);
                        assert_true(d.reason != WSF_RAISE_STALL);
                        assert_true(d.wsf_new <= 621);
                }
        }
        assert_int_equal(class_wsf(&s), 621);
        sim_free(&s);
}

/* A train of the dip every 15 s (starting at t = 5, 20, 35, 50), then no
 * more. After each episode the value goes back to the baseline. Once three
 * have come at a steady period, the next is raised for ahead of time
 * (raise-recurrence, 2 s before it is due: the fourth, due at 49, at 47);
 * after the fourth the fifth is expected at 64 and raised for at 62; it
 * never comes, and the value is given back as soon as it is overdue by a
 * quarter period (67.75): the broken pattern cost its lead and tolerance,
 * under one period. */
static uint64_t train(int t)
{
        return t < 60 ? dip(t % 15) : 2000000;
}

static void recurring_episode_anticipated(void **state)
{
        (void)state;
        struct sim s;
        sim_init(&s, 10);
        struct decision d;
        int recur_raise[4], nr = 0, lowered_at = -1, overdue = 0, overdue_at = -1;
        for (int t = 0; t <= 80; t++) {
                struct synth_zone z = zone_free(train(t));
                if (!sim_step(&s, t, &z, 1, NULL, PLENTY, &d) || d.reason == WSF_KEEP)
                        continue;
                if (d.recur_overdue)            /* only the lowering at 68 says so */
                        overdue++, overdue_at = t;
                if (d.reason == WSF_RAISE_RECUR) {
                        assert_true(nr < 4);
                        recur_raise[nr++] = t;
                        assert_true(d.recur.expected);
                        assert_float_equal(d.recur.period, 15, 1e-6);
                        assert_float_equal(d.recur_due_in, 2, 1e-6);
                }
                if (d.reason == WSF_LOWER_CALM)
                        lowered_at = t;
        }
        assert_int_equal(nr, 2);
        assert_int_equal(recur_raise[0], 47);
        assert_int_equal(recur_raise[1], 62);
        assert_int_equal(lowered_at, 68);
        assert_int_equal(overdue, 1);
        assert_int_equal(overdue_at, 68);
        assert_int_equal(s.kernel_wsf, 10);
        sim_free(&s);
}

/* The train's fourth episode comes when due (49), gentler: the value
 * raised for it at 47 holds it, and its demand stops (at 52) before the
 * pattern's tolerance ends (52.75). It is given back there, at 53, as
 * before, but not as overdue: it came (0.4.3 said of such a burst in the
 * bench's train that it "has not come"). The fifth, expected at 64 and
 * raised for at 62, never comes: that one is overdue (at 68). */
static uint64_t gentle_fourth(int t)
{
        return t < 45 ? dip(t % 15) : gentle_dip(t - 45);
}

static void recurrence_that_came_not_called_overdue(void **state)
{
        (void)state;
        struct sim s;
        sim_init(&s, 10);
        struct decision d;
        int recur_raise[2], nr = 0, overdue_at = -1, came_at = -1, overdue = 0, came = 0, raised_after = 0;
        for (int t = 0; t <= 80; t++) {
                struct synth_zone z = zone_free(gentle_fourth(t));
                if (!sim_step(&s, t, &z, 1, NULL, PLENTY, &d) || d.reason == WSF_KEEP)
                        continue;
                assert_false(d.recur_overdue && d.recur_came);
                if (d.recur_overdue)
                        overdue++, overdue_at = t;
                if (d.recur_came)
                        came++, came_at = t;
                if (d.reason == WSF_RAISE_RECUR) {
                        assert_true(nr < 2);
                        recur_raise[nr++] = t;
                } else if (t > 47 && t < 56 && d.wsf_new > d.wsf_old)
                        raised_after++;
        }
        assert_int_equal(nr, 2);
        assert_int_equal(recur_raise[0], 47);
        assert_int_equal(raised_after, 0);      /* the raise for it held it */
        assert_int_equal(came, 1);
        assert_int_equal(came_at, 53);
        assert_int_equal(recur_raise[1], 62);
        assert_int_equal(overdue, 1);
        assert_int_equal(overdue_at, 68);
        assert_int_equal(s.kernel_wsf, 10);
        sim_free(&s);
}

/* The same train with a calm period of ten minutes: the value raised at
 * the first dip's onset is held through the train, which the recurring
 * pattern is then found in. When the fifth never comes, the value stays:
 * it was not raised for the recurrence, and the administrator's calm
 * period holds it. 0.4.0 gave it back at 53, three seconds after the
 * fourth dip, as if a raise for that one had found it never came, and
 * raised for the fifth at 62. */
static void calm_period_holds_what_a_recurrence_did_not_raise(void **state)
{
        (void)state;
        struct sim s;
        sim_init(&s, 10);
        s.p.policy.calm_period = 600;
        struct decision d;
        int raises = 0, recur_raises = 0, lowers = 0;
        for (int t = 0; t <= 80; t++) {
                struct synth_zone z = zone_free(train(t));
                if (!sim_step(&s, t, &z, 1, NULL, PLENTY, &d) || d.reason == WSF_KEEP)
                        continue;
                raises += d.wsf_new > d.wsf_old;
                recur_raises += d.reason == WSF_RAISE_RECUR;
                lowers += d.reason == WSF_LOWER_CALM;
        }
        assert_true(raises >= 1);
        assert_int_equal(recur_raises, 0);      /* the value in force covered each one */
        assert_int_equal(lowers, 0);
        assert_true(s.kernel_wsf > 10);
        sim_free(&s);
}

/* A train of bursts that hold their memory until just before the next
 * (free memory stays below the raised high, so each episode is still open
 * when its demand has stopped for the calm period). From the third burst
 * on, the pattern says the next is due within the lead when the value is
 * given back: it is given back to what the next one needs, not to the
 * baseline and raised again a sample later, as 0.3.6 did at every burst of
 * the bench's train. After the train the value returns to the baseline. */
static uint64_t held_train(int t)
{
        static const uint64_t at[] = { 1200000, 300000, 300000, 300000, 300000, 2000000 };
        return t < 8 || t >= 8 + 6 * 5 ? 2000000 : at[(t - 8) % 6];
}

static void burst_end_given_back_to_the_recurrence(void **state)
{
        (void)state;
        struct sim s;
        sim_init(&s, 10);
        struct decision d;
        enum wsf_reason last = WSF_KEEP;
        int last_at = -10, kept_for_next = 0;
        for (int t = 0; t <= 60; t++) {
                struct synth_zone z = zone_free(held_train(t));
                if (!sim_step(&s, t, &z, 1, NULL, PLENTY, &d) || d.reason == WSF_KEEP)
                        continue;
                assert_false(last == WSF_LOWER_CALM && d.reason == WSF_RAISE_RECUR && t - last_at <= 1);
                if (d.reason == WSF_LOWER_CALM && d.wsf_new > 10) {
                        assert_true(d.recur.expected);
                        assert_float_equal(d.recur_due_in, 1, 1e-6);
                        assert_int_equal(d.wsf_new, d.learned_wsf);
                        kept_for_next++;
                }
                last = d.reason;
                last_at = t;
        }
        assert_int_equal(kept_for_next, 3);
        assert_int_equal(s.kernel_wsf, 10);
        sim_free(&s);
}

/* Compaction stalls are fragmentation, not a lack of free pages: they
 * neither raise the scale factor at the time nor teach the learner a
 * larger one -- even while free memory is below low (a static 1000 did not
 * prevent the mixed benchmark's irregular burst's compaction stalls) --
 * and a compaction follows once the episode is over
 * (compaction_stall_compacts). The squeeze learns 8 with 20 compaction
 * stalls as without: half way from what was held (10) to what was used
 * (4.2). */
static uint64_t squeeze(int t)
{
        return t == 5 || t == 6 ? 20000 : 5000000;
}

static long learnt_after_squeeze(uint64_t compact_stalls)
{
        struct sim s;
        sim_init(&s, 10);
        struct decision d;
        struct vmstat vm = { 0 };
        for (int t = 0; t <= 10; t++) {
                if (t == 5)
                        vm.compact_stall += compact_stalls;
                struct synth_zone z = zone_free(squeeze(t));
                if (sim_step(&s, t, &z, 1, &vm, PLENTY, &d))
                        assert_int_equal(d.reason, WSF_KEEP);
        }
        assert_false(s.e.policy.episodes.active);
        long w = learn_wsf_for(&s.e.policy.learned, LEARN_BASE, 4980000, MANAGED);
        sim_free(&s);
        return w;
}

static void compaction_stalls_not_learnt(void **state)
{
        (void)state;
        assert_int_equal(learnt_after_squeeze(20), 8);
        assert_int_equal(learnt_after_squeeze(0), 8);
}

static void compaction_stall_compacts(void **state)
{
        (void)state;
        struct sim s;
        sim_init(&s, 10);
        struct decision d;
        struct vmstat vm = { 0 };
        int compacted_at = -1;
        for (int t = 0; t <= 12; t++) {
                if (t == 5)
                        vm.compact_stall += 20;
                /* 2000000 free, 100 order-9 blocks: 97 % fragmented */
                struct synth_zone z = { .managed = MANAGED, .wmark_min = WMIN, .free_pages = 2000000,
                                        .high_pages = 51200, .order = 9 };
                if (!sim_step(&s, t, &z, 1, &vm, PLENTY, &d))
                        continue;
                assert_int_equal(d.reason, WSF_KEEP);
                if (t == 5)
                        assert_true(s.e.policy.episodes.active);
                if (d.nr_compact && compacted_at < 0) {
                        compacted_at = t;
                        assert_false(s.e.policy.episodes.active);
                        assert_int_equal(d.compact[0].order, 9);
                        /* asked for by the stalls, not a forecast: said so */
                        assert_true(d.compact[0].stalled);
                }
        }
        assert_true(compacted_at > 5 && compacted_at <= 8);
        sim_free(&s);
}

/* Direct reclaim without any forecast: evidence about the interval that
 * passed, not a raise (the learner takes it; a raise after a burst only
 * had kswapd evict page cache). The value in force is not lowered while
 * the stalls last, then given back to the baseline in one step once
 * calm_period (3 s) has passed without an episode or a stall. */
/* From 100 in force and 1000000 free pages, an interval with 5 allocation
 * stalls and 30000 pages reclaimed directly that ends with free_after. */
static void stall_interval(struct sim *s, uint64_t free_after, struct vmstat *vm, struct decision *d)
{
        sim_init(s, 10);
        s->e.policy.current = s->e.policy.kernel_seen = s->kernel_wsf = 100;
        struct synth_zone z = zone_free(1000000);
        *vm = (struct vmstat){ 0 };
        sim_step(s, 0, &z, 1, vm, PLENTY, d);
        vm->allocstall = 5;
        vm->pgsteal_direct = 30000;
        z = zone_free(free_after);
        sim_step(s, 1, &z, 1, vm, PLENTY, d);
}

static void stall_raises_nothing_and_holds_the_value(void **state)
{
        (void)state;
        struct sim s;
        struct decision d;
        struct vmstat vm;
        stall_interval(&s, 1000000, &vm, &d);
        struct synth_zone z = zone_free(1000000);
        assert_int_equal(d.reason, WSF_KEEP);
        assert_int_equal(d.wsf_new, 100);
        assert_int_equal(d.stalls, 5);
        assert_float_equal(s.e.policy.last_stall, 1, 1e-9);
        int lowered_at = -1;
        for (int t = 2; t <= 12 && lowered_at < 0; t++)
                if (sim_step(&s, t, &z, 1, &vm, PLENTY, &d) && d.reason != WSF_KEEP)
                        lowered_at = t;
        assert_int_equal(d.reason, WSF_LOWER_CALM);
        assert_int_equal(d.wsf_new, 10);
        assert_true(lowered_at >= 4 && lowered_at <= 8);
        sim_free(&s);
}

/* The same stalls, seen in the interval in which the burst also ended:
 * 2000000 pages came back (free memory 1000000 -> 3000000), so the
 * workload took nothing net of what it freed. A raise now would only have
 * kswapd evict page cache after the burst: none -- but the stalls still
 * hold the value in force for the calm period. */
static void stall_after_the_burst_not_raised(void **state)
{
        (void)state;
        struct sim s;
        struct decision d;
        struct vmstat vm;
        stall_interval(&s, 3000000, &vm, &d);
        assert_int_equal(d.reason, WSF_KEEP);
        assert_int_equal(d.stalls, 5);
        assert_int_equal(s.kernel_wsf, 100);
        sim_free(&s);
}

/* After an episode the value goes straight back to the baseline within a
 * few intervals of its end, not after 30 s and halvings. */
static uint64_t burst_then_calm(int t)
{
        return t >= 5 && t <= 6 ? fast_fall(t) : 5000000;
}

static void given_back_after_the_episode(void **state)
{
        (void)state;
        struct sim s;
        sim_init(&s, 10);
        struct decision d;
        int raised = 0, lowered_at = -1;
        for (int t = 0; t <= 20 && lowered_at < 0; t++) {
                struct synth_zone z = zone_free(burst_then_calm(t));
                if (!sim_step(&s, t, &z, 1, NULL, PLENTY, &d) || d.reason == WSF_KEEP)
                        continue;
                if (d.wsf_new > d.wsf_old)
                        raised++;
                else
                        lowered_at = t;
        }
        assert_true(raised >= 1);
        assert_int_equal(d.reason, WSF_LOWER_CALM);
        assert_int_equal(d.wsf_new, 10);
        /* the episode ends two calm samples after t = 7; + calm_period 3 s */
        assert_true(lowered_at <= 7 + 2 + 3 + 1);
        sim_free(&s);
}

/* After the burst a reader churns its page cache: free memory holds just
 * below the raised low watermark while kswapd reclaims 400000 pages/s for
 * it. That is demand kswapd absorbs, not an episode: the value comes back
 * once the burst has been quiet for EPISODE_QUIET_SECS and the calm period.
 * (Counted as pressure, it kept the daemon at 1000 for a whole benchmark
 * run: each raise made kswapd evict what the reader then read again.) */
static void churn_below_raised_low_given_back(void **state)
{
        (void)state;
        struct sim s;
        sim_init(&s, 10);
        struct decision d;
        struct vmstat vm = { 0 };
        int lowered_at = -1;
        long raised = 10;
        for (int t = 0; t <= 30 && lowered_at < 0; t++) {
                uint64_t low = WMIN + (uint64_t)MANAGED * (uint64_t)s.kernel_wsf / 10000;
                uint64_t free = t <= 6 ? burst_then_calm(t) : low - 1000 + 500 * (uint64_t)(t % 2);
                if (t >= 7)
                        vm.pgsteal_kswapd += 400000;
                struct synth_zone z = zone_free(free);
                if (!sim_step(&s, t, &z, 1, &vm, PLENTY, &d) || d.reason == WSF_KEEP)
                        continue;
                if (d.wsf_new > d.wsf_old)
                        raised = d.wsf_new;
                else
                        lowered_at = t;
        }
        assert_true(raised > 10);
        assert_int_equal(d.reason, WSF_LOWER_CALM);
        assert_int_equal(d.wsf_new, 10);
        assert_true(lowered_at > 6 && lowered_at <= 6 + 5 + 3 + 2);
        sim_free(&s);
}

/* kswapd scans 5 % of memory per second and reclaims 1 % of what it
 * scans: memory full of what it cannot reclaim. A higher watermark would
 * only make it burn more CPU: no raise, however short the supply. */
static void kswapd_failing_no_raise(void **state)
{
        (void)state;
        struct sim s;
        sim_init(&s, 10);
        struct decision d;
        struct vmstat vm = { 0 };
        for (int t = 0; t <= 8; t++) {
                vm.pgscan_kswapd += 300000;
                vm.pgsteal_kswapd += 3000;
                assert_int_equal(run(&s, t, t, fast_fall, &vm, false, &d), -1);
        }
        assert_true(s.e.policy.episodes.active);
        assert_int_equal(d.hold, HOLD_KSWAPD_FAILING);
        assert_true(s.e.policy.hold == HOLD_KSWAPD_FAILING);
        sim_free(&s);
}

/* The kernel says kswapd gave up on the node (node_unreclaimable): it is
 * not woken there until an allocation reclaims memory itself, so no raise
 * however short the supply -- and that is said once, on the way in and on
 * the way out. Once it reclaims again the episode's raise is made. */
static void node_unreclaimable_no_raise(void **state)
{
        (void)state;
        struct sim s;
        sim_init(&s, 10);
        struct decision d;
        int held_at = -1, changes = 0;
        for (int t = 0; t <= 8; t++) {
                struct synth_zone z = zone_free(fast_fall(t));
                z.node_unreclaimable = t >= 3;
                if (!sim_step(&s, t, &z, 1, NULL, PLENTY, &d))
                        continue;
                assert_int_equal(d.reason, WSF_KEEP);
                if (d.hold_changed) {
                        changes++;
                        held_at = t;
                        assert_int_equal(d.hold, HOLD_NODE_UNRECLAIMABLE);
                        assert_int_equal(d.hold_node, 0);
                }
        }
        assert_int_equal(changes, 1);
        assert_true(held_at >= 3);
        assert_true(s.e.policy.episodes.active);
        assert_int_equal(s.kernel_wsf, 10);
        struct synth_zone z = zone_free(fast_fall(9));
        assert_true(sim_step(&s, 9, &z, 1, NULL, PLENTY, &d));
        assert_true(d.hold_changed);
        assert_int_equal(d.hold, HOLD_NONE);
        assert_true(d.wsf_new > 10);
        sim_free(&s);
}

/* A value inherited above the baseline (a previous instance's) is held for
 * a calm period from the first decision before it is given back. */
static void inherited_value_held(void **state)
{
        (void)state;
        struct sim s;
        sim_init(&s, 10);
        s.e.policy.current = s.e.policy.kernel_seen = s.kernel_wsf = 200;
        struct decision d;
        int lowered_at = -1;
        for (int t = 0; t <= 40 && lowered_at < 0; t++) {
                struct synth_zone z = zone_free(1000000);
                if (sim_step(&s, t, &z, 1, NULL, PLENTY, &d) && d.reason != WSF_KEEP)
                        lowered_at = t;
        }
        assert_int_equal(d.reason, WSF_LOWER_CALM);
        assert_int_equal(lowered_at, 4);        /* first decision at t = 1, + 3 s */
        sim_free(&s);
}

static uint64_t lcg(uint64_t *x)
{
        *x = *x * 6364136223846793005ull + 1442695040888963407ull;
        return *x >> 33;
}

/* A noisy but flat series (free pages uniform in 60000..100000, just above
 * low; order-9 blocks uniform in 20..39): over 100 two-minute runs with
 * different noise, the scale factor is never touched (the noise's demand
 * is far below what kswapd reclaims), and no compaction happens (an
 * exhaustion must be forecast twice in a row, and noise heading for low
 * keeps an episode going). */
static void noisy_flat_no_action(void **state)
{
        (void)state;
        int compacting_runs = 0;
        for (uint64_t run_nr = 1; run_nr <= 100; run_nr++) {
                uint64_t seed = run_nr;         /* lcg() advances it: not the loop's variable */
                struct sim s;
                sim_init(&s, 10);
                struct decision d;
                bool compacted = false;
                for (int t = 0; t <= 120; t++) {
                        struct synth_zone z = { .managed = MANAGED, .wmark_min = WMIN,
                                                .free_pages = 60000 + lcg(&seed) % 40000,
                                                .high_pages = 512 * (20 + lcg(&seed) % 20), .order = 9 };
                        if (!sim_step(&s, t, &z, 1, NULL, PLENTY, &d))
                                continue;
                        if (d.reason != WSF_KEEP)
                                fail_msg("run %llu t=%d: %s to %ld, drain %.0f", (unsigned long long)run_nr,
                                         t, wsf_reason_str(d.reason), d.wsf_new, d.drain);
                        compacted |= d.nr_compact > 0;
                }
                compacting_runs += compacted;
                sim_free(&s);
        }
        print_message("noisy_flat_no_action: %d of 100 runs compacted\n", compacting_runs);
        assert_int_equal(compacting_runs, 0);
}

static struct synth_zone fragmenting(double t)
{
        /* order-9 blocks shrink 20480 pages/s from 409600; total stays 2M.
         * They run out within the 10 s lead once below 205312: at t = 10. */
        return (struct synth_zone){ .managed = MANAGED, .wmark_min = WMIN, .free_pages = 2000000,
                                    .high_pages = 409600 - 20480 * (uint64_t)t, .order = 9 };
}

/* Blocks running out with free memory steady (no episode): compaction once
 * the forecast has held for two samples, t = 10 and 11. */
static void shrinking_blocks_compact(void **state)
{
        (void)state;
        struct sim s;
        sim_init(&s, 10);
        struct decision d;
        for (int t = 0; t <= 11; t++) {
                struct synth_zone z = fragmenting(t);
                if (!sim_step(&s, t, &z, 1, NULL, PLENTY, &d))
                        continue;
                assert_int_equal(d.reason, WSF_KEEP);   /* fragmentation is no reason to raise */
                assert_int_equal(d.nr_compact, t == 11);
        }
        assert_int_equal(d.compact[0].node, 0);
        assert_int_equal(d.compact[0].order, 9);
        assert_float_equal(d.compact[0].secs_to_exhaust, (184320.0 - 512) / 20480, 1e-9);
        sim_free(&s);

        sim_init(&s, 10);                       /* compaction = no */
        s.p.policy.compaction = false;
        for (int t = 0; t <= 15; t++) {
                struct synth_zone z = fragmenting(t);
                if (sim_step(&s, t, &z, 1, NULL, PLENTY, &d))
                        assert_int_equal(d.nr_compact, 0);
        }
        sim_free(&s);
}

/* The same fragmenting, while free memory falls 600000 pages/s (an
 * episode: the workload is faulting): no compaction into the middle of
 * it. */
static void no_compaction_during_an_episode(void **state)
{
        (void)state;
        struct sim s;
        sim_init(&s, 10);
        s.p.policy.max_wsf = 1;         /* keep the watermarks where they are */
        struct decision d;
        for (int t = 0; t <= 13; t++) {
                struct synth_zone z = fragmenting(t);
                z.free_pages = t <= 4 ? 6000000 - 1 : 6000000 - 1 - 400000 * (uint64_t)(t - 4);
                if (sim_step(&s, t, &z, 1, NULL, PLENTY, &d))
                        assert_int_equal(d.nr_compact, 0);
        }
        assert_true(s.e.policy.episodes.active);
        sim_free(&s);
}

/* The same fragmenting while huge pages are faulted in (AnonHugePages
 * grows by `thp` pages an interval until t = 13): at 1 % of memory an
 * interval or more the workload is taking blocks itself, and a compaction
 * beside its faults would make them wait: none until the faulting stops
 * (t = 14, the forecast having held since t = 11). Less than that (a JVM's
 * odd huge page) does not hold it back. */
static int first_compaction_while_faulting(uint64_t thp)
{
        struct sim s;
        sim_init(&s, 10);
        struct decision d;
        struct meminfo mem = { .mem_free = PLENTY };
        int compacted_at = -1;
        for (int t = 0; t <= 16 && compacted_at < 0; t++) {
                struct synth_zone z = fragmenting(t);
                if (t <= 13)
                        mem.anon_huge += thp;
                if (sim_step_mem(&s, t, &z, 1, NULL, &mem, &d) && d.nr_compact) {
                        compacted_at = t;
                        assert_int_equal(d.compact[0].order, 9);
                }
        }
        sim_free(&s);
        return compacted_at;
}

static void no_compaction_while_huge_pages_fault(void **state)
{
        (void)state;
        assert_int_equal(first_compaction_while_faulting(0), 11);
        assert_int_equal(first_compaction_while_faulting(MANAGED / 100 - 512), 11);
        assert_int_equal(first_compaction_while_faulting(MANAGED / 100), 14);
        assert_int_equal(first_compaction_while_faulting(4 * MANAGED / 100), 14);
}

/* A fragmenting fill that lets go, as in bench's fragmented scenario on a
 * fast machine (fragmented-memoptimizer-1 of results/steps/short-0.4.8,
 * in pages): the fill takes free memory and the order-9 blocks with it
 * from t = 3 and lets go at t = 6 of all but one page of every block; a
 * program then faults huge pages (`thp` pages an interval) from
 * `faults_from` on. The fill is an episode to t = 7 and the window's trend
 * trusts the blocks' fall only at t = 7, when the program may be faulting
 * already. But at t = 6 the workload let go (free memory rose by far more
 * than reclaim freed) of memory left in single pages, and the blocks had
 * fallen by more than a useful compaction's worth: the node is compacted
 * there, before the faults. The first sample that compacts, or -1. */
static int first_compaction_after_fill(uint64_t thp, int faults_from)
{
        static const uint64_t free_pages[] = { 6069000, 6069000, 6069000, 5212000, 3392000, 1651000,
                                               4220000, 5734000, 5032000, 4682000, 4682000, 4682000 };
        static const uint64_t blocks[] = { 6015000, 6015000, 6015000, 5193000, 3374000, 1635000,
                                           788000, 790000, 84000, 3500, 3500, 3500 };
        struct sim s;
        sim_init(&s, 10);
        struct decision d;
        struct meminfo mem = { .mem_free = PLENTY };
        int compacted_at = -1;
        for (int t = 0; t < 12 && compacted_at < 0; t++) {
                struct synth_zone z = { .managed = MANAGED, .wmark_min = WMIN, .free_pages = free_pages[t],
                                        .high_pages = blocks[t], .order = 9 };
                if (t >= faults_from && t <= 9)
                        mem.anon_huge += thp;
                if (sim_step_mem(&s, t, &z, 1, NULL, &mem, &d) && d.nr_compact) {
                        compacted_at = t;
                        assert_int_equal(d.compact[0].order, 9);
                        assert_false(d.compact[0].stalled);
                }
        }
        sim_free(&s);
        return compacted_at;
}

static void fill_let_go_compacts_at_once(void **state)
{
        (void)state;
        assert_int_equal(first_compaction_after_fill(700000, 8), 6);
        assert_int_equal(first_compaction_after_fill(700000, 7), 6);
        assert_int_equal(first_compaction_after_fill(0, 12), 6);
}

/* The same fill on another run (fragmented-memoptimizer-1 of
 * results/steps/short-0.4.13, its zones' pages; caches dropped: 2500 file
 * pages): Normal's blocks were taken fast at first, then by less than a
 * useful compaction's worth (1 % of memory) in each of the two intervals
 * before the fill let go (t = 13), in two steps; DMA32 kept its blocks.
 * The program's huge pages came from t = 15. The fall within the lead
 * time counts: compacted at t = 13, the release, where 0.4.13 compacted
 * nothing before the faults and its program stalled 1459 times. A fill
 * that took the rest of the blocks at once at `flat_from` and then held
 * them to the release: its fall still counts while it lies within the lead
 * time (at least half of it is looked back over), and not once it lies
 * before. */
static int first_compaction_after_slow_fill(double lead_time, int flat_from)
{
        static const uint64_t normal[][2] = {   /* free, in order-9 blocks */
                { 5283250, 5201408 }, { 5285329, 5201408 }, { 5254577, 5168640 }, { 5201781, 5185024 },
                { 3502356, 3485184 }, { 2087187, 2074112 }, { 609522, 600576 },   { 498645, 489984 },
                { 375732, 367104 },   { 277011, 268288 },   { 212439, 203776 },   { 137847, 129024 },
                { 81462, 72704 },     { 848852, 29184 },    { 5011810, 29184 },   { 4988289, 3584 },
                { 4986214, 0 },       { 4987915, 0 },
        };
        static const uint64_t dma32[][2] = {
                { 760609, 708608 }, { 767105, 759808 }, { 767105, 759808 }, { 767105, 759808 },
                { 767105, 759808 }, { 767105, 759808 }, { 767105, 759808 }, { 767105, 759808 },
                { 772737, 765440 }, { 739969, 732672 }, { 772737, 765440 }, { 772737, 765440 },
                { 772737, 765440 }, { 772737, 765440 }, { 772737, 765440 }, { 772737, 765440 },
                { 525953, 518656 }, { 450177, 442880 },
        };
        static const uint64_t anon_huge[] = { [15] = 24576, [16] = 278528, [17] = 357376 };
        struct sim s;
        sim_init(&s, 10);
        s.p.policy.lead_time = lead_time;
        struct decision d;
        int compacted_at = -1;
        for (int t = 0; t < (int)(sizeof(normal) / sizeof(normal[0])) && compacted_at < 0; t++) {
                int at = t >= flat_from && t < 13 ? 12 : t;
                struct synth_zone z[] = {
                        { .managed = 772845, .wmark_min = 2116, .free_pages = dma32[t][0],
                          .high_pages = dma32[t][1], .order = 9 },
                        { .managed = 5394258, .wmark_min = 14769, .free_pages = normal[at][0],
                          .high_pages = normal[at][1], .order = 9 },
                };
                struct meminfo mem = { .mem_free = dma32[t][0] + normal[t][0], .active_file = 2500,
                                       .anon_huge = anon_huge[t] };
                if (sim_step_mem(&s, t, z, 2, NULL, &mem, &d) && d.nr_compact) {
                        compacted_at = t;
                        assert_int_equal(d.compact[0].order, 9);
                        assert_true(d.compact[0].released);
                }
        }
        sim_free(&s);
        return compacted_at;
}

static void slow_fill_let_go_compacts(void **state)
{
        (void)state;
        assert_int_equal(first_compaction_after_slow_fill(10, 99), 13);
        assert_int_equal(first_compaction_after_slow_fill(2, 99), 13);
        /* the rest of the blocks taken at t = 7, held to t = 12 */
        assert_int_equal(first_compaction_after_slow_fill(10, 7), 13);
        assert_int_equal(first_compaction_after_slow_fill(3, 7), -1);
}

/* A burst of huge pages takes free memory and the blocks together, then
 * lets go of them whole: free memory and blocks are back, nothing is
 * fragmented, and nothing is compacted. */
static void burst_let_go_no_compaction(void **state)
{
        (void)state;
        struct sim s;
        sim_init(&s, 10);
        struct decision d;
        for (int t = 0; t < 12; t++) {
                uint64_t taken = t >= 3 && t <= 5 ? 1500000 * (uint64_t)(t - 2) : 0;
                struct synth_zone z = { .managed = MANAGED, .wmark_min = WMIN, .free_pages = 6069000 - taken,
                                        .high_pages = 6015000 - taken, .order = 9 };
                if (sim_step(&s, t, &z, 1, NULL, PLENTY, &d))
                        assert_int_equal(d.nr_compact, 0);
        }
        sim_free(&s);
}

/* Order-9 blocks that keep running out, by an eighth a second: the forecast
 * calls for compaction at every sample, and no compaction ever helps. */
static struct synth_zone dwindling(double t)
{
        return (struct synth_zone){ .managed = MANAGED, .wmark_min = WMIN, .free_pages = 2000000,
                                    .high_pages = (uint64_t)(409600 * exp(-t / 8)), .order = 9 };
}

/* Compaction that makes too few new blocks (under 1 % of the node's
 * memory) did harm: deferred 2, 4, 8 ... intervals. Its blocks may not
 * show at once (the per-cpu lists hold the pages it freed), so with no
 * huge page faulted in after it, it is judged by its blocks only at the
 * end of the lead time, and no other compaction of the node comes before. */
static void useless_compaction_backs_off(void **state)
{
        (void)state;
        struct sim s;
        sim_init(&s, 10);
        struct decision d;
        int compacted[8], judged[8], nc = 0, nj = 0;
        unsigned last_shift = 0;
        for (int t = 0; t <= 45; t++) {
                struct synth_zone z = dwindling(t);
                if (!sim_step(&s, t, &z, 1, NULL, PLENTY, &d))
                        continue;
                for (size_t i = 0; i < d.nr_backoff; i++) {
                        judged[nj++] = t;
                        assert_int_equal(d.backoff[i].defer_shift, last_shift + 1);
                        last_shift = d.backoff[i].defer_shift;
                        assert_float_equal(d.backoff[i].retry_in, (double)(1u << last_shift), 0);
                        assert_true(d.backoff[i].after < d.backoff[i].before + 512);
                        assert_false(d.backoff[i].too_slow);
                        assert_float_equal(d.backoff[i].faulted_blocks, 0, 0);
                }
                if (d.nr_compact)
                        compacted[nc++] = t;
        }
        /* compact at c0, judged useless at c0 + 10 (the lead time), retry 2 s
         * later; judged at c1 + 10, retry 4 s later */
        assert_true(nc >= 3);
        assert_true(nj >= 2);
        assert_int_equal(judged[0], compacted[0] + 10);
        assert_int_equal(compacted[1], judged[0] + 2);
        assert_int_equal(judged[1], compacted[1] + 10);
        assert_int_equal(compacted[2], judged[1] + 4);
        sim_free(&s);
}

/* A compaction whose blocks do not show at the next sample, and huge pages
 * faulted in after it: it helped when they stalled at most once in a hundred
 * huge pages (they found its blocks, once the per-cpu lists were drained),
 * and did harm when they stalled more. */
static unsigned judged_by_faults(uint64_t fault_stalls, struct decision *last)
{
        struct sim s;
        sim_init(&s, 10);
        struct decision d;
        struct synth_zone z;
        struct vmstat vm = { 0 };
        struct meminfo mem = { .active_file = PLENTY };
        int compacted = -1;
        for (int t = 0; t <= 11; t++) {
                z = fragmenting(t);
                if (sim_step_mem(&s, t, &z, 1, &vm, &mem, &d) && d.nr_compact)
                        compacted = t;
        }
        assert_int_equal(compacted, 11);
        /* t = 12: nothing shows, nothing faulted: not judged yet */
        sim_step_mem(&s, 12, &z, 1, &vm, &mem, &d);
        assert_int_equal(d.nr_backoff, 0);
        assert_true(s.e.policy.nodes[0].pending);
        /* t = 13: 2000 huge pages faulted in (4096000 pages taken, blocks of
         * order 9 nearly gone), with fault_stalls compaction stalls */
        mem.anon_huge += 2000 * 512;
        vm.compact_stall += fault_stalls;
        z.high_pages = 1024;
        sim_step_mem(&s, 13, &z, 1, &vm, &mem, &d);
        assert_false(s.e.policy.nodes[0].pending);
        *last = d;
        unsigned shift = s.e.policy.nodes[0].defer_shift;
        sim_free(&s);
        return shift;
}

static void hidden_blocks_judged_by_faults(void **state)
{
        (void)state;
        struct decision d;
        assert_int_equal(judged_by_faults(0, &d), 0);
        assert_int_equal(d.nr_backoff, 0);
        assert_int_equal(judged_by_faults(20, &d), 0);  /* 1 in 100 */
        assert_int_equal(d.nr_backoff, 0);
        assert_int_equal(judged_by_faults(21, &d), 1);
        assert_int_equal(d.nr_backoff, 1);
        assert_int_equal(d.backoff[0].fault_stalls, 21);
        assert_float_equal(d.backoff[0].faulted_blocks, 2000, 1e-6);
        assert_false(d.backoff[0].too_slow);
}

/* A compaction that made a useful number of blocks resets the back-off;
 * one that made blocks but took longer than a second counts as harm. */
static void useful_compaction_no_backoff(void **state)
{
        (void)state;
        for (int slow = 0; slow <= 1; slow++) {
                struct sim s;
                sim_init(&s, 10);
                struct decision d;
                struct synth_zone z;
                for (int t = 0; t <= 11; t++) {
                        z = fragmenting(t);
                        sim_step(&s, t, &z, 1, NULL, PLENTY, &d);
                }
                assert_int_equal(d.nr_compact, 1);
                assert_false(d.compact[0].stalled);     /* a forecast asked for it */
                engine_compaction_took(&s.e, 0, slow ? 2.5 : 0.2);
                z.high_pages = 1000 * 512;      /* compaction made plenty of blocks */
                sim_step(&s, 12, &z, 1, NULL, PLENTY, &d);
                assert_int_equal(d.nr_backoff, slow);
                if (slow)       /* it made blocks: the back-off says why else */
                        assert_true(d.backoff[0].too_slow);
                assert_int_equal(s.e.policy.nodes[0].defer_shift, slow);
                sim_free(&s);
        }
}

/* Somebody else writes the sysctl: the daemon adopts it as its baseline,
 * does not write its own value back, and lowers only down to it. */
static void external_change_adopted(void **state)
{
        (void)state;
        struct sim s;
        sim_init(&s, 10);
        s.e.policy.current = s.e.policy.kernel_seen = s.kernel_wsf = 300;
        struct decision d;
        struct synth_zone z = zone_free(1000000);
        sim_step(&s, 0, &z, 1, NULL, PLENTY, &d);
        s.kernel_wsf = 50;                      /* the administrator */
        sim_step(&s, 1, &z, 1, NULL, PLENTY, &d);
        assert_int_equal(d.reason, WSF_ADOPT);
        assert_int_equal(d.wsf_old, 300);
        assert_int_equal(d.wsf_new, 50);
        assert_int_equal(s.e.policy.baseline, 50);
        for (int t = 2; t < 60; t++) {
                sim_step(&s, t, &z, 1, NULL, PLENTY, &d);
                assert_int_equal(d.reason, WSF_KEEP);
        }
        assert_int_equal(s.kernel_wsf, 50);
        sim_free(&s);
}

/* high = 16000 + 2 * max(4000, 600 * wsf) must stay within 1000000 pages
 * (no headroom): 600 * wsf <= 492000, wsf <= 820. */
static void guard_arithmetic(void **state)
{
        (void)state;
        struct zone_forecast zf = { .managed_pages = MANAGED, .wmark_min = WMIN };
        struct forecast f = { .nr_zones = 1, .zones = &zf, .managed_pages = MANAGED,
                              .reclaimable = 1000000 };
        assert_int_equal(wsf_guard(&f, 0, 3000), 820);
        assert_int_equal(wsf_guard(&f, 0, 500), 500);
        f.reclaimable = 10000;                  /* not even the minimum fits */
        assert_int_equal(wsf_guard(&f, 0, 3000), 0);
        assert_int_equal(wsf_for_gap(200000, MANAGED), 334);
        assert_int_equal(wsf_for_gap(0, MANAGED), 0);
}

/* Little reclaimable memory: the raise the episode calls for is held at
 * what the guard allows, and a value above it is lowered at once. */
static void guard_holds_and_lowers(void **state)
{
        (void)state;
        struct sim s;
        sim_init(&s, 10);
        struct decision d = { 0 };
        /* budget 1300000 - 0.05 * 6000000 = 1000000 -> guard 820 */
        for (int t = 0; t <= 8; t++) {
                struct synth_zone z = zone_free(5000000 - 600000 * (uint64_t)t);
                sim_step(&s, t, &z, 1, NULL, 1300000, &d);
        }
        assert_int_equal(s.kernel_wsf, 820);
        assert_int_equal(d.ceiling, 820);

        struct synth_zone z = zone_free(300000);
        /* budget 800000 - 300000: 600 * wsf <= (500000 - 16000) / 2 -> 403 */
        sim_step(&s, 20, &z, 1, NULL, 800000, &d);
        assert_int_equal(d.reason, WSF_LOWER_GUARD);
        assert_int_equal(d.wsf_new, 403);
        sim_free(&s);
}

/* What kswapd could reclaim bounds what a raise adds to the zones' high
 * watermarks above the baseline's (16000 + 2 * 600 * wsf here; 28000 at
 * 10): the page cache, and anonymous memory as far as swap has room. */
static void reclaim_cap_arithmetic(void **state)
{
        (void)state;
        struct zone_forecast zf = { .managed_pages = MANAGED, .wmark_min = WMIN };
        struct forecast f = { .nr_zones = 1, .zones = &zf, .managed_pages = MANAGED,
                              .kswapd_reclaimable = 1000000 };
        /* 16000 + 1200 * w <= 28000 + 1000000 -> 843 */
        assert_int_equal(wsf_reclaim_cap(&f, 0, 10, 3000), 843);
        assert_int_equal(wsf_reclaim_cap(&f, 0, 10, 500), 500);
        /* the headroom left aside: 28000 + 1000000 - 300000 -> 593 */
        assert_int_equal(wsf_reclaim_cap(&f, 0.05, 10, 3000), 593);
        f.kswapd_reclaimable = 10000;           /* less than the headroom: no raise */
        assert_int_equal(wsf_reclaim_cap(&f, 0.05, 10, 3000), 10);
        assert_int_equal(wsf_reclaim_cap(&f, 0, 10, 5), 10);    /* a limit below the baseline */
}

/* fast_fall with the given page cache and swap beside it. */
static int fast_fall_with(struct sim *s, uint64_t file, uint64_t swap_free, struct decision *d)
{
        for (int t = 0; t <= 10; t++) {
                struct meminfo mem = { .mem_free = fast_fall(t), .inactive_file = file,
                                       .anon_pages = 6000000 - fast_fall(t), .parts_known = true,
                                       .swap_free = swap_free, .swap_known = true };
                struct synth_zone z = zone_free(fast_fall(t));
                if (sim_step_mem(s, t, &z, 1, NULL, &mem, d) && d->reason != WSF_KEEP)
                        return t;
        }
        return -1;
}

/* The fall unknown_episode_sized_by_shortfall raises 500 for, with 40 MB of
 * page cache (the cache dropped, all memory anonymous) and no swap: kswapd
 * could reclaim next to nothing, so a raise would only have it evict that
 * and give up on the node. None is made, and the hold says why, once. */
static void no_raise_with_nothing_to_reclaim(void **state)
{
        (void)state;
        struct sim s;
        sim_init(&s, 10);
        struct decision d = { 0 };
        int holds = 0;
        for (int t = 0; t <= 10; t++) {
                /* what free memory loses, the workload holds */
                struct meminfo mem = { .mem_free = fast_fall(t), .inactive_file = 10000,
                                       .anon_pages = 6000000 - fast_fall(t), .parts_known = true,
                                       .swap_known = true };
                struct synth_zone z = zone_free(fast_fall(t));
                if (!sim_step_mem(&s, t, &z, 1, NULL, &mem, &d))
                        continue;
                assert_int_equal(d.reason, WSF_KEEP);
                if (d.hold_changed) {
                        holds++;
                        assert_int_equal(d.hold, HOLD_NOTHING_TO_RECLAIM);
                        assert_int_equal(t, 5);         /* when the episode calls for a raise */
                        assert_int_equal(d.reclaim_cap, 10);
                        assert_int_equal(d.kswapd_reclaimable, 10000);
                }
        }
        assert_int_equal(holds, 1);
        assert_int_equal(s.kernel_wsf, 10);
        sim_free(&s);

        /* with swap room for the anonymous memory, kswapd could page it out:
         * the raise is made as with a page cache */
        sim_init(&s, 10);
        assert_int_equal(fast_fall_with(&s, 10000, 6000000, &d), 5);
        assert_int_equal(d.reason, WSF_RAISE_FORECAST);
        assert_int_equal(d.wsf_new, 500);
        assert_false(d.reclaim_capped);
        sim_free(&s);
}

/* 600000 pages of page cache, less the headroom (300000): the raise adds at
 * most 300000 pages to the high watermarks, 16000 + 1200 * w <= 328000 ->
 * 260, not the 500 the shortfall calls for; the decision says so. */
static void raise_capped_by_what_kswapd_could_reclaim(void **state)
{
        (void)state;
        struct sim s;
        sim_init(&s, 10);
        struct decision d;
        assert_int_equal(fast_fall_with(&s, 600000, 0, &d), 5);
        assert_int_equal(d.reason, WSF_RAISE_FORECAST);
        assert_int_equal(d.wsf_new, 260);
        assert_int_equal(d.reclaim_cap, 260);
        assert_true(d.reclaim_capped);
        assert_int_equal(d.hold, HOLD_NONE);
        sim_free(&s);
}

/* Dry run: decisions are made once each, the kernel's value never changes
 * and is not mistaken for an administrator's. */
static void dry_run_decides_without_writing(void **state)
{
        (void)state;
        struct sim s;
        sim_init(&s, 10);
        s.p.policy.writes = false;
        struct decision d;
        int raises = 0;
        /* the watermarks stay the kernel's (wsf 10): free memory is within
         * two intervals of that low from t = 11 */
        for (int t = 0; t <= 11; t++) {
                struct synth_zone z = zone_free(fast_fall(t));
                if (sim_step(&s, t, &z, 1, NULL, PLENTY, &d)) {
                        assert_true(d.reason == WSF_KEEP || d.reason == WSF_RAISE_FORECAST);
                        raises += d.reason == WSF_RAISE_FORECAST;
                }
        }
        assert_int_equal(raises, 2);            /* 500, then 1000 (as if in force) */
        assert_int_equal(s.kernel_wsf, 10);
        assert_int_equal(s.e.policy.kernel_seen, 10);
        sim_free(&s);
}

/* The kernel's maximum is found by bisection and then respected. */
static void kernel_limit_probed(void **state)
{
        (void)state;
        struct policy_state st;
        policy_init(&st, 10, 10);
        assert_int_equal(policy_kernel_refused(&st, 10, 3000), 1505);
        assert_int_equal(policy_kernel_refused(&st, 10, 1505), 757);
        assert_int_equal(st.kernel_refused, 1505);
        assert_int_equal(st.current, 757);
        assert_int_equal(policy_kernel_refused(&st, 10, 11), 10);

        struct sim s;
        sim_init(&s, 10);
        s.p.policy.max_wsf = 3000;
        s.e.policy.kernel_refused = 1001;
        struct decision d = { 0 };
        for (int t = 0; t <= 10; t++) {
                struct synth_zone z = zone_free(fast_fall(t));
                sim_step(&s, t, &z, 1, NULL, PLENTY, &d);
        }
        assert_int_equal(s.kernel_wsf, 1000);
        sim_free(&s);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(unknown_episode_sized_by_shortfall),
                cmocka_unit_test(raise_that_holds_not_grown),
                cmocka_unit_test(raise_held_where_it_wakes_kswapd),
                cmocka_unit_test(small_raise_lifted_to_the_pace_floor),
                cmocka_unit_test(heap_growth_kswapd_keeps_pace_keeps_the_raise),
                cmocka_unit_test(raise_not_held_while_a_zone_has_free_memory),
                cmocka_unit_test(demand_kswapd_absorbs_no_raise),
                cmocka_unit_test(clean_fill_no_episode),
                cmocka_unit_test(fall_with_nothing_held_no_episode),
                cmocka_unit_test(huge_pages_raise_below_capacity),
                cmocka_unit_test(onset_caught_early_sized_by_what_it_took),
                cmocka_unit_test(huge_pages_counted_whole_once),
                cmocka_unit_test(huge_pages_above_capacity_not_regrown),
                cmocka_unit_test(onset_trigger_starts_an_episode),
                cmocka_unit_test(onset_armed_between_bursts),
                cmocka_unit_test(compaction_stalls_not_learnt),
                cmocka_unit_test(below_low_no_raise),
                cmocka_unit_test(capacity_measured_below_low),
                cmocka_unit_test(added_memory_still_raises),
                cmocka_unit_test(learned_size_shrinks_after_unused_margin),
                cmocka_unit_test(slower_kind_raised_to_a_faster_class),
                cmocka_unit_test(learned_size_grows_after_stall),
                cmocka_unit_test(few_stalls_teach_in_proportion),
                cmocka_unit_test(raised_class_kept_at_the_floor),
                cmocka_unit_test(late_spike_not_learnt_as_onset),
                cmocka_unit_test(stall_with_gap_left_not_learnt_larger),
                cmocka_unit_test(recurring_episode_anticipated),
                cmocka_unit_test(recurrence_that_came_not_called_overdue),
                cmocka_unit_test(calm_period_holds_what_a_recurrence_did_not_raise),
                cmocka_unit_test(burst_end_given_back_to_the_recurrence),
                cmocka_unit_test(compaction_stall_compacts),
                cmocka_unit_test(stall_raises_nothing_and_holds_the_value),
                cmocka_unit_test(stall_after_the_burst_not_raised),
                cmocka_unit_test(given_back_after_the_episode),
                cmocka_unit_test(churn_below_raised_low_given_back),
                cmocka_unit_test(kswapd_failing_no_raise),
                cmocka_unit_test(node_unreclaimable_no_raise),
                cmocka_unit_test(inherited_value_held),
                cmocka_unit_test(noisy_flat_no_action),
                cmocka_unit_test(shrinking_blocks_compact),
                cmocka_unit_test(fill_let_go_compacts_at_once),
                cmocka_unit_test(slow_fill_let_go_compacts),
                cmocka_unit_test(burst_let_go_no_compaction),
                cmocka_unit_test(no_compaction_during_an_episode),
                cmocka_unit_test(no_compaction_while_huge_pages_fault),
                cmocka_unit_test(useless_compaction_backs_off),
                cmocka_unit_test(useful_compaction_no_backoff),
                cmocka_unit_test(hidden_blocks_judged_by_faults),
                cmocka_unit_test(external_change_adopted),
                cmocka_unit_test(guard_arithmetic),
                cmocka_unit_test(guard_holds_and_lowers),
                cmocka_unit_test(reclaim_cap_arithmetic),
                cmocka_unit_test(no_raise_with_nothing_to_reclaim),
                cmocka_unit_test(raise_capped_by_what_kswapd_could_reclaim),
                cmocka_unit_test(dry_run_decides_without_writing),
                cmocka_unit_test(kernel_limit_probed),
                cmocka_unit_test(libm_stand_ins),
                cmocka_unit_test(learn_class_boundaries),
                cmocka_unit_test(neighbour_class_borrowed),
                cmocka_unit_test(kinds_learnt_apart),
                cmocka_unit_test(kswapd_capacity_halves_per_day),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
