/* thp.h — what the kernel says about transparent huge pages: their size,
 * and so the compaction order "auto" stands for. */
#pragma once

/* Size of a transparent huge page in bytes; 0 when the kernel has none. */
long thp_pmd_size(const char *root);

/* compaction_max_order resolved on this system (engine_max_order() with
 * the THP size read under root): for `status`, which has no engine. */
unsigned resolve_max_order(const char *root, int configured, unsigned nr_orders);
