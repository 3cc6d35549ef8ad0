/* status.h — `memoptimizer status`: the kernel's memory state and the
 * daemon's baseline, for a person, without root. */
#pragma once

#include <stdio.h>

#include "config.h"

/* Returns an exit status. */
int status_print(FILE *out, const char *root, const char *state_dir, const struct config *cfg);
