/* actuate.h — the only code that writes to the kernel.
 *
 * Owns writing vm.watermark_scale_factor and the compaction triggers, and
 * putting the baseline back on exit. Paths are below a root prefix ("" for
 * the real system) so tests can run against a temporary tree. Every function
 * returns 0 or a negative errno and logs nothing: the caller says what a
 * failure means to the user. */
#pragma once

#include <stdbool.h>

#include "build-config.h"

#define WSF_PATH "/proc/sys/vm/watermark_scale_factor"
#define COMPACT_ALL_PATH "/proc/sys/vm/compact_memory"

int actuate_write_wsf(const char *root, long wsf);

/* Write the value already in force back, to learn whether we may write at
 * all (EACCES, EPERM, EROFS mean monitor-only) without changing anything. */
int actuate_probe(const char *root, long current);

/* Compact one node; where the per-node file is absent, compact everything
 * (*all is set then). Synchronous: returns when the kernel is done. */
int actuate_compact_node(const char *root, int node, bool *all);

/* Put `baseline` back unless somebody else changed the value since we last
 * wrote `ours`: then theirs stays. *restored says whether it was written. */
int actuate_restore(const char *root, long baseline, long ours, bool *restored);

/* errno values that mean "this process may not write here". */
bool actuate_denied(int err);

/* The state file remembers the baseline while the daemon has the value
 * changed, so `status` can show it and a restart can put it back. Written
 * atomically (temporary file and rename), mode 0644 whatever the umask; the
 * lock is 0600. Loading refuses (-EPERM) a file owned by neither root nor
 * the caller, or that group or others can write: `restore` would write its
 * value as root. */
#define STATE_DIR RUNSTATEDIR "/memoptimizer"
#define STATE_FILE "state"

int actuate_state_save(const char *dir, long baseline, long written);
/* -ENOENT when there is none. */
int actuate_state_load(const char *dir, long *baseline, long *written);
int actuate_state_remove(const char *dir);

/* `memoptimizer restore`: if a state file is there and its recorded value is
 * still in force, write its baseline back; then remove the file. *baseline
 * and *restored say what happened. -ENOENT: no state file (nothing to do). */
int actuate_restore_from_state(const char *root, const char *dir, long *baseline, bool *restored);

/* Take the single-instance lock in dir (created 0755 if missing). Returns an
 * fd to keep open, -EWOULDBLOCK when another instance holds it. */
int actuate_lock(const char *dir);
