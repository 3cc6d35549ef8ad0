/* Reading trace files: the order of the lines is checked and every error
 * names FILE:LINE, with the file named in full. */
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

#include "trace-file.h"
#include "util.h"

#include "trace-fixture.h"

/* A file of the given lines; returns its path (static buffer). */
static const char *file_of(const char *text)
{
        static char path[] = "/tmp/test-trace-XXXXXX";
        strcpy(path, "/tmp/test-trace-XXXXXX");
        int fd = mkstemp(path);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
        close(fd);
        return path;
}

/* Reads the whole file; returns the last result and fills err. */
static int read_all(const char *text, size_t *records, char *err, size_t errsz)
{
        const char *path = file_of(text);
        struct trace_reader *r;
        assert_int_equal(trace_reader_open(&r, path, err, errsz), 0);
        struct trace_record rec = { 0 };
        int n;
        *records = 0;
        while ((n = trace_reader_next(r, &rec, err, errsz)) > 0)
                (*records)++;
        trace_record_free(&rec);
        trace_reader_free(r);
        unlink(path);
        return n;
}

/* The lines joined (each already ends in a newline). */
static char *lines_of(const char *const *l)
{
        static char buf[16384];
        buf[0] = '\0';
        for (; *l; l++)
                strcat(buf, *l);
        return buf;
}
#define lines(...) lines_of((const char *const[]){ __VA_ARGS__ })

/* The line as it stands in a file: with its newline (takes line). */
static char *file_line(char *line, size_t *len)
{
        line_of(line, len);
        char *l = realloc(line, *len + 2);
        assert_non_null(l);
        l[(*len)++] = '\n';
        l[*len] = '\0';
        return l;
}

static void reader_checks_the_order(void **state)
{
        (void)state;
        size_t hl, s1l, s2l, dl;
        char *h = file_line(trace_header_line(&trace_test_header), &hl);
        struct sample a = make_sample(1), b = make_sample(2);
        char *s1 = file_line(trace_sample_line(&a), &s1l), *s2 = file_line(trace_sample_line(&b), &s2l);
        struct trace_decision td = { .time = 2, .d = { .reason = WSF_LOWER_CALM, .wsf_old = 20, .wsf_new = 15,
                                                       .node = -1 } };
        char *d = file_line(trace_decision_line(&td), &dl);
        char err[600];
        size_t n;

        assert_int_equal(read_all(lines(h, s1, s2, d, NULL), &n, err, sizeof(err)), 0);
        assert_int_equal(n, 4);

        char cut[8192];
        snprintf(cut, sizeof(cut), "%.*s", (int)(s2l / 2), s2);        /* no newline */
        static char text[8][16384];
        snprintf(text[0], sizeof(text[0]), "%s", lines(h, s2, s1, NULL));
        snprintf(text[1], sizeof(text[1]), "%s", lines(s1, h, NULL));
        snprintf(text[2], sizeof(text[2]), "%s", lines(h, s1, h, NULL));
        snprintf(text[3], sizeof(text[3]), "%s", lines(h, d, NULL));
        snprintf(text[4], sizeof(text[4]), "%s", lines(h, s1, d, NULL)); /* d is at 2, s1 at 1 */
        snprintf(text[5], sizeof(text[5]), "%s", lines(h, s1, cut, NULL));
        text[6][0] = '\0';
        snprintf(text[7], sizeof(text[7]), "%s", lines(h, "{\"type\":\"sample\",\n", NULL));
        static const char *const says[8] = {
                ":3: sample time 1.000000 is not after the previous sample's 2.000000",
                ":1: not a memoptimizer trace: the first line is not its header",
                ":3: a second header",
                ":2: a decision that does not follow a sample",
                ":3: decision time 2.000000 is not the time of the sample before it (1.000000)",
                ":3: the last line is cut short",
                ":1: empty: not a memoptimizer trace",
                ":2: incomplete JSON object",
        };
        for (size_t i = 0; i < 8; i++) {
                int r = read_all(text[i], &n, err, sizeof(err));
                if (r != -EBADMSG || !strstr(err, says[i]) || strncmp(err, "/tmp/test-trace-", 16) != 0)
                        fail_msg("case %zu: %d '%s', expected FILE%s", i, r, err, says[i]);
        }
        free(h);
        free(s1);
        free(s2);
        free(d);
}

/* A trace deep in a tree is named in full: a message cut at 255
 * characters points at no file (it did, in a CI checkout). */
static void long_path_named_in_full(void **state)
{
        (void)state;
        char dir[] = "/tmp/test-trace-XXXXXX";
        assert_non_null(mkdtemp(dir));
        char sub[PATH_MAX], path[PATH_MAX];
        snprintf(sub, sizeof(sub), "%s/%0200d", dir, 0);    /* a name is at most 255 */
        assert_int_equal(mkdir(sub, 0700), 0);
        int n = snprintf(path, sizeof(path), "%s/%0150d.jsonl", sub, 0);
        assert_true(n > 300 && (size_t)n < sizeof(path));
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fputs("not json\n", f);
        fclose(f);
        struct trace_reader *r;
        char err[ERR_MSG_MAX];
        assert_int_equal(trace_reader_open(&r, path, err, sizeof(err)), 0);
        struct trace_record rec = { 0 };
        assert_int_equal(trace_reader_next(r, &rec, err, sizeof(err)), -EBADMSG);
        char want[PATH_MAX + 8];
        snprintf(want, sizeof(want), "%s:1: ", path);
        if (strncmp(err, want, strlen(want)) != 0)
                fail_msg("'%s' does not start with '%s'", err, want);
        trace_record_free(&rec);
        trace_reader_free(r);
        assert_int_equal(unlink(path), 0);
        assert_int_equal(rmdir(sub), 0);
        assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(reader_checks_the_order),
                cmocka_unit_test(long_path_named_in_full),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
