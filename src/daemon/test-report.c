/* report: every kind of decision becomes one readable line (stderr here, as
 * without journald) built with all its journal fields; run under ASan, this
 * also checks that the fields fit (a raise once overflowed them). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include <cmocka.h>

#include "report.h"

/* Runs fn with stderr sent to a temporary file; returns what it wrote. */
static void capture(void (*fn)(const struct logger *), char *out, size_t size)
{
        FILE *tmp = tmpfile();
        assert_non_null(tmp);
        fflush(stderr);
        int saved = dup(STDERR_FILENO);
        assert_true(saved >= 0);
        assert_true(dup2(fileno(tmp), STDERR_FILENO) >= 0);
        struct logger l = { .level = LOG_DEBUG, .journal = false };
        fn(&l);
        fflush(stderr);
        assert_true(dup2(saved, STDERR_FILENO) >= 0);
        close(saved);
        rewind(tmp);
        size_t n = fread(out, 1, size - 1, tmp);
        out[n] = '\0';
        fclose(tmp);
}

static void raise_by_forecast(const struct logger *l)
{
        struct decision d = {
                .reason = WSF_RAISE_FORECAST, .wsf_old = 10, .wsf_new = 596, .ceiling = 1000,
                .node = 0, .zone = "Normal", .secs_to_low = 6.4, .secs_to_min = 7.1,
                .drain = 89286, .reclaim = 0, .reclaim_peak = 1000, .cover = 4, .stalls = 0,
                .demand_class = -1, .learned_wsf = -1,
        };
        report_wsf(l, &d, true);
}

static void raise_by_learning(const struct logger *l)
{
        struct decision d = {
                .reason = WSF_RAISE_LEARNED, .wsf_old = 10, .wsf_new = 242, .ceiling = 1000,
                .node = -1, .drain = 600000, .demand_class = 9, .learned_wsf = 242, .onset = true,
        };
        report_wsf(l, &d, true);
}

/* A kind not seen, sized by a faster class's value, and by a slower one's */
static void raise_by_neighbour(const struct logger *l)
{
        struct decision d = {
                .reason = WSF_RAISE_LEARNED, .wsf_old = 10, .wsf_new = 432, .ceiling = 1000,
                .node = -1, .drain = 84000, .demand_class = 7, .learned_wsf = 432, .learned_above = 2,
                .onset = true,
        };
        report_wsf(l, &d, true);
        d.wsf_new = d.learned_wsf = 100;
        d.learned_above = -1;
        report_wsf(l, &d, true);
        /* of huge pages, sized by what base-page episodes of its class needed */
        d.wsf_new = d.learned_wsf = 151;
        d.learned_above = 0;
        d.demand_kind = LEARN_THP;
        report_wsf(l, &d, true);
        /* and once its kind has learnt the class */
        d.learned_kind = LEARN_THP;
        d.wsf_new = d.learned_wsf = 120;
        report_wsf(l, &d, true);
}

static void episode_over(const struct logger *l)
{
        struct decision d = { .reason = WSF_KEEP, .node = -1, .episode_ended = true, .learned_wsf = 242,
                              .episode = { .start = 5, .end = 9.5, .peak_demand_pages_per_sec = 600000,
                                           .demand_pages = 1500000, .kswapd_peak_pages_per_sec = 250000,
                                           .min_margin_pages = 484000, .gap_pages = 600000,
                                           .wsf_max = 1000, .allocstalls = 0, .direct_pages = 0,
                                           .managed_pages = 6000000 } };
        report_episode(l, &d);
}

/* Given back to what the next episode of a train needs, not to the
 * baseline (policy.c) */
static void lower_to_recurrence(const struct logger *l)
{
        struct decision d = {
                .reason = WSF_LOWER_CALM, .wsf_old = 474, .wsf_new = 214, .ceiling = 1000, .node = -1,
                .demand_class = 9, .learned_wsf = 214, .recur_due_in = 1,
                .recur = { .expected = true, .period = 6, .episodes = 3 },
        };
        report_wsf(l, &d, true);
        d.recur_due_in = -0.5;          /* late, within the pattern's tolerance */
        report_wsf(l, &d, true);
        d.wsf_new = 10;
        d.recur = (struct recurrence){ 0 };
        report_wsf(l, &d, true);
        d.wsf_old = 214;
        d.recur_overdue = true;         /* raised for one that never came */
        report_wsf(l, &d, true);
        d.recur_overdue = false;
        d.recur_came = true;            /* it came, and its demand stopped */
        d.wsf_old = 215;
        report_wsf(l, &d, true);
}

