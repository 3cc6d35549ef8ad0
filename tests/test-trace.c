/* The trace format: what is written reads back the same, and what is not a
 * valid trace is refused with FILE:LINE and a reason, never a crash. */
#include <errno.h>
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

#include "record.h"
#include "trace.h"
#include "util.h"

static struct zone zones[2];

static struct sample make_sample(double t)
{
        memset(zones, 0, sizeof(zones));
        for (int i = 0; i < 2; i++) {
                zones[i].node = i;
                strcpy(zones[i].name, i ? "Normal" : "DMA32");
                zones[i].managed_pages = 1000000 + (uint64_t)i;
                zones[i].wmark_min = 1000;
                zones[i].wmark_low = 2000;
                zones[i].wmark_high = 3000;
                for (unsigned k = 0; k < 11; k++)
                        zones[i].nr_free[k] = 100 * (uint64_t)k + (uint64_t)i;
                zone_sum_orders(&zones[i], 11);
        }
        struct sample s = { .time = t, .wsf = 10, .nr_orders = 11, .nr_zones = 2, .zones = zones };
        s.vm = (struct vmstat){ .pgsteal_kswapd = 1, .pgsteal_direct = 2, .pgscan_kswapd = 3,
                                .pgscan_direct = 4, .allocstall = 5, .compact_stall = 6,
                                .compact_success = 7, .compact_fail = 8, .pgalloc = UINT64_C(1) << 60,
                                .kswapd_low_wmark_hit_quickly = 10, .nr_free_pages = 11, .oom_kill = 12 };
        s.mem = (struct meminfo){ .mem_total = 13, .mem_free = 14, .mem_available = 15,
                                  .active_file = 16, .inactive_file = 17, .hugepages_total = 18,
                                  .hugepages_free = 19, .anon_huge = 20 };
        return s;
}

/* The line trace_write_* produced, without its newline (caller frees). */
static char *line_of(int (*write)(FILE *, const void *), const void *what, size_t *len)
{
        char *buf = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&buf, &size);
        assert_non_null(f);
        assert_int_equal(write(f, what), 0);
        fclose(f);
        assert_true(size > 1 && buf[size - 1] == '\n');
        assert_null(memchr(buf, '\n', size - 1));       /* one line */
        *len = size - 1;
        return buf;
}

static int w_sample(FILE *f, const void *p) { return trace_write_sample(f, p); }
static int w_header(FILE *f, const void *p) { return trace_write_header(f, p); }
static int w_decision(FILE *f, const void *p) { return trace_write_decision(f, p); }

static void sample_round_trip(void **state)
{
        (void)state;
        struct sample s = make_sample(12345.678901);
        size_t len;
        char *line = line_of(w_sample, &s, &len);
        struct trace_record rec = { 0 };
        char err[200] = "";
        assert_int_equal(trace_parse_line(line, len, &rec, err, sizeof(err)), 0);
        assert_int_equal(rec.type, TRACE_SAMPLE);
        assert_float_equal(rec.sample.time, s.time, 1e-6);
        assert_int_equal(rec.sample.wsf, 10);
        assert_int_equal(rec.sample.nr_orders, 11);
        assert_int_equal(rec.sample.nr_zones, 2);
        assert_memory_equal(rec.sample.zones, zones, sizeof(zones));   /* free_at[] summed again */
        assert_memory_equal(&rec.sample.vm, &s.vm, sizeof(s.vm));
        assert_memory_equal(&rec.sample.mem, &s.mem, sizeof(s.mem));
        trace_record_free(&rec);
        free(line);
}

