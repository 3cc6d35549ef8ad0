#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "forecast.h"
#include "synth.h"

static void run(struct window *w, struct forecast *f, double min_r2, const uint64_t *free_pages,
                size_t n, const uint64_t *high)
{
        assert_int_equal(window_init(w, 8), 0);
        for (size_t i = 0; i < n; i++) {
                struct synth_zone z = { .managed = 6000000, .wmark_min = 16000,
                                        .free_pages = free_pages[i], .high_pages = high ? high[i] : 0,
                                        .order = 9 };
                struct sample s;
                synth_sample(&s, (double)i, 10, &z, 1, NULL, 0);
                assert_true(window_push(w, &s) >= 0);
        }
        struct forecast_params p = { .min_r2 = min_r2, .min_points = 3, .max_order = 9 };
        assert_int_equal(forecast_compute(w, &p, f), 0);
}

/* low = 16000 + max(4000, 6000000 * 10 / 10000) = 22000 */
static void steady_fall_crossing_times(void **state)
{
        (void)state;
        uint64_t fp[] = { 300000, 280000, 260000, 240000 };
        struct window w;
        struct forecast f = { 0 };
        run(&w, &f, 0.6, fp, 4, NULL);
        assert_int_equal(f.nr_zones, 1);
        assert_int_equal(f.zones[0].wmark_low, 22000);
        assert_true(f.zones[0].trend);
        assert_float_equal(f.zones[0].free_fit.slope, -20000, 1e-6);
        assert_float_equal(f.zones[0].secs_to_low, (240000.0 - 22000) / 20000, 1e-9);
        assert_float_equal(f.zones[0].secs_to_min, (240000.0 - 16000) / 20000, 1e-9);
        window_free(&w);
        forecast_free(&f);
}

/* Two points always fit a line: they show no trend. */
static void two_points_are_no_trend(void **state)
{
        (void)state;
        uint64_t fp[] = { 300000, 100000 };
        struct window w;
        struct forecast f = { 0 };
        run(&w, &f, 0.6, fp, 2, NULL);
        assert_float_equal(f.zones[0].free_fit.r2, 1, 1e-12);
        assert_false(f.zones[0].trend);
        assert_true(isinf(f.zones[0].secs_to_low));
        window_free(&w);
        forecast_free(&f);
}

static void rising_never_crosses(void **state)
{
        (void)state;
        uint64_t fp[] = { 100000, 120000, 140000 };
        struct window w;
        struct forecast f = { 0 };
        run(&w, &f, 0.6, fp, 3, NULL);
        assert_true(isinf(f.zones[0].secs_to_low));
        window_free(&w);
        forecast_free(&f);
}

static void below_low_is_now(void **state)
{
        (void)state;
        uint64_t fp[] = { 21000, 21000, 20000 };
        struct window w;
        struct forecast f = { 0 };
        run(&w, &f, 0.6, fp, 3, NULL);
        assert_float_equal(f.zones[0].secs_to_low, 0, 0);
        window_free(&w);
        forecast_free(&f);
}

/* A zig-zag has a falling slope but a poor fit: no trend, no crossing. */
static void noise_fails_the_gate(void **state)
{
        (void)state;
        uint64_t fp[] = { 300000, 200000, 310000, 190000, 305000, 195000, 290000, 200000 };
        struct window w;
        struct forecast f = { 0 };
        run(&w, &f, 0.6, fp, 8, NULL);
        assert_true(f.zones[0].free_fit.slope < 0);
        assert_false(f.zones[0].trend);
        assert_true(isinf(f.zones[0].secs_to_low));
        window_free(&w);
        forecast_free(&f);
}

/* Blocks of order 9 shrink by 20480 pages a second from 153600: they run
 * out (below one block, 512 pages) in (102400 - 512) / 20480 s. */
