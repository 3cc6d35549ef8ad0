/* Writing the kernel (actuate.h) and the files that let a later process
 * undo it (state.h), against a temporary tree. */
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

#include "actuate.h"
#include "fileio.h"
#include "state.h"
#include "util.h"
#include "tmp-tree.h"

struct tree {
        char root[64];
};

/* Run a shell command with $T set to the tree's root. */
static void sh(const char *cmd, const char *root)
{
        assert_int_equal(setenv("T", root, 1), 0);
        assert_int_equal(system(cmd), 0);
}

static int setup(void **state)
{
        struct tree *t = calloc(1, sizeof(*t));
        strcpy(t->root, "/tmp/memoptimizer-actuate-XXXXXX");
        assert_non_null(mkdtemp(t->root));
        sh("mkdir -p $T/proc/sys/vm $T/sys/devices/system/node/node0 $T/state && "
           "echo 10 > $T/proc/sys/vm/watermark_scale_factor", t->root);
        sh("touch $T/sys/devices/system/node/node0/compact $T/proc/sys/vm/compact_memory", t->root);
        sh("printf '256\\t256\\t32\\t0\\t0\\n' > $T/proc/sys/vm/lowmem_reserve_ratio", t->root);
        *state = t;
        return 0;
}

static int teardown(void **state)
{
        struct tree *t = *state;
        assert_int_equal(tmp_tree_remove(t->root), 0);
        free(t);
        return 0;
}

static long wsf(const char *root)
{
        long v = -1;
        assert_int_equal(read_long_at(root, WSF_PATH, &v), 0);
        return v;
}

static void file_is(const char *root, const char *path, const char *want)
{
        char full[256], buf[64] = "";
        snprintf(full, sizeof(full), "%s%s", root, path);
        FILE *f = fopen(full, "re");
        assert_non_null(f);
        size_t n = fread(buf, 1, sizeof(buf) - 1, f);
        buf[n] = '\0';
        fclose(f);
        assert_string_equal(buf, want);
}

static void write_and_restore(void **state)
{
        struct tree *t = *state;
        assert_int_equal(actuate_probe(t->root, 10), 0);
        assert_int_equal(wsf(t->root), 10);
        assert_int_equal(actuate_write_wsf(t->root, 240), 0);
        file_is(t->root, WSF_PATH, "240\n");
        bool restored;
        assert_int_equal(actuate_restore(t->root, 10, 240, &restored), 0);
        assert_true(restored);
        assert_int_equal(wsf(t->root), 10);
}

/* Somebody else changed it after our last write: theirs stays. */
static void restore_leaves_foreign_value(void **state)
{
        struct tree *t = *state;
        assert_int_equal(actuate_write_wsf(t->root, 77), 0);
        bool restored = true;
        assert_int_equal(actuate_restore(t->root, 10, 240, &restored), 0);
        assert_false(restored);
        assert_int_equal(wsf(t->root), 77);
}

static void missing_sysctl_is_an_error(void **state)
{
        struct tree *t = *state;
        sh("rm $T/proc/sys/vm/watermark_scale_factor", t->root);
        assert_int_equal(actuate_write_wsf(t->root, 20), -ENOENT);   /* never created */
        bool restored;
        assert_int_equal(actuate_restore(t->root, 10, 20, &restored), -ENOENT);
        assert_true(actuate_denied(-EACCES) && actuate_denied(-EPERM) && actuate_denied(-EROFS));
        assert_false(actuate_denied(-EINVAL));
}

static void compact_per_node_then_all(void **state)
{
        struct tree *t = *state;
        bool all = true;
        assert_int_equal(actuate_compact_node(t->root, 0, &all), 0);
        assert_false(all);
        file_is(t->root, "/sys/devices/system/node/node0/compact", "1\n");
        file_is(t->root, COMPACT_ALL_PATH, "");
        assert_int_equal(actuate_compact_node(t->root, 3, &all), 0);   /* no node3 file */
        assert_true(all);
        file_is(t->root, COMPACT_ALL_PATH, "1\n");
}