static void raise_by_stall(const struct logger *l)
{
        struct decision d = {
                .reason = WSF_RAISE_STALL, .wsf_old = 10, .wsf_new = 71, .ceiling = 1000,
                .node = -1, .direct = 43000, .reclaim = 600000, .cover = 1, .stalls = 65,
                .demand_class = -1, .learned_wsf = -1,
        };
        report_wsf(l, &d, false);
}

static void compact_and_backoff(const struct logger *l)
{
        struct compact_order c = { .node = 1, .order = 9, .secs_to_exhaust = 3.5,
                                   .free_at_order = 4096, .extfrag = 0.8 };
        report_compact(l, &c, true, false, 0.25, 0);
        struct compact_backoff b = { .node = 1, .order = 9, .defer_shift = 1, .before = 4096,
                                     .after = 4096, .retry_in = 0.5 };
        report_backoff(l, &b);
}

/* Compaction asked for by stalls, not a forecast, and one that made blocks
 * but too slowly: each line says which (it once read "run out in never"
 * and "did not help" for 152576 -> 437248 pages). */
static void compact_stalled_and_slow(const struct logger *l)
{
        struct compact_order c = { .node = 0, .order = 9, .secs_to_exhaust = INFINITY,
                                   .free_at_order = 152576, .extfrag = 0.81, .stalled = true };
        report_compact(l, &c, true, false, 1.4, 0);
        struct compact_backoff b = { .node = 0, .order = 9, .defer_shift = 1, .before = 152576,
                                     .after = 437248, .retry_in = 2, .too_slow = true };
        report_backoff(l, &b);
}

/* A compaction judged by the huge pages faulted in after it, its blocks
 * not shown: the line says what the faults showed. */
static void backoff_by_faults(const struct logger *l)
{
        struct compact_backoff b = { .node = 0, .order = 9, .defer_shift = 1, .before = 843776,
                                     .after = 843776, .retry_in = 2, .fault_stalls = 1350, .faulted_blocks = 3550 };
        report_backoff(l, &b);
        /* the longest counts a back-off can carry: its words are not cut */
        b.order = 10;
        b.fault_stalls = UINT64_MAX;
        b.faulted_blocks = 1e18;
        report_backoff(l, &b);
}

/* A compaction asked for at a fill's release: no forecast to quote. */
static void compact_released(const struct logger *l)
{
        struct compact_order c = { .node = 0, .order = 9, .secs_to_exhaust = INFINITY,
                                   .free_at_order = 788480, .extfrag = 0.86, .released = true };
        report_compact(l, &c, true, false, 0.5, 0);
}

/* A pulse that wakes kswapd and its end, with 4 KiB pages. */
static void wake_pulse(const struct logger *l)
{
        struct wake_pulse p = { .node = 0, .normal_free = 68600, .normal_min = 14769, .normal_low = 68711,
                                .normal_high = 122653, .dma32_free = 150000, .dma32_fell = 80000,
                                .interval = 1.0, .dma32_left = 1.2, .end_high = 122653, .end_floor = 28254 };
        report_wake(l, &p, 4096, true);
        report_wake_end(l, &p, WAKE_END_HIGH, 124000, 0, 0.412, 4096, 0);
        report_wake_end(l, &p, WAKE_END_UNREADABLE, 0, 0, 0.02, 4096, 0);
        report_wake(l, &p, 4096, false);
        /* one started while huge pages were faulted in */
        p.huge_order = 9;
        p.normal_free_huge = 61440;
        report_wake(l, &p, 4096, true);
        report_wake_end(l, &p, WAKE_END_NO_HUGE, 90000, 25600, 0.08, 4096, 0);
}

/* Raises held back and allowed again: said once each, nothing while it
 * stays as it was. */
static void hold_changes(const struct logger *l)
{
        struct decision d = { .hold = HOLD_NODE_UNRECLAIMABLE, .hold_changed = true, .hold_node = 1,
                              .wsf_new = 10 };
        report_hold(l, &d);
        d.hold_changed = false;
        report_hold(l, &d);
        d = (struct decision){ .hold = HOLD_KSWAPD_FAILING, .hold_changed = true, .hold_node = -1,
                               .hold_scan = 300000, .hold_steal = 3000, .wsf_new = 10 };
        report_hold(l, &d);
        d = (struct decision){ .hold = HOLD_NONE, .hold_changed = true, .hold_node = -1, .wsf_new = 10 };
        report_hold(l, &d);
        d = (struct decision){ .hold = HOLD_NOTHING_TO_RECLAIM, .hold_changed = true, .hold_node = -1,
                               .kswapd_reclaimable = 2500, .wsf_old = 10, .wsf_new = 10 };
        report_hold(l, &d);
        d = (struct decision){ .hold = HOLD_NONE, .hold_was = HOLD_NOTHING_TO_RECLAIM, .hold_changed = true,
                               .hold_node = -1, .wsf_new = 10 };
        report_hold(l, &d);
}