static void high_order_exhaustion(void **state)
{
        (void)state;
        uint64_t fp[] = { 2000000, 2000000, 2000000 };
        uint64_t hi[] = { 143360, 122880, 102400 };
        struct window w;
        struct forecast f = { 0 };
        run(&w, &f, 0.6, fp, 3, hi);
        assert_int_equal(f.nr_nodes, 1);
        assert_int_equal(f.max_order, 9);
        assert_float_equal(f.nodes[0].free_at_order[9], 102400, 0);
        assert_float_equal(f.nodes[0].secs_to_exhaust[9], (102400.0 - 512) / 20480, 1e-9);
        assert_float_equal(f.nodes[0].extfrag[9], (2000000.0 - 102400) / 2000000, 1e-12);
        assert_true(isinf(f.nodes[0].secs_to_exhaust[0]));   /* total free is flat */
        /* one zone on the node: the zone's forecast is the node's */
        assert_float_equal(f.zones[0].secs_to_exhaust[9], f.nodes[0].secs_to_exhaust[9], 1e-12);
        window_free(&w);
        forecast_free(&f);
}

/* The drain's age: since the latest sample at the window's highest; a fall
 * that spans the window is "long" (INFINITY); rising free pages have age 0. */
static void drain_age(void **state)
{
        (void)state;
        static const struct { uint64_t fp[6]; double age; } cases[] = {
                { { 500000, 500000, 500000, 500000, 400000, 300000 }, 2 },
                { { 500000, 510000, 500000, 490000, 480000, 470000 }, 4 },
                { { 600000, 500000, 400000, 300000, 200000, 100000 }, INFINITY },
                { { 100000, 200000, 300000, 400000, 500000, 600000 }, 0 },
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                struct window w;
                struct forecast f = { 0 };
                run(&w, &f, 0.6, cases[i].fp, 6, NULL);
                if (isinf(cases[i].age))
                        assert_true(isinf(f.zones[0].drain_age));
                else
                        assert_float_equal(f.zones[0].drain_age, cases[i].age, 1e-9);
                window_free(&w);
                forecast_free(&f);
        }
}

/* Memory the kernel adds to the zone while a program allocates (a freshly
 * booted machine initialising its memory lazily, hotplug, a balloon):
 * managed grows 1 GiB/s, free pages stay flat, and the consumption shows
 * all the same; the crossing is forecast as if nothing more were added. */
static void added_memory_hides_no_drain(void **state)
{
        (void)state;
        struct window w;
        assert_int_equal(window_init(&w, 8), 0);
        for (int t = 0; t < 8; t++) {
                struct synth_zone z = { .managed = 1100000 + 262144 * (uint64_t)t, .wmark_min = 16000,
                                        .free_pages = 300000, .order = 9 };
                struct sample s;
                synth_sample(&s, t, 10, &z, 1, NULL, 0);
                assert_true(window_push(&w, &s) >= 0);
        }
        struct forecast_params p = { .min_r2 = 0.6, .min_points = 8, .max_order = 9 };
        struct forecast f = { 0 };
        assert_int_equal(forecast_compute(&w, &p, &f), 0);
        const struct zone_forecast *z = &f.zones[0];
        assert_float_equal(z->free_fit.slope, 0, 1e-6);         /* free pages alone: nothing */
        assert_true(z->trend);
        assert_float_equal(z->consumption_pages_per_sec, 262144, 1e-6);
        assert_float_equal(z->secs_to_low, (300000.0 - (double)z->wmark_low) / 262144, 1e-9);
        assert_true(isinf(z->drain_age));       /* growing for the whole window */
        window_free(&w);
        forecast_free(&f);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(steady_fall_crossing_times),
                cmocka_unit_test(drain_age),
                cmocka_unit_test(added_memory_hides_no_drain),
                cmocka_unit_test(two_points_are_no_trend),
                cmocka_unit_test(rising_never_crosses),
                cmocka_unit_test(below_low_is_now),
                cmocka_unit_test(noise_fails_the_gate),
                cmocka_unit_test(high_order_exhaustion),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
