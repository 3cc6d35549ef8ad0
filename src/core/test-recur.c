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

/* r is the pattern of `episodes` episodes every `period` s, the next due
 * at `next`, sized by `peak`. */
static void assert_pattern(const struct recurrence *r, double period, double next, unsigned episodes, double peak)
{
        assert_true(r->expected);
        assert_float_equal(r->period, period, 1e-9);
        assert_float_equal(r->next_start, next, 1e-9);
        assert_int_equal(r->episodes, episodes);
        assert_float_equal(r->peak_demand_pages_per_sec, peak, 0);
}

static void steady_train_anticipated(void **state)
{
        (void)state;
        struct learned l;
        double starts[] = { 100, 110, 120 };
        history(&l, starts, NULL, 3);
        struct recurrence r;
        recur_find(&l, MANAGED, 125, &r);
        assert_pattern(&r, 10, 130, 3, BURST);
        assert_int_equal(r.kind, LEARN_BASE);
        /* a train of huge-page bursts is expected as its kind: its raise
         * is the THP classes' value (learn.h) */
        for (size_t i = 0; i < 3; i++)
                l.history[i].peak_thp_pages_per_sec = BURST * 0.9;
        recur_find(&l, MANAGED, 125, &r);
        assert_pattern(&r, 10, 130, 3, BURST);
        assert_int_equal(r.kind, LEARN_THP);
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
 * pattern; a gap of 14 s after two of 10 is not (more than a quarter off
 * their median), so only the steady run after it counts; and two gaps of
 * 10 and 18 s are no run (each more than a quarter off their median, 14). */
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
        double broken[] = { 100, 110, 128, 138 };
        history(&l, broken, NULL, 4);
        recur_find(&l, MANAGED, 140, &r);
        assert_false(r.expected);               /* gaps 10, 18, 10: the steady run is one gap */
}

/* A burst of the same kind long before a train (mixed's irregular burst,
 * 24 s before its train) does not hide the train: gaps of 3.3 and 4.5 s
 * are a run about their median, 3.9 s, whatever the gap before them. The
 * median of all three (4.5) put 3.3 outside. The raise is sized for the
 * train's own highest peak, not the older burst's. */
static void older_episode_does_not_hide_a_train(void **state)
{
        (void)state;
        struct learned l;
        double starts[] = { 9, 33, 37.5, 40.8 };
        double peaks[] = { 2 * BURST, BURST, BURST / 2, BURST };
        history(&l, starts, peaks, 4);
        struct recurrence r;
        recur_find(&l, MANAGED, 44, &r);
        assert_pattern(&r, 3.9, 44.7, 3, BURST);
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

/* An episode of huge pages and one of base pages are not one kind, however
 * close their peaks and volumes: mixed's last train burst, accumulate
 * and streaming, 24 and 28 s apart (mixed-static-0.4.14, a warm run's
 * learned state), were taken for a pattern and raised for. */
static void huge_and_base_pages_are_no_pattern(void **state)
{
        (void)state;
        struct learned l;
        double starts[] = { 0, 23.7, 51.7 };
        double peaks[] = { 246347, 571940, 328000 };
        history(&l, starts, peaks, 3);
        const double thp[] = { 248570, 485285, 0 }, volume[] = { 299393, 1250414, 940508 };
        for (size_t i = 0; i < 3; i++) {
                l.history[i].peak_thp_pages_per_sec = thp[i];
                l.history[i].demand_pages = volume[i];
        }
        struct recurrence r;
        recur_find(&l, MANAGED, 75, &r);
        assert_false(r.expected);
        /* the same three with streaming's demand of huge pages: a pattern */
        l.history[2].peak_thp_pages_per_sec = 300000;
        recur_find(&l, MANAGED, 75, &r);
        assert_true(r.expected);
        assert_float_equal(r.period, 25.85, 1e-9);
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
                cmocka_unit_test(older_episode_does_not_hide_a_train),
                cmocka_unit_test(stopped_pattern_dropped),
                cmocka_unit_test(another_kind_breaks_it),
                cmocka_unit_test(volume_matches_what_the_peak_misses),
                cmocka_unit_test(huge_and_base_pages_are_no_pattern),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
