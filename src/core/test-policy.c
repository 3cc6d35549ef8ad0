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
#define LOW_AT_10 22000         /* 16000 + max(4000, 6000) */
#define PLENTY 20000000         /* reclaimable pages: the guard never binds */

/* Free pages fall 20000 pages/s from 440000, kswapd idle. The crossing of
 * low (22000) comes within the 10 s horizon once free < 222000: at t = 11
 * (the window of 8 is full from t = 7 on).
 * The gap must cover 20000 pages/s for 10 s: 200000 pages, which is
 * ceil(200000 * 10000 / 6000000) = 334. */
static void steady_consumption_raises_before_crossing(void **state)
{
        (void)state;
        struct sim s;
        sim_init(&s, 10);
        struct decision d;
        int raised_at = -1;
        for (int t = 0; t <= 20 && raised_at < 0; t++) {
                struct synth_zone z = { .managed = MANAGED, .wmark_min = WMIN,
                                        .free_pages = 440000 - 20000 * (uint64_t)t };
                if (sim_step(&s, t, &z, 1, NULL, PLENTY, &d) && d.reason != WSF_KEEP) {
                        raised_at = t;
                        assert_int_equal(d.reason, WSF_RAISE_FORECAST);
                        assert_int_equal(d.wsf_old, 10);
                        assert_int_equal(d.wsf_new, 334);
                        assert_true(z.free_pages > LOW_AT_10);   /* before the crossing */
                        assert_true(d.secs_to_low < 10);
                        assert_float_equal(d.drain, 20000, 1e-6);
                }
        }
        assert_int_equal(raised_at, 11);
        sim_free(&s);
}

/* A freshly booted machine of the project's kind: the kernel adds pages
 * to the zone as a program touches memory, so managed grows 1 GiB/s while
 * free pages stay flat (the daemon saw no drain and never raised: the
 * root-raise-restore test failed on the first run after boot). The
 * consumption is seen and the raise comes once the window is full. */
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
        assert_int_equal(raised_at, 7);
        sim_free(&s);
}

/* kswapd reclaims 5000 pages/s and showed 10000 at t = 5 (still in the
 * window at t = 11, when the crossing enters the horizon): consumers take
 * 25000 pages/s, the shortfall is 15000 pages/s, the gap 150000 pages:
 * ceil(150000 * 10000 / 6000000) = 250. */
static void reclaim_capacity_reduces_the_gap(void **state)
{
        (void)state;
        struct sim s;
        sim_init(&s, 10);
        struct decision d = { 0 };
        uint64_t steal = 0;
        for (int t = 0; t <= 20; t++) {
                steal += t == 5 ? 10000 : 5000;
                struct vmstat vm = { .pgsteal_kswapd = steal };
                struct synth_zone z = { .managed = MANAGED, .wmark_min = WMIN,
                                        .free_pages = 440000 - 20000 * (uint64_t)t };
                if (sim_step(&s, t, &z, 1, &vm, PLENTY, &d) && d.reason != WSF_KEEP)
                        break;
        }
        assert_int_equal(d.reason, WSF_RAISE_FORECAST);
        assert_float_equal(d.secs_to_low, (220000.0 - LOW_AT_10) / 20000, 1e-9);
        assert_int_equal(d.wsf_new, 250);
        assert_float_equal(d.reclaim_peak, 10000, 1e-6);
        sim_free(&s);
}

/* When kswapd has shown (within the window) that it can reclaim faster
 * than consumers take, the crossing is kswapd's job: no raise. kswapd
 * reclaimed 100000 pages in the interval ending at t = 5; at t = 11 the
 * crossing is 9.9 s away and that interval is still in the window. */
static void kswapd_keeping_up_means_no_raise(void **state)
{
        (void)state;
        struct sim s;
        sim_init(&s, 10);
        struct decision d;
        uint64_t steal = 0;
        for (int t = 0; t <= 11; t++) {
                steal += t == 5 ? 100000 : 0;
                struct vmstat vm = { .pgsteal_kswapd = steal };
                struct synth_zone z = { .managed = MANAGED, .wmark_min = WMIN,
                                        .free_pages = 440000 - 20000 * (uint64_t)t };
                if (sim_step(&s, t, &z, 1, &vm, PLENTY, &d))
                        assert_int_equal(d.reason, WSF_KEEP);
        }
        assert_true(s.e.forecast.zones[0].secs_to_low < 10);
        assert_float_equal(s.e.forecast.kswapd_peak, 100000, 1e-6);
        sim_free(&s);
}

