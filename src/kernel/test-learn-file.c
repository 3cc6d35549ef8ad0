/* The learned state's file: saved whole, 0644 in a 0755 directory whatever
 * the umask, read back across another clock offset, and refused with the
 * file's name and why when it is corrupt, a symbolic link, not a regular
 * file, too long, another user's or writable by others. */
#include <errno.h>
#include <fcntl.h>
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

#include "learn-file.h"
#include "tmp-tree.h"

struct tmp {
        char top[64], dir[96], path[128];
};

static int setup(void **state)
{
        struct tmp *t = calloc(1, sizeof(*t));
        if (!t)
                return -1;
        snprintf(t->top, sizeof(t->top), "/tmp/memoptimizer-learn-XXXXXX");
        if (!mkdtemp(t->top)) {
                free(t);
                return -1;
        }
        snprintf(t->dir, sizeof(t->dir), "%s/memoptimizer", t->top);
        snprintf(t->path, sizeof(t->path), "%s/" LEARN_FILE, t->dir);
        *state = t;
        return 0;
}

static int teardown(void **state)
{
        struct tmp *t = *state;
        int r = tmp_tree_remove(t->top);
        free(t);
        return r == 0 ? 0 : -1;
}

static void put(const char *path, const char *text)
{
        FILE *f = fopen(path, "we");
        assert_non_null(f);
        fputs(text, f);
        assert_int_equal(fclose(f), 0);
}

static mode_t mode_of(const char *path)
{
        struct stat st;
        assert_int_equal(lstat(path, &st), 0);
        return st.st_mode & 07777;
}

static void some_learning(struct learned *l)
{
        learn_init(l);
        struct episode_stats e = {
                .start = 100, .end = 112.5, .peak_demand_pages_per_sec = 262144, .demand_pages = 1 << 20,
                .kswapd_peak_pages_per_sec = 150000, .kswapd_pressed_pages_per_sec = 150000,
                .min_margin_pages = 2000, .gap_pages = 10000,
                .wsf_max = 200, .managed_pages = 6170000,
        };
        learn_episode(l, &e);
}

static void dir_from_environment(void **state)
{
        (void)state;
        char d[32];
        assert_int_equal(learn_dir_resolve(NULL, d, sizeof(d)), 0);
        assert_string_equal(d, LEARN_DIR);
        assert_int_equal(learn_dir_resolve("", d, sizeof(d)), 0);
        assert_string_equal(d, LEARN_DIR);
        assert_int_equal(learn_dir_resolve("/var/lib/a:/var/lib/b", d, sizeof(d)), 0);
        assert_string_equal(d, "/var/lib/a");
        assert_int_equal(learn_dir_resolve("relative", d, sizeof(d)), -EINVAL);
        assert_int_equal(learn_dir_resolve("/a/path/longer/than/thirty-two/bytes", d, sizeof(d)), -ENAMETOOLONG);
}

/* Saved under a strict umask into a directory it makes; read back with the
 * next boot's offset, the times keep their wall-clock meaning. */
static void save_and_load(void **state)
{
        struct tmp *t = *state;
        struct learned l, back;
        char err[512];
        assert_int_equal(learn_load(t->dir, &back, 0, err, sizeof(err)), -ENOENT);
        some_learning(&l);
        mode_t old = umask(077);
        int r = learn_save(t->dir, &l, 1795435200.0);
        umask(old);
        assert_int_equal(r, 0);
        assert_int_equal(mode_of(t->dir), 0755);
        assert_int_equal(mode_of(t->path), 0644);
        /* read back 100 s later by a process whose clock started 1000 s later */
        assert_int_equal(learn_load(t->dir, &back, 1795435200.0 + 1000, err, sizeof(err)), 0);
        assert_int_equal(back.managed_pages, l.managed_pages);
        assert_int_equal(back.nr_history, 1);
        assert_float_equal(back.history[0].start, 100 - 1000, 1e-3);
        assert_float_equal(back.kswapd_capacity_pages_per_sec, 150000, 1e-3);
        assert_false(back.dirty);
        /* a second save replaces it; nothing else is left in the directory */
        assert_int_equal(learn_save(t->dir, &back, 1795435200.0 + 1000), 0);
        char cmd[256];
        snprintf(cmd, sizeof(cmd), "test \"$(ls -A '%s')\" = " LEARN_FILE, t->dir);
        assert_int_equal(system(cmd), 0);
}

/* Refused with the file and the reason, and *l left empty. */
static void refused(const struct tmp *t, int want, const char *why)
{
        struct learned l;
        char err[512];
        memset(&l, 0x5a, sizeof(l));
        int r = learn_load(t->dir, &l, 0, err, sizeof(err));
        if (r != want || !strstr(err, why)) {
                print_error("got %d '%s', want %d '...%s'\n", r, err, want, why);
                fail();
        }
        struct learned empty;
        learn_init(&empty);
        assert_memory_equal(&l, &empty, sizeof(l));
}

