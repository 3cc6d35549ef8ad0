/* The forecast scores: crossings found where they happen, warnings matched
 * to them, and the figures as memoptimizer(8) defines them. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "score.h"
#include "synth.h"

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

/* Node 0 of the trace the THP train below comes from (mixed, 0.4.14,
 * 6.18.44-fc-v1300): its zones' managed pages and min, the scale factor
 * `wsf` in force, and their free pages; in `zones`. */
static struct sample node_at(struct zone zones[3], long wsf, uint64_t dma_free, uint64_t dma32_free,
                             uint64_t normal_free)
{
        synth_named(&zones[0], "DMA", 3840, 10, wsf, dma_free);
        synth_named(&zones[1], "DMA32", 772845, 2116, wsf, dma32_free);
        synth_named(&zones[2], "Normal", 5394258, 14769, wsf, normal_free);
        return (struct sample){ .time = 0, .wsf = wsf, .nr_orders = 11, .nr_zones = 3, .zones = zones };
}

/* What the allocator may take before it wakes kswapd, at the baseline's
 * lows whatever is in force, less the lower zones' reserves. */
static void node_room(void **state)
{
        (void)state;
        /* Normal's low at 10: 14769 + 5394 = 20163; DMA32's 2116 + 772 =
         * 2888 plus a reserve of 5394258 / 256 = 21071; DMA's reserve
         * (6167103 / 256) is more than it has */
        struct zone z[3], zb[3], zn[3];
        struct sample s = node_at(z, 100, 3800, 385000, 117000);
        double want = (117000 - 20163) + (385000 - 2888 - 21071);
        assert_float_equal(score_node_room(&s, 0, 10, 256), want, 1e-9);
        /* the lows in force (100) do not count: the baseline's do */
        struct sample b = node_at(zb, 10, 3800, 385000, 117000);
        assert_float_equal(score_node_room(&b, 0, 10, 256), want, 1e-9);
        /* at 100 Normal's low is 53942 - 5394 higher, DMA32's 7728 - 772 */
        assert_float_equal(score_node_room(&s, 0, 100, 256), want - 48548 - 6956, 1e-9);
        /* no reserve: DMA32 counts from its low (and DMA too) */
        assert_float_equal(score_node_room(&s, 0, 10, 0), want + 21071 + (3800 - 13), 1e-9);
        /* a zone below its floor adds nothing, and takes nothing away */
        struct sample n = node_at(zn, 10, 0, 20000, 117000);
        assert_float_equal(score_node_room(&n, 0, 10, 256), 117000 - 20163, 1e-9);
        /* another node has none of these */
        assert_float_equal(score_node_room(&s, 1, 10, 256), 0, 1e-9);
        /* the largest a trace may carry: 2^50 managed pages at a scale
         * factor of a million put low far above any free memory (in 64-bit
         * integers the product wraps, and low comes out below it) */
        struct zone big;
        synth_named(&big, "Normal", UINT64_C(1) << 50, 1024, 10, UINT64_C(1) << 49);
        struct sample h = { .nr_orders = 11, .nr_zones = 1, .zones = &big };
        assert_float_equal(score_node_room(&h, 0, 1000000, 256), 0, 1e-9);
        assert_float_equal(score_node_room(&h, 0, 10, 256),
                           (double)(UINT64_C(1) << 49) - 1024 - (double)((UINT64_C(1) << 50) / 1000), 1.0);
}

