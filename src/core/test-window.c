#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "forecast.h"
#include "synth.h"
#include "window.h"

static void fit_exact_line(void **state)
{
        (void)state;
        double x[] = { 10, 11, 12, 13 }, y[] = { 1, 3, 5, 7 };
        struct fit f;
        assert_int_equal(fit_line(x, y, 4, &f), 0);
        assert_float_equal(f.slope, 2.0, 1e-12);
        assert_float_equal(f.last, 7.0, 1e-12);
        assert_float_equal(f.r2, 1.0, 1e-12);
        assert_float_equal(f.resid_sd, 0.0, 1e-12);
}

/* By hand: mean x 1.5, mean y 2; Sxy = 3, Sxx = 5 -> slope 0.6;
 * Syy = 2, SSres = 2 - 0.6 * 3 = 0.2 -> R² 0.9, residual sd sqrt(0.1);
 * fitted value at x = 3: 2 + 0.6 * 1.5 = 2.9. */
static void fit_noisy_by_hand(void **state)
{
        (void)state;
        double x[] = { 0, 1, 2, 3 }, y[] = { 1, 2, 2, 3 };
        struct fit f;
        assert_int_equal(fit_line(x, y, 4, &f), 0);
        assert_float_equal(f.slope, 0.6, 1e-12);
        assert_float_equal(f.r2, 0.9, 1e-12);
        assert_float_equal(f.last, 2.9, 1e-12);
        assert_float_equal(f.resid_sd, sqrt(0.1), 1e-12);
}

/* Centring x keeps precision at large monotonic timestamps. */
static void fit_large_timestamps(void **state)
{
        (void)state;
        double x[8], y[8];
        for (int i = 0; i < 8; i++) {
                x[i] = 1.0e6 + 0.1 * i;
                y[i] = 5.0e6 - 12345.0 * (x[i] - 1.0e6);
        }
        struct fit f;
        assert_int_equal(fit_line(x, y, 8, &f), 0);
        assert_float_equal(f.slope, -12345.0, 1e-6);
        assert_float_equal(f.r2, 1.0, 1e-9);
}

static void fit_degenerate(void **state)
{
        (void)state;
        double x[] = { 1, 1, 1 }, y[] = { 1, 2, 3 }, flat[] = { 4, 4, 4 }, xs[] = { 0, 1, 2 };
        struct fit f;
        assert_int_equal(fit_line(x, y, 3, &f), -EINVAL);
        assert_int_equal(fit_line(x, y, 1, &f), -EINVAL);
        assert_int_equal(fit_line(xs, flat, 3, &f), 0);
        assert_float_equal(f.slope, 0, 0);
        assert_float_equal(f.r2, 0, 0);   /* a flat series shows no trend */
}

static double free_series(const struct sample *s, const void *arg)
{
        (void)arg;
        return (double)s->zones[0].free_pages;
}

static void ring_keeps_newest(void **state)
{
        (void)state;
        struct window w;
        assert_int_equal(window_init(&w, 3), 0);
        for (int i = 0; i < 5; i++) {
                struct synth_zone z = { .managed = 1000000, .wmark_min = 1000, .free_pages = 1000 + (uint64_t)i };
                struct sample s;
                synth_sample(&s, i, 10, &z, 1, NULL, 0);
                assert_int_equal(window_push(&w, &s), 0);
        }
        assert_int_equal(w.len, 3);
        assert_float_equal(window_at(&w, 0)->time, 2, 0);
        assert_float_equal(window_newest(&w)->time, 4, 0);
        struct fit f;
        assert_int_equal(window_fit(&w, free_series, NULL, &f), 0);
        assert_float_equal(f.slope, 1.0, 1e-12);

        assert_int_equal(window_resize(&w, 4), 0);      /* keeps the samples */
        assert_int_equal(w.len, 3);
        assert_float_equal(window_newest(&w)->time, 4, 0);
        assert_int_equal(window_resize(&w, 3), 0);
        window_free(&w);
        assert_int_equal(window_init(&w, 2), -EINVAL);
        assert_int_equal(window_init(&w, 65), -EINVAL);
}

static void layout_change_restarts(void **state)
{
        (void)state;
        struct window w;
        assert_int_equal(window_init(&w, 8), 0);
        struct synth_zone z[2] = { { .managed = 1000000, .wmark_min = 1000, .free_pages = 5000 },
                                   { .node = 1, .managed = 1000000, .wmark_min = 1000, .free_pages = 5000 } };
        struct sample s;
        synth_sample(&s, 0, 10, z, 1, NULL, 0);
        assert_int_equal(window_push(&w, &s), 0);
        synth_sample(&s, 1, 10, z, 1, NULL, 0);
        assert_int_equal(window_push(&w, &s), 0);
        synth_sample(&s, 2, 10, z, 2, NULL, 0);         /* node 1 appears */
        assert_int_equal(window_push(&w, &s), 1);
        assert_int_equal(w.len, 1);
        window_free(&w);
}

