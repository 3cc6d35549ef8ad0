/* recorder.h — writing trace files: the daemon's `record = FILE` (samples
 * and the decisions taken on them) and `memoptimizer record` (samples). The
 * lines are trace.h's; this owns the file, its header from the running
 * system, flushing each line, and rotation at record_max_size. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "policy.h"
#include "sample.h"

struct recorder;

/* Create path ("-": standard output) anew and write the header; source is
 * "record" or "daemon". The file is created with O_EXCL (an existing file
 * or a symbolic link there is never opened for writing) and holds an
 * exclusive flock(2) while it is written, so two instances never write one
 * trace. With take_over_existing (the daemon, which may be restarted) an
 * earlier trace there is moved to path.1 first if it is this user's
 * regular file, with no other hard link, that no process writes; without
 * (`record`) an existing file is refused. A file that has grown to
 * max_size bytes (0: no limit) is moved to path.1 before the next sample
 * and path starts afresh. Returns 0, 1 when an earlier trace was moved to
 * path.1, or a negative errno with err saying why. */
int recorder_open(struct recorder **out, const char *path, const char *root, const char *source,
                  double interval, uint64_t max_size, bool take_over_existing, char *err, size_t errsz);
/* 0, or 1 when the file was rotated first; a negative errno on failure. */
int recorder_sample(struct recorder *r, const struct sample *s);
/* A reload: a new size limit, and a new interval, which the header of the
 * file states, so the file is rotated (returns 1). 0 or a negative errno
 * otherwise. */
int recorder_configure(struct recorder *r, double interval, uint64_t max_size);
/* The decision taken on the sample recorded last; ignored when it did nothing. */
int recorder_decision(struct recorder *r, double time, const struct decision *d, bool acting);
/* Close (and free); returns the error of the final flush, if any. */
int recorder_close(struct recorder *r);
const char *recorder_path(const struct recorder *r);
/* A recorder's negative errno in words: "PATH is a symbolic link, which
 * is not followed", "cannot write PATH: No space left on device". */
void recorder_strerror(char *buf, size_t size, const char *path, int err);
