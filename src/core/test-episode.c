/* The episode tracker on hand-made intervals: what starts an episode, what
 * keeps it open, and the two ways it ends (free memory back above high for
 * two calm samples, or no demand for EPISODE_QUIET_SECS). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "episode.h"

#define MANAGED 6000000
#define SHARE 0.002             /* the policy's onset share: 12000 pages/s here */
#define LOW 100000.0
#define HIGH 150000.0

static const struct episode_params params = { .horizon = 10, .onset_share_per_sec = SHARE, .interval = 1 };

/* An interval in which the workload took `held` pages/s of free memory and
 * kept them (anonymous), and `clean` more as page cache that grew clean. */
static struct pressure interval(double free, double held, double clean, uint64_t stalls)
{
        return (struct pressure){
                .managed_pages = MANAGED, .free_pages = free,
                .wmark_min = 50000, .wmark_low = LOW, .wmark_high = HIGH,
                .consumption_pages_per_sec = held + clean, .clean_fill_pages_per_sec = clean,
                .held_pages_per_sec = held, .demand_pages_per_sec = held, .compact_stalls = stalls,
        };
}

static int step(struct episode_tracker *t, struct pressure p, double time, struct episode_stats *ended)
{
        return episode_step(t, &params, &p, time, 1, 10, ended);
}

/* 360000 pages/s held with 100000 above low: low in 0.3 s, within the
 * horizon; the episode starts with the interval that showed it. */
static void fall_towards_low_starts(void **state)
{
        (void)state;
        struct episode_tracker t;
        struct episode_stats ended;
        episode_init(&t);
        assert_int_equal(step(&t, interval(200000, 360000, 0, 0), 10, &ended), 1);
        assert_true(t.active);
        assert_float_equal(t.cur.start, 9, 1e-9);
}

/* A sample a quarter of an interval after the last (the fast path's)
 * that saw 800000 pages/s: 200000 pages taken, which is the episode's peak
 * per interval, as a sample a second after the last would have seen it.
 * What was taken in all is the pages, whatever the sample's length; a
 * sample later than an interval keeps its rate. */
static void short_sample_counts_per_interval(void **state)
{
        (void)state;
        struct episode_tracker t;
        struct episode_stats ended;
        episode_init(&t);
        struct pressure p = interval(200000, 800000, 0, 0);
        assert_int_equal(episode_step(&t, &params, &p, 10.25, 0.25, 10, &ended), 1);
        assert_float_equal(t.cur.peak_demand_pages_per_sec, 200000, 1e-6);
        assert_float_equal(t.cur.demand_pages, 200000, 1e-6);
        p = interval(100000, 300000, 0, 0);
        assert_int_equal(episode_step(&t, &params, &p, 12.25, 2, 10, &ended), 0);
        assert_float_equal(t.cur.peak_demand_pages_per_sec, 300000, 1e-6);
        assert_float_equal(t.cur.demand_pages, 800000, 1e-6);
}

/* The same fall as clean page cache (a reader filling it): kswapd gives it
 * back at once, no episode. */
static void clean_fill_starts_nothing(void **state)
{
        (void)state;
        struct episode_tracker t;
        struct episode_stats ended;
        episode_init(&t);
        assert_int_equal(step(&t, interval(200000, 0, 360000, 0), 10, &ended), 0);
        assert_false(t.active);
}

/* A tracker whose episode started at 10 (the fall of
 * fall_towards_low_starts). */
static void started(struct episode_tracker *t)
{
        struct episode_stats ended;
        episode_init(t);
        assert_int_equal(step(t, interval(200000, 360000, 0, 0), 10, &ended), 1);
}

/* Free memory back above high with no demand: one calm sample is not the
 * end, two are. */
static void two_calm_samples_end_it(void **state)
{
        (void)state;
        struct episode_tracker t;
        struct episode_stats ended;
        started(&t);
        assert_int_equal(step(&t, interval(600000, 0, 0, 0), 11, &ended), 0);
        assert_true(t.active);
        assert_int_equal(step(&t, interval(600000, 0, 0, 0), 12, &ended), -1);
        assert_false(t.active);
        assert_float_equal(ended.start, 9, 1e-9);
        assert_float_equal(ended.end, 10, 1e-9);
}

/* A stall keeps it open even above high, and is counted in it. */
static void stalls_keep_it_open(void **state)
{
        (void)state;
        struct episode_tracker t;
        struct episode_stats ended;
        started(&t);
        assert_int_equal(step(&t, interval(600000, 0, 0, 19), 11, &ended), 0);
        assert_int_equal(step(&t, interval(600000, 0, 0, 0), 12, &ended), 0);
        assert_int_equal(step(&t, interval(600000, 0, 0, 0), 13, &ended), -1);
        assert_int_equal(ended.compact_stalls, 19);
        assert_float_equal(ended.end, 11, 1e-9);
}

/* Held memory growing while kswapd reclaims as much (free memory holds at
 * the raised watermark): still the episode. */
static void kswapd_keeping_pace_keeps_it_open(void **state)
{
        (void)state;
        struct episode_tracker t;
        struct episode_stats ended;
        started(&t);
        struct pressure pace = interval(600000, 300000, 0, 0);
        pace.consumption_pages_per_sec = 0;
        pace.kswapd_pages_per_sec = 300000;
        for (int i = 11; i <= 14; i++)
                assert_int_equal(step(&t, pace, i, &ended), 0);
        assert_true(t.active);
        assert_float_equal(t.cur.end, 14, 1e-9);
}

/* Below high with no demand (memory full of what kswapd cannot reclaim):
 * over once it has been quiet for EPISODE_QUIET_SECS (5 s). */
static void quiet_below_high_ends_it(void **state)
{
        (void)state;
        struct episode_tracker t;
        struct episode_stats ended;
        started(&t);
        for (int i = 11; i <= 14; i++)
                assert_int_equal(step(&t, interval(120000, 0, 0, 0), i, &ended), 0);
        assert_int_equal(step(&t, interval(120000, 0, 0, 0), 15, &ended), -1);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(fall_towards_low_starts),
                cmocka_unit_test(short_sample_counts_per_interval),
                cmocka_unit_test(clean_fill_starts_nothing),
                cmocka_unit_test(two_calm_samples_end_it),
                cmocka_unit_test(stalls_keep_it_open),
                cmocka_unit_test(kswapd_keeping_pace_keeps_it_open),
                cmocka_unit_test(quiet_below_high_ends_it),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
