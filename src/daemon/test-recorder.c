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
        assert_int_equal(recorder_open(&rec, path, "", "daemon", 1.0, 65536, err, sizeof(err)), 0);
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

        /* a reload with another interval: a new file with the new header */
        assert_int_equal(recorder_open(&rec, path, "", "daemon", 1.0, 0, err, sizeof(err)), 0);
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

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(recorder_rotates),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
