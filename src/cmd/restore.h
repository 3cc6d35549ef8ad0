/* restore.h — `memoptimizer restore`, run by the unit's ExecStopPost=:
 * whatever way the daemon ended, put back the baseline its state file in
 * state_dir records, if the value it wrote is still in force. */
#pragma once

/* Returns the exit status; messages go to standard error. */
int restore_main(const char *root, const char *state_dir);
