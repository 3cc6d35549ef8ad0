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

#include "trace.h"
#include "util.h"

#include "json-alloc-fail.h"
#include "trace-fixture.h"

static void sample_round_trip(void **state)
{
        (void)state;
        struct sample s = make_sample(12345.678901);
        size_t len;
        char *line = line_of(trace_sample_line(&s), &len);
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

/* What the workload holds (AnonPages, Shmem, Dirty, Writeback) is written
 * when the sample has it and read back; a sample without it (a trace
 * recorded before 0.2) reads back without it, and says so. */
static void sample_parts_round_trip(void **state)
{
        (void)state;
        for (int known = 0; known <= 1; known++) {
                struct sample s = make_sample(7);
                s.mem.parts_known = known;
                s.mem.anon_pages = known ? 23 : 0;
                s.mem.shmem = known ? 24 : 0;
                s.mem.dirty = known ? 21 : 0;
                s.mem.writeback = known ? 22 : 0;
                size_t len;
                char *line = line_of(trace_sample_line(&s), &len);
                assert_true((strstr(line, "\"dirty\":21") != NULL) == known);
                struct trace_record rec = { 0 };
                char err[200] = "";
                assert_int_equal(trace_parse_line(line, len, &rec, err, sizeof(err)), 0);
                assert_memory_equal(&rec.sample.mem, &s.mem, sizeof(s.mem));
                trace_record_free(&rec);
                free(line);
        }
}

/* SwapFree is written when the sample has it and read back; a sample
 * without it (a trace recorded before 0.4.9) reads back without it, and a
 * value beyond any machine is refused. */
static void sample_swap_round_trip(void **state)
{
        (void)state;
        for (int known = 0; known <= 1; known++) {
                struct sample s = make_sample(7);
                s.mem.swap_known = known;
                s.mem.swap_free = known ? 25 : 0;
                size_t len;
                char *line = line_of(trace_sample_line(&s), &len);
                assert_true((strstr(line, "\"swap_free\":25") != NULL) == known);
                struct trace_record rec = { 0 };
                char err[200] = "";
                assert_int_equal(trace_parse_line(line, len, &rec, err, sizeof(err)), 0);
                assert_memory_equal(&rec.sample.mem, &s.mem, sizeof(s.mem));
                if (known) {
                        char *big = strdup(line);
                        assert_non_null(big);
                        char *at = strstr(big, "\"swap_free\":25");
                        memcpy(at, "\"swap_free\":-1", strlen("\"swap_free\":25"));
                        assert_true(trace_parse_line(big, strlen(big), &rec, err, sizeof(err)) < 0);
                        assert_non_null(strstr(err, "swap_free"));
                        free(big);
                }
                trace_record_free(&rec);
                free(line);
        }
}

/* kswapd's giving up on a node is written only when true (traces before
 * 0.3.3 lack it: absent reads as false), and read back; anything but true
 * or false is refused. */
static void node_unreclaimable_round_trip(void **state)
{
        (void)state;
        for (int gave_up = 0; gave_up <= 1; gave_up++) {
                struct sample s = make_sample(8);
                struct zone z[2];
                memcpy(z, s.zones, sizeof(z));
                z[1].node_unreclaimable = gave_up;
                s.zones = z;
                size_t len;
                char *line = line_of(trace_sample_line(&s), &len);
                assert_true((strstr(line, "\"node_unreclaimable\":true") != NULL) == gave_up);
                struct trace_record rec = { 0 };
                char err[200] = "";
                assert_int_equal(trace_parse_line(line, len, &rec, err, sizeof(err)), 0);
                assert_false(rec.sample.zones[0].node_unreclaimable);
                assert_int_equal(rec.sample.zones[1].node_unreclaimable, gave_up);
                trace_record_free(&rec);
                if (gave_up) {
                        char *at = strstr(line, "true");
                        memcpy(at, "1   ", 4);
                        assert_int_equal(trace_parse_line(line, len, &rec, err, sizeof(err)), -EBADMSG);
                        assert_non_null(strstr(err, "\"node_unreclaimable\" is not true or false"));
                        trace_record_free(&rec);
                }
                free(line);
        }
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
                                                  .free_at_order = 4096, .extfrag = 0.75, .stalled = true };
        td.d.backoff[0] = (struct compact_backoff){ .node = 0, .order = 9, .defer_shift = 2,
                                                    .before = 512, .after = 512, .retry_in = 4,
                                                    .too_slow = true };
        size_t len;
        char *line = line_of(trace_decision_line(&td), &len);
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
        assert_true(d->compact[0].stalled);
        assert_true(d->backoff[0].too_slow);
        assert_int_equal(d->backoff[0].fault_stalls, 0);       /* judged by its blocks: not written */
        assert_null(strstr(line, "fault"));
        free(line);
}

