#define _GNU_SOURCE /* fopencookie, memrchr */
/* Reading trace files, plain or gzip-compressed; the lines are trace.c's. */
#include "trace-file.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "util.h"

/* gzip's magic bytes (RFC 1952): a compressed trace is read through zlib,
 * whatever its name. */
#define GZIP_MAGIC0 0x1f
#define GZIP_MAGIC1 0x8b
/* zlib's window bits for a gzip stream (15, the largest window, + 16 for
 * the gzip header and trailer instead of zlib's). */
#define GZIP_WINDOW_BITS (MAX_WBITS + 16)
/* Compressed bytes read at a time. */
#define GZIP_CHUNK (64 * 1024)

/* Where the lines come from: the file itself or its gzip stream inflated,
 * as a FILE (fopencookie) so that getline() reads both. It also bounds a
 * line, so a file without newlines cannot make getline() allocate without
 * end. An error is kept here and said by the reader with FILE:LINE. */
struct trace_source {
        FILE *in;               /* the file as it is on disk */
        bool gzip;
        bool member_end;        /* at the end of a gzip member: more input must be another */
        unsigned members;       /* gzip members begun */
        z_stream z;
        unsigned char chunk[GZIP_CHUNK];
        unsigned long long taken;       /* compressed bytes read from in */
        size_t line_len;        /* bytes since the last newline */
        int error;              /* negative errno; -EBADMSG: zerr says why */
        char zerr[128];
};

struct trace_reader {
        FILE *in;
        bool own;
        struct trace_source src;
        FILE *lines;            /* src as a stream */
        char *name;             /* for FILE:LINE messages */
        unsigned long line;
        char *buf;
        size_t cap;
        bool header_seen;
        bool samples_seen;
        double last_time;
        bool decision_allowed; /* right after a sample */
};

static ssize_t source_fail(struct trace_source *s, int error, const char *zmsg)
{
        s->error = error;
        if (zmsg)
                snprintf(s->zerr, sizeof(s->zerr), "%s", zmsg);
        errno = -error;
        return -1;
}

/* Up to size bytes of the gzip stream, inflated: 0 only at the clean end of
 * the last member; a stream cut short, a corrupt one or data after it that
 * is not another member is an error. */
static ssize_t inflate_some(struct trace_source *s, char *out, size_t size)
{
        z_stream *z = &s->z;
        z->next_out = (unsigned char *)out;
        z->avail_out = (uInt)(size > UINT_MAX ? UINT_MAX : size);
        uInt want = z->avail_out;
        while (z->avail_out == want) {
                if (z->avail_in == 0) {
                        size_t n = fread(s->chunk, 1, sizeof(s->chunk), s->in);
                        if (n == 0 && ferror(s->in))
                                return source_fail(s, -EIO, NULL);
                        if (n == 0 && s->member_end)
                                return 0;
                        if (n == 0)
                                return source_fail(s, -EBADMSG, "the compressed data is cut short");
                        z->next_in = s->chunk;
                        z->avail_in = (uInt)n;
                        s->taken += n;
                }
                if (s->member_end) {    /* concatenated members are one stream (gzip(1)) */
                        s->member_end = false;
                        s->members++;
                        inflateReset(z);
                }
                int r = inflate(z, Z_NO_FLUSH);
                if (r == Z_STREAM_END)
                        s->member_end = true;
                else if (r == Z_MEM_ERROR)
                        return source_fail(s, -ENOMEM, NULL);
                else if (r == Z_DATA_ERROR && s->members > 1 && z->total_out == 0)
                        return source_fail(s, -EBADMSG, "data after the end of the gzip stream");
                else if (r != Z_OK)
                        return source_fail(s, -EBADMSG, z->msg ? z->msg : zError(r));
        }
        return (ssize_t)(want - z->avail_out);
}

/* fopencookie's read: the next bytes of the trace, refused once a line
 * grows past TRACE_LINE_MAX. */
static ssize_t source_read(void *cookie, char *out, size_t size)
{
        struct trace_source *s = cookie;
        if (s->error)
                return source_fail(s, s->error, NULL);
        ssize_t n;
        if (s->gzip) {
                n = inflate_some(s, out, size);
        } else {
                n = (ssize_t)fread(out, 1, size, s->in);
                if (n == 0 && ferror(s->in))
                        return source_fail(s, -EIO, NULL);
        }
        if (n <= 0)
                return n;
        const char *nl = memrchr(out, '\n', (size_t)n);
        s->line_len = nl ? (size_t)(out + n - nl - 1) : s->line_len + (size_t)n;
        if (s->line_len > TRACE_LINE_MAX)
                return source_fail(s, -E2BIG, NULL);
        return n;
}

/* gzip when the file starts with its magic bytes. One byte of look-ahead
 * is all stdio promises to push back, so a file that starts like gzip but
 * is not is refused here: no trace starts with that byte. */
