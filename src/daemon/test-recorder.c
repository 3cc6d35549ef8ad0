/* The recorder: rotation at record_max_size and on a new interval; every
 * file it leaves is a whole trace. */
#include <errno.h>
#include <limits.h>
#include <math.h>
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

#include "recorder.h"
#include "util.h"

#include "trace-fixture.h"
#include "tmp-tree.h"

/* Samples in a whole trace file, every line parsed, or -1 when it is not
 * one; its header's interval in *interval. */
static long samples_in(const char *path, double *interval)
{
        FILE *f = fopen(path, "re");
        if (!f)
                return -1;
        char *line = NULL, err[256];
        size_t cap = 0;
        ssize_t n;
        long samples = 0, lines = 0;
        struct trace_record rec = { 0 };
        while ((n = getline(&line, &cap, f)) > 0) {
                assert_int_equal(line[n - 1], '\n');
                if (trace_parse_line(line, (size_t)n - 1, &rec, err, sizeof(err)) < 0)
                        fail_msg("%s:%ld: %s", path, lines + 1, err);
                if (lines++ == 0)
                        assert_int_equal(rec.type, TRACE_HEADER);
                if (rec.type == TRACE_HEADER)
                        *interval = rec.header.interval;
                else if (rec.type == TRACE_SAMPLE)
                        samples++;
        }
        trace_record_free(&rec);
        free(line);
        fclose(f);
        return samples;
}

/* record_max_size: the file moves to FILE.1 once it has grown past the
 * limit, both are whole traces and no sample is lost; a new interval
 * starts a new file whose header says so. */
static void recorder_rotates(void **state)
{
        (void)state;
        char dir[] = "/tmp/test-trace-XXXXXX", path[64], old[68];
        assert_non_null(mkdtemp(dir));
        snprintf(path, sizeof(path), "%s/t.jsonl", dir);
        snprintf(old, sizeof(old), "%s.1", path);
        struct recorder *rec;
        char err[ERR_MSG_MAX];
        assert_int_equal(recorder_open(&rec, path, "", "daemon", 1.0, 65536, true, err, sizeof(err)), 0);
        long written = 0, rotated_at = -1;
        for (; written < 2000 && (rotated_at < 0 || written < rotated_at + 10); written++) {
                struct sample s = make_sample((double)written);
                int r = recorder_sample(rec, &s);
                assert_true(r == 0 || (r == 1 && rotated_at < 0));
                if (r == 1)
                        rotated_at = written;
        }
        assert_true(rotated_at > 0);
        struct stat st;
        assert_int_equal(stat(old, &st), 0);
        assert_true(st.st_size >= 65536 && st.st_size < 65536 + 4096);
        assert_int_equal(recorder_close(rec), 0);
        double interval = 0;
        long before = samples_in(old, &interval), after = samples_in(path, &interval);
        assert_int_equal(before, rotated_at);
        assert_int_equal(before + after, written);
        assert_float_equal(interval, 1.0, 0);

        /* a restart: the earlier trace moves aside; a reload with another
         * interval: a new file with the new header */
        assert_int_equal(recorder_open(&rec, path, "", "daemon", 1.0, 0, true, err, sizeof(err)), 1);
        struct sample s = make_sample(1);
        assert_int_equal(recorder_sample(rec, &s), 0);
        assert_int_equal(recorder_configure(rec, 1.0, 0), 0);  /* nothing changed */
        assert_int_equal(recorder_configure(rec, 0.5, 0), 1);
        s = make_sample(2);
        assert_int_equal(recorder_sample(rec, &s), 0);
        assert_int_equal(recorder_close(rec), 0);
        assert_int_equal(samples_in(old, &interval), 1);
        assert_float_equal(interval, 1.0, 0);
        assert_int_equal(samples_in(path, &interval), 1);
        assert_float_equal(interval, 0.5, 0);
        assert_int_equal(unlink(path), 0);
        assert_int_equal(unlink(old), 0);
        assert_int_equal(rmdir(dir), 0);
}

struct dir {
        char path[64];          /* a fresh directory */
        char trace[80], old[84], target[80];    /* DIR/t.jsonl, its .1, DIR/target */
};

static int setup(void **state)
{
        struct dir *d = calloc(1, sizeof(*d));
        assert_non_null(d);
        snprintf(d->path, sizeof(d->path), "/tmp/test-recorder-XXXXXX");
        assert_non_null(mkdtemp(d->path));
        snprintf(d->trace, sizeof(d->trace), "%s/t.jsonl", d->path);
        snprintf(d->old, sizeof(d->old), "%s.1", d->trace);
        snprintf(d->target, sizeof(d->target), "%s/target", d->path);
        *state = d;
        return 0;
}

static int teardown(void **state)
{
        struct dir *d = *state;
        assert_int_equal(tmp_tree_remove(d->path), 0);
        free(d);
        return 0;
}

/* Run a shell command with $D set to the directory. */
static void sh(const struct dir *d, const char *cmd)
{
        assert_int_equal(setenv("D", d->path, 1), 0);
        assert_int_equal(system(cmd), 0);
}

static void content_is(const char *path, const char *want)
{
        char buf[64] = "";
        FILE *f = fopen(path, "re");
        assert_non_null(f);
        size_t n = fread(buf, 1, sizeof(buf) - 1, f);
        fclose(f);
        buf[n] = '\0';
        assert_string_equal(buf, want);
}