/* A compaction judged by the huge-page faults after it (0.4.11) carries
 * their stalls and the blocks they took; absent, it was judged by its
 * blocks (older traces); one of the two alone is refused. */
static void fault_judged_backoff_round_trip(void **state)
{
        (void)state;
        struct trace_decision td = { .time = 9, .acting = true, .d = {
                .reason = WSF_KEEP, .wsf_old = 10, .wsf_new = 10, .ceiling = 1000, .node = -1,
                .secs_to_low = INFINITY, .secs_to_min = INFINITY, .nr_backoff = 1,
        } };
        td.d.backoff[0] = (struct compact_backoff){ .node = 0, .order = 9, .defer_shift = 1, .before = 843776,
                                                    .after = 843776, .retry_in = 2, .fault_stalls = 1350,
                                                    .faulted_blocks = 3550.5 };
        size_t len;
        char *line = line_of(trace_decision_line(&td), &len);
        struct trace_record rec = { 0 };
        char err[200] = "";
        assert_int_equal(trace_parse_line(line, len, &rec, err, sizeof(err)), 0);
        assert_int_equal(rec.decision.d.backoff[0].fault_stalls, 1350);
        assert_float_equal(rec.decision.d.backoff[0].faulted_blocks, 3550.5, 1e-9);
        char *cut = strstr(line, ",\"faulted_blocks\"");
        assert_non_null(cut);
        char *end = strchr(cut + 1, '}');
        memmove(cut, end, strlen(end) + 1);
        assert_int_equal(trace_parse_line(line, strlen(line), &rec, err, sizeof(err)), -EBADMSG);
        assert_non_null(strstr(err, "\"fault_stalls\" and \"faulted_blocks\" but not both"));
        free(line);
}

/* A compaction asked for at a release (0.4.10) is written as "released"
 * and read back; absent reads as false (older traces); one that claims
 * stalls and a release at once is refused. */
static void released_compaction_round_trip(void **state)
{
        (void)state;
        struct trace_decision td = { .time = 6, .acting = true, .d = {
                .reason = WSF_KEEP, .wsf_old = 10, .wsf_new = 10, .ceiling = 1000, .node = -1,
                .nr_compact = 1,
        } };
        td.d.compact[0] = (struct compact_order){ .node = 0, .order = 9, .secs_to_exhaust = INFINITY,
                                                  .free_at_order = 788480, .extfrag = 0.86, .released = true };
        size_t len;
        char *line = line_of(trace_decision_line(&td), &len);
        assert_non_null(strstr(line, "\"released\":true"));
        assert_null(strstr(line, "\"stalled\""));
        struct trace_record rec = { 0 };
        char err[200] = "";
        assert_int_equal(trace_parse_line(line, len, &rec, err, sizeof(err)), 0);
        assert_true(rec.decision.d.compact[0].released);
        assert_false(rec.decision.d.compact[0].stalled);
        trace_record_free(&rec);
        char both[1024];
        char *at = strstr(line, "\"released\":true");
        snprintf(both, sizeof(both), "%.*s\"stalled\":true,%s", (int)(at - line), line, at);
        assert_int_equal(trace_parse_line(both, strlen(both), &rec, err, sizeof(err)), -EBADMSG);
        assert_non_null(strstr(err, "stalls and by a release"));
        trace_record_free(&rec);
        free(line);
}

