/* window.h — the sliding window of recent samples and the least-squares
 * trend fitted over it.
 *
 * Owns a ring of the last `capacity` samples (deep copies). A change of zone
 * layout (hotplug) starts the window afresh, because series from different
 * layouts cannot be compared. Fits are in double precision with x centred on
 * the window's mean time, so slopes come out in units per second. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sample.h"

struct fit {
        unsigned n;          /* points used */
        double slope;        /* units per second */
        double last;         /* fitted value at the newest sample's time */
        double r2;           /* coefficient of determination, 0 when y is flat */
        double resid_sd;     /* residual standard deviation, units */
        double slope_se;     /* standard error of the slope, units per second */
};

/* Fit y = a + b (x - mean x). Needs n >= 2 distinct x; returns -EINVAL else. */
int fit_line(const double *x, const double *y, size_t n, struct fit *out);

/* The configurable range of the window length, in samples. */
#define WINDOW_MIN 3
#define WINDOW_MAX 64

struct window {
        struct sample *ring;
        size_t capacity, len, head; /* head: index of the oldest sample */
};

int window_init(struct window *w, size_t capacity);
void window_free(struct window *w);
/* Change capacity, keeping the newest samples. */
int window_resize(struct window *w, size_t capacity);
/* Copy s into the window; returns 1 if the window was restarted because
 * the zone layout changed, 0 otherwise, negative errno on failure. */
int window_push(struct window *w, const struct sample *s);
void window_clear(struct window *w);

/* i = 0 is the oldest sample, len - 1 the newest. */
const struct sample *window_at(const struct window *w, size_t i);
const struct sample *window_newest(const struct window *w);

/* A series over the window: one value per sample. */
typedef double (*series_fn)(const struct sample *s, const void *arg);
int window_fit(const struct window *w, series_fn fn, const void *arg, struct fit *out);

/* Fit a monotonic counter (offset of a uint64_t in struct vmstat): its slope
 * is the rate per second. Steps backwards (reset, wrap) count as zero so a
 * reset never shows as a huge negative rate. */
int window_fit_counter(const struct window *w, size_t vmstat_offset, struct fit *out);

/* Increase of a counter between the two newest samples, exact; 0 if it
 * went back (reset, wrap). */
uint64_t window_last_delta(const struct window *w, size_t vmstat_offset);
