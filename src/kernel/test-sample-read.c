/* The reader's I/O against a fixture tree: the paths honour the root
 * prefix, and a file it cannot use is named. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "sample-read.h"

#include "fixture-tree.h"
#include "tmp-tree.h"

/* A fake kernel of the x86-1node fixture under a new folder root (a
 * mkdtemp() template), and a reader on it. */
static struct sample_reader *tree_reader(char *root, long wsf)
{
        assert_non_null(mkdtemp(root));
        assert_int_equal(fixture_tree(root, "x86-1node", wsf), 0);
        struct sample_reader *r;
        assert_int_equal(sample_reader_new(&r, root), 0);
        return r;
}

static void tree_remove(const char *root)
{
        assert_int_equal(tmp_tree_remove(root), 0);
}

/* sample_read() against a fixture tree: the paths honour the root prefix. */
static void read_from_tree(void **state)
{
        (void)state;
        char root[] = "/tmp/memoptimizer-test-XXXXXX";
        char cmd[512];
        struct sample_reader *r = tree_reader(root, 42);
        struct sample s = { 0 };
        assert_int_equal(sample_read(r, &s), 0);
        assert_int_equal(s.wsf, 42);
        assert_int_equal(s.nr_zones, 3);
        assert_true(s.time > 0);
        assert_true(s.mem.mem_total > 0);       /* libproc2 reads the live /proc */
        snprintf(cmd, sizeof(cmd), "%s/proc/buddyinfo", root);
        assert_int_equal(truncate(cmd, 10), 0);
        assert_int_equal(sample_read(r, &s), -EBADMSG);
        assert_string_equal(sample_reader_failed(r), "/proc/buddyinfo");
        assert_int_equal(unlink(cmd), 0);
        assert_int_equal(sample_read(r, &s), -ENOENT);
        assert_string_equal(sample_reader_failed(r), "/proc/buddyinfo");
        sample_reader_free(r);
        sample_free(&s);
        tree_remove(root);
}

static bool any_unreclaimable(const struct sample *s)
{
        bool any = false;
        for (size_t i = 0; i < s->nr_zones; i++)
                any |= s->zones[i].node_unreclaimable;
        return any;
}

/* node_unreclaimable holds raises back, and the kernel clears it at the
 * first reclaim progress: while zoneinfo flags it, the reader re-reads
 * zoneinfo every sample (not every ZONEINFO_EVERY), so the flag's clearing
 * is seen at the next sample; the flag's setting may wait for the refresh. */
static void node_unreclaimable_cleared_at_once(void **state)
{
        (void)state;
        char root[] = "/tmp/memoptimizer-test-XXXXXX";
        char cmd[1024];
        struct sample_reader *r = tree_reader(root, 10);
        struct sample s = { 0 };
#define SET_FLAG "sed -i 's/node_unreclaimable: *[01]/node_unreclaimable:  %d/' '%s/proc/zoneinfo'"
        snprintf(cmd, sizeof(cmd), SET_FLAG, 1, root);
        assert_int_equal(system(cmd), 0);
        assert_int_equal(sample_read(r, &s), 0);
        assert_true(any_unreclaimable(&s));
        snprintf(cmd, sizeof(cmd), SET_FLAG, 0, root);
        assert_int_equal(system(cmd), 0);
        assert_int_equal(sample_read(r, &s), 0);
        assert_false(any_unreclaimable(&s));
        snprintf(cmd, sizeof(cmd), SET_FLAG, 1, root);
        assert_int_equal(system(cmd), 0);
        assert_int_equal(sample_read(r, &s), 0);
        assert_false(any_unreclaimable(&s));    /* seen at the next refresh */
#undef SET_FLAG
        sample_reader_free(r);
        sample_free(&s);
        tree_remove(root);
}

/* What a pulse reads (pulse.h): one zone's free pages from buddyinfo alone,
 * and a zone's place in zoneinfo's order (that of lowmem_reserve_ratio). */
static void zone_quick_reads(void **state)
{
        (void)state;
        char root[] = "/tmp/memoptimizer-test-XXXXXX";
        struct sample_reader *r = tree_reader(root, 10);
        uint64_t pages = 0, huge = 0;
        assert_int_equal(zone_free_quick(r, 0, "Normal", 9, &pages, &huge), 0);
        assert_int_equal(pages, 250255);    /* Normal: sum of count << order */
        assert_int_equal(huge, (41 << 9) + (145 << 10));        /* orders 9 and 10 */
        assert_int_equal(zone_free_quick(r, 0, "Normal", 0, &pages, &huge), 0);
        assert_int_equal(huge, 250255);
        assert_int_equal(zone_free_quick(r, 1, "Normal", 9, &pages, &huge), -ENOENT);
        assert_int_equal(zone_free_quick(r, 0, "Movable", 9, &pages, &huge), -ENOENT);  /* not in buddyinfo */
        assert_int_equal(zone_index_read(root, "DMA32"), 1);
        assert_int_equal(zone_index_read(root, "Normal"), 2);
        assert_int_equal(zone_index_read(root, "Device"), 4);
        assert_int_equal(zone_index_read(root, "HighMem"), -ENOENT);
        char path[512];
        snprintf(path, sizeof(path), "%s/proc/buddyinfo", root);
        assert_int_equal(truncate(path, 10), 0);
        assert_int_equal(zone_free_quick(r, 0, "Normal", 9, &pages, &huge), -EBADMSG);
        sample_reader_free(r);
        tree_remove(root);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(read_from_tree),
                cmocka_unit_test(node_unreclaimable_cleared_at_once),
                cmocka_unit_test(zone_quick_reads),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
