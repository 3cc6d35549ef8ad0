/* state.h — the files that outlive a daemon's process: the state file
 * (the baseline while the daemon has the scale factor changed, so `status`
 * can show it and a restart or `memoptimizer restore` can put it back) and
 * the single-instance lock. Every function returns 0 or a negative errno
 * and logs nothing. */
#pragma once

#include <stdbool.h>

#include "build-config.h"

/* The state file is written atomically (temporary file and rename) and
 * durably, mode 0644 whatever the umask; the lock is 0600. Loading refuses
 * (-EPERM) a file owned by neither root nor the caller, or that group or
 * others can write: `restore` would write its value as root. */
#define STATE_DIR RUNSTATEDIR "/memoptimizer"
#define STATE_FILE "state"

int state_save(const char *dir, long baseline, long written);
/* -ENOENT when there is none. */
int state_load(const char *dir, long *baseline, long *written);
int state_remove(const char *dir);

/* `memoptimizer restore`: if a state file is there and its recorded value is
 * still in force, write its baseline back; then remove the file. *baseline
 * and *restored say what happened. -ENOENT: no state file (nothing to do). */
int state_restore(const char *root, const char *dir, long *baseline, bool *restored);

/* Take the single-instance lock in dir (created 0755 if missing). Returns an
 * fd to keep open, -EWOULDBLOCK when another instance holds it. */
int state_lock(const char *dir);
