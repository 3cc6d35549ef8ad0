/* The kernel side's file primitives. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "fileio.h"

static void atomic_write(void **state)
{
        (void)state;
        char dir[] = "/tmp/memoptimizer-fileio-XXXXXX";
        assert_non_null(mkdtemp(dir));
        assert_int_equal(write_file_atomic(dir, "f", "abc", 3, 0600, false), 0);
        char *buf = NULL;
        size_t sz = 0;
        char path[128];
        snprintf(path, sizeof(path), "%s/f", dir);
        assert_int_equal(read_file_at(NULL, path, &buf, &sz), 3);
        assert_string_equal(buf, "abc");
        free(buf);
        struct stat st;
        assert_int_equal(stat(path, &st), 0);
        assert_int_equal(st.st_mode & 0777, 0600);
        assert_int_equal(write_file_atomic("/nonexistent-dir", "f", "abc", 3, 0644, false), -ENOENT);
        assert_int_equal(unlink(path), 0);
        assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(atomic_write),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
