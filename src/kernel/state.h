/* state.h — the files that outlive a daemon's process: the state file
 * (the baseline while the daemon has the scale factor changed, so `status`
 * can show it and a restart or `memoptimizer restore` can put it back) and
 * the single-instance lock. Every function returns 0 or a negative errno
 * and logs nothing. */
#pragma once

#include <stdbool.h>

#include "build-config.h"
#include "wake.h"

/* The state file is written atomically (temporary file and rename) and
 * durably, mode 0644 whatever the umask; the lock is 0600. Loading refuses
 * (-EPERM) a file owned by neither root nor the caller, or that group or
 * others can write: `restore` would write its value as root. */
#define STATE_DIR RUNSTATEDIR "/memoptimizer"
#define STATE_FILE "state"

int state_save(const char *dir, long baseline, long written);
/* Read dir/state, never following a symbolic link. 0, or -ENOENT when there
 * is none; -ELOOP: a symbolic link; -EISDIR: a directory; -EINVAL: not a
 * regular file; -EPERM: see above; -EBADMSG: not "key=value" lines of
 * baseline, written and pid, each once; -ERANGE: a scale factor no kernel
 * accepts. state_strerror() says each in words. */
int state_load(const char *dir, long *baseline, long *written);
/* What state_read()'s error means, as the end of "the state file DIR/state ...". */
const char *state_strerror(int err);
int state_remove(const char *dir);

/* `memoptimizer restore`: if a state file is there and its recorded value is
 * still in force, write its baseline back; then remove the file (also when
 * it is corrupt or out of range; a link or a directory is left alone).
 * *baseline and *restored say what happened. -ENOENT: no state file
 * (nothing to do); -EBUSY: a daemon holds the instance lock, so it runs
 * and restores by itself. */
int state_restore(const char *root, const char *dir, long *baseline, bool *restored);

/* While the zones below Normal are closed to wake kswapd (wake.h): the
 * lowmem file holds the ratio to put back and the one written, in the
 * same safe directory, with the same rules as the state file. A daemon
 * that dies mid-pulse leaves it for `restore` (ExecStopPost=) and for the
 * next start. state_restore_lowmem() is state_restore()'s twin: the boot
 * value back if ours is still in force, the file removed (also when
 * corrupt); -ENOENT: none; -EBUSY: a daemon holds the lock. */
#define STATE_LOWMEM_FILE "lowmem"
int state_save_lowmem(const char *dir, const struct lowmem_ratio *boot, const struct lowmem_ratio *written);
int state_load_lowmem(const char *dir, struct lowmem_ratio *boot, struct lowmem_ratio *written);
int state_remove_lowmem(const char *dir);
int state_restore_lowmem(const char *root, const char *dir, bool *restored);
/* The same for a caller that holds the instance lock already (the daemon
 * at start): -ENOENT when there is no file. */
int state_restore_lowmem_held(const char *root, const char *dir, bool *restored);

/* Take the single-instance lock in dir (created 0755 if missing). Returns an
 * fd to keep open, -EWOULDBLOCK when another instance holds it. */
int state_lock(const char *dir);
