/* learn-file.h — the file of what the daemon learned (learn.h) in the state
 * directory, STATEDIR/memoptimizer/learned: where it is, reading it with the
 * distrust of a file whose numbers steer what root writes, writing it
 * atomically and durably, setting an unusable one aside, and forgetting.
 * Every function returns 0 or a negative errno and logs nothing. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "build-config.h"
#include "learn.h"

#define LEARN_DIR STATEDIR "/memoptimizer"
#define LEARN_FILE "learned"
#define LEARN_FILE_BAD LEARN_FILE ".bad"

/* The state directory into out: the first entry of env, systemd's
 * $STATE_DIRECTORY (a colon-separated list when a unit names several), or
 * LEARN_DIR when env is NULL or empty. -ENAMETOOLONG, -EINVAL (not an
 * absolute path). */
int learn_dir_resolve(const char *env, char *out, size_t size);

/* Read dir/learned into *l. 0: read; -ENOENT: there is none (nothing
 * learnt yet, or no directory). Otherwise *l is empty and err says why,
 * naming the file: -ELOOP a symbolic link (never followed), -EPERM the file
 * or the directory is owned by neither root nor the caller or is writable
 * by group or others, -EISDIR, -EINVAL not a regular file, -EFBIG longer than
 * LEARN_TEXT_MAX, -EBADMSG not in the format or another version
 * ("FILE:LINE: what is wrong"), or an I/O error. */
int learn_load(const char *dir, struct learned *l, double wall_offset, char *err, size_t errsz);

/* Write *l as dir/learned, mode 0644, atomically and durably, creating dir
 * (0755) when it is missing. Does not clear l->dirty: the caller does when
 * this succeeds. */
int learn_save(const char *dir, const struct learned *l, double wall_offset);

/* Keep an unusable dir/learned as learned.bad (replacing an older one), so
 * that the next save does not destroy what a person may want to look at. */
int learn_set_aside(const char *dir);

/* `memoptimizer forget`: remove dir/learned and dir/learned.bad. *removed:
 * whether there was a learned file. */
int learn_remove(const char *dir, bool *removed);
