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
#include <zlib.h>

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

/* The file's bytes, gzip-compressed by zlib into path (static buffer). */
static const char *gzip_file_of(const char *text, size_t len)
{
        static char path[] = "/tmp/test-trace-XXXXXX";
        strcpy(path, "/tmp/test-trace-XXXXXX");
        int fd = mkstemp(path);
        assert_true(fd >= 0);
        gzFile gz = gzdopen(fd, "wb");
        assert_non_null(gz);
        assert_int_equal(gzwrite(gz, text, (unsigned)len), (int)len);
        assert_int_equal(gzclose(gz), Z_OK);
        return path;
}

/* The whole file at path into buf; its size. */
static size_t slurp(const char *path, unsigned char *buf, size_t size)
{
        FILE *f = fopen(path, "rb");
        assert_non_null(f);
        size_t n = fread(buf, 1, size, f);
        assert_true(n < size);
        fclose(f);
        return n;
}

static void spill(const char *path, const unsigned char *buf, size_t len)
{
        FILE *f = fopen(path, "wb");
        assert_non_null(f);
        assert_int_equal(fwrite(buf, 1, len, f), len);
        assert_int_equal(fclose(f), 0);
}

/* Reads the file at path whole; returns the last result and fills err. */
static int read_path(const char *path, size_t *records, char *err, size_t errsz)
{
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

static int read_all(const char *text, size_t *records, char *err, size_t errsz)
{
        return read_path(file_of(text), records, err, errsz);
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

/* A trace of a header, n samples and a decision on the last, as text. */
static char *trace_text(size_t n)
{
        size_t len, total = 0;
        char *text = file_line(trace_header_line(&trace_test_header), &total);
        for (size_t i = 1; i <= n; i++) {
                struct sample s = make_sample((double)i);
                char *l = file_line(trace_sample_line(&s), &len);
                char *more = realloc(text, total + len + 1);
                assert_non_null(more);
                text = more;
                memcpy(text + total, l, len + 1);
                total += len;
                free(l);
        }
        return text;
}

/* Compressed, the same records; concatenated gzip members (what `cat
 * a.gz b.gz` makes) are one trace, as for gzip -d. */
static void gzip_reads_the_same(void **state)
{
        (void)state;
        char *text = trace_text(200);
        size_t len = strlen(text), n;
        char err[ERR_MSG_MAX];
        assert_int_equal(read_path(gzip_file_of(text, len), &n, err, sizeof(err)), 0);
        assert_int_equal(n, 201);
        /* the header in one member, the samples in a second */
        static unsigned char a[1 << 16], b[1 << 16];
        size_t first = strchr(text, '\n') - text + 1;
        const char *pa = gzip_file_of(text, first);
        size_t la = slurp(pa, a, sizeof(a));
        unlink(pa);
        const char *pb = gzip_file_of(text + first, len - first);
        size_t lb = slurp(pb, b, sizeof(b));
        assert_true(la + lb < sizeof(a));
        memcpy(a + la, b, lb);
        spill(pb, a, la + lb);
        assert_int_equal(read_path(pb, &n, err, sizeof(err)), 0);
        assert_int_equal(n, 201);
        free(text);
}

/* A damaged compressed trace is refused with FILE:LINE and where in the
 * compressed file, never read as far as it happens to go. */
static void gzip_damage_refused(void **state)
{
        (void)state;
        char *text = trace_text(200);
        size_t len = strlen(text);
        char err[ERR_MSG_MAX];
        static unsigned char gz[1 << 16], bad[1 << 16];
        const char *path = gzip_file_of(text, len);
        size_t glen = slurp(path, gz, sizeof(gz));
        static const struct { const char *what; const char *says; } cases[] = {
                { "cut", "corrupt gzip data (at compressed byte " },
                { "block type", "corrupt gzip data (at compressed byte 11): invalid block type" },
                /* may inflate to other text (the CRC is checked at the
                 * end): then a line is refused first */
                { "flipped", ": " },
                { "crc", "corrupt gzip data (at compressed byte " },
                { "trailing", "data after the end of the gzip stream" },
                { "magic only", "corrupt gzip data (at compressed byte 2): the compressed data is cut short" },
                { "not gzip", ":1: not a memoptimizer trace: it starts like gzip but is not" },
        };
        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                size_t blen = glen;
                memcpy(bad, gz, glen);
                switch (i) {
                case 0: blen = glen / 2; break;
                case 1: bad[10] |= 0x06; break;         /* the first block's type: 3 is invalid */
                case 2: for (size_t k = glen / 2; k < glen / 2 + 8; k++) bad[k] ^= 0x55; break;
                case 3: bad[glen - 8] ^= 1; break;      /* the trailer's CRC-32 */
                case 4: memcpy(bad + glen, "garbage\n", 8); blen += 8; break;
                case 5: blen = 2; break;
                case 6: bad[1] = 'x'; break;
                }
                spill(path, bad, blen);
                struct trace_reader *r;
                int e = trace_reader_open(&r, path, err, sizeof(err));
                if (e == 0) {
                        struct trace_record rec = { 0 };
                        while ((e = trace_reader_next(r, &rec, err, sizeof(err))) > 0)
                                ;
                        trace_record_free(&rec);
                        trace_reader_free(r);
                }
                if (e != -EBADMSG || !strstr(err, cases[i].says) || strncmp(err, path, strlen(path)) != 0 ||
                    !(err[strlen(path)] == ':' && err[strlen(path) + 1] >= '1' && err[strlen(path) + 1] <= '9'))
                        fail_msg("%s: %d '%s', expected FILE:LINE: ...%s", cases[i].what, e, err, cases[i].says);
        }
        unlink(path);
        free(text);
}

/* A line may hold TRACE_LINE_MAX bytes and no more, plain or compressed;
 * a longer one is refused without reading it whole. */
static void line_limit(void **state)
{
        (void)state;
        size_t hl;
        char *h = file_line(trace_header_line(&trace_test_header), &hl);
        char *text = malloc(hl + 2 * TRACE_LINE_MAX + 1);
        assert_non_null(text);
        char err[ERR_MSG_MAX];
        size_t n;
        for (int gz = 0; gz <= 1; gz++) {
                /* the header padded with blanks to the limit exactly */
                memcpy(text, h, hl - 1);
                memset(text + hl - 1, ' ', TRACE_LINE_MAX - (hl - 1));
                strcpy(text + TRACE_LINE_MAX, "\n");
                const char *p = gz ? gzip_file_of(text, TRACE_LINE_MAX + 1) : file_of(text);
                assert_int_equal(read_path(p, &n, err, sizeof(err)), 0);
                assert_int_equal(n, 1);
                /* one byte more */
                memcpy(text, h, hl - 1);
                memset(text + hl - 1, ' ', TRACE_LINE_MAX + 1 - (hl - 1));
                strcpy(text + TRACE_LINE_MAX + 1, "\n");
                p = gz ? gzip_file_of(text, TRACE_LINE_MAX + 2) : file_of(text);
                if (read_path(p, &n, err, sizeof(err)) != -EBADMSG || !strstr(err, ":1: line longer than 1 MiB"))
                        fail_msg("gzip %d, limit + 1: '%s'", gz, err);
                /* a second line of 2 MiB without a newline */
                memcpy(text, h, hl);
                memset(text + hl, 'x', 2 * TRACE_LINE_MAX);
                text[hl + 2 * TRACE_LINE_MAX] = '\0';
                p = gz ? gzip_file_of(text, hl + 2 * TRACE_LINE_MAX) : file_of(text);
                if (read_path(p, &n, err, sizeof(err)) != -EBADMSG || !strstr(err, ":2: line longer than 1 MiB"))
                        fail_msg("gzip %d, 2 MiB: '%s'", gz, err);
        }
        free(text);
        free(h);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(reader_checks_the_order),
                cmocka_unit_test(long_path_named_in_full),
                cmocka_unit_test(gzip_reads_the_same),
                cmocka_unit_test(gzip_damage_refused),
                cmocka_unit_test(line_limit),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
