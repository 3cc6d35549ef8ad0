/* trace.h — the format of the traces of `memoptimizer record` and the
 * recording daemon, read by `memoptimizer replay`.
 *
 * Owns the format: JSON Lines (json-c), one object per line, "type" saying
 * which: a "header" first (format name and TRACE_VERSION), then "sample"s,
 * each followed by the "decision" the daemon took on it, if any. Owns
 * turning those records into lines and lines back into structs. Pure: text
 * in, text out; the files are recorder.h's and trace-file.h's.
 * trace_parse_line() never trusts its input: it is what the fuzzer calls. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "policy.h"
#include "sample.h"

#define TRACE_FORMAT "memoptimizer-trace"
#define TRACE_VERSION 1
/* Limits of what a trace may hold; a line beyond them is refused. */
#define TRACE_LINE_MAX (1u << 20)
#define TRACE_ZONE_CAP 1024

struct trace_header {
        int version;
        char source[16];        /* "record" or "daemon" */
        char program[64];       /* "memoptimizer 0.1.0" */
        char kernel[128];       /* uname release */
        char started[32];       /* UTC wall clock when recording began, ISO 8601: to the
                                 * millisecond since 0.4.8, to the second before */
        /* CLOCK_MONOTONIC, the samples' clock, when `started` was read: a
         * wall-clock time (what a warm daemon had learnt) maps exactly onto
         * the samples. Absent from traces before 0.4.8. */
        bool has_started_mono;
        double started_mono;
        double interval;        /* seconds between samples, as asked */
        long page_size, thp_pmd_size;   /* bytes; thp_pmd_size 0 without THP */
};

/* A decision as recorded: the policy's decision, when, and whether the
 * daemon acted on it (false in dry-run and monitor-only). */
struct trace_decision {
        double time;            /* of the sample it followed */
        bool acting;
        bool why_recorded;      /* its "why" (since 0.2): what the messages say of it */
        struct decision d;
};

enum trace_type { TRACE_HEADER, TRACE_SAMPLE, TRACE_DECISION };

struct trace_record {
        enum trace_type type;
        struct trace_header header;
        struct sample sample;           /* zones owned; trace_record_free() */
        struct trace_decision decision;
};

/* One line of the trace, without its newline; NULL when out of memory.
 * The caller frees it (and writes it: see recorder.h). */
char *trace_header_line(const struct trace_header *h);
char *trace_sample_line(const struct sample *s);
char *trace_decision_line(const struct trace_decision *td);

/* What to add to a sample's time (CLOCK_MONOTONIC) for the wall clock:
 * exact from a header with started_mono (returns 0); from one before 0.4.8,
 * taking its start, to the second, for the first sample's time (returns 1:
 * up to about a second off); -EINVAL when `started` is not UTC as written. */
int trace_wall_offset(const struct trace_header *h, double first_sample_time, double *offset);

/* A decision worth recording: it changed the value or compacted or backed off. */
bool trace_decision_worth(const struct decision *d);

/* Parse one line (len bytes, no newline, need not be NUL-terminated) into
 * rec. Returns 0, or -EBADMSG with a message in err (no FILE:LINE prefix),
 * or -ENOMEM.
 * rec->sample.zones is (re)allocated for samples; free with
 * trace_record_free(). Never reads outside line[0..len). */
int trace_parse_line(const char *line, size_t len, struct trace_record *rec, char *err, size_t errsz);
void trace_record_free(struct trace_record *rec);