static void counter_reset_is_not_negative(void **state)
{
        (void)state;
        struct window w;
        assert_int_equal(window_init(&w, 8), 0);
        const uint64_t steal[] = { 1000, 2000, 3000, 10, 1010, 2010 };   /* reset after 3000 */
        for (int i = 0; i < 6; i++) {
                struct synth_zone z = { .managed = 1000000, .wmark_min = 1000, .free_pages = 5000 };
                struct vmstat vm = { .pgsteal_kswapd = steal[i] };
                struct sample s;
                synth_sample(&s, i, 10, &z, 1, &vm, 0);
                assert_true(window_push(&w, &s) >= 0);
        }
        struct fit f;
        assert_int_equal(window_fit_counter(&w, offsetof(struct vmstat, pgsteal_kswapd), &f), 0);
        /* accumulated 0,1000,2000,2000,3000,4000 over x 0..5 (the reset step
         * counts 0): Sxy = 5000 + 1500 + 0 + 0 + 1500 + 5000, Sxx = 17.5 */
        assert_float_equal(f.slope, 13000.0 / 17.5, 1e-9);
        assert_float_equal(window_last_delta(&w, offsetof(struct vmstat, pgsteal_kswapd)), 1000, 0);
        window_free(&w);
}

/* A counter that wraps past 2^64 or jumps by nearly 2^64 gives an exact or
 * zero increase, never a value out of range (found by fuzz-sample: the
 * difference taken in double rounded to 2^64, which UBSan refused to
 * convert back to uint64_t). */
static void counter_wrap_is_exact(void **state)
{
        (void)state;
        struct window w;
        assert_int_equal(window_init(&w, 4), 0);
        const uint64_t stall[] = { 0, UINT64_MAX, 5, UINT64_MAX - 1, UINT64_MAX };
        const uint64_t want[] = { 0, UINT64_MAX, 0, UINT64_MAX - 6, 1 };
        for (int i = 0; i < 5; i++) {
                struct synth_zone z = { .managed = 1000000, .wmark_min = 1000, .free_pages = 5000 };
                struct vmstat vm = { .allocstall = stall[i], .compact_stall = stall[i] };
                struct sample s;
                synth_sample(&s, i, 10, &z, 1, &vm, 0);
                assert_true(window_push(&w, &s) >= 0);
                assert_true(window_last_delta(&w, offsetof(struct vmstat, allocstall)) == want[i]);
                struct forecast_params p = { .min_r2 = 0.6, .min_points = 3, .max_order = 9 };
                struct forecast f = { 0 };
                if (i > 0) {
                        assert_int_equal(forecast_compute(&w, &p, &f), 0);
                        assert_true(f.allocstalls == want[i] && f.compact_stalls == want[i]);
                }
                forecast_free(&f);
        }
        window_free(&w);
}

/* Memory hotplug: a zone that disappears, then comes back, restarts the
 * window each time, so no fit or rate mixes layouts: with one sample there
 * is no forecast at all, with two the rates come from the new layout only. */
static void zone_disappears_and_returns(void **state)
{
        (void)state;
        struct window w;
        struct forecast f = { 0 };
        struct forecast_params p = { .min_r2 = 0.6, .min_points = 3, .max_order = 9 };
        assert_int_equal(window_init(&w, 8), 0);
        struct synth_zone z[2] = { { .managed = 1000000, .wmark_min = 1000, .free_pages = 500000 },
                                   { .node = 1, .managed = 1000000, .wmark_min = 1000, .free_pages = 500000 } };
        const size_t zones[] = { 2, 2, 2, 1, 1, 2, 2 };
        const int restarted[] = { 0, 0, 0, 1, 0, 1, 0 };
        for (int i = 0; i < 7; i++) {
                /* kswapd steals 1000 pages a second, except a burst of
                 * 10^6 at the step where node 1 goes away. */
                struct vmstat vm = { .pgsteal_kswapd = 1000u * (unsigned)i + (i >= 3 ? 1000000 : 0) };
                struct sample s;
                synth_sample(&s, i, 10, z, zones[i], &vm, 0);
                assert_int_equal(window_push(&w, &s), restarted[i]);
                int r = forecast_compute(&w, &p, &f);
                if (i == 0 || i == 3 || i == 5) {
                        assert_int_equal(w.len, 1);
                        assert_int_equal(r, -EAGAIN);
                        continue;
                }
                assert_int_equal(r, 0);
                assert_int_equal(f.nr_zones, zones[i]);
                assert_float_equal(f.kswapd_rate, 1000, 1e-9);
                assert_float_equal(f.kswapd_peak, 1000, 1e-9);
        }
        forecast_free(&f);
        window_free(&w);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(fit_exact_line),
                cmocka_unit_test(fit_noisy_by_hand),
                cmocka_unit_test(fit_large_timestamps),
                cmocka_unit_test(fit_degenerate),
                cmocka_unit_test(ring_keeps_newest),
                cmocka_unit_test(layout_change_restarts),
                cmocka_unit_test(counter_reset_is_not_negative),
                cmocka_unit_test(counter_wrap_is_exact),
                cmocka_unit_test(zone_disappears_and_returns),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
