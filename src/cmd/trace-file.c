/* Reading trace files; the lines are trace.c's. */
#include "trace-file.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

struct trace_reader {
        FILE *f;
        bool own;
        char *name;             /* for FILE:LINE messages */
        unsigned long line;
        char *buf;
        size_t cap;
        bool header_seen;
        bool samples_seen;
        double last_time;
        bool decision_allowed; /* right after a sample */
};

int trace_reader_open(struct trace_reader **out, const char *path, char *err, size_t errsz)
{
        struct trace_reader *r = calloc(1, sizeof(*r));
        if (!r) {
                snprintf(err, errsz, "%s", strerror(ENOMEM));
                return -ENOMEM;
        }
        bool is_stdin = strcmp(path, "-") == 0;
        r->f = is_stdin ? stdin : fopen(path, "re");
        if (!r->f) {
                int e = errno;
                snprintf(err, errsz, "%s: %s", path, strerror(e));
                free(r);
                return -e;
        }
        r->own = !is_stdin;
        r->name = strdup(is_stdin ? "stdin" : path);
        if (!r->name) {
                snprintf(err, errsz, "%s", strerror(ENOMEM));
                trace_reader_free(r);
                return -ENOMEM;
        }
        *out = r;
        return 0;
}

void trace_reader_free(struct trace_reader *r)
{
        if (!r)
                return;
        if (r->own)
                fclose(r->f);
        free(r->buf);
        free(r->name);
        free(r);
}

/* One line without its newline into r->buf. 1: a line; 0: end of file;
 * -EBADMSG: too long or the last line has no newline (cut short). */
static int read_line(struct trace_reader *r, size_t *len)
{
        size_t n = 0;
        int c;
        while ((c = getc(r->f)) != EOF && c != '\n') {
                if (n + 1 >= r->cap) {
                        if (r->cap > TRACE_LINE_MAX)
                                return -E2BIG;
                        size_t cap = r->cap ? r->cap * 2 : 4096;
                        char *b = realloc(r->buf, cap);
                        if (!b)
                                return -ENOMEM;
                        r->buf = b;
                        r->cap = cap;
                }
                r->buf[n++] = (char)c;
        }
        if (ferror(r->f))
                return -EIO;
        if (c == EOF && n == 0)
                return 0;
        r->line++;
        *len = n;
        return c == EOF ? -EBADMSG : 1;
}

static int reader_fail(const struct trace_reader *r, char *err, size_t errsz, const char *msg)
{
        snprintf(err, errsz, "%s:%lu: %s", r->name, r->line ? r->line : 1, msg);
        return -EBADMSG;
}

/* The order of the lines. */
static int check_order(struct trace_reader *r, const struct trace_record *rec, char *err, size_t errsz)
{
        char msg[160];
        switch (rec->type) {
        case TRACE_HEADER:
                if (r->header_seen)
                        return reader_fail(r, err, errsz, "a second header");
                r->header_seen = true;
                return 0;
        case TRACE_SAMPLE:
                if (r->samples_seen && !(rec->sample.time > r->last_time)) {
                        snprintf(msg, sizeof(msg), "sample time %.6f is not after the previous sample's %.6f",
                                 rec->sample.time, r->last_time);
                        return reader_fail(r, err, errsz, msg);
                }
                r->samples_seen = r->decision_allowed = true;
                r->last_time = rec->sample.time;
                return 0;
        case TRACE_DECISION:
                if (!r->decision_allowed)
                        return reader_fail(r, err, errsz, "a decision that does not follow a sample");
                if (rec->decision.time != r->last_time) {
                        snprintf(msg, sizeof(msg), "decision time %.6f is not the time of the sample before it (%.6f)",
                                 rec->decision.time, r->last_time);
                        return reader_fail(r, err, errsz, msg);
                }
                r->decision_allowed = false;
                return 0;
        }
        return 0;
}

int trace_reader_next(struct trace_reader *r, struct trace_record *rec, char *err, size_t errsz)
{
        size_t len = 0;
        int n = read_line(r, &len);
        if (n == 0) {
                if (!r->header_seen)
                        return reader_fail(r, err, errsz, "empty: not a memoptimizer trace");
                return 0;
        }
        if (n == -EBADMSG)
                return reader_fail(r, err, errsz, "the last line is cut short (no newline at its end)");
        if (n == -E2BIG)
                return reader_fail(r, err, errsz, "line longer than 1 MiB");
        if (n < 0)
                return reader_fail(r, err, errsz, strerror(-n));
        char msg[300];
        int p = trace_parse_line(r->buf, len, rec, msg, sizeof(msg));
        if (p < 0)
                return reader_fail(r, err, errsz, msg);
        if (!r->header_seen && rec->type != TRACE_HEADER)
                return reader_fail(r, err, errsz, "not a memoptimizer trace: the first line is not its header");
        p = check_order(r, rec, err, errsz);
        return p < 0 ? p : 1;
}
