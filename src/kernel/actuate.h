/* actuate.h — the only code that writes to the kernel.
 *
 * Owns writing vm.watermark_scale_factor, the compaction triggers and
 * vm.lowmem_reserve_ratio (the pulse that wakes kswapd, wake.h), and
 * putting the baseline back on exit (the state file that lets a later
 * process do it is state.h's). Paths are below a root prefix ("" for
 * the real system) so tests can run against a temporary tree. Every function
 * returns 0 or a negative errno and logs nothing: the caller says what a
 * failure means to the user. */
#pragma once

#include <stdbool.h>

#include "wake.h"

#define WSF_PATH "/proc/sys/vm/watermark_scale_factor"
/* What any kernel accepts at most: 1..1000 before Linux 5.19, 1..3000
 * since. The running kernel's own limit is probed (policy.h); this bounds
 * a value read from a file before it may be written. */
#define WSF_MIN 1
#define WSF_MAX_ANY_KERNEL 3000
#define WSF_RANGE_TEXT "1..3000"
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

/* vm.lowmem_reserve_ratio, closed and opened again to wake kswapd (wake.h). */
#define LOWMEM_PATH "/proc/sys/vm/lowmem_reserve_ratio"
int actuate_read_lowmem(const char *root, struct lowmem_ratio *out);
int actuate_write_lowmem(const char *root, const struct lowmem_ratio *v);
/* As actuate_restore(): `boot` back unless the value in force is no longer
 * `ours` (then somebody else's stays). */
int actuate_restore_lowmem(const char *root, const struct lowmem_ratio *boot, const struct lowmem_ratio *ours,
                           bool *restored);

/* errno values that mean "this process may not write here". */
bool actuate_denied(int err);