/* Free memory rising, no stalls, nothing raised for a calm period: the
 * excess over the baseline is halved at once, then every calm_period / 8
 * (3.75 s, so every 4th one-second sample) until it is gone. */
static void rising_free_decays(void **state)
{
        (void)state;
        struct sim s;
        sim_init(&s, 10);
        s.e.policy.current = s.e.policy.kernel_seen = s.kernel_wsf = 500;
        s.e.policy.last_change = s.e.policy.last_raise = -1000;     /* set long ago */
        struct decision d;
        static const long want[] = { 255, 132, 71, 40, 25, 17, 13, 10 };
        size_t n = 0;
        for (int t = 0; t <= 70; t++) {
                struct synth_zone z = { .managed = MANAGED, .wmark_min = WMIN,
                                        .free_pages = 1000000 + 1000 * (uint64_t)t };
                if (sim_step(&s, t, &z, 1, NULL, PLENTY, &d) && d.reason != WSF_KEEP) {
                        assert_int_equal(d.reason, WSF_LOWER_CALM);
                        assert_true(n < ARRAY_SIZE(want));
                        assert_int_equal(t, 1 + 4 * (int)n);
                        assert_int_equal(d.wsf_new, want[n]);
                        n++;
                }
        }
        assert_int_equal(n, ARRAY_SIZE(want));
        sim_free(&s);
}

/* A raise is held for a whole calm period before the first lowering, even
 * though lowering steps are shorter than that. */
static void raise_held_for_calm_period(void **state)
{
        (void)state;
        struct sim s;
        sim_init(&s, 10);
        struct decision d;
        int raised_at = -1, lowered_at = -1;
        for (int t = 0; t <= 60 && lowered_at < 0; t++) {
                /* falls 20000 pages/s until t = 12, then recovers */
                uint64_t free = t <= 12 ? 440000 - 20000 * (uint64_t)t : 200000 + 30000 * (uint64_t)(t - 12);
                struct synth_zone z = { .managed = MANAGED, .wmark_min = WMIN, .free_pages = free };
                if (sim_step(&s, t, &z, 1, NULL, PLENTY, &d) && d.reason != WSF_KEEP) {
                        if (d.reason == WSF_RAISE_FORECAST && raised_at < 0)
                                raised_at = t;
                        else if (d.reason == WSF_LOWER_CALM)
                                lowered_at = t;
                }
        }
        assert_int_equal(raised_at, 11);
        assert_true(lowered_at >= raised_at + 30);
        sim_free(&s);
}

/* A value one above the baseline snaps to it rather than lingering. */
static void decay_reaches_baseline(void **state)
{
        (void)state;
        struct sim s;
        sim_init(&s, 10);
        s.p.policy.calm_period = 1;
        s.e.policy.current = s.e.policy.kernel_seen = s.kernel_wsf = 14;
        s.e.policy.last_change = s.e.policy.last_raise = -1000;
        struct decision d;
        for (int t = 0; t <= 10; t++) {
                struct synth_zone z = { .managed = MANAGED, .wmark_min = WMIN, .free_pages = 1000000 };
                sim_step(&s, t, &z, 1, NULL, PLENTY, &d);
        }
        assert_int_equal(s.e.policy.current, 10);
        assert_int_equal(s.kernel_wsf, 10);
        sim_free(&s);
}

static uint64_t lcg(uint64_t *x)
{
        *x = *x * 6364136223846793005ull + 1442695040888963407ull;
        return *x >> 33;
}

/* A noisy but flat series (free pages uniform in 60000..100000, just above
 * low; order-9 blocks uniform in 20..39): over 100 two-minute runs with
 * different noise, the scale factor is never touched, and a compaction
 * happens in at most 2 runs (measured: 2 of 200 such runs compact once). */
static void noisy_flat_no_action(void **state)
{
        (void)state;
        int compacting_runs = 0;
        for (uint64_t run = 1; run <= 100; run++) {
                uint64_t seed = run;    /* lcg() advances it: not the loop's variable */
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
                                fail_msg("run %llu t=%d: %s to %ld, secs_to_low %.1f r2 %.2f slope %.0f",
                                         (unsigned long long)run, t, wsf_reason_str(d.reason), d.wsf_new,
                                         s.e.forecast.zones[0].secs_to_low, s.e.forecast.zones[0].free_fit.r2,
                                         s.e.forecast.zones[0].free_fit.slope);
                        compacted |= d.nr_compact > 0;
                }
                compacting_runs += compacted;
                sim_free(&s);
        }
        print_message("noisy_flat_no_action: %d of 100 runs compacted\n", compacting_runs);
        assert_true(compacting_runs <= 2);
}

