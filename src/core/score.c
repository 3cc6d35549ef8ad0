#include "score.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

void score_init(struct score *s, double horizon, double lead_time)
{
        *s = (struct score){ .horizon = horizon, .lead_time = lead_time };
}

void score_free(struct score *s)
{
        free(s->series);
        free(s->events);
        free(s->raises);
        *s = (struct score){ 0 };
}

/* Elements a growing array starts with; it doubles after. */
#define SCORE_ARRAY_FIRST 8

/* Room for one more element in a growing array. */
static int reserve(void **arr, size_t *cap, size_t len, size_t elem)
{
        if (len < *cap)
                return 0;
        size_t c = *cap ? *cap * 2 : SCORE_ARRAY_FIRST;
        void *p = realloc(*arr, c * elem);
        if (!p)
                return -ENOMEM;
        *arr = p;
        *cap = c;
        return 0;
}

static struct score_series *find_series(struct score *s, enum score_kind kind, int node, const char *name)
{
        for (size_t i = 0; i < s->nr_series; i++) {
                struct score_series *x = &s->series[i];
                if (x->kind == kind && x->node == node && strcmp(x->name, name) == 0)
                        return x;
        }
        if (reserve((void **)&s->series, &s->series_cap, s->nr_series, sizeof(*s->series)) < 0)
                return NULL;
        struct score_series *x = &s->series[s->nr_series++];
        *x = (struct score_series){ .kind = kind, .node = node };
        snprintf(x->name, sizeof(x->name), "%s", name);
        return x;
}

static int add_event(struct score *s, const struct score_series *x, double t)
{
        if (!x->forecast_seen) {
                s->nr_unscored++;
                return 0;
        }
        if (reserve((void **)&s->events, &s->events_cap, s->nr_events, sizeof(*s->events)) < 0)
                return -ENOMEM;
        struct score_event *e = &s->events[s->nr_events++];
        *e = (struct score_event){ .kind = x->kind, .node = x->node, .t = t, .seen = x->warned };
        memcpy(e->name, x->name, sizeof(e->name));
        if (e->seen) {
                e->lead = t - x->warn_t;
                e->error = fabs(x->warn_at - t);
                e->predicted = x->warn_at;
        }
        return 0;
}

/* A crossing or a stall can still prove the raise right. */
static bool still_open(const struct score_raise *r)
{
        return r->verdict == SCORE_PENDING || r->verdict == SCORE_HELD;
}

int score_point(struct score *s, enum score_kind kind, int node, const char *name, double t,
                double value, double level, double secs, bool has_forecast)
{
        struct score_series *x = find_series(s, kind, node, name);
        if (!x)
                return -ENOMEM;
        double d = value - level;
        if (x->have_prev && !x->below && d < 0) {
                /* interpolate between the samples on either side */
                double at = x->prev_t + x->prev_d / (x->prev_d - d) * (t - x->prev_t);
                if (add_event(s, x, at) < 0)
                        return -ENOMEM;
        }
        x->below = d < 0;
        x->have_prev = true;
        x->prev_t = t;
        x->prev_d = d;
        double reach = kind == SCORE_ORDER ? s->lead_time : s->horizon;
        bool warns = has_forecast && d >= 0 && secs <= reach;
        if (!warns)
                x->warned = false;
        else if (!x->warned)
                x->warned = true, x->warn_t = t, x->warn_at = t + secs;
        x->forecast_seen |= has_forecast;
        return 0;
}

/* Less room than this is none: an allocation of a huge page (512 pages)
 * fails a zone with fewer above its floor, so two zones short of one each
 * already send it to kswapd. */
#define SCORE_ROOM_NONE 1024.0

/* The kernel's low at `wsf`. */
static double low_at(const struct zone *z, long wsf)
{
        return (double)z->wmark_min + wmark_gap(z->managed_pages, z->wmark_min, wsf);
}

double score_node_room(const struct sample *s, int node, long baseline, long lower_ratio)
{
        /* the node's zones are listed lowest first; walk down from its
         * highest, adding up the managed pages each lower one reserves
         * against */
        double room = 0;
        uint64_t above = 0;
        for (size_t i = s->nr_zones; i-- > 0;) {
                const struct zone *z = &s->zones[i];
                if (z->node != node || z->managed_pages == 0)
                        continue;
                double floor = low_at(z, baseline < 0 ? 0 : baseline);
                if (above > 0 && lower_ratio > 0) {
                        uint64_t kept = above / (uint64_t)lower_ratio; /* the lowmem reserve, in pages */
                        floor += (double)kept;
                }
                if ((double)z->free_pages > floor)
                        room += (double)z->free_pages - floor;
                above += z->managed_pages;
        }
        return room;
}

int score_raise(struct score *s, double t, int reason, int node, double room)
{
        if (reason < 0 || reason >= SCORE_REASONS)
                return -EINVAL;
        if (reserve((void **)&s->raises, &s->raises_cap, s->nr_raises, sizeof(*s->raises)) < 0)
                return -ENOMEM;
        struct score_raise *r = &s->raises[s->nr_raises++];
        *r = (struct score_raise){ .t = t, .deadline = t + s->horizon, .reason = reason, .node = node,
                                   .verdict = room < SCORE_ROOM_NONE ? SCORE_CROSSED : SCORE_PENDING,
                                   .crossed = t, .margin = room, .least = room };
        return 0;
}