/* Remove the first occurrence of what from line (it must be there). */
static void cut_out(char *line, const char *what)
{
        char *at = strstr(line, what);
        assert_non_null(at);
        size_t n = strlen(what), rest = strlen(at) - n;
        memmove(at, at + n, rest + 1);
}

/* Where a learnt value came from (0.4.14): the class above or below the
 * demand's, and the kind, read back; as 0.4.13 wrote it (not recorded),
 * the demand's own class and kind, so replay does not print a recorded
 * raise as borrowed; a class that is none, or a kind not true or false,
 * refused. td: a THP demand of class 7. */
static void decision_why_learned_from(struct trace_decision *td)
{
        struct trace_record rec = { 0 };
        const struct decision *d = &rec.decision.d;
        char err[200] = "";
        size_t len;
        td->d.learned_above = 2;
        td->d.learned_kind = LEARN_BASE;
        char *line = line_of(trace_decision_line(td), &len);
        assert_int_equal(trace_parse_line(line, len, &rec, err, sizeof(err)), 0);
        assert_int_equal(d->learned_above, 2);
        assert_int_equal(d->learned_kind, LEARN_BASE);
        assert_int_equal(d->demand_kind, LEARN_THP);

        char *old = strdup(line);
        assert_non_null(old);
        cut_out(old, ",\"learned_above\":2,\"learned_thp\":false");
        assert_int_equal(trace_parse_line(old, strlen(old), &rec, err, sizeof(err)), 0);
        assert_int_equal(d->learned_above, 0);
        assert_int_equal(d->learned_kind, LEARN_THP);
        free(old);

        static const struct { const char *from, *to, *says; } bad[] = {
                { "\"learned_above\":2", "\"learned_above\":17", "names no class" },  /* 7 + 17 */
                { "\"learned_above\":2", "\"learned_above\":-8", "names no class" },
                { "\"learned_above\":2", "\"learned_above\":99", "out of range" },
                { "\"learned_thp\":false", "\"learned_thp\":0", "learned_thp" },
        };
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                char edited[4096];
                char *at = strstr(line, bad[i].from);
                assert_non_null(at);
                int n = snprintf(edited, sizeof(edited), "%.*s%s%s", (int)(at - line), line, bad[i].to,
                                 at + strlen(bad[i].from));
                assert_true(n > 0 && (size_t)n < sizeof(edited));
                assert_true(trace_parse_line(edited, strlen(edited), &rec, err, sizeof(err)) < 0);
                assert_non_null(strstr(err, bad[i].says));
        }
        trace_record_free(&rec);
        free(line);
        td->d.learned_above = 0;
}

/* What sized a raise (the "why", since 0.2) reads back, so a replay says
 * what the recording daemon said; a decision written before 0.2 has none
 * and says so; a "why" with a field missing is refused. */