static void bad_files_refused(void **state)
{
        struct tmp *t = *state;
        struct learned l;
        char want[256];
        some_learning(&l);
        assert_int_equal(learn_save(t->dir, &l, 0), 0);

        /* cut short: the line and what is wrong, after the file's name */
        char cmd[1024];
        snprintf(cmd, sizeof(cmd), "head -c -1 '%s' > '%s.x' && mv '%s.x' '%s'", t->path, t->path, t->path, t->path);
        assert_int_equal(system(cmd), 0);
        snprintf(want, sizeof(want), "%s:10: no newline at its end", t->path);
        refused(t, -EBADMSG, want);
        put(t->path, "version 2\n");
        snprintf(want, sizeof(want), "%s:1: version 2; this memoptimizer reads versions 1 and 3", t->path);
        refused(t, -EBADMSG, want);
        put(t->path, "{\"json\": true}\n");
        refused(t, -EBADMSG, ":1: expected the 'version' line");

        /* set aside, the bad text is kept as learned.bad */
        char bad[160];
        snprintf(bad, sizeof(bad), "%s.bad", t->path);
        assert_int_equal(learn_set_aside(t->dir), 0);
        assert_int_equal(access(t->path, F_OK), -1);
        assert_int_equal(mode_of(bad), 0644);
        assert_int_equal(learn_load(t->dir, &l, 0, want, sizeof(want)), -ENOENT);

        /* a symbolic link, even to a good file, is not followed */
        some_learning(&l);
        assert_int_equal(learn_save(t->top, &l, 0), 0);
        snprintf(want, sizeof(want), "%s/" LEARN_FILE, t->top);
        assert_int_equal(symlink(want, t->path), 0);
        refused(t, -ELOOP, "learned: is a symbolic link, which is not followed");
        assert_int_equal(unlink(t->path), 0);

        /* a FIFO neither hangs the reader nor is read */
        assert_int_equal(mkfifo(t->path, 0644), 0);
        refused(t, -EINVAL, "learned: is not a regular file");
        assert_int_equal(unlink(t->path), 0);
        assert_int_equal(mkdir(t->path, 0755), 0);
        refused(t, -EISDIR, "learned: is a directory");
        assert_int_equal(rmdir(t->path), 0);

        /* longer than any state can be */
        snprintf(cmd, sizeof(cmd), "head -c 65537 /dev/zero > '%s'", t->path);
        assert_int_equal(system(cmd), 0);
        refused(t, -EFBIG, "learned: longer than 65536 bytes");

        /* writable by others: the file, or the directory it is in */
        assert_int_equal(learn_save(t->dir, &l, 0), 0);
        assert_int_equal(chmod(t->path, 0666), 0);
        refused(t, -EPERM, "learned: writable by everyone (mode 0666); refusing what others can change (chmod go-w");
        assert_int_equal(chmod(t->path, 0664), 0);
        refused(t, -EPERM, "learned: writable by its group (mode 0664)");
        assert_int_equal(chmod(t->path, 0644), 0);
        assert_int_equal(chmod(t->dir, 0777), 0);
        snprintf(want, sizeof(want), "directory %s: writable by everyone (mode 0777)", t->dir);
        refused(t, -EPERM, want);
        assert_int_equal(chmod(t->dir, 0755), 0);
        assert_int_equal(learn_load(t->dir, &l, 0, want, sizeof(want)), 0);

        /* forget: both files go */
        bool removed = false;
        put(bad, "x");
        assert_int_equal(learn_remove(t->dir, &removed), 0);
        assert_true(removed);
        assert_int_equal(access(t->path, F_OK), -1);
        assert_int_equal(access(bad, F_OK), -1);
        assert_int_equal(learn_remove(t->dir, &removed), 0);
        assert_false(removed);
}

/* Root does not take another user's file, and any user reads root's. */
static void owners(void **state)
{
        struct tmp *t = *state;
        if (geteuid() != 0)
                skip();         /* making a file another user's takes root */
        struct learned l;
        char err[512];
        some_learning(&l);
        assert_int_equal(learn_save(t->dir, &l, 0), 0);
        assert_int_equal(chmod(t->top, 0755), 0);
        assert_int_equal(seteuid(65534), 0);
        int r = learn_load(t->dir, &l, 0, err, sizeof(err));
        assert_int_equal(seteuid(0), 0);
        assert_int_equal(r, 0);
        assert_int_equal(chown(t->path, 65534, 65534), 0);
        refused(t, -EPERM, "learned: owned by uid 65534, not root; refusing what another user can change (chown root");
        assert_int_equal(chown(t->path, 0, 0), 0);
        assert_int_equal(chown(t->dir, 65534, 65534), 0);
        refused(t, -EPERM, "memoptimizer: owned by uid 65534, not root");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(dir_from_environment),
                cmocka_unit_test_setup_teardown(save_and_load, setup, teardown),
                cmocka_unit_test_setup_teardown(bad_files_refused, setup, teardown),
                cmocka_unit_test_setup_teardown(owners, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
