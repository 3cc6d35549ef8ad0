/* The transparent huge page policy as the kernel shows it: the bracketed
 * choice of each file, and a kernel without THP or with a file in another
 * shape said so rather than guessed. */
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

#include "thp.h"
#include "tmp-tree.h"

static void bracketed_choice(void **state)
{
        (void)state;
        char out[16];
        assert_int_equal(thp_choice("always [madvise] never\n", out, sizeof(out)), 0);
        assert_string_equal(out, "madvise");
        assert_int_equal(thp_choice("always defer [defer+madvise] madvise never\n", out, sizeof(out)), 0);
        assert_string_equal(out, "defer+madvise");
        assert_int_equal(thp_choice("[always] madvise never", out, sizeof(out)), 0);
        assert_string_equal(out, "always");
}

static void no_choice_refused(void **state)
{
        (void)state;
        char out[16] = "kept";
        static const char *const bad[] = {
                "always madvise never\n", "always [] never\n", "always [madvise never\n",
                "[always] [madvise] never\n", "always [mad vise] never\n",
                "always [averyveryverylongchoice] never\n", "",
        };
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
                if (thp_choice(bad[i], out, sizeof(out)) != -EBADMSG)
                        fail_msg("'%s' was taken", bad[i]);
        assert_string_equal(out, "kept");
}

static void write_at(const char *root, const char *name, const char *text)
{
        char path[256];
        snprintf(path, sizeof(path), "%s/sys/kernel/mm/transparent_hugepage/%s", root, name);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        assert_true(fputs(text, f) >= 0);
        assert_int_equal(fclose(f), 0);
}

/* The temporary root is made and removed around the test, so that an
 * assertion that fails half way does not leave it behind. */
static int make_root(void **state)
{
        char *root = strdup("/tmp/memoptimizer-thp-XXXXXX");
        if (!root || !mkdtemp(root)) {
                free(root);
                return -1;
        }
        *state = root;
        return 0;
}

static int remove_root(void **state)
{
        char *root = *state;
        int r = tmp_tree_remove(root);
        free(root);
        return r == 0 ? 0 : -1;
}

static void policy_of_a_root(void **state)
{
        const char *root = *state;
        struct thp_policy p;
        assert_int_equal(thp_policy_read(root, &p), -ENOENT);   /* no THP */
        char cmd[128];
        snprintf(cmd, sizeof(cmd), "mkdir -p %s/sys/kernel/mm/transparent_hugepage", root);
        assert_int_equal(system(cmd), 0);
        write_at(root, "enabled", "always [madvise] never\n");
        assert_int_equal(thp_policy_read(root, &p), -ENOENT);   /* no defrag file */
        write_at(root, "defrag", "always defer defer+madvise [madvise] never\n");
        assert_int_equal(thp_policy_read(root, &p), 0);
        assert_string_equal(p.enabled, "madvise");
        assert_string_equal(p.defrag, "madvise");
        write_at(root, "defrag", "always defer defer+madvise madvise never\n");
        assert_int_equal(thp_policy_read(root, &p), -EBADMSG);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(bracketed_choice),
                cmocka_unit_test(no_choice_refused),
                cmocka_unit_test_setup_teardown(policy_of_a_root, make_root, remove_root),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
