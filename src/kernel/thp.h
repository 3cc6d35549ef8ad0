/* thp.h — what the kernel says about transparent huge pages: their size,
 * and so the compaction order "auto" stands for; and the policy in force,
 * which decides how a burst of them meets the watermarks. */
#pragma once

#include <stddef.h>

/* Size of a transparent huge page in bytes; 0 when the kernel has none. */
long thp_pmd_size(const char *root);

/* compaction_max_order resolved on this system (engine_max_order() with
 * the THP size read under root): for `status`, which has no engine. */
unsigned resolve_max_order(const char *root, int configured, unsigned nr_orders);

/* The choices in force in /sys/kernel/mm/transparent_hugepage/enabled and
 * defrag (the words the kernel shows in brackets). With defrag "madvise",
 * the default, faults of madvised memory compact and reclaim directly and
 * never wake kswapd: a raised watermark reaches them only through the
 * other allocations that do. */
struct thp_policy {
        char enabled[16], defrag[16];
};

/* 0, or a negative errno: -ENOENT on a kernel without THP, -EBADMSG when a
 * file holds no bracketed choice. */
int thp_policy_read(const char *root, struct thp_policy *out);

/* The bracketed word of a sysfs choice line ("always [madvise] never"),
 * copied into out; -EBADMSG when there is none or it does not fit. */
int thp_choice(const char *text, char *out, size_t size);