static void state_file_round_trip(void **state)
{
        struct tree *t = *state;
        char dir[128];
        snprintf(dir, sizeof(dir), "%s/state/memoptimizer", t->root);
        long b = 0, w = 0;
        assert_int_equal(state_load(dir, &b, &w), -ENOENT);
        assert_int_equal(state_save(dir, 10, 240), 0);
        assert_int_equal(state_load(dir, &b, &w), 0);
        assert_int_equal(b, 10);
        assert_int_equal(w, 240);
        sh("echo garbage > $T/state/memoptimizer/state", t->root);
        assert_int_equal(state_load(dir, &b, &w), -EBADMSG);
        assert_int_equal(state_remove(dir), 0);
        assert_int_equal(state_remove(dir), 0);
        assert_int_equal(state_load(dir, &b, &w), -ENOENT);
}

/* memoptimizer restore: the recorded baseline comes back while the recorded
 * value is in force; a foreign value stays; a corrupt file is removed. */
static void restore_from_state(void **state)
{
        struct tree *t = *state;
        char dir[128];
        snprintf(dir, sizeof(dir), "%s/state/memoptimizer", t->root);
        long b = -1;
        bool done = true;
        assert_int_equal(state_restore(t->root, dir, &b, &done), -ENOENT);

        assert_int_equal(actuate_write_wsf(t->root, 240), 0);
        assert_int_equal(state_save(dir, 10, 240), 0);
        assert_int_equal(state_restore(t->root, dir, &b, &done), 0);
        assert_true(done);
        assert_int_equal(b, 10);
        assert_int_equal(wsf(t->root), 10);
        assert_int_equal(state_load(dir, &b, &b), -ENOENT);     /* removed */

        assert_int_equal(actuate_write_wsf(t->root, 77), 0);            /* an administrator */
        assert_int_equal(state_save(dir, 10, 240), 0);
        assert_int_equal(state_restore(t->root, dir, &b, &done), 0);
        assert_false(done);
        assert_int_equal(wsf(t->root), 77);

        sh("mkdir -p $T/state/memoptimizer && echo 'baseline=x' > $T/state/memoptimizer/state", t->root);
        assert_int_equal(state_restore(t->root, dir, &b, &done), -EBADMSG);
        assert_int_equal(wsf(t->root), 77);
        assert_int_equal(state_load(dir, &b, &b), -ENOENT);
}

/* restore acts only for a daemon that is gone: while one holds the
 * instance lock it restores by itself, and `restore` leaves all alone. */
static void restore_waits_for_running_daemon(void **state)
{
        struct tree *t = *state;
        char dir[128];
        snprintf(dir, sizeof(dir), "%s/state/memoptimizer", t->root);
        assert_int_equal(actuate_write_wsf(t->root, 240), 0);
        assert_int_equal(state_save(dir, 10, 240), 0);
        int lock = state_lock(dir);
        assert_true(lock >= 0);
        long b = -1, w = -1;
        bool done = true;
        assert_int_equal(state_restore(t->root, dir, &b, &done), -EBUSY);
        assert_false(done);
        assert_int_equal(wsf(t->root), 240);
        assert_int_equal(state_load(dir, &b, &w), 0);          /* kept */
        close(lock);                    /* the daemon has exited (ExecStopPost=) */
        assert_int_equal(state_restore(t->root, dir, &b, &done), 0);
        assert_true(done);
        assert_int_equal(wsf(t->root), 10);
        assert_int_equal(state_load(dir, &b, &w), -ENOENT);
}

/* Write TEXT as the state file and expect state_load() to return WANT; a
 * refused file is never acted on. */
static void state_text(const struct tree *t, const char *dir, const char *text, int want)
{
        char path[192];
        snprintf(path, sizeof(path), "%s/state", dir);
        FILE *f = fopen(path, "we");
        assert_non_null(f);
        fputs(text, f);
        fclose(f);
        long b = -1, w = -1;
        assert_int_equal(state_load(dir, &b, &w), want);
        if (want == 0)
                return;
        bool done = true;
        assert_int_equal(actuate_write_wsf(t->root, 240), 0);
        assert_int_equal(state_restore(t->root, dir, &b, &done), want);
        assert_false(done);
        assert_int_equal(wsf(t->root), 240);
}

/* Only a scale factor some kernel accepts (1..3000) is ever written back;
 * every key once, whole lines, nothing else. */
