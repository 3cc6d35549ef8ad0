#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "sample.h"
#include "util.h"

#include "fixture-tree.h"

static char *load(const char *rel)
{
        char *text = fixture_text(rel);
        assert_non_null(text);
        return text;
}

static const struct zoneinfo_zone *find(const struct zoneinfo *z, int node, const char *name)
{
        for (size_t i = 0; i < z->nr_zones; i++)
                if (z->zones[i].node == node && strcmp(z->zones[i].name, name) == 0)
                        return &z->zones[i];
        return NULL;
}

static void x86_one_node(void **state)
{
        (void)state;
        _cleanup_free_ char *bt = load("/x86-1node/proc/buddyinfo");
        _cleanup_free_ char *zt = load("/x86-1node/proc/zoneinfo");
        struct buddyinfo b;
        struct zoneinfo z;
        assert_int_equal(buddyinfo_parse(bt, &b), 0);
        assert_int_equal(zoneinfo_parse(zt, &z), 0);
        assert_int_equal(b.nr_orders, 11);
        assert_int_equal(b.nr_zones, 3);
        assert_string_equal(b.zones[2].name, "Normal");
        assert_int_equal(z.nr_zones, 5);
        const struct zoneinfo_zone *dma = find(&z, 0, "DMA");
        assert_non_null(dma);
        assert_int_equal(dma->managed_pages, 3840);
        assert_int_equal(dma->wmark_min, 60);
        assert_int_equal(dma->wmark_low, 75);
        assert_int_equal(dma->wmark_high, 90);

        struct sample s = { 0 };
        assert_int_equal(sample_assemble(&s, &b, &z), 0);
        assert_int_equal(s.nr_zones, 3);        /* Movable and Device have no pages */
        for (size_t i = 0; i < s.nr_zones; i++) {
                uint64_t sum = 0;
                for (unsigned k = 0; k < s.nr_orders; k++)
                        sum += s.zones[i].nr_free[k] << k;
                assert_int_equal(s.zones[i].free_pages, sum);
                assert_true(s.zones[i].wmark_min < s.zones[i].wmark_low);
                assert_true(s.zones[i].wmark_low < s.zones[i].wmark_high);
        }
        assert_int_equal(zone_free_at_order(&s.zones[0], 11, 11), 0);
        sample_free(&s);
        buddyinfo_free(&b);
        zoneinfo_free(&z);
}

static void empty_zone_skipped(void **state)
{
        (void)state;
        _cleanup_free_ char *bt = load("/empty-zone/proc/buddyinfo");
        _cleanup_free_ char *zt = load("/empty-zone/proc/zoneinfo");
        struct buddyinfo b;
        struct zoneinfo z;
        assert_int_equal(buddyinfo_parse(bt, &b), 0);
        assert_int_equal(zoneinfo_parse(zt, &z), 0);
        size_t empty = 0;
        for (size_t i = 0; i < z.nr_zones; i++)
                empty += z.zones[i].managed_pages == 0;
        assert_true(empty >= 1);
        struct sample s = { 0 };
        assert_int_equal(sample_assemble(&s, &b, &z), 0);
        for (size_t i = 0; i < s.nr_zones; i++)
                assert_true(s.zones[i].managed_pages > 0);
        sample_free(&s);
        buddyinfo_free(&b);
        zoneinfo_free(&z);
}

static char *load_proc(const char *dir, const char *file)
{
        char p[256];
        snprintf(p, sizeof(p), "/%s/proc/%s", dir, file);
        return load(p);
}

static void parse_proc(const char *dir, struct buddyinfo *b, struct zoneinfo *z)
{
        _cleanup_free_ char *bt = load_proc(dir, "buddyinfo");
        _cleanup_free_ char *zt = load_proc(dir, "zoneinfo");
        assert_int_equal(buddyinfo_parse(bt, b), 0);
        assert_int_equal(zoneinfo_parse(zt, z), 0);
}

/* A fixture tree from another machine: every zone is joined, and the
 * number of orders is what that kernel printed. */
