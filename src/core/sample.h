/* sample.h — one reading of the kernel's memory state.
 *
 * Owns the struct sample, the parsers for /proc/buddyinfo and /proc/zoneinfo
 * (pure: they take text) and the assembly of a sample from them. The I/O
 * that fills a sample is the kernel side's (sample-read.h). Zones are
 * identified by (node, name) as the kernel prints them. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Capacity, not a kernel fact: the real number of orders is read from
 * buddyinfo (11 on x86-64, 14 on arm64 with 64K pages). */
#define ORDER_CAP 32
/* vm.watermark_scale_factor is in permyriad of a zone's managed pages. */
#define PERMYRIAD 10000.0
#define ZONE_NAME_MAX 16
/* Node numbers above this are refused: far beyond the kernel's largest
 * MAX_NUMNODES (1 << 10), and small enough to stay an int. */
#define NODE_ID_MAX (1 << 20)

/* One line of /proc/buddyinfo. */
struct buddy_zone {
        int node;
        char name[ZONE_NAME_MAX];
        uint64_t nr_free[ORDER_CAP]; /* free blocks of each order */
};

struct buddyinfo {
        struct buddy_zone *zones;
        size_t nr_zones;
        unsigned nr_orders;
};

/* The parts of one /proc/zoneinfo zone section that the daemon uses. */
struct zoneinfo_zone {
        int node;
        char name[ZONE_NAME_MAX];
        uint64_t pages_free;
        uint64_t wmark_min, wmark_low, wmark_high;
        uint64_t managed_pages;
        /* kswapd gave up on the zone's node (kswapd_failures reached
         * MAX_RECLAIM_RETRIES): 0 or 1; 0 where the kernel does not say */
        uint64_t node_unreclaimable;
};

struct zoneinfo {
        struct zoneinfo_zone *zones;
        size_t nr_zones;
};

/* Global counters from /proc/vmstat (pages or events, monotonic). */
struct vmstat {
        uint64_t pgsteal_kswapd, pgsteal_direct;
        uint64_t pgscan_kswapd, pgscan_direct;
        uint64_t allocstall;   /* sum of allocstall_* */
        uint64_t compact_stall, compact_success, compact_fail;
        uint64_t pgalloc;      /* sum of pgalloc_* */
        uint64_t kswapd_low_wmark_hit_quickly;
        uint64_t nr_free_pages;
        uint64_t oom_kill;
};

/* /proc/meminfo, converted to pages. */
struct meminfo {
        uint64_t mem_total, mem_free, mem_available;
        uint64_t active_file, inactive_file;
        uint64_t hugepages_total, hugepages_free; /* in huge pages */
        uint64_t anon_huge;                       /* in pages */
        /* What the workload holds that kswapd cannot give back by evicting
         * clean page cache: anonymous (AnonPages, huge pages included) and
         * shared memory, and page cache not yet clean. Traces recorded
         * before 0.2 lack them. */
        uint64_t anon_pages, shmem, dirty, writeback;   /* in pages */
        bool parts_known;
        /* SwapFree: how much anonymous memory kswapd could page out, in
         * pages. Traces recorded before 0.4.9 lack it (swap_known false;
         * replayed as no swap, which the machine they came from had). */
        uint64_t swap_free;
        bool swap_known;
};

/* A zone as the rest of the daemon sees it: buddyinfo joined with zoneinfo.
 * Zones with no managed pages are never present. */
struct zone {
        int node;
        char name[ZONE_NAME_MAX];
        uint64_t nr_free[ORDER_CAP];
        uint64_t free_at[ORDER_CAP];    /* pages in blocks of order >= k */
        uint64_t free_pages;            /* free_at[0] */
        uint64_t wmark_min, wmark_low, wmark_high;
        uint64_t managed_pages;
        bool node_unreclaimable;        /* kswapd gave up reclaiming on this node */
};

struct sample {
        double time;                    /* CLOCK_MONOTONIC, seconds */
        long wsf;                       /* vm.watermark_scale_factor */
        unsigned nr_orders;
        size_t nr_zones;
        struct zone *zones;             /* owned */
        struct vmstat vm;
        struct meminfo mem;
        bool onset;                     /* taken early: the fast path saw free memory fall */
};

int buddyinfo_parse(const char *text, struct buddyinfo *out);
void buddyinfo_free(struct buddyinfo *b);

/* Where zone `name` is in node 0's list in /proc/zoneinfo's text, which
 * names every zone type in the kernel's order, populated or not: the index
 * of its ratio. -ENOENT when node 0 has none of that name. */
int zoneinfo_zone_index(const char *zoneinfo, const char *name);

int zoneinfo_parse(const char *text, struct zoneinfo *out);
void zoneinfo_free(struct zoneinfo *z);

/* Join buddyinfo with zoneinfo into s->zones (allocated). Zones missing from
 * zoneinfo or with managed_pages == 0 are left out. */
int sample_assemble(struct sample *s, const struct buddyinfo *b, const struct zoneinfo *z);
void sample_free(struct sample *s);
/* Deep copy; dst's old zones are freed. */
int sample_copy(struct sample *dst, const struct sample *src);

/* The /proc/vmstat counters a sample takes, by the kernel's names, in the
 * order the kernel side asks libproc2 for them (sample-read.c). The _high
 * ones exist only on 32-bit kernels with highmem. */
#define NR_VMSTAT_COUNTERS 20
extern const char *const vmstat_counters[NR_VMSTAT_COUNTERS];

/* Whether a line of text starts with name and then ' ' or ':' (the forms
 * of /proc/vmstat and /proc/meminfo). */
bool proc_has_field(const char *text, const char *name);

/* libproc2 (4.0.2) reads /proc/vmstat with one read(), which returns about
 * a page, while the file grows with each kernel (4.1 KiB on 6.18): a
 * counter past what that read returned reads as 0, silently. The first of
 * vmstat_counters that `whole` (the file) has and `first` (one read of it)
 * lacks; NULL when there is none. */
const char *vmstat_counter_cut(const char *first, const char *whole);

/* The distance the kernel puts between a zone's min and low watermarks,
 * and between low and high, at scale factor wsf
 * (__setup_per_zone_wmarks()): the larger of a quarter of min and
 * managed * wsf / 10000, each rounded down as its integer division does.
 * In doubles: a trace may carry 2^50 managed pages and a scale factor of
 * a million, whose product overflows 64 bits. Pages. */
double wmark_gap(uint64_t managed_pages, uint64_t wmark_min, long wsf);

/* What the workload holds that no clean eviction gives back: anonymous and
 * shared memory and page cache not yet clean (pages); only where
 * m->parts_known. */
double meminfo_held(const struct meminfo *m);

/* Zone layouts are equal when the same (node, name) appear in the same order. */
bool sample_same_layout(const struct sample *a, const struct sample *b);

/* Fill free_at[] and free_pages from nr_free[] (done once per sample: the
 * forecast reads these sums for every order of every sample in the window). */
void zone_sum_orders(struct zone *z, unsigned nr_orders);

/* Free pages held in blocks of order >= k. */
uint64_t zone_free_at_order(const struct zone *z, unsigned nr_orders, unsigned k);

/* The unusable free space index of a zone for order k, as the kernel's
 * extfrag debugfs file defines it: the share of free memory not in blocks
 * of order >= k (1 when nothing is free). The one definition of external
 * fragmentation: the forecast, status and the metrics all use it. */
double unusable_index(double free_pages, double free_at_order);
double zone_unusable_index(const struct zone *z, unsigned nr_orders, unsigned k);
