/* privilege.h — giving up what the daemon does not need, at start-up.
 *
 * Writing vm.watermark_scale_factor needs euid 0 and no capability (the
 * kernel's proc_sys_permission() looks at the uid and the file's mode
 * bits), and so does writing the compaction triggers (root-owned, 0200).
 * So every capability is dropped — effective, permitted, inheritable,
 * ambient and, where we may, the bounding set — and no_new_privs is set.
 * Under the unit (CapabilityBoundingSet= empty) there is nothing left to
 * drop and capset() is not called, which its seccomp filter forbids. */
#pragma once

/* Returns 0 or a negative errno; on success the process holds no
 * capability. */
int privilege_drop(void);