static void other_machine(const char *dir, unsigned orders, int nodes)
{
        struct buddyinfo b;
        struct zoneinfo z;
        parse_proc(dir, &b, &z);
        assert_int_equal(b.nr_orders, orders);
        int max_node = 0;
        for (size_t i = 0; i < b.nr_zones; i++)
                max_node = b.zones[i].node > max_node ? b.zones[i].node : max_node;
        assert_int_equal(max_node + 1, nodes);
        for (size_t i = 0; i < z.nr_zones; i++)
                assert_true(z.zones[i].wmark_min <= z.zones[i].wmark_low);
        buddyinfo_free(&b);
        zoneinfo_free(&z);
}

static void x86_two_nodes(void **state)
{
        (void)state;
        other_machine("x86-2node", 11, 2);
}

static void arm64_fourteen_orders(void **state)
{
        (void)state;
        _cleanup_free_ char *bt = load("/arm64-14order/proc/buddyinfo");
        struct buddyinfo b;
        assert_int_equal(buddyinfo_parse(bt, &b), 0);
        assert_int_equal(b.nr_orders, 14);
        buddyinfo_free(&b);
}

/* Debian's own kernels, captured at boot in the VMs of tests/package-e2e.sh
 * (tests/fixtures/README.md): every zone with pages is joined, and the
 * counters the daemon asks libproc2 for are in the kernel's files under
 * these names — libproc2 reports a name the kernel lacks as 0, silently. */
static void debian_kernel(const char *dir)
{
        static const char *const meminfo[] = {
                "MemTotal", "MemFree", "MemAvailable", "Active(file)", "Inactive(file)",
                "HugePages_Total", "HugePages_Free", "AnonHugePages", "Dirty", "Writeback",
        };
        _cleanup_free_ char *vt = load_proc(dir, "vmstat");
        _cleanup_free_ char *mt = load_proc(dir, "meminfo");
        struct buddyinfo b;
        struct zoneinfo z;
        parse_proc(dir, &b, &z);
        assert_int_equal(b.nr_orders, 11);
        struct sample s = { 0 };
        assert_int_equal(sample_assemble(&s, &b, &z), 0);
        assert_int_equal(s.nr_zones, 3);
        static const char *const zones[] = { "DMA", "DMA32", "Normal" };
        for (size_t i = 0; i < s.nr_zones; i++) {
                assert_string_equal(s.zones[i].name, zones[i]);
                assert_true(s.zones[i].managed_pages > 0);
                assert_true(s.zones[i].free_pages > 0);
                assert_true(s.zones[i].wmark_min < s.zones[i].wmark_low);
                assert_true(s.zones[i].wmark_low < s.zones[i].wmark_high);
        }
        for (size_t i = 0; i < NR_VMSTAT_COUNTERS; i++)
                if (!proc_has_field(vt, vmstat_counters[i]) && !strstr(vmstat_counters[i], "_high"))
                        fail_msg("%s: no %s in /proc/vmstat", dir, vmstat_counters[i]);
        /* all of them within what libproc2's one read() returns (about a
         * page; cut here at 4000 bytes and a line's end) */
        size_t page = strlen(vt) < 4000 ? strlen(vt) : 4000;
        while (page > 0 && vt[page - 1] != '\n')
                page--;
        _cleanup_free_ char *first = strndup(vt, page);
        assert_null(vmstat_counter_cut(first, vt));
        for (size_t i = 0; i < sizeof(meminfo) / sizeof(*meminfo); i++)
                if (!proc_has_field(mt, meminfo[i]))
                        fail_msg("%s: no %s in /proc/meminfo", dir, meminfo[i]);
        sample_free(&s);
        buddyinfo_free(&b);
        zoneinfo_free(&z);
}

/* libproc2 reads /proc/vmstat once: a counter whose line that read did not
 * return whole would read as 0, and must be named; one the kernel lacks
 * altogether is not libproc2's cut. */
