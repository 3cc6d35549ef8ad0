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

/* Of one kind: peak demands within one class of each other, or volumes
 * within RECUR_VOLUME_RATIO. A short burst's peak depends on where it falls
 * in the sampling interval (one train of 1.4 GB bursts measured 0.5 to 5.5
 * GB/s); its volume does not. */
static bool same_kind(const struct learn_episode *a, const struct learn_episode *b, uint64_t managed)
{
        int c = learn_class_of(a->peak_demand_pages_per_sec, managed);
        int k = learn_class_of(b->peak_demand_pages_per_sec, managed);
        if (c >= 0 && k >= 0 && abs(k - c) <= 1)
                return true;
        double lo = dmin(a->demand_pages, b->demand_pages), hi = dmax(a->demand_pages, b->demand_pages);
        return lo > 0 && hi <= RECUR_VOLUME_RATIO * lo;
}

/* The starts of the most recent episodes of the last one's kind, newest
 * first, and the highest peak demand among them; how many. */
static size_t last_kind(const struct learned *l, uint64_t managed, double *starts, double *peak)
{
        const struct learn_episode *h = l->history, *last = &h[l->nr_history - 1];
        size_t m = 0;
        *peak = 0;
        for (size_t i = l->nr_history; i-- > 0 && m < RECUR_MAX_EPISODES;) {
                if (!same_kind(last, &h[i], managed))
                        break;
                starts[m++] = h[i].start;
                *peak = dmax(*peak, h[i].peak_demand_pages_per_sec);
        }
        return m;
}

void recur_find(const struct learned *l, uint64_t managed, double now, struct recurrence *out)
{
        *out = (struct recurrence){ 0 };
        if (l->nr_history < RECUR_MIN_EPISODES)
                return;
        double starts[RECUR_MAX_EPISODES], gaps[RECUR_MAX_EPISODES];
        double peak;
        size_t m = last_kind(l, managed, starts, &peak);
        if (m < RECUR_MIN_EPISODES)
                return;
        for (size_t k = 0; k + 1 < m; k++)
                gaps[k] = starts[k] - starts[k + 1];
        double period = median(gaps, m - 1);
        if (!(period > 0))
                return;
        /* the run of steady gaps that ends with the newest episode */
        size_t steady = 0;
        while (steady + 1 < m && fabs(gaps[steady] - period) <= RECUR_JITTER * period)
                steady++;
        if (steady + 1 < RECUR_MIN_EPISODES)
                return;
        period = median(gaps, steady);
        double next = starts[0] + period;
        if (now > next + RECUR_TOLERANCE * period)
                return;         /* overdue: the pattern broke */
        *out = (struct recurrence){
                .expected = true, .period = period, .next_start = next, .episodes = (unsigned)steady + 1,
                .peak_demand_pages_per_sec = peak,
        };
}