static void state_values_bounded(void **state)
{
        struct tree *t = *state;
        char dir[128];
        snprintf(dir, sizeof(dir), "%s/state/memoptimizer", t->root);
        static const struct {
                const char *text;
                int want;
        } cases[] = {
                { "baseline=0\nwritten=240\npid=1\n", -ERANGE },
                { "baseline=100000\nwritten=240\npid=1\n", -ERANGE },
                { "baseline=3001\nwritten=240\npid=1\n", -ERANGE },
                { "baseline=10\nwritten=0\npid=1\n", -ERANGE },
                { "baseline=10\nwritten=100000\npid=1\n", -ERANGE },
                { "baseline=-5\nwritten=240\npid=1\n", -ERANGE },
                { "baseline=10\nbaseline=20\nwritten=240\n", -EBADMSG },
                { "baseline=10\nwritten=240\nextra=1\n", -EBADMSG },
                { "baseline=10\nwritten=240", -EBADMSG },
                { "baseline=10\nwritten=240\npid=0\n", -EBADMSG },
                { "baseline=10\n", -EBADMSG },
                { "", -EBADMSG },
                { "baseline=1\nwritten=3000\npid=4194304\n", 0 },
                { "baseline=10\nwritten=240\n", 0 },
        };
        sh("mkdir -p $T/state/memoptimizer", t->root);
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
                state_text(t, dir, cases[i].text, cases[i].want);
        assert_string_equal(state_strerror(-ERANGE), "records a scale factor outside 1..3000, which no kernel accepts");
}

/* The state path, made by SETUP, is refused with WANT, not acted on and
 * still there (CHECK). */
static void path_refused(const struct tree *t, const char *setup, int want, const char *check)
{
        char dir[128];
        snprintf(dir, sizeof(dir), "%s/state/memoptimizer", t->root);
        long b = -1, w = -1;
        bool done = true;
        sh(setup, t->root);
        assert_int_equal(state_load(dir, &b, &w), want);
        assert_int_equal(state_restore(t->root, dir, &b, &done), want);
        assert_false(done);
        assert_int_equal(wsf(t->root), 240);
        sh(check, t->root);
}

/* A state path that is a symbolic link, a directory or a FIFO is refused,
 * not followed (or waited on), not removed, and said for what it is. */
static void state_path_not_followed(void **state)
{
        struct tree *t = *state;
        assert_int_equal(actuate_write_wsf(t->root, 240), 0);
        path_refused(t, "mkdir -p $T/state/memoptimizer && printf 'baseline=10\nwritten=240\npid=1\n' > $T/elsewhere && "
                        "ln -s $T/elsewhere $T/state/memoptimizer/state",
                     -ELOOP, "test -L $T/state/memoptimizer/state && test -s $T/elsewhere");
        assert_string_equal(state_strerror(-ELOOP), "is a symbolic link, which is not followed");
        path_refused(t, "rm $T/state/memoptimizer/state && mkdir $T/state/memoptimizer/state", -EISDIR,
                     "test -d $T/state/memoptimizer/state");
        assert_string_equal(state_strerror(-EISDIR), "is a directory");
        path_refused(t, "rmdir $T/state/memoptimizer/state && mkfifo $T/state/memoptimizer/state", -EINVAL,
                     "test -p $T/state/memoptimizer/state");
}

static void single_instance_lock(void **state)
{
        struct tree *t = *state;
        char dir[128];
        snprintf(dir, sizeof(dir), "%s/state/memoptimizer", t->root);
        int a = state_lock(dir);
        assert_true(a >= 0);
        assert_int_equal(state_lock(dir), -EWOULDBLOCK);
        close(a);
        a = state_lock(dir);          /* released with the descriptor */
        assert_true(a >= 0);
        close(a);
}

static mode_t mode_of(const char *dir, const char *name)
{
        char p[256];
        struct stat st;
        snprintf(p, sizeof(p), "%s/%s", dir, name);
        assert_int_equal(lstat(p, &st), 0);
        return st.st_mode & 07777;
}

/* The state file is 0644 and the lock 0600 whatever the umask, and a state
 * file that others could have written is not acted on. */