/* A raise no higher than what kswapd could reclaim. */
static void raise_reclaim_capped(const struct logger *l)
{
        struct decision d = {
                .reason = WSF_RAISE_FORECAST, .wsf_old = 10, .wsf_new = 260, .ceiling = 1000, .node = -1,
                .drain = 600000, .reclaim_peak = 300000, .cover = 1, .reclaim_cap = 260, .reclaim_capped = true,
                .kswapd_reclaimable = 600000,
        };
        report_wsf(l, &d, true);
}

static void raise_paced(const struct logger *l)
{
        struct decision d = {
                .reason = WSF_RAISE_LEARNED, .wsf_old = 10, .wsf_new = POLICY_PACE_FLOOR, .ceiling = 1000,
                .node = -1, .drain = 60000, .demand_class = 6, .learned_wsf = 40, .onset = true, .paced = true,
        };
        report_wsf(l, &d, true);
}

static const char *field_value(const struct log_field *f, size_t n, const char *name)
{
        for (size_t i = 0; i < n; i++)
                if (strcmp(f[i].name, name) == 0)
                        return f[i].value;
        return NULL;
}

/* The most fields one decision has: a forecast raise for a zone, of a
 * class with a learnt value, lifted to the pace floor. None is dropped
 * (STALLS was, past 16, before 0.3.9). */
static void fields_all_kept(void **state)
{
        (void)state;
        struct decision d = {
                .reason = WSF_RAISE_FORECAST, .wsf_old = 10, .wsf_new = POLICY_PACE_FLOOR, .ceiling = 1000,
                .node = 0, .zone = "Normal", .secs_to_low = 6.4, .secs_to_min = 7.1, .drain = 89286,
                .thp = 80000, .reclaim = 0, .reclaim_peak = 1000, .cover = 1, .stalls = 7,
                .demand_class = 7, .learned_wsf = 40, .paced = true,
        };
        struct log_field f[REPORT_FIELDS_MAX];
        size_t n = report_wsf_fields(f, &d, true);
        assert_int_equal(n, 19);
        assert_string_equal(field_value(f, n, "STALLS"), "7");
        assert_string_equal(field_value(f, n, "PACE_FLOOR"), "100");
        assert_string_equal(field_value(f, n, "LEARNED_WSF"), "40");
        /* the floor cut short by what kswapd could reclaim: the most fields */
        d.reclaim_capped = true;
        d.reclaim_cap = POLICY_PACE_FLOOR;
        d.kswapd_reclaimable = 400000;
        n = report_wsf_fields(f, &d, true);
        assert_int_equal(n, REPORT_FIELDS_MAX);
        assert_string_equal(field_value(f, n, "RECLAIM_CAP"), "100");
        assert_string_equal(field_value(f, n, "KSWAPD_RECLAIMABLE_PAGES"), "400000");
        d.reclaim_capped = false;
        d.paced = false;
        n = report_wsf_fields(f, &d, true);
        assert_null(field_value(f, n, "PACE_FLOOR"));
        assert_null(field_value(f, n, "RECLAIM_CAP"));
        assert_string_equal(field_value(f, n, "STALLS"), "7");
        /* a raise for a recurring episode that came, given back */
        d.reason = WSF_LOWER_CALM;
        d.recur_came = true;
        n = report_wsf_fields(f, &d, true);
        assert_string_equal(field_value(f, n, "RECUR_CAME"), "1");
        assert_null(field_value(f, n, "RECUR_OVERDUE"));
}

/* LEARNED_CLASS names the class a raise-learned took its value from when
 * it is not the episode's own; only then, and only for raise-learned. */