static struct synth_zone fragmenting(double t)
{
        /* order-9 blocks shrink 20480 pages/s from 409600; total stays 2M.
         * They run out within the 10 s lead once below 205312: at t = 10. */
        return (struct synth_zone){ .managed = MANAGED, .wmark_min = WMIN, .free_pages = 2000000,
                                    .high_pages = 409600 - 20480 * (uint64_t)t, .order = 9 };
}

static void shrinking_blocks_compact(void **state)
{
        (void)state;
        struct sim s;
        sim_init(&s, 10);
        struct decision d;
        for (int t = 0; t <= 10; t++) {
                struct synth_zone z = fragmenting(t);
                if (!sim_step(&s, t, &z, 1, NULL, PLENTY, &d))
                        continue;
                assert_int_equal(d.reason, WSF_KEEP);   /* fragmentation is no reason to raise */
                assert_int_equal(d.nr_compact, t == 10);
        }
        assert_int_equal(d.compact[0].node, 0);
        assert_int_equal(d.compact[0].order, 9);
        assert_float_equal(d.compact[0].secs_to_exhaust, (204800.0 - 512) / 20480, 1e-9);
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

/* Compaction that makes no new blocks is deferred 2, 4, 8 ... intervals. */
static void useless_compaction_backs_off(void **state)
{
        (void)state;
        struct sim s;
        sim_init(&s, 10);
        struct decision d;
        int compacted[8], nc = 0, backoffs = 0;
        unsigned last_shift = 0;
        for (int t = 0; t <= 17; t++) {
                struct synth_zone z = fragmenting(t);   /* compaction never helps */
                if (!sim_step(&s, t, &z, 1, NULL, PLENTY, &d))
                        continue;
                if (d.nr_compact)
                        compacted[nc++] = t;
                for (size_t i = 0; i < d.nr_backoff; i++) {
                        backoffs++;
                        assert_int_equal(d.backoff[i].defer_shift, last_shift + 1);
                        last_shift = d.backoff[i].defer_shift;
                        assert_float_equal(d.backoff[i].retry_in, (double)(1u << last_shift), 0);
                        assert_true(d.backoff[i].after < d.backoff[i].before + 512);
                }
        }
        /* t=10 compact; t=11 judged useless, retry at 13; t=13 compact;
         * t=14 useless, retry at 18 */
        assert_int_equal(nc, 2);
        assert_int_equal(compacted[0], 10);
        assert_int_equal(compacted[1], 13);
        assert_int_equal(backoffs, 2);
        sim_free(&s);
}

/* A compaction that made blocks resets the back-off. */
static void useful_compaction_no_backoff(void **state)
{
        (void)state;
        struct sim s;
        sim_init(&s, 10);
        struct decision d;
        struct synth_zone z;
        for (int t = 0; t <= 10; t++) {
                z = fragmenting(t);
                sim_step(&s, t, &z, 1, NULL, PLENTY, &d);
        }
        assert_int_equal(d.nr_compact, 1);
        z.high_pages = 1000 * 512;      /* compaction made plenty of blocks */
        sim_step(&s, 11, &z, 1, NULL, PLENTY, &d);
        assert_int_equal(d.nr_backoff, 0);
        assert_int_equal(s.e.policy.nodes[0].defer_shift, 0);
        sim_free(&s);
}

/* Somebody else writes the sysctl: the daemon adopts it as its baseline,
 * does not write its own value back, and decays only down to it. */
static void external_change_adopted(void **state)
{
        (void)state;
        struct sim s;
        sim_init(&s, 10);
        s.p.policy.calm_period = 1;
        s.e.policy.current = s.e.policy.kernel_seen = s.kernel_wsf = 300;
        struct decision d;
        struct synth_zone z = { .managed = MANAGED, .wmark_min = WMIN, .free_pages = 1000000 };
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

/* Little reclaimable memory: the raise the forecast calls for is held at
 * what the guard allows, and a value above it is lowered at once. */
static void guard_holds_and_lowers(void **state)
{
        (void)state;
        struct sim s;
        sim_init(&s, 10);
        struct decision d = { 0 };
        /* budget 1300000 - 0.05 * 6000000 = 1000000 -> guard 820 */
        for (int t = 0; t <= 12; t++) {
                struct synth_zone z = { .managed = MANAGED, .wmark_min = WMIN,
                                        .free_pages = 3000000 - 200000 * (uint64_t)t };
                if (sim_step(&s, t, &z, 1, NULL, 1300000, &d) && d.reason != WSF_KEEP)
                        break;
        }
        assert_int_equal(d.reason, WSF_RAISE_FORECAST);
        assert_int_equal(d.wsf_new, 820);
        assert_int_equal(d.ceiling, 820);

        struct synth_zone z = { .managed = MANAGED, .wmark_min = WMIN, .free_pages = 300000 };
        /* budget 800000 - 300000: 600 * wsf <= (500000 - 16000) / 2 -> 403 */
        sim_step(&s, 20, &z, 1, NULL, 800000, &d);
        assert_int_equal(d.reason, WSF_LOWER_GUARD);
        assert_int_equal(d.wsf_new, 403);
        sim_free(&s);
}

/* A value inherited above the baseline is held a calm period from the first
 * decision before it decays. */
static void inherited_value_held(void **state)
{
        (void)state;
        struct sim s;
        sim_init(&s, 10);
        s.e.policy.current = s.e.policy.kernel_seen = s.kernel_wsf = 200;
        struct decision d;
        int lowered_at = -1;
        for (int t = 0; t <= 40 && lowered_at < 0; t++) {
                struct synth_zone z = { .managed = MANAGED, .wmark_min = WMIN, .free_pages = 1000000 };
                if (sim_step(&s, t, &z, 1, NULL, PLENTY, &d) && d.reason != WSF_KEEP)
                        lowered_at = t;
        }
        assert_int_equal(d.reason, WSF_LOWER_CALM);
        assert_int_equal(lowered_at, 31);       /* first decision at t = 1, + 30 s */
        sim_free(&s);
}

/* Stalls in the last interval raise by half at least, even without a
 * forecast crossing; direct reclaim raises enough to cover it for the
 * horizon, however young the drain. */
static void stalls_push_up(void **state)
{
        (void)state;
        struct sim s;
        sim_init(&s, 10);
        s.e.policy.current = s.e.policy.kernel_seen = s.kernel_wsf = 100;
        struct decision d;
        struct synth_zone z = { .managed = MANAGED, .wmark_min = WMIN, .free_pages = 1000000 };
        struct vmstat vm = { 0 };
        sim_step(&s, 0, &z, 1, &vm, PLENTY, &d);
        vm.allocstall = 5;
        sim_step(&s, 1, &z, 1, &vm, PLENTY, &d);
        assert_int_equal(d.reason, WSF_RAISE_STALL);
        assert_int_equal(d.wsf_new, 150);
        assert_int_equal(d.stalls, 5);
        /* 30000 pages/s of direct reclaim for 10 s: ceil(300000 * 1e4 / 6e6) = 500 */
        vm.pgsteal_direct = 30000;
        sim_step(&s, 2, &z, 1, &vm, PLENTY, &d);
        assert_int_equal(d.reason, WSF_RAISE_STALL);
        assert_int_equal(d.wsf_new, 500);
        assert_float_equal(d.cover, 10, 1e-9);
        /* no lowering within the calm period after the stall */
        for (int t = 3; t < 32; t++) {
                sim_step(&s, t, &z, 1, &vm, PLENTY, &d);
                assert_int_equal(d.reason, WSF_KEEP);
        }
        sim_free(&s);
}

/* Dry run: decisions are made once, the kernel's value never changes and
 * is not mistaken for an administrator's. */
static void dry_run_decides_without_writing(void **state)
{
        (void)state;
        struct sim s;
        sim_init(&s, 10);
        s.p.policy.writes = false;
        struct decision d;
        int raises = 0;
        for (int t = 0; t <= 12; t++) {
                struct synth_zone z = { .managed = MANAGED, .wmark_min = WMIN,
                                        .free_pages = 300000 - 20000 * (uint64_t)t };
                if (sim_step(&s, t, &z, 1, NULL, PLENTY, &d)) {
                        assert_true(d.reason == WSF_KEEP || d.reason == WSF_RAISE_FORECAST);
                        raises += d.reason == WSF_RAISE_FORECAST;
                }
        }
        assert_int_equal(raises, 1);
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
        for (int t = 0; t <= 12; t++) {
                struct synth_zone z = { .managed = MANAGED, .wmark_min = WMIN,
                                        .free_pages = 3000000 - 200000 * (uint64_t)t };
                if (sim_step(&s, t, &z, 1, NULL, PLENTY, &d) && d.reason != WSF_KEEP)
                        break;
        }
        assert_int_equal(d.wsf_new, 1000);
        sim_free(&s);
}

/* kswapd reclaimed 100000 pages/s in one interval at t = 1, long out of
 * the window when a drain of 30000 pages/s heads for low at t = 20..31:
 * its remembered capacity (decayed by 2^(-age/600)) covers the drain, so
 * the crossing is left to kswapd. A daemon that never saw kswapd work
 * raises for the same drain. */
static int first_raise(bool saw_kswapd)
{
        struct sim s;
        sim_init(&s, 10);
        struct decision d;
        uint64_t steal = 0;
        int raised_at = -1;
        for (int t = 0; t <= 31 && raised_at < 0; t++) {
                steal += saw_kswapd && t == 1 ? 100000 : 0;
                struct vmstat vm = { .pgsteal_kswapd = steal };
                uint64_t free = t < 20 ? 500000 : 500000 - 30000 * (uint64_t)(t - 20);
                struct synth_zone z = { .managed = MANAGED, .wmark_min = WMIN, .free_pages = free };
                if (sim_step(&s, t, &z, 1, &vm, PLENTY, &d) && d.reason != WSF_KEEP)
                        raised_at = t;
        }
        if (saw_kswapd)
                assert_float_equal(s.e.policy.kswapd_capacity, 100000, 1e-6);
        sim_free(&s);
        return raised_at;
}

static void capacity_remembered_beyond_window(void **state)
{
        (void)state;
        assert_int_equal(first_raise(true), -1);
        assert_true(first_raise(false) > 20);
}

/* Free pages flat at 1000000, then a burst takes 150000 pages/s from t = 10 with
 * kswapd idle: the first raise covers the shortfall for as long as the
 * burst has lasted (at least an interval), not for the whole horizon. */
static void burst_sized_by_drain_age(void **state)
{
        (void)state;
        struct sim s;
        sim_init(&s, 10);
        struct decision d = { 0 };
        int t;
        for (t = 0; t <= 20; t++) {
                uint64_t free = t <= 9 ? 1000000 : 1000000 - 150000 * (uint64_t)(t - 9);
                struct synth_zone z = { .managed = MANAGED, .wmark_min = WMIN, .free_pages = free };
                if (sim_step(&s, t, &z, 1, NULL, PLENTY, &d) && d.reason != WSF_KEEP)
                        break;
        }
        assert_int_equal(d.reason, WSF_RAISE_FORECAST);
        assert_float_equal(d.cover, t - 9, 1e-9);
        assert_true(d.cover < s.p.policy.horizon);
        assert_int_equal(d.wsf_new, wsf_for_gap(d.drain * d.cover, MANAGED));
        assert_true(d.wsf_new < wsf_for_gap(d.drain * s.p.policy.horizon, MANAGED));
        sim_free(&s);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(steady_consumption_raises_before_crossing),
                cmocka_unit_test(reclaim_capacity_reduces_the_gap),
                cmocka_unit_test(kswapd_keeping_up_means_no_raise),
                cmocka_unit_test(rising_free_decays),
                cmocka_unit_test(raise_held_for_calm_period),
                cmocka_unit_test(capacity_remembered_beyond_window),
                cmocka_unit_test(burst_sized_by_drain_age),
                cmocka_unit_test(decay_reaches_baseline),
                cmocka_unit_test(added_memory_still_raises),
                cmocka_unit_test(noisy_flat_no_action),
                cmocka_unit_test(shrinking_blocks_compact),
                cmocka_unit_test(useless_compaction_backs_off),
                cmocka_unit_test(useful_compaction_no_backoff),
                cmocka_unit_test(external_change_adopted),
                cmocka_unit_test(guard_arithmetic),
                cmocka_unit_test(guard_holds_and_lowers),
                cmocka_unit_test(inherited_value_held),
                cmocka_unit_test(stalls_push_up),
                cmocka_unit_test(dry_run_decides_without_writing),
                cmocka_unit_test(kernel_limit_probed),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