static void tight_modes(void **state)
{
        struct tree *t = *state;
        char dir[128];
        snprintf(dir, sizeof(dir), "%s/state/memoptimizer", t->root);
        mode_t old = umask(0);
        assert_int_equal(state_save(dir, 10, 240), 0);
        sh("touch $T/state/memoptimizer/lock && chmod 666 $T/state/memoptimizer/lock", t->root);
        int fd = state_lock(dir);
        umask(old);
        assert_true(fd >= 0);
        close(fd);
        assert_int_equal(mode_of(dir, "state"), 0644);
        assert_int_equal(mode_of(dir, "lock"), 0600);

        long b = 0, w = 0;
        bool done = true;
        assert_int_equal(actuate_write_wsf(t->root, 240), 0);
        sh("chmod 666 $T/state/memoptimizer/state", t->root);
        assert_int_equal(state_load(dir, &b, &w), -EPERM);
        assert_int_equal(state_restore(t->root, dir, &b, &done), -EPERM);
        assert_false(done);
        assert_int_equal(wsf(t->root), 240);
        sh("chmod 620 $T/state/memoptimizer/state", t->root);
        assert_int_equal(state_load(dir, &b, &w), -EPERM);
        sh("chmod 644 $T/state/memoptimizer/state", t->root);
        assert_int_equal(state_load(dir, &b, &w), 0);
        if (geteuid() == 0) {
                /* root's file is read by any user (`status`)... */
                sh("chmod 755 $T $T/state $T/state/memoptimizer", t->root);
                assert_int_equal(seteuid(65534), 0);
                int r = state_load(dir, &b, &w);
                assert_int_equal(seteuid(0), 0);
                assert_int_equal(r, 0);
                /* ...but root does not act on another user's file. */
                sh("chown nobody $T/state/memoptimizer/state", t->root);
                assert_int_equal(state_load(dir, &b, &w), -EPERM);
        }
}


static const struct lowmem_ratio boot_ratio = { 5, { 256, 256, 32, 0, 0 } };
static const struct lowmem_ratio closed_ratio = { 5, { 1, 1, 32, 0, 0 } };

/* The pulse's writes: the kernel's text read, ours written, the boot value
 * back only over our own. */
static void lowmem_write_and_restore(void **state)
{
        struct tree *t = *state;
        struct lowmem_ratio r;
        assert_int_equal(actuate_read_lowmem(t->root, &r), 0);
        assert_true(lowmem_ratio_equal(&r, &boot_ratio));
        assert_int_equal(actuate_write_lowmem(t->root, &closed_ratio), 0);
        file_is(t->root, LOWMEM_PATH, "1 1 32 0 0\n");
        bool restored = false;
        assert_int_equal(actuate_restore_lowmem(t->root, &boot_ratio, &closed_ratio, &restored), 0);
        assert_true(restored);
        file_is(t->root, LOWMEM_PATH, "256 256 32 0 0\n");
        /* an administrator's value stays */
        sh("echo '64 64 32 0 0' > $T/proc/sys/vm/lowmem_reserve_ratio", t->root);
        assert_int_equal(actuate_restore_lowmem(t->root, &boot_ratio, &closed_ratio, &restored), 0);
        assert_false(restored);
        file_is(t->root, LOWMEM_PATH, "64 64 32 0 0\n");
        sh("echo 'what' > $T/proc/sys/vm/lowmem_reserve_ratio", t->root);
        assert_int_equal(actuate_read_lowmem(t->root, &r), -EBADMSG);
        assert_int_equal(actuate_restore_lowmem(t->root, &boot_ratio, &closed_ratio, &restored), -EBADMSG);
        file_is(t->root, LOWMEM_PATH, "what\n");
}

/* The lowmem file: kept while closed, acted on by restore after a crash
 * only while our value is in force, removed when done or corrupt, and
 * left alone while a daemon holds the lock. */
