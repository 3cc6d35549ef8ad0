/* The step the daemon and replay share: its returns, the layout restart,
 * that it decides exactly as window -> forecast -> policy by hand, and the
 * resolution of compaction_max_order from numbers. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "engine.h"
#include "synth.h"

static void max_order(void **state)
{
        (void)state;
        assert_int_equal(engine_max_order(ENGINE_ORDER_AUTO, 11, 4096, 2 << 20), 9);
        assert_int_equal(engine_max_order(ENGINE_ORDER_AUTO, 11, 4096, 0), 9);     /* no THP: 11 - 2 */
        assert_int_equal(engine_max_order(ENGINE_ORDER_AUTO, 14, 65536, 512 << 20), 13);
        assert_int_equal(engine_max_order(ENGINE_ORDER_AUTO, 11, 4096, 1L << 40), 9); /* beyond the orders */
        assert_int_equal(engine_max_order(4, 11, 4096, 2 << 20), 4);
        assert_int_equal(engine_max_order(20, 11, 4096, 2 << 20), 10);            /* capped */
}

/* The parameters of memoptimizer.conf's defaults (window 8), THP order 9. */
static void default_params(struct engine_params *p, bool writes)
{
        *p = (struct engine_params){
                .forecast = { .min_r2 = 0.6, .min_points = 8 },
                .policy = { .interval = 1, .horizon = 10, .calm_period = 30, .lead_time = 10,
                            .max_wsf = 1000, .oom_headroom = 0.05, .compaction = true,
                            .writes = writes },
                .max_order = 9,
        };
}

/* Free pages fall fast enough to be an episode the engine raises for: its
 * decisions equal those of the three steps called by hand, sample by
 * sample, and it has none before two samples. */
static void same_as_by_hand(void **state)
{
        (void)state;
        struct engine e;
        assert_int_equal(engine_init(&e, 8, 10, 10), 0);
        struct engine_params p;
        default_params(&p, true);
        struct forecast_params fp = p.forecast;
        fp.max_order = 9;
        struct window w;
        struct forecast f = { 0 };
        struct policy_state st;
        assert_int_equal(window_init(&w, 8), 0);
        policy_init(&st, 10, 10);
        long wsf = 10;
        int raised = 0;
        for (int t = 0; t <= 12; t++) {
                /* 400000 pages/s: more than kswapd's prior capacity */
                struct synth_zone z = { .managed = 6000000, .wmark_min = 16000,
                                        .free_pages = 5000000 - 400000 * (uint64_t)t };
                struct sample s;
                synth_sample(&s, t, wsf, &z, 1, NULL, 20000000);
                struct decision a, b;
                bool restarted;
                int r = engine_step(&e, &p, &s, &a, &restarted);
                assert_false(restarted);
                assert_int_equal(r, t >= 1 ? 1 : 0);
                assert_true(window_push(&w, &s) >= 0);
                if (forecast_compute(&w, &fp, &f) < 0)
                        continue;
                policy_decide(&st, &p.policy, &f, &b);
                assert_memory_equal(&a, &b, sizeof(a));
                if (a.reason != WSF_KEEP)
                        wsf = a.wsf_new, raised++;
        }
        assert_true(raised >= 1);
        window_free(&w);
        forecast_free(&f);
        engine_free(&e);
}

static void layout_change_restarts(void **state)
{
        (void)state;
        struct engine e;
        assert_int_equal(engine_init(&e, 4, 10, 10), 0);
        struct engine_params p;
        default_params(&p, false);
        struct synth_zone z[2] = {
                { .node = 0, .managed = 6000000, .wmark_min = 16000, .free_pages = 400000 },
                { .node = 1, .managed = 6000000, .wmark_min = 16000, .free_pages = 400000 },
        };
        struct sample s;
        struct decision d;
        bool restarted;
        synth_sample(&s, 0, 10, z, 1, NULL, 20000000);
        assert_int_equal(engine_step(&e, &p, &s, &d, &restarted), 0);
        synth_sample(&s, 1, 10, z, 1, NULL, 20000000);
        assert_int_equal(engine_step(&e, &p, &s, &d, &restarted), 1);
        synth_sample(&s, 2, 10, z, 2, NULL, 20000000);     /* a node came */
        assert_int_equal(engine_step(&e, &p, &s, &d, &restarted), 0);
        assert_true(restarted);
        assert_int_equal(e.window.len, 1);
        engine_free(&e);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(max_order),
                cmocka_unit_test(same_as_by_hand),
                cmocka_unit_test(layout_change_restarts),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