static void decision_why_round_trip(void **state)
{
        (void)state;
        struct trace_decision td = { .time = 9.3, .acting = true, .d = {
                .reason = WSF_RAISE_LEARNED, .wsf_old = 10, .wsf_new = 600, .ceiling = 1000,
                .node = 0, .zone = "Normal", .secs_to_low = INFINITY, .secs_to_min = INFINITY,
                .drain = 139000, .thp = 137000, .cover = 1, .thp_cover = 0.25, .onset = true, .wake_capped = true,
                .demand_class = 7, .learned_wsf = 600, .recur_due_in = 2.5,
                .recur = { .period = 4.0, .episodes = 3 },
        } };
        size_t len;
        char *line = line_of(trace_decision_line(&td), &len);
        struct trace_record rec = { 0 };
        char err[200] = "";
        assert_int_equal(trace_parse_line(line, len, &rec, err, sizeof(err)), 0);
        const struct decision *d = &rec.decision.d;
        assert_true(rec.decision.why_recorded);
        assert_true(d->onset);
        assert_true(d->wake_capped);
        assert_int_equal(d->demand_class, 7);
        assert_int_equal(d->learned_wsf, 600);
        assert_float_equal(d->thp, 137000, 1e-6);
        assert_float_equal(d->cover, 1, 1e-9);
        assert_float_equal(d->thp_cover, 0.25, 1e-9);
        assert_float_equal(d->recur.period, 4.0, 1e-9);
        assert_int_equal(d->recur.episodes, 3);
        assert_float_equal(d->recur_due_in, 2.5, 1e-9);
        free(line);

        /* a recurring episode that is late, within its tolerance: the
         * daemon wrote it, replay must read it (0.3.7 refused its own
         * trace: "recur_due_in" is out of range) */
        td.d.recur_due_in = -0.5;
        line = line_of(trace_decision_line(&td), &len);
        assert_int_equal(trace_parse_line(line, len, &rec, err, sizeof(err)), 0);
        assert_float_equal(d->recur_due_in, -0.5, 1e-9);

        /* lifted to the pace floor (0.3.9); before 0.3.9 there is no
         * "paced": read as not lifted; anything but true or false refused */
        td.d.paced = true;
        free(line);
        line = line_of(trace_decision_line(&td), &len);
        assert_int_equal(trace_parse_line(line, len, &rec, err, sizeof(err)), 0);
        assert_true(d->paced);
        char *old = strdup(line);
        assert_non_null(old);
        cut_out(old, ",\"paced\":true");
        assert_null(strstr(old, "paced"));
        assert_int_equal(trace_parse_line(old, strlen(old), &rec, err, sizeof(err)), 0);
        assert_false(rec.decision.d.paced);
        free(old);
        old = strdup(line);
        assert_non_null(old);
        char *at = strstr(old, "\"paced\":true");
        assert_non_null(at);
        memcpy(at, "\"paced\":1   ", strlen("\"paced\":true"));
        assert_true(trace_parse_line(old, strlen(old), &rec, err, sizeof(err)) < 0);
        assert_non_null(strstr(err, "paced"));
        free(old);
        td.d.paced = false;

        /* held to what kswapd could reclaim (0.4.9); absent before it:
         * read as not held */
        td.d.reclaim_capped = true;
        free(line);
        line = line_of(trace_decision_line(&td), &len);
        assert_int_equal(trace_parse_line(line, len, &rec, err, sizeof(err)), 0);
        assert_true(d->reclaim_capped);
        old = strdup(line);
        assert_non_null(old);
        cut_out(old, ",\"reclaim_capped\":true");
        assert_null(strstr(old, "reclaim_capped"));
        assert_int_equal(trace_parse_line(old, strlen(old), &rec, err, sizeof(err)), 0);
        assert_false(rec.decision.d.reclaim_capped);
        free(old);
        td.d.reclaim_capped = false;

        /* a demand mostly of huge pages (0.4.13); absent before it: read
         * as base pages, as every class was then */
        td.d.demand_kind = LEARN_THP;
        td.d.learned_kind = LEARN_THP;
        free(line);
        line = line_of(trace_decision_line(&td), &len);
        assert_int_equal(trace_parse_line(line, len, &rec, err, sizeof(err)), 0);
        assert_int_equal(d->demand_kind, LEARN_THP);
        old = strdup(line);
        assert_non_null(old);
        cut_out(old, ",\"demand_thp\":true");
        assert_null(strstr(old, "demand_thp"));
        assert_int_equal(trace_parse_line(old, strlen(old), &rec, err, sizeof(err)), 0);
        assert_int_equal(rec.decision.d.demand_kind, LEARN_BASE);
        free(old);
        decision_why_learned_from(&td);
        td.d.demand_kind = LEARN_BASE;
        td.d.learned_kind = LEARN_BASE;

        /* as 0.2 wrote it: no "thp_cover", the huge pages covered as long
         * as the rest */
        char *copy = strdup(line);
        assert_non_null(copy);
        cut_out(copy, ",\"thp_cover\":0.25");
        assert_null(strstr(copy, "thp_cover"));
        assert_int_equal(trace_parse_line(copy, strlen(copy), &rec, err, sizeof(err)), 0);
        assert_true(rec.decision.why_recorded);
        assert_float_equal(rec.decision.d.thp_cover, 1, 1e-9);
        free(copy);

        /* the same line as 0.1 wrote it: no "why" */
        char *why = strstr(line, ",\"why\":{");
        assert_non_null(why);
        char *end = strchr(why, '}');
        assert_non_null(end);
        char whole[512];
        size_t n = (size_t)(end + 1 - why);
        assert_true(n < sizeof(whole));
        memcpy(whole, why, n);
        whole[n] = '\0';
        cut_out(line, whole);
        assert_int_equal(trace_parse_line(line, strlen(line), &rec, err, sizeof(err)), 0);
        assert_false(rec.decision.why_recorded);
        assert_int_equal(rec.decision.d.demand_class, -1);
        assert_int_equal(rec.decision.d.learned_wsf, -1);
        free(line);

        td.d.learned_wsf = -1;
        line = line_of(trace_decision_line(&td), &len);
        cut_out(line, "\"learned_wsf\":-1,");
        assert_int_equal(trace_parse_line(line, strlen(line), &rec, err, sizeof(err)), -EBADMSG);
        assert_non_null(strstr(err, "\"learned_wsf\" is missing"));
        free(line);
}