static void decision_round_trip(void **state)
{
        (void)state;
        struct trace_decision td = { .time = 5.5, .acting = true, .d = {
                .reason = WSF_RAISE_FORECAST, .wsf_old = 10, .wsf_new = 334, .ceiling = 1000,
                .node = 0, .zone = "Normal", .secs_to_low = 4.25, .secs_to_min = INFINITY,
                .drain = 20000, .reclaim = 0, .reclaim_peak = 0, .direct = 0, .stalls = 3,
                .nr_compact = 1, .nr_backoff = 1,
        } };
        td.d.compact[0] = (struct compact_order){ .node = 0, .order = 9, .secs_to_exhaust = 2.5,
                                                  .free_at_order = 4096, .extfrag = 0.75 };
        td.d.backoff[0] = (struct compact_backoff){ .node = 0, .order = 9, .defer_shift = 2,
                                                    .before = 512, .after = 512, .retry_in = 4 };
        size_t len;
        char *line = line_of(w_decision, &td, &len);
        struct trace_record rec = { 0 };
        char err[200] = "";
        assert_int_equal(trace_parse_line(line, len, &rec, err, sizeof(err)), 0);
        assert_int_equal(rec.type, TRACE_DECISION);
        const struct decision *d = &rec.decision.d;
        assert_true(rec.decision.acting);
        assert_int_equal(d->reason, WSF_RAISE_FORECAST);
        assert_int_equal(d->wsf_new, 334);
        assert_string_equal(d->zone, "Normal");
        assert_float_equal(d->secs_to_low, 4.25, 1e-9);
        assert_true(isinf(d->secs_to_min));     /* written as null */
        assert_int_equal(d->nr_compact, 1);
        assert_int_equal(d->compact[0].order, 9);
        assert_float_equal(d->compact[0].extfrag, 0.75, 1e-9);
        assert_int_equal(d->nr_backoff, 1);
        assert_int_equal(d->backoff[0].defer_shift, 2);
        free(line);
}

static const struct trace_header header = {
        .version = TRACE_VERSION, .source = "record", .program = "memoptimizer test",
        .kernel = "6.18", .started = "2026-11-21T00:00:00Z", .interval = 1,
        .page_size = 4096, .thp_pmd_size = 2097152,
};

static void header_round_trip(void **state)
{
        (void)state;
        size_t len;
        char *line = line_of(w_header, &header, &len);
        struct trace_record rec = { 0 };
        char err[200] = "";
        assert_int_equal(trace_parse_line(line, len, &rec, err, sizeof(err)), 0);
        assert_int_equal(rec.type, TRACE_HEADER);
        assert_int_equal(rec.header.version, TRACE_VERSION);
        assert_string_equal(rec.header.kernel, "6.18");
        assert_int_equal(rec.header.thp_pmd_size, 2097152);
        free(line);
}

/* Each bad line is refused, and the message names what is wrong. */
static void bad_lines_refused(void **state)
{
        (void)state;
        static const struct { const char *line, *says; } bad[] = {
                { "", "incomplete" },
                { "{\"type\":\"sample\"", "incomplete" },
                { "not json", "invalid JSON" },
                { "[1,2]", "not a JSON object" },
                { "{\"type\":\"sample\"} x", "invalid JSON" },
                { "{\"type\":\"nonsense\"}", "unknown type" },
                { "{\"type\":7}", "\"type\" is not a string" },
                { "{\"type\":\"header\",\"format\":\"memoptimizer-trace\",\"version\":2}", "version 2" },
                { "{\"type\":\"header\",\"format\":\"other\",\"version\":1}", "format" },
                { "{\"type\":\"sample\",\"t\":-1}", "\"t\" is out of range" },
                { "{\"type\":\"sample\",\"t\":1,\"wsf\":10,\"nr_orders\":40}", "\"nr_orders\" is out of range" },
                { "{\"type\":\"sample\",\"t\":1,\"wsf\":10,\"nr_orders\":2,\"zones\":[],\"vmstat\":{},\"meminfo\":{}}",
                  "\"zones\" has 0 entries" },
                { "{\"type\":\"sample\",\"t\":1,\"wsf\":10,\"nr_orders\":2,\"zones\":[{\"node\":0,\"zone\":\"N\\u0007\","
                  "\"managed_pages\":1,\"wmark_min\":0,\"wmark_low\":0,\"wmark_high\":0,\"nr_free\":[1,1]}],\"vmstat\":{},\"meminfo\":{}}",
                  "characters other than" },
                { "{\"type\":\"sample\",\"t\":1,\"wsf\":10,\"nr_orders\":2,\"zones\":[{\"node\":0,\"zone\":\"N\","
                  "\"managed_pages\":1,\"wmark_min\":0,\"wmark_low\":0,\"wmark_high\":0,\"nr_free\":[1]}],\"vmstat\":{},\"meminfo\":{}}",
                  "1 free counts, not nr_orders 2" },
                { "{\"a\":[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]}", "invalid JSON" },
                { "{\"type\":\"decision\",\"t\":1,\"reason\":\"panic\"}", "unknown reason" },
        };
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                struct trace_record rec = { 0 };
                char err[200] = "";
                int r = trace_parse_line(bad[i].line, strlen(bad[i].line), &rec, err, sizeof(err));
                if (r != -EBADMSG || !strstr(err, bad[i].says))
                        fail_msg("line %zu: %d '%s', expected -EBADMSG saying '%s'", i, r, err, bad[i].says);
                trace_record_free(&rec);
        }
        char nul[] = "{\"type\":\"sa\0mple\"}";
        struct trace_record rec = { 0 };
        char err[200];
        assert_int_equal(trace_parse_line(nul, sizeof(nul) - 1, &rec, err, sizeof(err)), -EBADMSG);
        assert_non_null(strstr(err, "NUL"));
}