static void learned_class_field(void **state)
{
        (void)state;
        struct decision d = {
                .reason = WSF_RAISE_LEARNED, .wsf_old = 10, .wsf_new = 432, .ceiling = 1000,
                .node = -1, .drain = 84000, .demand_class = 7, .learned_wsf = 432, .learned_above = 2,
        };
        struct log_field f[REPORT_FIELDS_MAX];
        size_t n = report_wsf_fields(f, &d, true);
        assert_string_equal(field_value(f, n, "LEARNED_CLASS"), "9");
        assert_string_equal(field_value(f, n, "DEMAND_CLASS"), "7");
        d.learned_above = -1;
        n = report_wsf_fields(f, &d, true);
        assert_string_equal(field_value(f, n, "LEARNED_CLASS"), "6");
        assert_string_equal(field_value(f, n, "DEMAND_KIND"), "base");
        assert_string_equal(field_value(f, n, "LEARNED_KIND"), "base");
        d.learned_above = 0;
        n = report_wsf_fields(f, &d, true);
        assert_null(field_value(f, n, "LEARNED_CLASS"));
        assert_null(field_value(f, n, "LEARNED_KIND"));
        /* its own class, of the other kind */
        d.demand_kind = LEARN_THP;
        n = report_wsf_fields(f, &d, true);
        assert_string_equal(field_value(f, n, "DEMAND_KIND"), "thp");
        assert_string_equal(field_value(f, n, "LEARNED_CLASS"), "7");
        assert_string_equal(field_value(f, n, "LEARNED_KIND"), "base");
        d.learned_above = 2;
        d.reason = WSF_RAISE_FORECAST;
        n = report_wsf_fields(f, &d, true);
        assert_null(field_value(f, n, "LEARNED_CLASS"));
}

