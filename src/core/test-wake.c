/* When a pulse that wakes kswapd starts and ends, on synthetic samples of
 * a node with DMA32 (3 GiB) and Normal (20 GiB) as this VM has them. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "wake.h"
#include "synth.h"

#define NORMAL_MANAGED 5394266
#define DMA32_MANAGED 772917
#define RESERVE (NORMAL_MANAGED / 256)  /* DMA32's against Normal at the boot ratio */

static struct zone node_zones[2];

/* A sample at t: Normal's and DMA32's free pages, kswapd's scan count. */
static struct sample at(double t, long wsf, uint64_t normal_free, uint64_t dma32_free, uint64_t pgscan_kswapd)
{
        synth_named(&node_zones[0], "DMA32", DMA32_MANAGED, 2116, wsf, dma32_free);
        synth_named(&node_zones[1], "Normal", NORMAL_MANAGED, 14769, wsf, normal_free);
        struct sample s = { .time = t, .wsf = wsf, .nr_orders = 11, .nr_zones = 2, .zones = node_zones };
        s.vm.pgscan_kswapd = pgscan_kswapd;
        return s;
}

static const struct wake_params params = { .baseline = 10, .lead = 2.0, .dma32_ratio = 256 };

/* Two samples a second apart, kswapd's scan count 500 at the first: none
 * starts at the first; whether one starts at the second. */
static bool second_starts(long wsf, uint64_t normal_free, uint64_t dma32_from, uint64_t dma32_to,
                          uint64_t pgscan_kswapd)
{
        struct wake_state st;
        struct wake_pulse p;
        wake_init(&st);
        struct sample s = at(0, wsf, normal_free, dma32_from, 500);
        assert_false(wake_step(&st, &s, &params, &p));
        s = at(1, wsf, normal_free, dma32_to, pgscan_kswapd);
        return wake_step(&st, &s, &params, &p);
}

/* Normal's low at wsf 100 */
#define LOW100 (14769 + NORMAL_MANAGED / 100)

/* A raise in force, Normal at its low, DMA32 losing 80000 pages a second
 * with 120000 left above its low and reserve (1.5 s), kswapd asleep. */
static void starts_when_dma32_ends_soon(void **state)
{
        (void)state;
        struct wake_state st;
        struct wake_pulse p;
        wake_init(&st);
        uint64_t d32 = 120000 + 2116 + DMA32_MANAGED / 100 + RESERVE;
        struct sample s = at(0, 100, LOW100, d32 + 80000, 500);
        assert_false(wake_step(&st, &s, &params, &p));         /* nothing to compare with yet */
        s = at(1, 100, LOW100, d32, 500);
        assert_true(wake_step(&st, &s, &params, &p));
        assert_int_equal(p.dma32_fell, 80000);
        assert_true(p.dma32_left > 1.49 && p.dma32_left < 1.51);
        assert_int_equal(p.end_high, node_zones[1].wmark_high);
        assert_int_equal(p.end_floor, 14769 + (LOW100 - 14769) / 4);
        assert_int_equal(st.dma32_free, d32);
}

/* The start of starts_when_dma32_ends_soon with `blocks` order-9 blocks
 * among Normal's free pages; grew: 0 a stray huge fault, 1 huge pages
 * faulted in, 2 the same without THP. Whether it starts; *p as it did. */
static bool huge_start(uint64_t blocks, int grew, struct wake_pulse *p)
{
        struct wake_params thp = params;
        thp.huge_order = 9;
        const struct wake_params *prm = grew == 2 ? &params : &thp;
        struct wake_state st;
        wake_init(&st);
        uint64_t d32 = 120000 + 2116 + DMA32_MANAGED / 100 + RESERVE;
        struct sample s = at(0, 100, LOW100, d32 + 80000, 500);
        s.mem.anon_huge = 1000;
        assert_false(wake_step(&st, &s, prm, p));
        s = at(1, 100, LOW100 - 512, d32, 500);
        node_zones[1].nr_free[0] = LOW100 - 512 - blocks * 512;
        node_zones[1].nr_free[9] = blocks;
        zone_sum_orders(&node_zones[1], 11);
        s.mem.anon_huge = grew ? 1000 + 80000 : 1000 + 256;    /* 256: no more than a stray fault */
        return wake_step(&st, &s, prm, p);
}

/* The same start while huge pages are faulted in watches Normal's huge
 * blocks; without huge pages faulted, or without THP, it does not. */
static void watches_huge_blocks_while_faulted(void **state)
{
        (void)state;
        for (int grew = 0; grew < 3; grew++) {
                struct wake_pulse p;
                assert_true(huge_start(100, grew, &p));
                assert_int_equal(p.huge_order, grew == 1 ? 9 : 0);
                assert_int_equal(p.normal_free_huge, grew == 1 ? 100 * 512 : 0);
        }
}