/* Every prefix of a valid line, and the line with bytes changed at random,
 * are parsed without a crash (the sanitizers watch); only the whole line
 * and lines that are still valid JSON of the right shape pass. */
static void damaged_lines_never_crash(void **state)
{
        (void)state;
        struct sample s = make_sample(1);
        size_t len;
        char *line = line_of(w_sample, &s, &len);
        struct trace_record rec = { 0 };
        char err[200];
        for (size_t n = 0; n < len; n++) {
                char *copy = malloc(n ? n : 1);         /* exact size: ASan sees overreads */
                memcpy(copy, line, n);
                assert_int_equal(trace_parse_line(copy, n, &rec, err, sizeof(err)), -EBADMSG);
                free(copy);
        }
        srand(5);
        static const char alphabet[] = "{}[]\",:0123456789-.eE \\u\x80\xff";
        for (int i = 0; i < 20000; i++) {
                char *copy = malloc(len);
                memcpy(copy, line, len);
                for (int j = rand() % 4; j >= 0; j--)
                        copy[(size_t)rand() % len] = alphabet[(size_t)rand() % (sizeof(alphabet) - 1)];
                int r = trace_parse_line(copy, len, &rec, err, sizeof(err));
                assert_true(r == 0 || r == -EBADMSG);
                free(copy);
        }
        trace_record_free(&rec);
        free(line);
}

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

static void reader_checks_the_order(void **state)
{
        (void)state;
        size_t hl, s1l, s2l, dl;
        char *h = line_of(w_header, &header, &hl);
        struct sample a = make_sample(1), b = make_sample(2);
        char *s1 = line_of(w_sample, &a, &s1l), *s2 = line_of(w_sample, &b, &s2l);
        struct trace_decision td = { .time = 2, .d = { .reason = WSF_LOWER_CALM, .wsf_old = 20, .wsf_new = 15,
                                                       .node = -1 } };
        char *d = line_of(w_decision, &td, &dl);
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

/* Samples in a whole trace file, or -1 when it is not one; its header's
 * interval in *interval. */
static long samples_in(const char *path, double *interval)
{
        struct trace_reader *r;
        char err[ERR_MSG_MAX];
        if (trace_reader_open(&r, path, err, sizeof(err)) < 0)
                return -1;
        struct trace_record rec = { 0 };
        long n = 0;
        int e;
        while ((e = trace_reader_next(r, &rec, err, sizeof(err))) > 0) {
                if (rec.type == TRACE_HEADER)
                        *interval = rec.header.interval;
                else if (rec.type == TRACE_SAMPLE)
                        n++;
        }
        trace_record_free(&rec);
        trace_reader_free(r);
        if (e < 0)
                fail_msg("%s", err);
        return e < 0 ? -1 : n;
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
                cmocka_unit_test(sample_round_trip),
                cmocka_unit_test(decision_round_trip),
                cmocka_unit_test(header_round_trip),
                cmocka_unit_test(bad_lines_refused),
                cmocka_unit_test(damaged_lines_never_crash),
                cmocka_unit_test(reader_checks_the_order),
                cmocka_unit_test(long_path_named_in_full),
                cmocka_unit_test(recorder_rotates),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
