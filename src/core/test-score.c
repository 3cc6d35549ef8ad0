/* The forecast scores: crossings found where they happen, warnings matched
 * to them, and the figures as memoptimizer(8) defines them. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "score.h"

/* Free pages fall 10 pages/s from 200 to 0 against a level of 50 (crossed
 * at t = 15); the forecast says exactly when, from t = 2 on. With a 10 s
 * horizon the first warning is at t = 5: lead 10 s, error 0. */
static void exact_forecast_seen_ten_seconds_ahead(void **state)
{
        (void)state;
        struct score s;
        score_init(&s, 10, 10);
        for (int t = 0; t <= 20; t++) {
                double v = 200 - 10.0 * t;
                double secs = v > 50 ? (v - 50) / 10 : 0;
                assert_int_equal(score_point(&s, SCORE_LOW, 0, "Normal", t, v, 50, secs, t >= 2), 0);
        }
        struct score_summary m;
        score_summarize(&s, &m);
        assert_int_equal(m.events[SCORE_LOW], 1);
        assert_int_equal(m.seen, 1);
        assert_int_equal(m.missed, 0);
        assert_float_equal(s.events[0].t, 15, 1e-9);
        assert_float_equal(m.lead_median, 10, 1e-9);
        assert_float_equal(m.error_median, 0, 1e-9);
        assert_float_equal(m.within20, 1, 1e-9);
        score_free(&s);
}

/* The crossing time is interpolated between the samples either side, and
 * a warning that stopped before the crossing does not count. */
static void interrupted_warning_is_a_miss(void **state)
{
        (void)state;
        struct score s;
        score_init(&s, 10, 10);
        score_point(&s, SCORE_MIN, 0, "Normal", 0, 100, 50, 3, true);         /* warns */
        score_point(&s, SCORE_MIN, 0, "Normal", 1, 55, 50, INFINITY, true);   /* stops */
        score_point(&s, SCORE_MIN, 0, "Normal", 2, 45, 50, 0, true);          /* crosses at 1.5 */
        struct score_summary m;
        score_summarize(&s, &m);
        assert_int_equal(m.events[SCORE_MIN], 1);
        assert_int_equal(m.missed, 1);
        assert_float_equal(s.events[0].t, 1.5, 1e-9);
        assert_true(isnan(m.error_median));
        score_free(&s);
}

/* Crossings before any forecast of their series are not counted; staying
 * below is one crossing, recovering and falling again a second. */
static void unscored_and_repeated_crossings(void **state)
{
        (void)state;
        struct score s;
        score_init(&s, 10, 5);
        static const double v[] = { 10, 0, 10, 10, 0, 0, 10, 0 };
        for (int t = 0; t < 8; t++)
                score_point(&s, SCORE_ORDER, 1, "", t, v[t], 1, INFINITY, t >= 2);
        struct score_summary m;
        score_summarize(&s, &m);
        assert_int_equal(m.unscored, 1);                /* t = 1 */
        assert_int_equal(m.events[SCORE_ORDER], 2);     /* t = 4 and 7 */
        assert_int_equal(m.missed, 2);
        score_free(&s);
}

/* Ten zones cross 50 at t = 9 (from 90 at t = 1 to 40 at t = 11), each
 * warned at t = 1 with a predicted crossing at 10 + i: lead 8 s, errors
 * 1..10 s. Median 5.5, 90th percentile by nearest rank 9, within 20 % of
 * the lead (1.6 s): only the first. */
static void percentiles(void **state)
{
        (void)state;
        struct score s;
        score_init(&s, 30, 30);
        for (int i = 0; i < 10; i++) {
                char zone[8];
                snprintf(zone, sizeof(zone), "z%d", i);
                score_point(&s, SCORE_LOW, 0, zone, 0, 100, 50, INFINITY, false);
                score_point(&s, SCORE_LOW, 0, zone, 1, 90, 50, 8 + (i + 1), true);
                score_point(&s, SCORE_LOW, 0, zone, 11, 40, 50, 0, true);
        }
        struct score_summary m;
        score_summarize(&s, &m);
        assert_int_equal(m.seen, 10);
        assert_float_equal(s.events[0].t, 9, 1e-9);
        assert_float_equal(m.lead_median, 8, 1e-9);
        assert_float_equal(m.error_median, 5.5, 1e-9);
        assert_float_equal(m.error_p90, 9, 1e-9);
        assert_int_equal(m.within20_n, 1);
        score_free(&s);
}

