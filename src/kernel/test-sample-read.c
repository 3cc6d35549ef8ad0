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

/* sample_read() against a fixture tree: the paths honour the root prefix. */
static void read_from_tree(void **state)
{
        (void)state;
        char root[] = "/tmp/memoptimizer-test-XXXXXX";
        assert_non_null(mkdtemp(root));
        char cmd[512];
        assert_int_equal(fixture_tree(root, "x86-1node", 42), 0);
        struct sample_reader *r;
        struct sample s = { 0 };
        assert_int_equal(sample_reader_new(&r, root), 0);
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
        snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
        assert_int_equal(system(cmd), 0);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(read_from_tree),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