void score_room(struct score *s, double t, int node, double room)
{
        for (size_t i = 0; i < s->nr_raises; i++) {
                struct score_raise *r = &s->raises[i];
                if (!still_open(r) || r->node != node || t < r->t)
                        continue;
                if (t > r->deadline) {
                        if (r->verdict == SCORE_PENDING)
                                r->verdict = SCORE_FALSE_ALARM;
                        continue;
                }
                r->least = dmin(r->least, room);
                if (room < SCORE_ROOM_NONE) {
                        r->verdict = SCORE_CROSSED;
                        r->crossed = t;
                }
        }
}

void score_stalls(struct score *s, double t, uint64_t stalls)
{
        if (stalls == 0)
                return;
        for (size_t i = 0; i < s->nr_raises; i++) {
                struct score_raise *r = &s->raises[i];
                if (still_open(r) && t >= r->t && t <= r->deadline) {
                        r->verdict = SCORE_CROSSED;
                        r->crossed = t;
                }
        }
}

void score_taken(struct score *s, double t, double pages)
{
        if (!isfinite(pages) || pages == 0)
                return;
        for (size_t i = 0; i < s->nr_raises; i++) {
                struct score_raise *r = &s->raises[i];
                if (r->verdict != SCORE_PENDING || t <= r->t || t > r->deadline)
                        continue;
                r->taken += pages;
                if (r->taken > r->margin)
                        r->verdict = SCORE_HELD;
        }
}

void score_in_force(struct score *s, double t)
{
        for (size_t i = 0; i < s->nr_raises; i++) {
                struct score_raise *r = &s->raises[i];
                if (still_open(r) && r->t < t && r->deadline < t)
                        r->deadline = t;
        }
}

static int cmp_double(const void *a, const void *b)
{
        double x = *(const double *)a, y = *(const double *)b;
        return x < y ? -1 : x > y;
}

static double median(const double *v, size_t n)
{
        return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Per reason: counts and the median lead of the raises whose crossing came. */
static int summarize_reasons(const struct score *s, struct score_summary *out)
{
        double *lead = calloc(s->nr_raises + 1, sizeof(double));
        if (!lead)
                return -ENOMEM;
        for (int k = 0; k < SCORE_REASONS; k++) {
                struct score_reason_summary *m = &out->reasons[k];
                size_t n = 0;
                m->lead_median = NAN;
                for (size_t i = 0; i < s->nr_raises; i++) {
                        const struct score_raise *r = &s->raises[i];
                        if (r->reason != k)
                                continue;
                        m->raises++;
                        m->false_alarms += r->verdict == SCORE_FALSE_ALARM;
                        m->held += r->verdict == SCORE_HELD;
                        m->unjudged += r->verdict == SCORE_PENDING;
                        if (r->verdict == SCORE_CROSSED)
                                lead[n++] = r->crossed - r->t;
                }
                if (n > 0) {
                        qsort(lead, n, sizeof(double), cmp_double);
                        m->lead_median = median(lead, n);
                }
        }
        free(lead);
        return 0;
}

int score_summarize(const struct score *s, struct score_summary *out)
{
        *out = (struct score_summary){ .unscored = s->nr_unscored, .lead_median = NAN,
                                       .error_median = NAN, .error_p90 = NAN, .within20 = NAN };
        double *lead = calloc(s->nr_events + 1, sizeof(double));
        double *err = calloc(s->nr_events + 1, sizeof(double));
        if (!lead || !err) {
                free(lead);
                free(err);
                return -ENOMEM;
        }
        size_t n = 0;
        for (size_t i = 0; i < s->nr_events; i++) {
                const struct score_event *e = &s->events[i];
                out->events[e->kind]++;
                if (!e->seen) {
                        out->missed++;
                        continue;
                }
                lead[n] = e->lead;
                err[n++] = e->error;
                out->within20_n += e->error <= SCORE_WITHIN_SHARE * e->lead;
        }
        out->seen = s->nr_events - out->missed;
        if (n > 0) {
                qsort(lead, n, sizeof(double), cmp_double);
                qsort(err, n, sizeof(double), cmp_double);
                out->lead_median = median(lead, n);
                out->error_median = median(err, n);
                out->error_p90 = err[(size_t)dceil(SCORE_ERROR_PERCENTILE * (double)n) - 1];  /* nearest rank */
                out->within20 = (double)out->within20_n / (double)n;
        }
        free(lead);
        free(err);
        int r = summarize_reasons(s, out);
        /* every raise has one reason: the totals are their sums */
        for (int k = 0; k < SCORE_REASONS; k++) {
                out->raises += out->reasons[k].raises;
                out->false_alarms += out->reasons[k].false_alarms;
                out->held += out->reasons[k].held;
                out->unjudged += out->reasons[k].unjudged;
        }
        return r;
}