static void header_round_trip(void **state)
{
        (void)state;
        size_t len;
        char *line = line_of(trace_header_line(&trace_test_header), &len);
        struct trace_record rec = { 0 };
        char err[200] = "";
        assert_int_equal(trace_parse_line(line, len, &rec, err, sizeof(err)), 0);
        assert_int_equal(rec.type, TRACE_HEADER);
        assert_int_equal(rec.header.version, TRACE_VERSION);
        assert_string_equal(rec.header.kernel, "6.18");
        assert_int_equal(rec.header.thp_pmd_size, 2097152);
        free(line);
}

/* A header since 0.4.8 gives its start on both clocks, to the millisecond:
 * a wall-clock time (what a warm daemon had learnt) maps onto the samples
 * exactly, whenever the first sample came. */
static void header_start_on_both_clocks(void **state)
{
        (void)state;
        struct trace_header h = trace_test_header;
        snprintf(h.started, sizeof(h.started), "2026-11-30T01:14:11.678Z");
        h.has_started_mono = true;
        h.started_mono = 73880.123456;
        size_t len;
        char *line = line_of(trace_header_line(&h), &len);
        struct trace_record rec = { 0 };
        char err[200] = "";
        assert_int_equal(trace_parse_line(line, len, &rec, err, sizeof(err)), 0);
        free(line);
        assert_true(rec.header.has_started_mono);
        assert_float_equal(rec.header.started_mono, 73880.123456, 1e-6);
        double offset = 0, wall = utc_parse("2026-11-30T01:14:11.678Z", true);
        assert_true(wall > 0);
        assert_int_equal(trace_wall_offset(&rec.header, 73881.9, &offset), 0);
        assert_float_equal(offset, wall - 73880.123456, 1e-6);
}

/* A header before 0.4.8 gives its start to the second only, taken for the
 * first sample's; one the daemon did not write cannot be placed at all. */
