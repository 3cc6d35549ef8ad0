/* process.h — knowing a process again: its pid and its start time (clock
 * ticks after boot, /proc/PID/stat field 22), which a pid recycled for
 * another process does not share. `status` knows the daemon this way
 * without touching its locks. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#define PROCESS_COMM_MAX 16     /* the kernel's TASK_COMM_LEN */
#define PROCESS_PID_MAX 4194304L        /* the kernel's PID_MAX_LIMIT */

struct process_id {
        long pid;
        uint64_t start_ticks;
        char comm[PROCESS_COMM_MAX];    /* the executable's name, cut at 15 bytes */
        bool gone;                      /* a zombie: it has exited */
};

/* Read /proc/PID/stat. 0, -ENOENT when there is no such process (or it is
 * hidden from this user: see process_visible()), -EBADMSG. */
int process_read(long pid, struct process_id *out);

/* Whether this user sees other users' processes in /proc (no hidepid):
 * when not, a pid's absence says nothing. */
bool process_visible(void);
