/* The kernel side's file primitives. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "fileio.h"
#include "tmp-tree.h"

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

/* A file the kernel makes is kept open and read again from offset 0: each
 * read sees the kernel's current text, not the first read's. */
static void kfile_kept_on_proc(void **state)
{
        (void)state;
        struct kfile f = KFILE_INIT;
        char *buf = NULL;
        size_t sz = 0;
        assert_int_equal(prctl(PR_SET_NAME, "kfile-one"), 0);
        assert_int_equal(kfile_read(&f, "", "/proc/self/comm", &buf, &sz), 10);
        assert_string_equal(buf, "kfile-one\n");
        int kept = f.fd;
        assert_true(kept >= 0);
        assert_int_equal(prctl(PR_SET_NAME, "kfile-second"), 0);
        assert_int_equal(kfile_read(&f, "", "/proc/self/comm", &buf, &sz), 13);
        assert_string_equal(buf, "kfile-second\n");
        assert_int_equal(f.fd, kept);
        kfile_close(&f);
        assert_int_equal(f.fd, -1);
        free(buf);

        /* an integer, changed through another fd (raising one's own
         * oom_score_adj needs no privilege) */
        long v0, v;
        assert_int_equal(kfile_read_long(&f, NULL, "/proc/self/oom_score_adj", &v0), 0);
        assert_true(f.fd >= 0);
        long next = v0 < 1000 ? v0 + 1 : v0;
        char text[16];
        int n = snprintf(text, sizeof(text), "%ld\n", next);
        int w = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
        assert_true(w >= 0);
        assert_int_equal(write(w, text, (size_t)n), n);
        close(w);
        assert_int_equal(kfile_read_long(&f, NULL, "/proc/self/oom_score_adj", &v), 0);
        assert_int_equal(v, next);
        kfile_close(&f);
}

/* Anywhere else the file is opened for each read: one replaced or
 * removed between reads (as tests do to fixture trees) is seen. */
static void kfile_reopened_elsewhere(void **state)
{
        (void)state;
        char dir[] = "/tmp/memoptimizer-fileio-XXXXXX";
        assert_non_null(mkdtemp(dir));
        struct kfile f = KFILE_INIT;
        char *buf = NULL;
        size_t sz = 0;
        long v;
        assert_int_equal(write_file_atomic(dir, "wsf", "42\n", 3, 0600, false), 0);
        assert_int_equal(kfile_read_long(&f, dir, "/wsf", &v), 0);
        assert_int_equal(v, 42);
        assert_int_equal(f.fd, -1);
        assert_int_equal(write_file_atomic(dir, "wsf", "43\n", 3, 0600, false), 0);
        assert_int_equal(kfile_read_long(&f, dir, "/wsf", &v), 0);
        assert_int_equal(v, 43);
        assert_int_equal(kfile_read(&f, dir, "/wsf", &buf, &sz), 3);
        assert_string_equal(buf, "43\n");
        assert_int_equal(write_file_atomic(dir, "wsf", "4x\n", 3, 0600, false), 0);
        assert_int_equal(kfile_read_long(&f, dir, "/wsf", &v), -EINVAL);
        assert_int_equal(write_file_atomic(dir, "wsf", "", 0, 0600, false), 0);
        assert_int_equal(kfile_read_long(&f, dir, "/wsf", &v), -ENODATA);
        char path[128];
        snprintf(path, sizeof(path), "%s/wsf", dir);
        assert_int_equal(unlink(path), 0);
        assert_int_equal(kfile_read(&f, dir, "/wsf", &buf, &sz), -ENOENT);
        assert_int_equal(kfile_read_long(&f, dir, "/wsf", &v), -ENOENT);
        free(buf);
        assert_int_equal(rmdir(dir), 0);
}

/* The tests' own teardown (tests/tmp-tree.h) removes a whole tree, and a
 * symlink in it as a link: what it points to, outside, stays. */
static void tmp_tree_keeps_link_targets(void **state)
{
        (void)state;
        char top[] = "/tmp/memoptimizer-tree-XXXXXX";
        assert_non_null(mkdtemp(top));
        char tree[128], outside[128], path[160];
        snprintf(tree, sizeof(tree), "%s/tree", top);
        snprintf(outside, sizeof(outside), "%s/outside", top);
        assert_int_equal(mkdir(tree, 0700), 0);
        assert_int_equal(mkdir(outside, 0700), 0);
        assert_int_equal(write_file_atomic(outside, "kept", "x", 1, 0600, false), 0);
        snprintf(path, sizeof(path), "%s/a", tree);
        assert_int_equal(mkdir(path, 0700), 0);
        snprintf(path, sizeof(path), "%s/a/b", tree);
        assert_int_equal(mkdir(path, 0700), 0);
        assert_int_equal(write_file_atomic(path, "f", "y", 1, 0600, false), 0);
        snprintf(path, sizeof(path), "%s/a/link", tree);
        assert_int_equal(symlink(outside, path), 0);
        assert_int_equal(tmp_tree_remove(tree), 0);
        assert_int_equal(access(tree, F_OK), -1);
        snprintf(path, sizeof(path), "%s/kept", outside);
        assert_int_equal(access(path, F_OK), 0);
        assert_int_equal(tmp_tree_remove(tree), 0);     /* gone already: not an error */
        assert_int_equal(tmp_tree_remove(top), 0);
        assert_int_equal(access(top, F_OK), -1);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(atomic_write),
                cmocka_unit_test(kfile_kept_on_proc),
                cmocka_unit_test(kfile_reopened_elsewhere),
                cmocka_unit_test(tmp_tree_keeps_link_targets),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
