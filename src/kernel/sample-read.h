/* sample-read.h — the I/O half of sampling: reads /proc/buddyinfo,
 * /proc/zoneinfo (only when it may have changed), the scale factor, and the
 * /proc/vmstat and /proc/meminfo counters through libproc2, and hands the
 * text to the pure parsers of sample.h. Paths are read below a root prefix
 * so tests can use fixture trees; on the real /proc the files stay open
 * between samples (struct kfile, fileio.h). */
#pragma once

#include <stdint.h>

#include "sample.h"

struct sample_reader;

int sample_reader_new(struct sample_reader **out, const char *root);
void sample_reader_free(struct sample_reader *r);

/* Read one sample. zoneinfo is re-read when the scale factor changed, when
 * the buddyinfo layout changed, every ZONEINFO_EVERY samples, every sample
 * while it flags a node node_unreclaimable, or when
 * sample_reader_invalidate() was called. */
int sample_read(struct sample_reader *r, struct sample *out);
void sample_reader_invalidate(struct sample_reader *r);
/* Free memory in bytes as sysinfo(2) gives it: one system call, no file,
 * cheap enough to watch for the onset of an episode between samples. */
int free_bytes_quick(uint64_t *bytes);

/* The free pages of one zone from /proc/buddyinfo alone, all of them and
 * those in blocks of `order` or larger: cheap enough to follow Normal every
 * few tens of milliseconds while a pulse lasts (wake.h). -ENOENT: no such
 * zone. */
int zone_free_quick(struct sample_reader *r, int node, const char *zone, unsigned order, uint64_t *pages,
                    uint64_t *pages_at_order);
/* The index of zone `name` in node 0's list of /proc/zoneinfo (its place
 * in vm.lowmem_reserve_ratio), or a negative errno. */
int zone_index_read(const char *root, const char *name);

/* After sample_read() failed: the file it could not use, for the message. */
const char *sample_reader_failed(const struct sample_reader *r);
