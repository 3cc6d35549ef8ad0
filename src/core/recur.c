#include "recur.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static int cmp_double(const void *a, const void *b)
{
        double x = *(const double *)a, y = *(const double *)b;
        return x < y ? -1 : x > y;
}

/* Median of v[0..n), n >= 1. */
static double median(const double *v, size_t n)
{
        double s[RECUR_MAX_EPISODES];
        memcpy(s, v, n * sizeof(s[0]));
        qsort(s, n, sizeof(s[0]), cmp_double);
        return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/* Of one kind: both of huge pages or both not (learn_kind_of()), and peak
 * demands within one class of each other, or volumes within
 * RECUR_VOLUME_RATIO. A short burst's peak depends on where it falls in
 * the sampling interval (one train of 1.4 GB bursts measured 0.5 to 5.5
 * GB/s); its volume does not. Without the kinds, mixed's last train
 * burst, accumulate's huge pages and streaming's base pages, 24 and 28 s
 * apart, were a pattern, and every run was raised for a fourth episode
 * that never came (mixed-static-0.4.14). */
static bool same_kind(const struct learn_episode *a, const struct learn_episode *b, uint64_t managed)
{
        if (learn_kind_of(a->peak_demand_pages_per_sec, a->peak_thp_pages_per_sec) !=
            learn_kind_of(b->peak_demand_pages_per_sec, b->peak_thp_pages_per_sec))
                return false;
        int c = learn_class_of(a->peak_demand_pages_per_sec, managed);
        int k = learn_class_of(b->peak_demand_pages_per_sec, managed);
        if (c >= 0 && k >= 0 && abs(k - c) <= 1)
                return true;
        double lo = dmin(a->demand_pages, b->demand_pages), hi = dmax(a->demand_pages, b->demand_pages);
        return lo > 0 && hi <= RECUR_VOLUME_RATIO * lo;
}

/* The starts and peak demands of the most recent episodes of the last
 * one's kind, newest first; how many. */
static size_t last_kind(const struct learned *l, uint64_t managed, double *starts, double *peaks)
{
        const struct learn_episode *h = l->history, *last = &h[l->nr_history - 1];
        size_t m = 0;
        for (size_t i = l->nr_history; i-- > 0 && m < RECUR_MAX_EPISODES;) {
                if (!same_kind(last, &h[i], managed))
                        break;
                starts[m] = h[i].start;
                peaks[m++] = h[i].peak_demand_pages_per_sec;
        }
        return m;
}

/* How many of the gaps, newest first, are in a row within RECUR_JITTER of
 * their own median (in *period): the steady train that ends with the
 * newest episode. The median of every gap of the kind would let an older
 * episode move it: a train's gaps of 3.3 and 4.5 s with the 24 s to the
 * burst before the train have the median 4.5, and 3.3 falls outside. */
static size_t steady_gaps(const double *gaps, size_t n, double *period)
{
        size_t steady = 0;
        for (size_t j = 1; j <= n; j++) {
                double p = median(gaps, j);
                bool ok = p > 0;
                for (size_t k = 0; ok && k < j; k++)
                        ok = fabs(gaps[k] - p) <= RECUR_JITTER * p;
                if (!ok)
                        break;
                steady = j;
                *period = p;
        }
        return steady;
}

void recur_find(const struct learned *l, uint64_t managed, double now, struct recurrence *out)
{
        *out = (struct recurrence){ 0 };
        if (l->nr_history < RECUR_MIN_EPISODES)
                return;
        double starts[RECUR_MAX_EPISODES] = { 0 }, peaks[RECUR_MAX_EPISODES] = { 0 }, gaps[RECUR_MAX_EPISODES];
        size_t m = last_kind(l, managed, starts, peaks);
        if (m < RECUR_MIN_EPISODES)
                return;
        for (size_t k = 0; k + 1 < m; k++)
                gaps[k] = starts[k] - starts[k + 1];
        double period = 0;
        size_t steady = steady_gaps(gaps, m - 1, &period);
        if (steady + 1 < RECUR_MIN_EPISODES)
                return;
        const struct learn_episode *h = &l->history[l->nr_history - 1];
        double next = starts[0] + period;
        if (now > next + RECUR_TOLERANCE * period)
                return;         /* overdue: the pattern broke */
        double peak = 0;
        for (size_t k = 0; k <= steady; k++)
                peak = dmax(peak, peaks[k]);
        *out = (struct recurrence){
                .expected = true, .period = period, .next_start = next, .episodes = (unsigned)steady + 1,
                .peak_demand_pages_per_sec = peak,
                .kind = learn_kind_of(h->peak_demand_pages_per_sec, h->peak_thp_pages_per_sec),
        };
}