static void false_alarms(void **state)
{
        (void)state;
        struct score s;
        score_init(&s, 10, 10);
        score_raise(&s, 0, WSF_RAISE_FORECAST, 0, 5000);        /* never ran out: false alarm */
        score_raise(&s, 1, WSF_RAISE_LEARNED, 1, 5000);         /* none left at 5: right, 4 s ahead */
        score_raise(&s, 2, WSF_RAISE_STALL, 1, 500);            /* none already: right, 0 s */
        score_raise(&s, 15, WSF_RAISE_FORECAST, 0, 5000);       /* trace ends at 20: not judged */
        for (int t = 0; t <= 20; t++) {
                score_room(&s, t, 0, t == 5 ? 2000 : 5000);    /* less, but some */
                score_room(&s, t, 1, t == 5 ? 1000 : 5000);    /* less than a huge page in each of two zones */
        }
        struct score_summary m;
        score_summarize(&s, &m);
        assert_int_equal(m.raises, 4);
        assert_int_equal(m.false_alarms, 1);
        assert_int_equal(m.unjudged, 1);
        assert_float_equal(s.raises[0].least, 2000, 1e-9);
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

        /* stalls within the horizon prove a raise right, however much
         * room there was */
        score_init(&s, 10, 10);
        score_raise(&s, 0, WSF_RAISE_FORECAST, 0, 5000);
        score_raise(&s, 1, WSF_RAISE_FORECAST, 0, 5000);
        for (int t = 0; t <= 20; t++) {
                score_room(&s, t, 0, 5000);
                score_stalls(&s, t, t == 11 ? 3 : 0);   /* within raise 2's horizon only */
        }
        score_summarize(&s, &m);
        assert_int_equal(m.false_alarms, 1);
        assert_float_equal(m.reasons[WSF_RAISE_FORECAST].lead_median, 10, 1e-9);
        score_free(&s);
}

/* A raise is judged for as long as a raised value stays in force, where
 * that is longer than the horizon: outside's JVM starts are episodes of
 * 11-14 s, and one stalled 10.0 s after the raise at its onset, the raise
 * still in force. Given back before, a stall after the horizon is not its. */
static void judged_while_in_force(void **state)
{
        (void)state;
        struct score s;
        score_init(&s, 10, 10);
        score_raise(&s, 0, SCORE_ONSET, 0, 5000);       /* in force until 14 */
        score_raise(&s, 20, SCORE_ONSET, 0, 5000);      /* given back at 24 */
        for (int t = 1; t <= 40; t++) {
                if (t <= 14 || (t > 20 && t <= 24))
                        score_in_force(&s, t);
                score_stalls(&s, t, t == 12 || t == 32 ? 5 : 0);
                score_room(&s, t, 0, 5000);
        }
        assert_int_equal(s.raises[0].verdict, SCORE_CROSSED);
        assert_float_equal(s.raises[0].crossed, 12, 1e-9);
        assert_int_equal(s.raises[1].verdict, SCORE_FALSE_ALARM);
        score_free(&s);
}

/* The mixed bench's THP train at the defaults: each burst takes Normal to
 * its low and goes on in DMA32, which keeps 800 MB; no stall. A raise for
 * it was judged right because Normal crossed its low; the allocator never
 * woke kswapd, so it is a false alarm. A burst that empties DMA32 too (the
 * irregular one) is not. */
static void a_zone_at_its_low_is_no_pressure(void **state)
{
        (void)state;
        struct score s;
        score_init(&s, 10, 10);
        struct zone zb[3], zt[3], zi[3];
        struct sample before = node_at(zb, 10, 3800, 386000, 115000);
        score_raise(&s, 0, SCORE_ONSET, 0, score_node_room(&before, 0, 10, 256));
        struct sample train = node_at(zt, 10, 3800, 206000, 19000);    /* Normal below its low, DMA32 not */
        for (int t = 1; t <= 11; t++) {
                const struct sample *x = t == 2 ? &train : &before;
                score_point(&s, SCORE_LOW, 0, "Normal", t, (double)x->zones[2].free_pages,
                            (double)x->zones[2].wmark_low, INFINITY, true);
                score_room(&s, t, 0, score_node_room(x, 0, 10, 256));
        }
        struct score_summary m;
        score_summarize(&s, &m);
        assert_int_equal(m.events[SCORE_LOW], 1);       /* Normal crossed its low ... */
        assert_int_equal(m.false_alarms, 1);            /* ... and the raise was still not needed */
        assert_float_equal(s.raises[0].least, (206000 - 2888 - 21071), 1e-9);
        score_free(&s);

        score_init(&s, 10, 10);
        score_raise(&s, 0, SCORE_ONSET, 0, score_node_room(&before, 0, 10, 256));
        struct sample irregular = node_at(zi, 10, 3800, 2888 + 21071 + 300, 20163 + 300);
        score_room(&s, 1, 0, score_node_room(&irregular, 0, 10, 256));
        score_summarize(&s, &m);
        assert_int_equal(s.raises[0].verdict, SCORE_CROSSED);
        assert_float_equal(m.reasons[SCORE_ONSET].lead_median, 1, 1e-9);
        score_free(&s);
}