static int source_open(struct trace_source *s, FILE *in)
{
        *s = (struct trace_source){ .in = in };
        int c = getc(in);
        if (c == EOF)
                return ferror(in) ? -EIO : 0;
        if (c != GZIP_MAGIC0) {
                ungetc(c, in);
                return 0;
        }
        if (getc(in) != GZIP_MAGIC1)
                return ferror(in) ? -EIO : -EBADMSG;
        static const unsigned char magic[] = { GZIP_MAGIC0, GZIP_MAGIC1 };
        memcpy(s->chunk, magic, sizeof(magic));
        s->z.next_in = s->chunk;
        s->z.avail_in = sizeof(magic);
        s->taken = sizeof(magic);
        int r = inflateInit2(&s->z, GZIP_WINDOW_BITS);
        if (r != Z_OK)
                return r == Z_MEM_ERROR ? -ENOMEM : -EINVAL;
        s->gzip = true;
        s->members = 1;
        return 0;
}

static void source_close(struct trace_source *s)
{
        if (s->gzip)
                inflateEnd(&s->z);
}

int trace_reader_open(struct trace_reader **out, const char *path, char *err, size_t errsz)
{
        struct trace_reader *r = calloc(1, sizeof(*r));
        if (!r) {
                snprintf(err, errsz, "%s", strerror(ENOMEM));
                return -ENOMEM;
        }
        bool is_stdin = strcmp(path, "-") == 0;
        r->in = is_stdin ? stdin : fopen(path, "re");
        if (!r->in) {
                int e = errno;
                snprintf(err, errsz, "%s: %s", path, strerror(e));
                free(r);
                return -e;
        }
        r->own = !is_stdin;
        r->name = strdup(is_stdin ? "stdin" : path);
        int e = r->name ? source_open(&r->src, r->in) : -ENOMEM;
        if (e == 0) {
                static const cookie_io_functions_t io = { .read = source_read };
                r->lines = fopencookie(&r->src, "r", io);
                if (!r->lines) {
                        source_close(&r->src);
                        e = -ENOMEM;
                }
        }
        if (e < 0) {
                if (e == -EBADMSG)
                        snprintf(err, errsz, "%s:1: not a memoptimizer trace: it starts like gzip but is not",
                                 r->name);
                else
                        snprintf(err, errsz, "%s: %s", r->name ? r->name : path, strerror(-e));
                trace_reader_free(r);
                return e;
        }
        *out = r;
        return 0;
}

void trace_reader_free(struct trace_reader *r)
{
        if (!r)
                return;
        if (r->lines) {
                fclose(r->lines);
                source_close(&r->src);
        }
        if (r->own)
                fclose(r->in);
        free(r->buf);
        free(r->name);
        free(r);
}

/* One line without its newline into r->buf. 1: a line; 0: end of file;
 * -EBADMSG: the last line has no newline (cut short) or the gzip stream is
 * corrupt (src.zerr); -E2BIG: too long; -ENOMEM, -EIO. */
static int read_line(struct trace_reader *r, size_t *len)
{
        errno = 0;
        ssize_t n = getline(&r->buf, &r->cap, r->lines);
        if (r->src.error) {     /* getline() may return what it had before it */
                r->line++;
                return r->src.error;
        }
        if (n < 0 && ferror(r->lines))
                return errno == ENOMEM ? -ENOMEM : -EIO;
        if (n < 0)
                return 0;
        r->line++;
        bool newline = r->buf[n - 1] == '\n';
        *len = (size_t)n - newline;
        if (*len > TRACE_LINE_MAX)      /* it ended in the chunk that took it past the bound */
                return -E2BIG;
        return newline ? 1 : -EBADMSG;
}

/* "FILE:LINE: msg" into err; returns e. */
static int reader_error(const struct trace_reader *r, char *err, size_t errsz, int e, const char *msg)
{
        snprintf(err, errsz, "%s:%lu: %s", r->name, r->line ? r->line : 1, msg);
        return e;
}

static int reader_fail(const struct trace_reader *r, char *err, size_t errsz, const char *msg)
{
        return reader_error(r, err, errsz, -EBADMSG, msg);
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
        char msg[300];
        int n = read_line(r, &len);
        if (n == 0) {
                if (!r->header_seen)
                        return reader_fail(r, err, errsz, "empty: not a memoptimizer trace");
                return 0;
        }
        if (n == -EBADMSG && r->src.zerr[0]) {
                snprintf(msg, sizeof(msg), "corrupt gzip data (at compressed byte %llu): %s",
                         r->src.taken - r->src.z.avail_in, r->src.zerr);
                return reader_fail(r, err, errsz, msg);
        }
        if (n == -EBADMSG)
                return reader_fail(r, err, errsz, "the last line is cut short (no newline at its end)");
        if (n == -E2BIG)
                return reader_fail(r, err, errsz, "line longer than 1 MiB");
        if (n < 0)      /* no fault of the trace's */
                return reader_error(r, err, errsz, n, strerror(-n));
        int p = trace_parse_line(r->buf, len, rec, msg, sizeof(msg));
        if (p < 0)
                return reader_error(r, err, errsz, p, msg);
        if (!r->header_seen && rec->type != TRACE_HEADER)
                return reader_fail(r, err, errsz, "not a memoptimizer trace: the first line is not its header");
        p = check_order(r, rec, err, errsz);
        return p < 0 ? p : 1;
}