/* With huge pages faulted in and Normal's huge blocks already at the floor
 * the pulse would end at its first poll, having sent those faults to
 * compact: it does not start. Without huge faults it does. */
static void none_that_would_end_at_once(void **state)
{
        (void)state;
        uint64_t floor_blocks = (14769 + (LOW100 - 14769) / 4) / 512;
        struct wake_pulse p;
        assert_false(huge_start(floor_blocks, 1, &p));
        assert_true(huge_start(floor_blocks + 1, 1, &p));
        assert_true(huge_start(2, 0, &p));
        assert_true(huge_start(2, 2, &p));
}

/* The same fall with 3 s of DMA32 left starts nothing yet. */
static void waits_while_dma32_lasts(void **state)
{
        (void)state;
        struct wake_state st;
        struct wake_pulse p;
        wake_init(&st);
        uint64_t floor = 2116 + DMA32_MANAGED / 100 + RESERVE;
        struct sample s = at(0, 100, LOW100, floor + 320000, 500);
        assert_false(wake_step(&st, &s, &params, &p));
        s = at(1, 100, LOW100, floor + 240000, 500);
        assert_false(wake_step(&st, &s, &params, &p));
        s = at(2, 100, LOW100, floor + 160000, 500);             /* 2.0 s left: not less */
        assert_false(wake_step(&st, &s, &params, &p));
        s = at(3, 100, LOW100, floor + 80000, 500);              /* 1.0 s */
        assert_true(wake_step(&st, &s, &params, &p));
}

/* A page-cache fill at the baseline (no raise in force) never starts one:
 * the kernel's own order of zones is what the defaults do. */
static void none_without_a_raise(void **state)
{
        (void)state;
        uint64_t low10 = 14769 + NORMAL_MANAGED / 1000;
        assert_false(second_starts(10, low10, 200000, 100000, 500));
}

/* kswapd already reclaiming (its scan count moved) needs no waking. */
static void none_while_kswapd_runs(void **state)
{
        (void)state;
        assert_false(second_starts(100, LOW100, 200000, 100000, 9000));
}

/* Normal well above its low (DMA32 is not what serves), or too near its
 * min for a pulse's allocations to come from it: none. */
static void none_unless_normal_at_low_with_room(void **state)
{
        (void)state;
        uint64_t high100 = 14769 + 2 * (NORMAL_MANAGED / 100);
        uint64_t near_min = 14769 + (LOW100 - 14769) / WAKE_SCANT_ROOM;
        assert_false(second_starts(100, high100, 200000, 100000, 500));
        assert_false(second_starts(100, near_min, 200000, 100000, 500));
        /* just inside both bounds: one */
        assert_true(second_starts(100, near_min + 1, 200000, 100000, 500));
}

/* Normal at the baseline's low (the page cache holds it there), a sixteenth
 * of its raised gap above its min or more: a pulse, which ends at half that
 * room; with half the gap, at a quarter of it, as before. */
static void scant_room_has_a_lower_floor(void **state)
{
        (void)state;
        uint64_t gap = LOW100 - 14769, low10 = 14769 + NORMAL_MANAGED / 1000;
        uint64_t d32 = 120000 + 2116 + DMA32_MANAGED / 100 + RESERVE;
        uint64_t normal[] = { low10, LOW100 };
        uint64_t floor[] = { 14769 + gap / 32, 14769 + gap / 4 };
        for (size_t i = 0; i < 2; i++) {
                struct wake_state st;
                struct wake_pulse p;
                wake_init(&st);
                struct sample s = at(0, 100, normal[i], d32 + 80000, 500);
                assert_false(wake_step(&st, &s, &params, &p));
                s = at(1, 100, normal[i], d32, 500);
                assert_true(wake_step(&st, &s, &params, &p));
                assert_int_equal(p.end_floor, floor[i]);
                assert_int_equal(wake_end_due(&p, floor[i], 0, 0.1), WAKE_END_NEAR_MIN);
                assert_int_equal(wake_end_due(&p, floor[i] + 1, 0, 0.1), WAKE_HOLD);
        }
}

/* No DMA32 zone (most arm64 and large-memory layouts differ), a stray
 * fall of a few pages, or samples a moment apart: none. */