/* On a daemon's trace the raise itself may keep the node's room: a raise
 * after which the workload took more than the room at the raise is held,
 * not a false alarm; one after which it took less still is. */
static void held_by_what_was_taken(void **state)
{
        (void)state;
        struct score s;
        score_init(&s, 10, 10);
        score_raise(&s, 0, WSF_RAISE_FORECAST, 0, 5000);        /* margin 5000 */
        score_raise(&s, 12, WSF_RAISE_FORECAST, 0, 5000);
        for (int t = 0; t <= 30; t++) {
                score_room(&s, t, 0, 5000);
                /* 3000 pages at 1 and at 2: 6000 > 5000 taken within the
                 * first raise's horizon; 4000 in all within the second's */
                score_taken(&s, t, t == 1 || t == 2 ? 3000 : t == 13 || t == 14 ? 2000 : 0);
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
         * does not count; running out after it was held makes it crossed */
        score_init(&s, 10, 10);
        score_raise(&s, 5, WSF_RAISE_LEARNED, 0, 5000);
        score_raise(&s, 20, WSF_RAISE_LEARNED, 0, 5000);
        for (int t = 0; t <= 40; t++) {
                score_taken(&s, t, t == 5 || t == 16 || t == 21 ? 6000 : 0);
                score_room(&s, t, 0, t == 24 ? 0 : 5000);
        }
        score_summarize(&s, &m);
        assert_int_equal(s.raises[0].verdict, SCORE_FALSE_ALARM);
        assert_int_equal(s.raises[1].verdict, SCORE_CROSSED);
        assert_float_equal(m.reasons[WSF_RAISE_LEARNED].lead_median, 4, 1e-9);
        score_free(&s);

        /* a train of bursts, each given back before the next, takes what
         * one burst takes: three of 3000 against a margin of 5000 are no
         * more than it had; without the frees they would be */
        score_init(&s, 10, 10);
        score_raise(&s, 0, WSF_RAISE_RECUR, 0, 5000);
        score_raise(&s, 20, WSF_RAISE_RECUR, 0, 5000);
        for (int t = 0; t <= 40; t++) {
                bool freed = t < 20;
                score_taken(&s, t, t % 4 == 1 ? 3000 : t % 4 == 2 && freed ? -3000 : 0);
                score_room(&s, t, 0, 5000);
        }
        assert_int_equal(s.raises[0].verdict, SCORE_FALSE_ALARM);
        assert_int_equal(s.raises[1].verdict, SCORE_HELD);
        score_free(&s);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(exact_forecast_seen_ten_seconds_ahead),
                cmocka_unit_test(interrupted_warning_is_a_miss),
                cmocka_unit_test(unscored_and_repeated_crossings),
                cmocka_unit_test(percentiles),
                cmocka_unit_test(node_room),
                cmocka_unit_test(false_alarms),
                cmocka_unit_test(a_zone_at_its_low_is_no_pressure),
                cmocka_unit_test(judged_while_in_force),
                cmocka_unit_test(held_by_what_was_taken),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
