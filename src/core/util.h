/* util.h — small pure helpers shared by every layer: cleanup attributes,
 * array sizes, a bounded decimal parser and JSON numbers. No I/O here; the
 * file helpers are the kernel side's (fileio.h). */
#pragma once

#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Room for an error message that names a file: any path, line and reason. */
#define ERR_MSG_MAX (PATH_MAX + 512)

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static inline void freep(void *p) { free(*(void **)p); }
static inline void fclosep(FILE **f) { if (*f) fclose(*f); }
static inline void closep(int *fd) { if (*fd >= 0) close(*fd); }

#define _cleanup_(f) __attribute__((cleanup(f)))
#define _cleanup_free_ _cleanup_(freep)
#define _cleanup_fclose_ _cleanup_(fclosep)
#define _cleanup_close_ _cleanup_(closep)

/* Parse a decimal long in [min, max] from s, allowing surrounding
 * whitespace. Returns 0 or -EINVAL / -ERANGE. */
int parse_long(const char *s, long min, long max, long *out);

struct json_object;
/* A JSON number with a fixed count of decimals (short, diffable output);
 * NULL (JSON null) for infinity or NaN, which JSON cannot spell. */
struct json_object *json_number(double v, int decimals);
