#include "window.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

int fit_line(const double *x, const double *y, size_t n, struct fit *out)
{
        if (n < 2)
                return -EINVAL;
        double mx = 0, my = 0;
        for (size_t i = 0; i < n; i++) {
                mx += x[i];
                my += y[i];
        }
        mx /= (double)n;
        my /= (double)n;

        double sxx = 0, sxy = 0, syy = 0;
        for (size_t i = 0; i < n; i++) {
                double dx = x[i] - mx, dy = y[i] - my;
                sxx += dx * dx;
                sxy += dx * dy;
                syy += dy * dy;
        }
        if (sxx <= 0)
                return -EINVAL;

        double b = sxy / sxx;
        double ssres = syy - b * sxy;   /* = sum of squared residuals */
        if (ssres < 0)
                ssres = 0;
        double sd = n > 2 ? dsqrt(ssres / (double)(n - 2)) : 0.0;
        *out = (struct fit){
                .n = (unsigned)n,
                .slope = b,
                .last = my + b * (x[n - 1] - mx),
                .r2 = syy > 0 ? 1.0 - ssres / syy : 0.0,
                .resid_sd = sd,
                .slope_se = sd / dsqrt(sxx),
        };
        return 0;
}

int window_init(struct window *w, size_t capacity)
{
        *w = (struct window){ 0 };
        if (capacity < WINDOW_MIN || capacity > WINDOW_MAX)
                return -EINVAL;
        w->ring = calloc(capacity, sizeof(*w->ring));
        if (!w->ring)
                return -ENOMEM;
        w->capacity = capacity;
        return 0;
}

void window_clear(struct window *w)
{
        for (size_t i = 0; i < w->capacity; i++)
                sample_free(&w->ring[i]);
        w->len = w->head = 0;
}

void window_free(struct window *w)
{
        if (w->ring)
                window_clear(w);
        free(w->ring);
        *w = (struct window){ 0 };
}

const struct sample *window_at(const struct window *w, size_t i)
{
        return i < w->len ? &w->ring[(w->head + i) % w->capacity] : NULL;
}

const struct sample *window_newest(const struct window *w)
{
        return w->len ? window_at(w, w->len - 1) : NULL;
}

int window_resize(struct window *w, size_t capacity)
{
        struct window nw;
        int r = window_init(&nw, capacity);
        if (r < 0)
                return r;
        size_t keep = w->len < capacity ? w->len : capacity;
        for (size_t i = w->len - keep; i < w->len; i++) {
                /* Move, not copy: the zones arrays change owner. */
                nw.ring[nw.len++] = *window_at(w, i);
                w->ring[(w->head + i) % w->capacity] = (struct sample){ 0 };
        }
        window_free(w);
        *w = nw;
        return 0;
}

int window_push(struct window *w, const struct sample *s)
{
        int restarted = 0;
        const struct sample *newest = window_newest(w);
        if (newest && !sample_same_layout(newest, s)) {
                window_clear(w);
                restarted = 1;
        }
        size_t slot = (w->head + w->len) % w->capacity;
        if (w->len == w->capacity) {
                slot = w->head;
                w->head = (w->head + 1) % w->capacity;
                w->len--;
        }
        int r = sample_copy(&w->ring[slot], s);
        if (r < 0)
                return r;
        w->len++;
        return restarted;
}

static double counter_at(const struct sample *s, size_t off)
{
        uint64_t v;
        memcpy(&v, (const char *)&s->vm + off, sizeof(v));
        return (double)v;
}

uint64_t window_last_delta(const struct window *w, size_t off)
{
        if (w->len < 2)
                return 0;
        uint64_t a, b;
        /* In integers: a difference taken in double can round up to 2^64,
         * which no uint64_t holds (a wrapped counter did exactly that). */
        memcpy(&a, (const char *)&window_at(w, w->len - 2)->vm + off, sizeof(a));
        memcpy(&b, (const char *)&window_at(w, w->len - 1)->vm + off, sizeof(b));
        return b > a ? b - a : 0;
}

int window_fit(const struct window *w, series_fn fn, const void *arg, struct fit *out)
{
        double x[WINDOW_MAX], y[WINDOW_MAX];
        for (size_t i = 0; i < w->len; i++) {
                const struct sample *s = window_at(w, i);
                x[i] = s->time;
                y[i] = fn(s, arg);
        }
        return fit_line(x, y, w->len, out);
}

int window_fit_counter(const struct window *w, size_t off, struct fit *out)
{
        double x[WINDOW_MAX], y[WINDOW_MAX];
        double acc = 0;
        for (size_t i = 0; i < w->len; i++) {
                const struct sample *s = window_at(w, i);
                if (i > 0) {
                        double d = counter_at(s, off) - counter_at(window_at(w, i - 1), off);
                        acc += d > 0 ? d : 0;
                }
                x[i] = s->time;
                y[i] = acc;
        }
        return fit_line(x, y, w->len, out);
}
