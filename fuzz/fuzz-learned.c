/* The learned state's file (the state directory's `learned`, read by the
 * daemon at start and by `status`): any bytes are refused with "LINE: ..."
 * and nothing half-read, or read into numbers within the format's bounds
 * that learn_format() writes back as a text which reads back the same.
 * (For fuzz/meson.build's harness list: 'learned'.) */
#include <errno.h>
#include <math.h>

#include "fuzz.h"
#include "learn.h"

/* A boot's offset from the monotonic clock to Unix time. */
#define OFFSET 1795435200.0

static bool close_to(double a, double b)
{
        return fabs(a - b) <= 0.0005 + fabs(b) * 1e-12;
}

/* learn_init()'s state: nothing known, nothing kept. */
static bool empty(const struct learned *l)
{
        bool e = l->managed_pages == 0 && l->kswapd_capacity_pages_per_sec == 0 && l->kswapd_updated == 0 &&
                 l->nr_history == 0 && !l->dirty;
        for (int c = 0; c < LEARN_KINDS * LEARN_CLASSES; c++) {
                const struct learn_class *k = &l->classes[c / LEARN_CLASSES][c % LEARN_CLASSES];
                e = e && !k->known && k->wsf == 0 && k->episodes == 0 && k->stalled == 0 && k->updated == 0;
        }
        return e;
}

static void check_bounds(const struct learned *l)
{
        fuzz_check(l->managed_pages <= 1000000000000000ull);
        fuzz_check(l->kswapd_capacity_pages_per_sec >= 0 && l->kswapd_capacity_pages_per_sec <= 1e12);
        fuzz_check(isfinite(l->kswapd_updated));
        for (int c = 0; c < LEARN_KINDS * LEARN_CLASSES; c++) {
                const struct learn_class *k = &l->classes[c / LEARN_CLASSES][c % LEARN_CLASSES];
                fuzz_check(k->known || (k->wsf == 0 && k->episodes == 0 && k->updated == 0));
                fuzz_check(k->wsf >= 0 && k->wsf <= LEARN_WSF_MAX && k->stalled <= k->episodes);
                fuzz_check(isfinite(k->updated));
        }
        fuzz_check(l->nr_history <= LEARN_HISTORY);
        for (size_t i = 0; i < l->nr_history; i++) {
                const struct learn_episode *e = &l->history[i];
                fuzz_check(isfinite(e->start) && e->duration >= 0 && e->duration <= 1e9);
                fuzz_check(e->peak_demand_pages_per_sec >= 0 && e->peak_demand_pages_per_sec <= 1e12);
                fuzz_check(e->peak_thp_pages_per_sec >= 0 && e->peak_thp_pages_per_sec <= 1e12);
                fuzz_check(e->demand_pages >= 0 && e->demand_pages <= 1e15);
                fuzz_check(fabs(e->min_margin_pages) <= 1e15);
                fuzz_check(e->wsf_max >= 0 && e->wsf_max <= LEARN_WSF_MAX && e->stalls <= 1000000000000000ull);
        }
        fuzz_check(!l->dirty);
}

static void check_same(const struct learned *a, const struct learned *b)
{
        fuzz_check(a->managed_pages == b->managed_pages && a->nr_history == b->nr_history);
        fuzz_check(close_to(a->kswapd_capacity_pages_per_sec, b->kswapd_capacity_pages_per_sec));
        for (int c = 0; c < LEARN_KINDS * LEARN_CLASSES; c++) {
                const struct learn_class *x = &a->classes[c / LEARN_CLASSES][c % LEARN_CLASSES],
                                         *y = &b->classes[c / LEARN_CLASSES][c % LEARN_CLASSES];
                fuzz_check(x->known == y->known && x->episodes == y->episodes && x->stalled == y->stalled);
                fuzz_check(close_to(x->wsf, y->wsf) && close_to(x->updated, y->updated));
        }
        for (size_t i = 0; i < a->nr_history; i++) {
                const struct learn_episode *x = &a->history[i], *y = &b->history[i];
                fuzz_check(close_to(x->start, y->start) && close_to(x->duration, y->duration));
                fuzz_check(close_to(x->peak_demand_pages_per_sec, y->peak_demand_pages_per_sec));
                fuzz_check(close_to(x->peak_thp_pages_per_sec, y->peak_thp_pages_per_sec));
                fuzz_check(close_to(x->demand_pages, y->demand_pages));
                fuzz_check(close_to(x->min_margin_pages, y->min_margin_pages));
                fuzz_check(x->wsf_max == y->wsf_max && x->stalls == y->stalls);
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct learned l, again;
        char err[256] = "";
        int r = learn_parse(&l, (const char *)data, size, OFFSET, err, sizeof(err));
        if (r < 0) {
                const char *p = err;
                while (*p >= '0' && *p <= '9')
                        p++;
                fuzz_check(r == -EBADMSG && p > err && p[0] == ':' && p[1] == ' ' && p[2]);
                fuzz_check(empty(&l));
                return 0;
        }
        check_bounds(&l);
        /* written back, it reads back the same, and is then written the same */
        char *text, *text2;
        fuzz_check(learn_format(&l, OFFSET, &text) == 0);
        fuzz_check(strlen(text) <= LEARN_TEXT_MAX);
        fuzz_check(learn_parse(&again, text, strlen(text), OFFSET, err, sizeof(err)) == 0);
        check_same(&again, &l);
        fuzz_check(learn_format(&again, OFFSET, &text2) == 0);
        fuzz_check(strcmp(text, text2) == 0);
        free(text);
        free(text2);
        return 0;
}
