/* Recurring episodes: a steady train is anticipated, a jittered one within
 * limits too, two episodes are no pattern, and a pattern that stops or
 * changes kind is dropped. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "recur.h"

#define MANAGED 6000000
#define BURST 600000.0          /* pages/s: class 9 */

static void history(struct learned *l, const double *starts, const double *peaks, size_t n)
{
        learn_init(l);
        for (size_t i = 0; i < n; i++)
                l->history[l->nr_history++] = (struct learn_episode){
                        .start = starts[i], .duration = 2,
                        .peak_demand_pages_per_sec = peaks ? peaks[i] : BURST };
}

static void steady_train_anticipated(void **state)
{
        (void)state;
        struct learned l;
        double starts[] = { 100, 110, 120 };
        history(&l, starts, NULL, 3);
        struct recurrence r;
        recur_find(&l, MANAGED, 125, &r);
        assert_true(r.expected);
        assert_float_equal(r.period, 10, 1e-9);
        assert_float_equal(r.next_start, 130, 1e-9);
        assert_int_equal(r.episodes, 3);
        assert_float_equal(r.peak_demand_pages_per_sec, BURST, 0);
}

static void two_episodes_are_no_pattern(void **state)
{
        (void)state;
        struct learned l;
        double starts[] = { 100, 110 };
        history(&l, starts, NULL, 2);
        struct recurrence r;
        recur_find(&l, MANAGED, 115, &r);
        assert_false(r.expected);
}

/* Periods of 10, 11 and 9.5 s (within a quarter of their median) are one
 * pattern; a gap of 14 s is not (more than a quarter off), so only the
 * steady run after it counts, and two gaps there are too few. */
static void jitter_tolerated_within_limits(void **state)
{
        (void)state;
        struct learned l;
        double starts[] = { 100, 110, 121, 130.5 };
        history(&l, starts, NULL, 4);
        struct recurrence r;
        recur_find(&l, MANAGED, 135, &r);
        assert_true(r.expected);
        assert_float_equal(r.period, 10, 1e-9);
        assert_int_equal(r.episodes, 4);

        double off[] = { 100, 114, 124, 134 };
        history(&l, off, NULL, 4);
        recur_find(&l, MANAGED, 136, &r);
        assert_true(r.expected);                /* 124, 134 and 114: gaps 10, 10, steady */
        assert_int_equal(r.episodes, 3);
        double broken[] = { 100, 110, 124, 134 };
        history(&l, broken, NULL, 4);
        recur_find(&l, MANAGED, 136, &r);
        assert_false(r.expected);               /* gaps 10, 14, 10: the steady run is one gap */
}

/* The next episode is due at 130; it is dropped once overdue by a quarter
 * of the period (132.5). */
static void stopped_pattern_dropped(void **state)
{
        (void)state;
        struct learned l;
        double starts[] = { 100, 110, 120 };
        history(&l, starts, NULL, 3);
        struct recurrence r;
        recur_find(&l, MANAGED, 132.4, &r);
        assert_true(r.expected);
        recur_find(&l, MANAGED, 132.6, &r);
        assert_false(r.expected);
}

/* Another kind of episode last (a class far from the train's) is not part
 * of it: no pattern ends with it. */
static void another_kind_breaks_it(void **state)
{
        (void)state;
        struct learned l;
        double starts[] = { 100, 110, 120, 125 };
        double peaks[] = { BURST, BURST, BURST, BURST / 16 };
        history(&l, starts, peaks, 4);
        struct recurrence r;
        recur_find(&l, MANAGED, 126, &r);
        assert_false(r.expected);
}

/* A train whose peaks a sampler saw three classes apart (a short burst's
 * peak depends on where it falls in the interval) but whose volumes agree
 * is one pattern; its raise is sized for the highest peak. */
static void volume_matches_what_the_peak_misses(void **state)
{
        (void)state;
        struct learned l;
        double starts[] = { 100, 104, 108 };
        double peaks[] = { BURST, BURST / 8, BURST / 2 };
        history(&l, starts, peaks, 3);
        struct recurrence r;
        recur_find(&l, MANAGED, 109, &r);
        assert_false(r.expected);       /* no volumes known: peaks decide */
        for (size_t i = 0; i < 3; i++)
                l.history[i].demand_pages = 350000 + 50000 * (double)i;
        recur_find(&l, MANAGED, 109, &r);
        assert_true(r.expected);
        assert_float_equal(r.next_start, 112, 1e-9);
        assert_float_equal(r.peak_demand_pages_per_sec, BURST, 0);
        l.history[2].demand_pages = 900000;     /* more than twice the others */
        recur_find(&l, MANAGED, 109, &r);
        assert_false(r.expected);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(steady_train_anticipated),
                cmocka_unit_test(two_episodes_are_no_pattern),
                cmocka_unit_test(jitter_tolerated_within_limits),
                cmocka_unit_test(stopped_pattern_dropped),
                cmocka_unit_test(another_kind_breaks_it),
                cmocka_unit_test(volume_matches_what_the_peak_misses),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
