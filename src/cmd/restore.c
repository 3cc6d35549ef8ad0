/* `memoptimizer restore`: the baseline a stopped daemon left, put back. */
#include "restore.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "state.h"

/* vm.lowmem_reserve_ratio, if a daemon died while it had the zones below
 * Normal closed to wake kswapd: 0, or 1 after saying why not. */
static int restore_lowmem(const char *root, const char *state_dir)
{
        bool done = false;
        int r = state_restore_lowmem(root, state_dir, &done);
        if (r == -ENOENT)
                return 0;
        if (r == -EBUSY)
                return 0;       /* said below, for both files */
        if (r == -EBADMSG) {
                fprintf(stderr, "memoptimizer: %s/" STATE_LOWMEM_FILE " is not in the format memoptimizer writes; removed it, vm.lowmem_reserve_ratio left as it is\n",
                        state_dir);
                return 1;
        }
        if (r < 0) {
                fprintf(stderr, "memoptimizer: cannot restore vm.lowmem_reserve_ratio from %s/" STATE_LOWMEM_FILE ": %s\n",
                        state_dir, state_strerror(r));
                return 1;
        }
        fprintf(stderr, done ? "memoptimizer: restored vm.lowmem_reserve_ratio\n" :
                               "memoptimizer: vm.lowmem_reserve_ratio was changed by someone else; left as it is\n");
        return 0;
}

static int restore_wsf(const char *root, const char *state_dir)
{
        long baseline = 0;
        bool done = false;
        int r = state_restore(root, state_dir, &baseline, &done);
        if (r == -ENOENT)
                return 0;       /* nothing was left changed */
        if (r == -EBUSY) {
                fprintf(stderr, "memoptimizer: a daemon is running (it holds %s/lock) and restores vm.watermark_scale_factor itself when it stops; not acting\n",
                        state_dir);
                return 1;
        }
        if (r == -EBADMSG || r == -ERANGE) {
                fprintf(stderr, "memoptimizer: the state file %s/" STATE_FILE " %s; removed it, vm.watermark_scale_factor left as it is\n",
                        state_dir, state_strerror(r));
                return 1;
        }
        if (r == -EPERM || r == -ELOOP || r == -EISDIR || r == -EINVAL) {
                fprintf(stderr, "memoptimizer: the state file %s/" STATE_FILE " %s; not acting on it, vm.watermark_scale_factor left as it is\n",
                        state_dir, state_strerror(r));
                return 1;
        }
        if (r < 0) {
                fprintf(stderr, "memoptimizer: cannot restore vm.watermark_scale_factor %ld: %s\n", baseline, strerror(-r));
                return 1;
        }
        if (done)
                fprintf(stderr, "memoptimizer: restored vm.watermark_scale_factor %ld\n", baseline);
        else
                fprintf(stderr, "memoptimizer: vm.watermark_scale_factor was changed by someone else; left as it is\n");
        return 0;
}

/* For ExecStopPost=: whatever way the daemon ended, leave the machine as
 * the daemon found it. */
int restore_main(const char *root, const char *state_dir)
{
        int lowmem = restore_lowmem(root, state_dir);
        int wsf = restore_wsf(root, state_dir);
        return lowmem || wsf;
}