static void header_start_to_the_second(void **state)
{
        (void)state;
        size_t len;
        char *line = line_of(trace_header_line(&trace_test_header), &len);
        assert_null(strstr(line, "started_mono"));
        struct trace_record rec = { 0 };
        char err[200] = "";
        assert_int_equal(trace_parse_line(line, len, &rec, err, sizeof(err)), 0);
        free(line);
        assert_false(rec.header.has_started_mono);
        double offset = 0;
        assert_int_equal(trace_wall_offset(&rec.header, 100.5, &offset), 1);
        assert_float_equal(offset, utc_parse("2026-11-21T00:00:00Z", false) - 100.5, 1e-6);
        snprintf(rec.header.started, sizeof(rec.header.started), "2026-11-21T00:00:00.250Z");
        assert_int_equal(trace_wall_offset(&rec.header, 100.5, &offset), 1);
        assert_float_equal(offset, utc_parse("2026-11-21T00:00:00Z", false) + 0.25 - 100.5, 1e-6);
        rec.header.has_started_mono = true;     /* a start the daemon did not write */
        snprintf(rec.header.started, sizeof(rec.header.started), "2026-11-21 00:00:00");
        assert_int_equal(trace_wall_offset(&rec.header, 100.5, &offset), -EINVAL);
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
                { "{\"type\":\"header\",\"format\":\"memoptimizer-trace\",\"version\":1,\"source\":\"daemon\","
                  "\"program\":\"memoptimizer 0.4.8\",\"kernel\":\"6.18\",\"started\":\"2026-11-30T01:14:11.678Z\","
                  "\"started_mono\":-1,\"interval\":1,\"page_size\":4096,\"thp_pmd_size\":2097152}",
                  "\"started_mono\" is out of range" },
                { "{\"type\":\"header\",\"format\":\"memoptimizer-trace\",\"version\":1,\"source\":\"daemon\","
                  "\"program\":\"memoptimizer 0.4.8\",\"kernel\":\"6.18\",\"started\":\"2026-11-30T01:14:11.678Z\","
                  "\"started_mono\":\"soon\",\"interval\":1,\"page_size\":4096,\"thp_pmd_size\":2097152}",
                  "\"started_mono\" is not a number" },
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
                { "{\"type\":\"sample\",\"t\":1,\"wsf\":10,\"nr_orders\":1,\"zones\":[{\"node\":0,\"zone\":\"N\","
                  "\"managed_pages\":1,\"wmark_min\":0,\"wmark_low\":0,\"wmark_high\":0,\"nr_free\":[1]}],\"vmstat\":{"
                  "\"pgsteal_kswapd\":0,\"pgsteal_direct\":0,\"pgscan_kswapd\":0,\"pgscan_direct\":0,\"allocstall\":0,"
                  "\"compact_stall\":0,\"compact_success\":0,\"compact_fail\":0,\"pgalloc\":0,"
                  "\"kswapd_low_wmark_hit_quickly\":0,\"nr_free_pages\":0,\"oom_kill\":0},\"meminfo\":{"
                  "\"mem_total\":1,\"mem_free\":1,\"mem_available\":1,\"active_file\":0,\"inactive_file\":0,"
                  "\"hugepages_total\":0,\"hugepages_free\":0,\"anon_huge\":0,\"dirty\":5,\"writeback\":0}}",
                  "some of \"anon_pages\", \"shmem\", \"dirty\" and \"writeback\" but not all" },
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
        char *line = line_of(trace_sample_line(&s), &len);
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

static void *header_line(void *h) { return trace_header_line(h); }
static void *sample_line(void *s) { return trace_sample_line(s); }
static void *decision_line(void *td) { return trace_decision_line(td); }

/* Out of memory anywhere in a line: no line, rather than one with a null
 * where a number belongs (which replay would then refuse). */
static void lines_dropped_when_out_of_memory(void **state)
{
        (void)state;
        every_json_failure_drops(header_line, (void *)&trace_test_header, free);
        struct sample s = make_sample(1);
        every_json_failure_drops(sample_line, &s, free);
        struct trace_decision td = { .time = 1, .d = { .reason = WSF_RAISE_STALL, .wsf_old = 10, .wsf_new = 20,
                                                       .node = -1, .secs_to_low = INFINITY, .nr_compact = 1,
                                                       .nr_backoff = 1 } };
        every_json_failure_drops(decision_line, &td, free);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(sample_round_trip),
                cmocka_unit_test(fault_judged_backoff_round_trip),
                cmocka_unit_test(sample_parts_round_trip),
                cmocka_unit_test(sample_swap_round_trip),
                cmocka_unit_test(node_unreclaimable_round_trip),
                cmocka_unit_test(decision_round_trip),
                cmocka_unit_test(released_compaction_round_trip),
                cmocka_unit_test(decision_why_round_trip),
                cmocka_unit_test(header_round_trip),
                cmocka_unit_test(header_start_on_both_clocks),
                cmocka_unit_test(header_start_to_the_second),
                cmocka_unit_test(bad_lines_refused),
                cmocka_unit_test(damaged_lines_never_crash),
                cmocka_unit_test(lines_dropped_when_out_of_memory),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