static void vmstat_counter_past_one_read(void **state)
{
        (void)state;
        const char *whole = "nr_free_pages 5\ncompact_stall_x 9\npgsteal_kswapd 1\ncompact_stall 7\noom_kill 0\n";
        assert_null(vmstat_counter_cut(whole, whole));
        assert_string_equal(vmstat_counter_cut("nr_free_pages 5\ncompact_stall_x 9\npgsteal_kswapd 1\n", whole),
                            "compact_stall");
        /* a line without its end may have lost digits */
        assert_string_equal(vmstat_counter_cut("nr_free_pages 5\ncompact_stall_x 9\npgsteal_kswapd 1\ncompact_stall 7",
                                               whole), "compact_stall");
        /* the first in the daemon's order, not the file's */
        assert_string_equal(vmstat_counter_cut("nr_free_pages 5\n", whole), "pgsteal_kswapd");
        /* a real kernel's file, cut at 2 KiB */
        _cleanup_free_ char *vt = load_proc("debian12-6.1", "vmstat");
        _cleanup_free_ char *first = strndup(vt, 2048);
        const char *cut = vmstat_counter_cut(first, vt);
        assert_non_null(cut);
        assert_true(proc_has_field(vt, cut) && !proc_has_field(first, cut));
}

static void debian12_kernel_6_1(void **state)
{
        (void)state;
        debian_kernel("debian12-6.1");
}

static void debian13_kernel_6_12(void **state)
{
        (void)state;
        debian_kernel("debian13-6.12");
}

static void broken_rejected(void **state)
{
        (void)state;
        static const char *const bud[] = { "truncated", "garbled", "ragged", "empty" };
        static const char *const zi[] = { "truncated", "garbled", "empty" };
        char p[128];
        for (size_t i = 0; i < sizeof(bud) / sizeof(*bud); i++) {
                snprintf(p, sizeof(p), "/broken/buddyinfo-%s", bud[i]);
                _cleanup_free_ char *t = load(p);
                struct buddyinfo b;
                assert_int_equal(buddyinfo_parse(t, &b), -EBADMSG);
                assert_null(b.zones);
        }
        for (size_t i = 0; i < sizeof(zi) / sizeof(*zi); i++) {
                snprintf(p, sizeof(p), "/broken/zoneinfo-%s", zi[i]);
                _cleanup_free_ char *t = load(p);
                struct zoneinfo z;
                assert_int_equal(zoneinfo_parse(t, &z), -EBADMSG);
                assert_null(z.zones);
        }
}

static void garbage_strings_rejected(void **state)
{
        (void)state;
        static const char *const bad[] = {
                "", "\n", "Node 0, zone Normal\n", "Node -1, zone Normal 1 2\n",
                "Node 0, zone Normal 1 2 -3\n", "Node 0, zone Normal 1 2 3",
                "node 0 zone Normal 1\n",
                "Node 0, zone Normal 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1\n",
        };
        for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
                struct buddyinfo b;
                assert_true(buddyinfo_parse(bad[i], &b) < 0);
        }
        struct zoneinfo z;
        assert_true(zoneinfo_parse("Node 0, zone Normal\n  pages free 5\n", &z) < 0);
        assert_true(zoneinfo_parse("garbage\n", &z) < 0);
        assert_int_equal(zoneinfo_parse("Node 0, zone Normal\n  pages free 5\n  min 1\n  low 2\n  high 3\n"
                                        "  high_min: 9\n  managed 100\n", &z), 0);
        assert_int_equal(z.zones[0].wmark_high, 3);
        assert_int_equal(z.zones[0].managed_pages, 100);
        zoneinfo_free(&z);
}

/* kswapd's giving up on a node, as zoneinfo prints it in each of the
 * node's zone sections: 0 or 1, optional (kernels before 4.13), anything
 * else refused; it reaches the sample's zones. */
static void node_unreclaimable_read(void **state)
{
        (void)state;
        struct zoneinfo z;
        struct buddyinfo b;
        const char *head = "Node 0, zone Normal\n  pages free 5\n  min 1\n  low 2\n  high 3\n  managed 100\n";
        char text[256];
        snprintf(text, sizeof(text), "%s  node_unreclaimable:  1\n  start_pfn:           1048576\n", head);
        assert_int_equal(zoneinfo_parse(text, &z), 0);
        assert_int_equal(z.zones[0].node_unreclaimable, 1);
        assert_int_equal(buddyinfo_parse("Node 0, zone Normal 1 1 0 0 0 0 0 0 0 0 0\n", &b), 0);
        struct sample s = { 0 };
        assert_int_equal(sample_assemble(&s, &b, &z), 0);
        assert_true(s.zones[0].node_unreclaimable);
        sample_free(&s);
        zoneinfo_free(&z);
        assert_int_equal(zoneinfo_parse(head, &z), 0);
        assert_int_equal(z.zones[0].node_unreclaimable, 0);
        assert_int_equal(sample_assemble(&s, &b, &z), 0);
        assert_false(s.zones[0].node_unreclaimable);
        sample_free(&s);
        zoneinfo_free(&z);
        buddyinfo_free(&b);
        static const char *const bad[] = { "2", "x", "", "1 1", "-1" };
        for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
                snprintf(text, sizeof(text), "%s  node_unreclaimable:  %s\n", head, bad[i]);
                assert_int_equal(zoneinfo_parse(text, &z), -EBADMSG);
        }
}