static void lines(void **state)
{
        (void)state;
        char out[4096];
        capture(raise_by_forecast, out, sizeof(out));
        assert_non_null(strstr(out, "raise vm.watermark_scale_factor 10 -> 596: a pressure episode the value in force does not cover"));
        assert_non_null(strstr(out, "the gap grows by 4 s of the shortfall"));
        capture(raise_by_learning, out, sizeof(out));
        assert_non_null(strstr(out, "raise vm.watermark_scale_factor 10 -> 242 at onset: a pressure episode like earlier ones"));
        assert_non_null(strstr(out, "class 9): they needed 242"));
        capture(raise_by_neighbour, out, sizeof(out));
        assert_non_null(strstr(out, "10 -> 432 at onset: a pressure episode of a kind not seen (demand 344 MB/s, "
                                    "class 7), slower than earlier ones (class 9): what they needed, 432\n"));
        assert_non_null(strstr(out, "10 -> 100 at onset: a pressure episode of a kind not seen (demand 344 MB/s, "
                                    "class 7), faster than earlier ones (class 6): what they needed, 100\n"));
        assert_non_null(strstr(out, "10 -> 151 at onset: a pressure episode of a kind not seen (demand 344 MB/s, "
                                    "THP class 7), in other pages than earlier ones (class 7): what they needed, 151\n"));
        assert_non_null(strstr(out, "10 -> 120 at onset: a pressure episode like earlier ones (demand 344 MB/s, "
                                    "THP class 7): they needed 120\n"));
        capture(raise_paced, out, sizeof(out));
        assert_non_null(strstr(out, "raise vm.watermark_scale_factor 10 -> 100 at onset: a pressure episode like "
                                    "earlier ones (demand 246 MB/s, class 6): they needed 40; lifted to the pace "
                                    "floor (100): below it kswapd, once woken, sleeps again after one pass\n"));
        capture(lower_to_recurrence, out, sizeof(out));
        assert_non_null(strstr(out, "lower vm.watermark_scale_factor 474 -> 214: the workload stopped taking memory: "
                                    "no demand, stall or raise for the calm period; a recurring pressure episode "
                                    "(every 6.0 s, 3 in a row) is due in 1.0 s and its kind needs 214"));
        assert_non_null(strstr(out, "(every 6.0 s, 3 in a row) was due 0.5 s ago and its kind needs 214"));
        assert_non_null(strstr(out, "474 -> 10: the workload stopped taking memory: no demand, stall or raise for the calm period\n"));
        assert_non_null(strstr(out, "214 -> 10: the recurring pressure episode it was raised for has not come a "
                                    "quarter period after it was due\n"));
        assert_non_null(strstr(out, "215 -> 10: the recurring pressure episode it was raised for came and stopped "
                                    "taking memory; a quarter period after it was due, the raise for it ends\n"));
        capture(raise_by_stall, out, sizeof(out));
        assert_non_null(strstr(out, "would raise vm.watermark_scale_factor 10 -> 71: 65 stalls in the last interval"));
        assert_non_null(strstr(out, "the gap grows by 1.5 times the shortfall"));
        capture(episode_over, out, sizeof(out));
        assert_non_null(strstr(out, "pressure episode over after 4.5 s"));
        assert_non_null(strstr(out, "0 stalls"));
        assert_non_null(strstr(out, "its kind now needs 242"));
        capture(compact_and_backoff, out, sizeof(out));
        assert_non_null(strstr(out, "compact node1: order-9 blocks run out in 3.5 s"));
        assert_non_null(strchr(strstr(out, "compact node1") , '\n'));
        assert_int_equal(strchr(out, '\n') != strrchr(out, '\n'), 1);     /* two lines */
        /* at a 250 ms interval a back-off is under a second: not "0 s" */
        assert_non_null(strstr(out, "next try in 0.5 s"));
        assert_non_null(strstr(out, "did not help order 9"));
        capture(compact_stalled_and_slow, out, sizeof(out));
        assert_non_null(strstr(out, "compact node0: the last episode's compaction stalls asked for order-9 blocks "
                                    "(152576 pages in blocks >= order 9, 81% of free memory fragmented)\n"));
        assert_non_null(strstr(out, "compaction of node0 for order 9 took longer than 1 s, holding allocations up "
                                    "(152576 -> 437248 pages in blocks >= order 9); next try in 2 s\n"));
        assert_null(strstr(out, "never"));
        assert_null(strstr(out, "did not help"));
        capture(backoff_by_faults, out, sizeof(out));
        assert_non_null(strstr(out, "compaction of node0 did not help order 9: the huge pages faulted in after it "
                                    "stalled 1350 times for 3550 blocks (843776 -> 843776 pages in blocks >= order 9); "
                                    "next try in 2 s\n"));
        assert_non_null(strstr(out, "did not help order 10: the huge pages faulted in after it stalled "
                                    "18446744073709551615 times for 1000000000000000000 blocks (843776 -> 843776 "
                                    "pages in blocks >= order 10); next try in 2 s\n"));
        capture(compact_released, out, sizeof(out));
        assert_non_null(strstr(out, "compact node0: the workload let go of memory in single pages after taking "
                                    "order-9 blocks (788480 pages in blocks >= order 9, 86% of free memory "
                                    "fragmented)\n"));
        assert_null(strstr(out, "never"));
        capture(wake_pulse, out, sizeof(out));
        assert_non_null(strstr(out, "wake kswapd: DMA32 would be empty in 1.2 s (328 MB fell in 1.00 s, 614 MB free) "
                                    "while node0 Normal sits at its low (281 MB free, low 281 MB) and kswapd sleeps; "
                                    "the zones below Normal are closed to it until Normal is at its high (502 MB)\n"));
        assert_non_null(strstr(out, "zones below Normal open again after 412 ms: Normal at its high (508 MB free)\n"));
        assert_non_null(strstr(out, "zones below Normal open again after 20 ms: Normal's free memory unreadable\n"));
        assert_non_null(strstr(out, "would wake kswapd: DMA32"));
        assert_non_null(strstr(out, "the zones below Normal would be closed to it"));
        assert_non_null(strstr(out, "until Normal is at its high (502 MB), or, as huge pages are faulted in, until "
                                    "its huge blocks (252 MB) are spent\n"));
        assert_non_null(strstr(out, "zones below Normal open again after 80 ms: Normal out of huge blocks while huge "
                                    "pages are faulted in (369 MB free, 105 MB in huge blocks)\n"));
        assert_null(strstr(out, "(502 MB)\nzones below Normal open again after 412 ms: Normal at its high (508 MB "
                                "free, "));     /* huge blocks said only where watched */
        capture(hold_changes, out, sizeof(out));
        const char *gave_up = strstr(out, "holding back raises of vm.watermark_scale_factor: kswapd gave up reclaiming on node 1");
        const char *failing = strstr(out, "holding back raises of vm.watermark_scale_factor: kswapd scans 1.2 GB/s and reclaims 12 MB/s of it");
        const char *again = strstr(out, "raises of vm.watermark_scale_factor no longer held back");
        assert_true(gave_up && failing && again && gave_up < failing && failing < again);
        assert_null(strstr(strchr(gave_up, '\n'), "kswapd gave up"));  /* the unchanged one said nothing */
        /* 2500 pages of 4 KiB: 10 MB */
        const char *nothing = strstr(out, "holding back raises of vm.watermark_scale_factor: a raise is called for, but "
                                          "kswapd could reclaim only 10 MB (page cache, and what swap has room for)");
        const char *enough = strstr(out, "no longer held back: no raise is called for, or kswapd has enough to "
                                         "reclaim for one");
        assert_true(nothing && enough && again < nothing && nothing < enough);
        capture(raise_reclaim_capped, out, sizeof(out));
        assert_non_null(strstr(out, "raise vm.watermark_scale_factor 10 -> 260: a pressure episode"));
        assert_non_null(strstr(out, "; no higher: kswapd could reclaim only 2458 MB (page cache, and what swap has "
                                    "room for), the OOM headroom left aside"));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(lines),
                cmocka_unit_test(fields_all_kept),
                cmocka_unit_test(learned_class_field),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