static void none_without_evidence(void **state)
{
        (void)state;
        struct wake_state st;
        struct wake_pulse p;
        wake_init(&st);
        struct sample s = at(0, 100, LOW100, 30000, 500);
        s.nr_zones = 1;
        strcpy(node_zones[0].name, "Normal");
        assert_false(wake_step(&st, &s, &params, &p));
        assert_false(st.seen);

        wake_init(&st);
        s = at(0, 100, LOW100, 30000, 500);
        assert_false(wake_step(&st, &s, &params, &p));
        s = at(1, 100, LOW100, 30000 - 200, 500);
        assert_false(wake_step(&st, &s, &params, &p));
        s = at(1.01, 100, LOW100, 10000, 500);
        assert_false(wake_step(&st, &s, &params, &p));
}

static void ends(void **state)
{
        (void)state;
        struct wake_pulse p = { .end_high = 1000, .end_floor = 100 };
        assert_int_equal(wake_end_due(&p, 500, 0, 0.02), WAKE_HOLD);  /* huge blocks not watched */
        assert_int_equal(wake_end_due(&p, 1000, 0, 0.02), WAKE_END_HIGH);
        assert_int_equal(wake_end_due(&p, 100, 0, 0.5), WAKE_END_NEAR_MIN);
        assert_int_equal(wake_end_due(&p, 500, 0, WAKE_MAX_SECONDS), WAKE_END_TIMEOUT);
        assert_int_equal(wake_end_due(&p, 2000, 0, WAKE_MAX_SECONDS), WAKE_END_HIGH);
        /* started while huge pages were faulted in: Normal's huge blocks at
         * the floor end it, though its free memory is above it */
        p.huge_order = 9;
        assert_int_equal(wake_end_due(&p, 500, 101, 0.02), WAKE_HOLD);
        assert_int_equal(wake_end_due(&p, 500, 100, 0.02), WAKE_END_NO_HUGE);
        assert_int_equal(wake_end_due(&p, 1000, 0, 0.02), WAKE_END_HIGH);      /* at its high: kswapd's work done */
        assert_string_equal(wake_end_field(WAKE_END_NO_HUGE), "no-huge");
        assert_string_equal(wake_end_name(WAKE_END_NEAR_MIN), "Normal near its min");
        /* each end its own journal field, an unreadable Normal not "near min" */
        assert_string_equal(wake_end_field(WAKE_END_HIGH), "high");
        assert_string_equal(wake_end_field(WAKE_END_NEAR_MIN), "near-min");
        assert_string_equal(wake_end_field(WAKE_END_TIMEOUT), "timeout");
        assert_string_equal(wake_end_field(WAKE_END_UNREADABLE), "unreadable");
        assert_string_equal(wake_end_name(WAKE_END_UNREADABLE), "Normal's free memory unreadable");
}

/* The sysctl's text as the kernel writes it, and what is not it. */
static void ratio_text(void **state)
{
        (void)state;
        struct lowmem_ratio r, c;
        char buf[64];
        assert_int_equal(lowmem_ratio_parse("256\t256\t32\t0\t0\n", &r), 0);
        assert_int_equal(r.n, 5);
        assert_int_equal(r.v[1], 256);
        assert_int_equal(r.v[2], 32);
        lowmem_ratio_format(&r, buf, sizeof(buf));
        assert_string_equal(buf, "256 256 32 0 0\n");
        assert_int_equal(lowmem_ratio_closed(&r, 2, &c), 0);
        lowmem_ratio_format(&c, buf, sizeof(buf));
        assert_string_equal(buf, "1 1 32 0 0\n");
        assert_false(lowmem_ratio_equal(&r, &c));
        assert_int_equal(lowmem_ratio_parse(buf, &c), 0);
        assert_true(lowmem_ratio_equal(&c, &c));
        assert_int_equal(lowmem_ratio_closed(&r, 0, &c), -EINVAL);     /* nothing below */
        assert_int_equal(lowmem_ratio_closed(&r, 5, &c), -EINVAL);
        const char *bad[] = { "", "\n", "256 -1 32\n", "256 x\n", "256 256\n32\n", "2147483648\n",
                              "1 2 3 4 5 6 7 8 9\n", "256 0x10\n", "256,256\n" };
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
                assert_int_equal(lowmem_ratio_parse(bad[i], &r), -EBADMSG);
        assert_int_equal(lowmem_ratio_parse("2147483647", &r), 0);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(starts_when_dma32_ends_soon),
                cmocka_unit_test(watches_huge_blocks_while_faulted),
                cmocka_unit_test(none_that_would_end_at_once),
                cmocka_unit_test(waits_while_dma32_lasts),
                cmocka_unit_test(none_without_a_raise),
                cmocka_unit_test(none_while_kswapd_runs),
                cmocka_unit_test(none_unless_normal_at_low_with_room),
                cmocka_unit_test(scant_room_has_a_lower_floor),
                cmocka_unit_test(none_without_evidence),
                cmocka_unit_test(ends),
                cmocka_unit_test(ratio_text),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