static void false_alarms(void **state)
{
        (void)state;
        struct score s;
        score_init(&s, 10, 10);
        score_raise(&s, 0, WSF_RAISE_FORECAST, 0, "Normal", 50, 100);  /* never crossed: false alarm */
        score_raise(&s, 1, WSF_RAISE_LEARNED, 0, "DMA32", 50, 100);    /* crossed at 5: right, 4 s ahead */
        score_raise(&s, 2, WSF_RAISE_STALL, 0, "DMA32", 50, 40);       /* already below: right, 0 s */
        score_raise(&s, 15, WSF_RAISE_FORECAST, 0, "Normal", 50, 100); /* trace ends at 20: not judged */
        for (int t = 0; t <= 20; t++) {
                score_point(&s, SCORE_LOW, 0, "Normal", t, 100, 50, INFINITY, true);
                score_point(&s, SCORE_LOW, 0, "DMA32", t, t == 5 ? 40 : 100, 50, INFINITY, true);
        }
        struct score_summary m;
        score_summarize(&s, &m);
        assert_int_equal(m.raises, 4);
        assert_int_equal(m.false_alarms, 1);
        assert_int_equal(m.unjudged, 1);
        /* the same, per reason */
        assert_int_equal(m.reasons[WSF_RAISE_FORECAST].raises, 2);
        assert_int_equal(m.reasons[WSF_RAISE_FORECAST].false_alarms, 1);
        assert_int_equal(m.reasons[WSF_RAISE_FORECAST].unjudged, 1);
        assert_true(isnan(m.reasons[WSF_RAISE_FORECAST].lead_median));
        assert_int_equal(m.reasons[WSF_RAISE_LEARNED].raises, 1);
        assert_int_equal(m.reasons[WSF_RAISE_LEARNED].false_alarms, 0);
        assert_float_equal(m.reasons[WSF_RAISE_LEARNED].lead_median, 4, 1e-9);
        assert_int_equal(m.reasons[WSF_RAISE_STALL].raises, 1);
        assert_float_equal(m.reasons[WSF_RAISE_STALL].lead_median, 0, 1e-9);
        score_free(&s);

        /* stalls within the horizon prove a raise right, however the
         * samples of free pages fell */
        score_init(&s, 10, 10);
        score_raise(&s, 0, WSF_RAISE_FORECAST, 0, "Normal", 50, 100);
        score_raise(&s, 1, WSF_RAISE_FORECAST, 0, "Normal", 50, 100);
        for (int t = 0; t <= 20; t++) {
                score_point(&s, SCORE_LOW, 0, "Normal", t, 100, 50, INFINITY, true);
                score_stalls(&s, t, t == 11 ? 3 : 0);   /* within raise 2's horizon only */
        }
        score_summarize(&s, &m);
        assert_int_equal(m.false_alarms, 1);
        assert_float_equal(m.reasons[WSF_RAISE_FORECAST].lead_median, 10, 1e-9);
        score_free(&s);
}

/* On a daemon's trace the raise itself may keep free memory above low: a
 * raise after which the workload took more than the zone had above low is
 * held, not a false alarm; one after which it took less still is. */
static void held_by_what_was_taken(void **state)
{
        (void)state;
        struct score s;
        score_init(&s, 10, 10);
        score_raise(&s, 0, WSF_RAISE_FORECAST, 0, "Normal", 50, 100);  /* margin 50 */
        score_raise(&s, 12, WSF_RAISE_FORECAST, 0, "Normal", 50, 100);
        for (int t = 0; t <= 30; t++) {
                score_point(&s, SCORE_LOW, 0, "Normal", t, 100, 50, INFINITY, true);
                /* 30 pages at 1 and at 2: 60 > 50 taken within the first
                 * raise's horizon; 40 in all within the second's */
                score_taken(&s, t, t == 1 || t == 2 ? 30 : t == 13 || t == 14 ? 20 : 0);
        }
        struct score_summary m;
        score_summarize(&s, &m);
        assert_int_equal(m.raises, 2);
        assert_int_equal(m.held, 1);
        assert_int_equal(m.false_alarms, 1);
        assert_int_equal(s.raises[0].verdict, SCORE_HELD);
        assert_int_equal(s.raises[1].verdict, SCORE_FALSE_ALARM);
        assert_int_equal(m.reasons[WSF_RAISE_FORECAST].held, 1);
        assert_int_equal(m.reasons[WSF_RAISE_FORECAST].false_alarms, 1);
        /* a held raise is not a crossing: no lead */
        assert_true(isnan(m.reasons[WSF_RAISE_FORECAST].lead_median));
        score_free(&s);

        /* what was taken at the raise's own sample, or after its horizon,
         * does not count; a crossing after it was held makes it crossed */
        score_init(&s, 10, 10);
        score_raise(&s, 5, WSF_RAISE_LEARNED, 0, "Normal", 50, 100);
        score_raise(&s, 20, WSF_RAISE_LEARNED, 0, "Normal", 50, 100);
        for (int t = 0; t <= 40; t++) {
                score_taken(&s, t, t == 5 || t == 16 || t == 21 ? 60 : 0);
                score_point(&s, SCORE_LOW, 0, "Normal", t, t == 24 ? 40 : 100, 50, INFINITY, true);
        }
        score_summarize(&s, &m);
        assert_int_equal(s.raises[0].verdict, SCORE_FALSE_ALARM);
        assert_int_equal(s.raises[1].verdict, SCORE_CROSSED);
        assert_float_equal(m.reasons[WSF_RAISE_LEARNED].lead_median, 4, 1e-9);
        score_free(&s);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(exact_forecast_seen_ten_seconds_ahead),
                cmocka_unit_test(interrupted_warning_is_a_miss),
                cmocka_unit_test(unscored_and_repeated_crossings),
                cmocka_unit_test(percentiles),
                cmocka_unit_test(false_alarms),
                cmocka_unit_test(held_by_what_was_taken),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