/* Open as the daemon does (take_over) or as `record` does; expect want. */
static void refused(const struct dir *d, bool take_over, int want, const char *why)
{
        struct recorder *rec = NULL;
        char err[ERR_MSG_MAX], msg[ERR_MSG_MAX];
        assert_int_equal(recorder_open(&rec, d->trace, "", take_over ? "daemon" : "record", 1.0, 0, take_over,
                                       err, sizeof(err)), want);
        snprintf(msg, sizeof(msg), "%s %s", d->trace, why);
        assert_string_equal(err, msg);
}

/* A symbolic link planted where the trace goes (say in a directory everyone
 * can write) is never followed: the file it points to keeps its content. */
static void trace_never_follows_a_link(void **state)
{
        struct dir *d = *state;
        sh(d, "printf 'secret\n' > $D/target && chmod 600 $D/target && ln -s $D/target $D/t.jsonl");
        refused(d, true, -ELOOP, "is a symbolic link, which is not followed");
        refused(d, false, -EEXIST, "exists; not overwriting it (remove it or name another file)");
        content_is(d->target, "secret\n");
        sh(d, "test -L $D/t.jsonl && test ! -e $D/t.jsonl.1");
        /* not through a dangling link either */
        sh(d, "rm $D/target");
        refused(d, true, -ELOOP, "is a symbolic link, which is not followed");
        refused(d, false, -EEXIST, "exists; not overwriting it (remove it or name another file)");
        sh(d, "test ! -e $D/target");
}

/* An earlier trace: `record` refuses to overwrite it; the daemon (which
 * restarts) moves it to FILE.1 and starts a new one. */
static void trace_existing_file(void **state)
{
        struct dir *d = *state;
        sh(d, "printf 'earlier\n' > $D/t.jsonl");
        refused(d, false, -EEXIST, "exists; not overwriting it (remove it or name another file)");
        content_is(d->trace, "earlier\n");
        struct recorder *rec;
        char err[ERR_MSG_MAX];
        assert_int_equal(recorder_open(&rec, d->trace, "", "daemon", 1.0, 0, true, err, sizeof(err)), 1);
        content_is(d->old, "earlier\n");
        assert_int_equal(recorder_close(rec), 0);
        double interval = 0;
        assert_int_equal(samples_in(d->trace, &interval), 0);  /* a new trace: its header */
        /* neither a directory nor a FIFO (which would block an open) */
        sh(d, "rm $D/t.jsonl && mkdir $D/t.jsonl");
        refused(d, true, -EISDIR, "is a directory");
        sh(d, "rmdir $D/t.jsonl && mkfifo $D/t.jsonl");
        refused(d, true, -EINVAL, "is not a regular file");
        /* nor another file's second name */
        sh(d, "rm $D/t.jsonl && printf 'other\n' > $D/target && ln $D/target $D/t.jsonl");
        refused(d, true, -EMLINK, "has other hard links");
        content_is(d->target, "other\n");
        if (geteuid() == 0) {
                sh(d, "rm $D/t.jsonl && printf 'theirs\n' > $D/t.jsonl && chown nobody $D/t.jsonl");
                refused(d, true, -EPERM, "belongs to another user");
                content_is(d->trace, "theirs\n");
        }
}

/* One writer per trace: a second recorder on the same file is refused,
 * and the first one's file is left alone. */
static void trace_one_writer(void **state)
{
        struct dir *d = *state;
        struct recorder *rec;
        char err[ERR_MSG_MAX];
        assert_int_equal(recorder_open(&rec, d->trace, "", "daemon", 1.0, 0, true, err, sizeof(err)), 0);
        struct sample s = make_sample(1);
        assert_int_equal(recorder_sample(rec, &s), 0);
        refused(d, true, -EWOULDBLOCK, "is being written by another memoptimizer");
        refused(d, false, -EEXIST, "exists; not overwriting it (remove it or name another file)");
        s = make_sample(2);
        assert_int_equal(recorder_sample(rec, &s), 0);
        assert_int_equal(recorder_close(rec), 0);
        double interval = 0;
        assert_int_equal(samples_in(d->trace, &interval), 2);
        sh(d, "test ! -e $D/t.jsonl.1");
}

/* Rotation follows no link either: a trace replaced by a symbolic link
 * while it is written stops the recording, and the link's target is left
 * as it was. */
static void rotation_never_follows_a_link(void **state)
{
        struct dir *d = *state;
        struct recorder *rec;
        char err[ERR_MSG_MAX];
        assert_int_equal(recorder_open(&rec, d->trace, "", "daemon", 1.0, 65536, true, err, sizeof(err)), 0);
        sh(d, "printf 'secret\n' > $D/target && mv $D/t.jsonl $D/moved && ln -s $D/target $D/t.jsonl");
        int r = 0;
        for (long i = 0; i < 2000 && r == 0; i++) {
                struct sample s = make_sample((double)i);
                r = recorder_sample(rec, &s);
        }
        assert_int_equal(r, -ESTALE);
        char why[ERR_MSG_MAX], want[ERR_MSG_MAX];
        recorder_strerror(why, sizeof(why), d->trace, r);
        snprintf(want, sizeof(want), "%s was replaced by another file", d->trace);
        assert_string_equal(why, want);
        recorder_close(rec);
        content_is(d->target, "secret\n");
        sh(d, "test -L $D/t.jsonl && test ! -e $D/t.jsonl.1");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(recorder_rotates),
                cmocka_unit_test_setup_teardown(trace_never_follows_a_link, setup, teardown),
                cmocka_unit_test_setup_teardown(trace_existing_file, setup, teardown),
                cmocka_unit_test_setup_teardown(trace_one_writer, setup, teardown),
                cmocka_unit_test_setup_teardown(rotation_never_follows_a_link, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
