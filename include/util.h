/* util.h — small helpers shared by every module: cleanup attributes,
 * array sizes, and reading a whole small file (a /proc or /sys file)
 * into a buffer. Nothing here knows about memory management. */
#pragma once

#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>
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

/* Read the file at root + path (root may be NULL or "" for "/") into a
 * NUL-terminated buffer of *size bytes, growing *buf as needed.
 * Returns the number of bytes read, or a negative errno. */
ssize_t read_file_at(const char *root, const char *path, char **buf, size_t *size);

/* Join root and path into out (PATH_MAX). Returns 0 or -ENAMETOOLONG. */
int path_join(char *out, size_t outsz, const char *root, const char *path);

/* Parse a decimal long in [min, max] from s, allowing surrounding
 * whitespace. Returns 0 or -EINVAL / -ERANGE. */
int parse_long(const char *s, long min, long max, long *out);

/* Take an exclusive flock(2) on dir/name without waiting, creating dir
 * (0755) and the file (`mode`) as needed. Returns the fd to keep open, or a
 * negative errno: -EWOULDBLOCK when another process holds it. */
int lock_in_dir(const char *dir, const char *name, int open_flags, mode_t mode);

/* Replace dir/name with `len` bytes of data, atomically for readers: written
 * to a temporary file in the same directory (whose name does not end like
 * `name`), given `mode`, then renamed over `name`. No fsync: readers want
 * the newest state, not durability. Returns 0 or a negative errno. */
int write_file_atomic(const char *dir, const char *name, const void *data, size_t len, mode_t mode);

struct json_object;
/* A JSON number with a fixed count of decimals (short, diffable output);
 * NULL (JSON null) for infinity or NaN, which JSON cannot spell. */
struct json_object *json_number(double v, int decimals);
