/* Sample assembly and everything downstream of it. The input is
 *
 *   buddyinfo text NUL zoneinfo text NUL record...
 *
 * and each record is one sample's worth of what libproc2 hands the reader
 * (the /proc/vmstat and /proc/meminfo counters, any 64-bit values: wraps,
 * resets and nonsense included), plus the time step, the scale factor and a
 * shift applied to the free counts. Every record becomes a sample assembled
 * by sample_assemble(), pushed into a window, forecast and decided on, as
 * the daemon does each interval. Nothing may crash, and the decision must
 * stay within its bounds. */
#include <math.h>
#include <stddef.h>

#include "forecast.h"
#include "fuzz.h"
#include "policy.h"
#include "sample.h"
#include "window.h"

#define MAX_RECORDS 24

struct cursor {
        const uint8_t *p;
        size_t left;
};

/* Missing bytes read as zero: a short record is still a record. */
static uint64_t take(struct cursor *c, size_t n)
{
        uint64_t v = 0;
        for (size_t i = 0; i < n; i++) {
                v = v << 8 | (c->left ? *c->p : 0);
                if (c->left)
                        c->p++, c->left--;
        }
        return v;
}

static void take_counters(struct cursor *c, uint64_t *v, size_t n)
{
        for (size_t i = 0; i < n; i++)
                v[i] = take(c, 8);
}

static const char *split(const char *p, const char *end)
{
        const char *nul = memchr(p, '\0', (size_t)(end - p));
        return nul ? nul : end;
}

static void run(const struct buddyinfo *b0, const struct zoneinfo *zi, struct cursor *c)
{
        unsigned wlen = WINDOW_MIN + (unsigned)(take(c, 1) % (WINDOW_MAX - WINDOW_MIN + 1));
        struct policy_config pc = {
                .interval = 1, .horizon = 1 + (double)(take(c, 1) % 60), .calm_period = 2,
                .lead_time = 10, .max_wsf = 1 + (long)(take(c, 2) % 3000),
                .oom_headroom = (double)(take(c, 1) % 51) / 100.0, .compaction = true, .writes = true,
        };
        struct forecast_params fp = { .min_r2 = (double)(take(c, 1) % 101) / 100.0,
                                      .min_points = wlen, .max_order = (unsigned)take(c, 1) % ORDER_CAP };
        struct window w;
        struct forecast f = { 0 };
        struct policy_state st;
        struct buddyinfo b = *b0;
        b.zones = malloc(b0->nr_zones * sizeof(*b.zones));
        fuzz_check(b.zones);
        if (window_init(&w, wlen) < 0)
                abort();
        double t = 1000;
        bool started = false;
        policy_init(&st, 0, 0);
        for (int i = 0; i < MAX_RECORDS && c->left > 0; i++) {
                struct sample s = { 0 };
                unsigned shift = (unsigned)take(c, 1) % 8;
                for (size_t z = 0; z < b.nr_zones; z++) {
                        b.zones[z] = b0->zones[z];
                        for (unsigned k = 0; k < b.nr_orders; k++)
                                b.zones[z].nr_free[k] >>= shift;
                }
                t += (double)take(c, 2) / 1000.0;       /* 0 ms steps included */
                s.time = t;
                s.wsf = (long)(take(c, 2) % 3001);
                take_counters(c, (uint64_t *)&s.vm, sizeof(s.vm) / sizeof(uint64_t));
                take_counters(c, (uint64_t *)&s.mem, offsetof(struct meminfo, parts_known) / sizeof(uint64_t));
                s.mem.parts_known = take(c, 1) & 1;
                /* after parts_known in the struct, so taken on their own:
                 * the reclaim cap (0.4.9) sums anonymous memory against it */
                s.mem.swap_free = take(c, 8);
                s.mem.swap_known = take(c, 1) & 1;
                if (sample_assemble(&s, &b, zi) < 0)
                        break;
                fuzz_check(s.nr_zones > 0 && s.nr_zones <= b.nr_zones);
                if (!started) {
                        policy_init(&st, s.wsf, s.wsf);
                        started = true;
                }
                int r = window_push(&w, &s);
                sample_free(&s);
                fuzz_check(r >= 0);
                if (forecast_compute(&w, &fp, &f) < 0)
                        continue;
                struct decision d;
                long baseline = st.baseline;
                policy_decide(&st, &pc, &f, &d);
                fuzz_check(d.nr_compact <= f.nr_nodes && d.nr_backoff <= f.nr_nodes);
                if (d.reason == WSF_ADOPT)
                        continue;
                fuzz_check(st.baseline == baseline);
                if (d.reason == WSF_RAISE_FORECAST || d.reason == WSF_RAISE_STALL)
                        fuzz_check(d.wsf_new > d.wsf_old && d.wsf_new <= d.ceiling &&
                                   (d.wsf_new <= pc.max_wsf || d.wsf_new <= baseline));
                if (d.reason == WSF_LOWER_CALM || d.reason == WSF_LOWER_GUARD)
                        fuzz_check(d.wsf_new < d.wsf_old && d.wsf_new >= 0);
        }
        forecast_free(&f);
        window_free(&w);
        free(b.zones);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        char *text = fuzz_text(data, size);
        const char *end = text + size;
        const char *bud = text, *bud_end = split(bud, end);
        if (bud_end == end) {
                free(text);
                return 0;
        }
        const char *zi_text = bud_end + 1, *zi_end = split(zi_text, end);
        struct cursor c = { (const uint8_t *)zi_end + (zi_end < end), 0 };
        c.left = (size_t)((const char *)end - (const char *)c.p);
        struct buddyinfo b;
        struct zoneinfo zi;
        /* Both texts are NUL-terminated in place: bud_end and zi_end are a
         * NUL of the input or the terminator fuzz_text() added. */
        if (buddyinfo_parse(bud, &b) == 0) {
                if (zoneinfo_parse(zi_text, &zi) == 0) {
                        run(&b, &zi, &c);
                        zoneinfo_free(&zi);
                }
                buddyinfo_free(&b);
        }
        free(text);
        return 0;
}
