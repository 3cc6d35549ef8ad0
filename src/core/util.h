/* util.h — small pure helpers shared by every layer: the size of an error
 * message, array sizes, percentages, cleanup attributes, a bounded decimal
 * parser and building JSON documents with json-c. No I/O here; the file
 * helpers are the kernel side's (fileio.h). */
#pragma once

#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Room for an error message that names a file: any path, line and reason. */
#define ERR_MSG_MAX (PATH_MAX + 512)

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* A share (0..1) times this is a percentage. */
#define PERCENT 100.0

static inline void freep(void *p) { free(*(void **)p); }
static inline void fclosep(FILE **f) { if (*f) fclose(*f); }
static inline void closep(int *fd) { if (*fd >= 0) close(*fd); }

#define _cleanup_(f) __attribute__((cleanup(f)))
#define _cleanup_free_ _cleanup_(freep)
#define _cleanup_fclose_ _cleanup_(fclosep)
#define _cleanup_close_ _cleanup_(closep)

/* Arithmetic that would otherwise come from libm. The daemon links no
 * libm: loading it for a few functions put 390-440 KiB of its text into the
 * daemon's 4 MiB peak RSS (bench/README.md, "Daemon overhead"), and
 * tests/check-layers.sh fails when an object calls into it. dmax and dmin
 * are fmax and fmin (a NaN gives the other operand); dceil and dfloor are
 * exact (beyond 2^52 every double is whole) and give NaN and infinities
 * back; dsqrt is an instruction with -fno-math-errno (meson.build), at any
 * optimisation level and with gcc or clang. */
static inline double dmax(double a, double b) { return isnan(a) || a < b ? b : a; }
static inline double dmin(double a, double b) { return isnan(a) || a > b ? b : a; }
static inline double dceil(double x)
{
        if (!(fabs(x) < 0x1p52))
                return x;
        double t = (double)(int64_t)x;  /* toward zero */
        return t < x ? t + 1 : t;
}
static inline double dfloor(double x)
{
        if (!(fabs(x) < 0x1p52))
                return x;
        double t = (double)(int64_t)x;
        return t > x ? t - 1 : t;
}
static inline double dsqrt(double x) { return __builtin_sqrt(x); }

/* Parse a decimal long in [min, max] from s, allowing surrounding
 * whitespace. Returns 0 or -EINVAL / -ERANGE. */
int parse_long(const char *s, long min, long max, long *out);

/* UTC without the C library's time zones: exactly "2026-11-23T12:41:10Z"
 * (millis false: a trace header's start) or "2026-11-23T12:41:10.123Z"
 * (true: the learned state's times) to Unix time, -1 when it is not one,
 * or a real date in 1970..9999; and days since 1970-01-01 to a date. */
double utc_parse(const char *s, bool millis);
void utc_date(int64_t days, int64_t *y, int *m, int *d);

/* The latest time utc_parse() reads: 9999-12-31T23:59:59.999Z. */
#define UTC_MAX 253402300799.999
/* Unix time as "2026-11-23T12:41:10.123Z", rounded to the millisecond and
 * held to 0..UTC_MAX, into buf of at least UTC_MILLIS_SIZE bytes. */
#define UTC_MILLIS_SIZE 25
void utc_format(double secs, char *buf, size_t size);

/* Building a JSON document with json-c. json-c's constructors return NULL
 * when out of memory, and json-c adds a NULL as JSON null, so a failed
 * allocation would silently turn a value into null. These take the value
 * (freeing it on failure) and set *err to -ENOMEM when it is NULL or cannot
 * be added, so the caller drops the whole document; JSON null is only ever
 * written on purpose, with json_put_null(). A NULL o or a is a failure too
 * (its own allocation failed). */
struct json_object;
void json_put(int *err, struct json_object *o, const char *key, struct json_object *v);
void json_put_null(int *err, struct json_object *o, const char *key);
void json_append(int *err, struct json_object *a, struct json_object *v);
/* A number with a fixed count of decimals (short, diffable output), or with
 * json-c's full precision for JSON_FULL_PRECISION; null for infinity or
 * NaN, which JSON cannot spell. */
#define JSON_FULL_PRECISION (-1)
void json_put_number(int *err, struct json_object *o, const char *key, double v, int decimals);
/* o's member key, or NULL when o is NULL or not an object, or the member
 * is missing or JSON null. */
struct json_object *json_get(struct json_object *o, const char *key);
/* The document as text (json-c's JSON_C_TO_STRING_* flags), taking it; the
 * caller frees the text. NULL when out of memory, now or while the document
 * was built (err). */
char *json_text(struct json_object *o, int err, int flags);
