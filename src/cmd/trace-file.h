/* trace-file.h — reading a trace file (or standard input), plain or
 * gzip-compressed (known by its magic bytes), record by record for
 * `memoptimizer replay`, with every error as "FILE:LINE: what is wrong".
 * The lines are parsed by trace.h; this bounds them (TRACE_LINE_MAX) and
 * checks their order: the header first and once, sample times strictly
 * increasing, decisions right after the sample they belong to, and a
 * complete last line. */
#pragma once

#include <stddef.h>

#include "trace.h"

struct trace_reader;

/* path "-" is standard input. On failure err says why. */
int trace_reader_open(struct trace_reader **out, const char *path, char *err, size_t errsz);
void trace_reader_free(struct trace_reader *r);
/* 1: a record; 0: end of the trace; negative errno: err holds
 * "FILE:LINE: what is wrong" (-EBADMSG: the trace's fault; -ENOMEM, -EIO:
 * not). The header is returned as the first record. */
int trace_reader_next(struct trace_reader *r, struct trace_record *rec, char *err, size_t errsz);