static void lowmem_restore_after_crash(void **state)
{
        struct tree *t = *state;
        char dir[128];
        snprintf(dir, sizeof(dir), "%s/state/memoptimizer", t->root);
        struct lowmem_ratio b, w;
        bool done = true;
        assert_int_equal(state_load_lowmem(dir, &b, &w), -ENOENT);
        assert_int_equal(state_restore_lowmem(t->root, dir, &done), -ENOENT);
        assert_int_equal(state_save_lowmem(dir, &boot_ratio, &closed_ratio), 0);
        assert_int_equal(state_load_lowmem(dir, &b, &w), 0);
        assert_true(lowmem_ratio_equal(&b, &boot_ratio) && lowmem_ratio_equal(&w, &closed_ratio));

        assert_int_equal(actuate_write_lowmem(t->root, &closed_ratio), 0);  /* the daemon died here */
        int lock = state_lock(dir);
        assert_true(lock >= 0);
        assert_int_equal(state_restore_lowmem(t->root, dir, &done), -EBUSY);
        file_is(t->root, LOWMEM_PATH, "1 1 32 0 0\n");
        /* the daemon at its next start holds the lock and acts itself */
        assert_int_equal(state_restore_lowmem_held(t->root, dir, &done), 0);
        assert_true(done);
        file_is(t->root, LOWMEM_PATH, "256 256 32 0 0\n");
        assert_int_equal(state_restore_lowmem_held(t->root, dir, &done), -ENOENT);
        close(lock);
        assert_int_equal(actuate_write_lowmem(t->root, &closed_ratio), 0);  /* died again */
        assert_int_equal(state_save_lowmem(dir, &boot_ratio, &closed_ratio), 0);
        assert_int_equal(state_restore_lowmem(t->root, dir, &done), 0);
        assert_true(done);
        file_is(t->root, LOWMEM_PATH, "256 256 32 0 0\n");
        assert_int_equal(state_load_lowmem(dir, &b, &w), -ENOENT);

        assert_int_equal(state_save_lowmem(dir, &boot_ratio, &closed_ratio), 0);
        sh("echo '64 64 32 0 0' > $T/proc/sys/vm/lowmem_reserve_ratio", t->root);
        assert_int_equal(state_restore_lowmem(t->root, dir, &done), 0);
        assert_false(done);
        file_is(t->root, LOWMEM_PATH, "64 64 32 0 0\n");

        const char *bad[] = { "boot=256 256 32 0 0\nwritten=1 1 32 0 0\n",            /* no pid */
                              "boot=256 256 32 0 0\nwritten=1 1 32\npid=5\n",          /* lengths differ */
                              "boot=256 x\nwritten=1 1\npid=5\n",
                              "boot=1\nboot=1\nwritten=1\npid=5\n",
                              "boot=1\nwritten=1\npid=5\nmore=1\n", "" };
        for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
                char path[192];
                snprintf(path, sizeof(path), "%s/lowmem", dir);
                FILE *f = fopen(path, "we");
                assert_non_null(f);
                fputs(bad[i], f);
                fclose(f);
                assert_int_equal(state_load_lowmem(dir, &b, &w), -EBADMSG);
                assert_int_equal(state_restore_lowmem(t->root, dir, &done), -EBADMSG);
                assert_false(done);
                assert_int_equal(state_load_lowmem(dir, &b, &w), -ENOENT);     /* removed */
                file_is(t->root, LOWMEM_PATH, "64 64 32 0 0\n");
        }
        /* a link is never followed */
        sh("ln -s /etc/passwd $T/state/memoptimizer/lowmem", t->root);
        assert_int_equal(state_load_lowmem(dir, &b, &w), -ELOOP);
        assert_int_equal(state_restore_lowmem(t->root, dir, &done), -ELOOP);
        sh("rm $T/state/memoptimizer/lowmem", t->root);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(write_and_restore, setup, teardown),
                cmocka_unit_test_setup_teardown(restore_leaves_foreign_value, setup, teardown),
                cmocka_unit_test_setup_teardown(missing_sysctl_is_an_error, setup, teardown),
                cmocka_unit_test_setup_teardown(compact_per_node_then_all, setup, teardown),
                cmocka_unit_test_setup_teardown(state_file_round_trip, setup, teardown),
                cmocka_unit_test_setup_teardown(restore_from_state, setup, teardown),
                cmocka_unit_test_setup_teardown(restore_waits_for_running_daemon, setup, teardown),
                cmocka_unit_test_setup_teardown(state_values_bounded, setup, teardown),
                cmocka_unit_test_setup_teardown(state_path_not_followed, setup, teardown),
                cmocka_unit_test_setup_teardown(single_instance_lock, setup, teardown),
                cmocka_unit_test_setup_teardown(tight_modes, setup, teardown),
                cmocka_unit_test_setup_teardown(lowmem_write_and_restore, setup, teardown),
                cmocka_unit_test_setup_teardown(lowmem_restore_after_crash, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
