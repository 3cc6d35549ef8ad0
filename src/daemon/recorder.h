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

/* Create or truncate path ("-": standard output) and write the header.
 * source is "record" or "daemon". A file that has grown to max_size bytes
 * (0: no limit) is moved to path.1 before the next sample and path starts
 * afresh. On failure err says why. */
int recorder_open(struct recorder **out, const char *path, const char *root, const char *source,
                  double interval, uint64_t max_size, char *err, size_t errsz);
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