/* The one definition of external fragmentation, the kernel's unusable
 * free space index. */
static void unusable_index_of_zones(void **state)
{
        (void)state;
        /* order 0..2: 4 single pages, 2 order-1 and 1 order-2 block = 12 pages */
        struct zone z = { .nr_free = { 4, 2, 1 } }, empty = { 0 };
        zone_sum_orders(&z, 3);
        zone_sum_orders(&empty, 3);
        /* 12 free pages; blocks >= order 1: 2*2 + 4 = 8 pages; >= order 2: 4 */
        assert_float_equal(zone_unusable_index(&z, 3, 1), 4.0 / 12, 1e-12);
        assert_float_equal(zone_unusable_index(&z, 3, 2), 8.0 / 12, 1e-12);
        assert_float_equal(zone_unusable_index(&empty, 3, 1), 1, 0);     /* nothing free */
}

/* The kernel's watermark gap, with this VM's Normal zone (managed 5394258,
 * min 14769): at 10 its low is 20163 and its high 25557, at 100 68711 and
 * 122653 (/proc/zoneinfo). A quarter of min where that is larger; rounded
 * down; no overflow at the trace parser's bounds. */
static void wmark_gap_of_zones(void **state)
{
        (void)state;
        assert_float_equal(14769 + wmark_gap(5394258, 14769, 10), 20163, 0);
        assert_float_equal(14769 + 2 * wmark_gap(5394258, 14769, 10), 25557, 0);
        assert_float_equal(14769 + wmark_gap(5394258, 14769, 100), 68711, 0);
        assert_float_equal(14769 + 2 * wmark_gap(5394258, 14769, 100), 122653, 0);
        assert_float_equal(wmark_gap(1000, 4003, 10), 1000, 0);     /* 4003 / 4, not 1 */
        assert_float_equal(wmark_gap(1999, 0, 50), 9, 0);           /* 9.995 down */
        /* 2^50 * 10^6 wraps 64 bits; the gap is 2^50 * 100 */
        assert_float_equal(wmark_gap(1ull << 50, 0, 1000000), 112589990684262400.0, 0);
}

/* Node 0's zones in the kernel's order, populated or not. */
static void zone_index(void **state)
{
        (void)state;
        const char *zi = "Node 0, zone      DMA\n  per-node stats\n  pages free 3\n"
                         "Node 0, zone    DMA32\n  pages free 9\n"
                         "Node 0, zone   Normal\n  pages free 7\n"
                         "Node 0, zone  Movable\n  pages free 0\n"
                         "Node 1, zone   Normal\n  pages free 7\n";
        assert_int_equal(zoneinfo_zone_index(zi, "DMA32"), 1);
        assert_int_equal(zoneinfo_zone_index(zi, "Normal"), 2);
        assert_int_equal(zoneinfo_zone_index(zi, "Movable"), 3);
        assert_int_equal(zoneinfo_zone_index(zi, "Device"), -ENOENT);
        assert_int_equal(zoneinfo_zone_index("", "Normal"), -ENOENT);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(zone_index),
                cmocka_unit_test(x86_one_node),
                cmocka_unit_test(empty_zone_skipped),
                cmocka_unit_test(x86_two_nodes),
                cmocka_unit_test(arm64_fourteen_orders),
                cmocka_unit_test(vmstat_counter_past_one_read),
                cmocka_unit_test(debian12_kernel_6_1),
                cmocka_unit_test(debian13_kernel_6_12),
                cmocka_unit_test(broken_rejected),
                cmocka_unit_test(garbage_strings_rejected),
                cmocka_unit_test(node_unreclaimable_read),
                cmocka_unit_test(unusable_index_of_zones),
                cmocka_unit_test(wmark_gap_of_zones),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
