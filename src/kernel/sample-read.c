/* The I/O half of the sample module: reads the files and the libproc2
 * counters, then hands text to the pure parsers in sample.c. */
#include "sample-read.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include <libproc2/meminfo.h>
#include <libproc2/vmstat.h>

#include "clock.h"
#include "fileio.h"
#include "util.h"

/* Refresh zoneinfo at least this often, whatever else says it changed. */
#define ZONEINFO_EVERY 30
/* /proc/meminfo's "kB" */
#define MEMINFO_UNIT_BYTES 1024

struct sample_reader {
        char *root;
        /* read every cycle: kept open on the real /proc (fileio.h) */
        struct kfile wsf_file, buddyinfo_file, zoneinfo_file;
        char *buf;
        size_t bufsz;
        struct zoneinfo zi;
        bool zi_valid;
        bool zi_unreclaimable;  /* the last zoneinfo flagged a node node_unreclaimable */
        unsigned since_zi;
        long last_wsf;
        size_t last_layout;     /* buddyinfo zone count when zoneinfo was read */
        uint64_t last_mem_total;        /* MemTotal, pages, when zoneinfo was read */
        long page_kb;
        struct vmstat_info *vm_info;
        struct meminfo_info *mem_info;
        const char *failed;     /* the file the last failed sample_read() could not use */
        bool vmstat_reach_checked;
        char vmstat_cut[160];   /* failed, when a counter lies past libproc2's read */
};

/* Order matters: indexes into the select() result below, and the names in
 * vmstat_counters (sample.h). */
static enum vmstat_item vm_items[] = {
        VMSTAT_PGSTEAL_KSWAPD, VMSTAT_PGSTEAL_DIRECT,
        VMSTAT_PGSCAN_KSWAPD, VMSTAT_PGSCAN_DIRECT,
        VMSTAT_ALLOCSTALL_DMA, VMSTAT_ALLOCSTALL_DMA32, VMSTAT_ALLOCSTALL_NORMAL,
        VMSTAT_ALLOCSTALL_MOVABLE, VMSTAT_ALLOCSTALL_HIGH,
        VMSTAT_COMPACT_STALL, VMSTAT_COMPACT_SUCCESS, VMSTAT_COMPACT_FAIL,
        VMSTAT_PGALLOC_DMA, VMSTAT_PGALLOC_DMA32, VMSTAT_PGALLOC_NORMAL,
        VMSTAT_PGALLOC_MOVABLE, VMSTAT_PGALLOC_HIGH,
        VMSTAT_KSWAPD_LOW_WMARK_HIT_QUICKLY, VMSTAT_NR_FREE_PAGES, VMSTAT_OOM_KILL,
};
_Static_assert(ARRAY_SIZE(vm_items) == NR_VMSTAT_COUNTERS, "vm_items and vmstat_counters disagree");

static enum meminfo_item mem_items[] = {
        MEMINFO_MEM_TOTAL, MEMINFO_MEM_FREE, MEMINFO_MEM_AVAILABLE,
        MEMINFO_MEM_ACTIVE_FILE, MEMINFO_MEM_INACTIVE_FILE,
        MEMINFO_MEM_HUGE_TOTAL, MEMINFO_MEM_HUGE_FREE, MEMINFO_MEM_HUGE_ANON,
        MEMINFO_MEM_ANON, MEMINFO_MEM_SHARED, MEMINFO_MEM_DIRTY, MEMINFO_MEM_WRITEBACK,
        MEMINFO_SWAP_FREE,
};

int sample_reader_new(struct sample_reader **out, const char *root)
{
        struct sample_reader *r = calloc(1, sizeof(*r));
        if (!r)
                return -ENOMEM;
        r->root = strdup(root ? root : "");
        r->wsf_file = r->buddyinfo_file = r->zoneinfo_file = KFILE_INIT;
        r->last_wsf = -1;
        r->page_kb = sysconf(_SC_PAGESIZE) / MEMINFO_UNIT_BYTES;
        if (!r->root || r->page_kb <= 0) {
                int e = r->root ? -EINVAL : -ENOMEM;
                sample_reader_free(r);
                return e;
        }
        /* libproc2 returns a negative errno on failure. */
        int e = procps_vmstat_new(&r->vm_info);
        if (e >= 0)
                e = procps_meminfo_new(&r->mem_info);
        if (e < 0) {
                sample_reader_free(r);
                return e;
        }
        *out = r;
        return 0;
}

void sample_reader_free(struct sample_reader *r)
{
        if (!r)
                return;
        if (r->vm_info)
                procps_vmstat_unref(&r->vm_info);
        if (r->mem_info)
                procps_meminfo_unref(&r->mem_info);
        zoneinfo_free(&r->zi);
        kfile_close(&r->wsf_file);
        kfile_close(&r->buddyinfo_file);
        kfile_close(&r->zoneinfo_file);
        free(r->buf);
        free(r->root);
        free(r);
}

void sample_reader_invalidate(struct sample_reader *r)
{
        r->zi_valid = false;
}

/* libproc2 4.0.2's one read() of /proc/vmstat: its buffer's size less one. */
#define LIBPROC2_VMSTAT_READ 8191

/* Once: every counter vm_items asks for must be in what libproc2's single
 * read() of /proc/vmstat returns (vmstat_counter_cut()), or its value
 * would read as 0. libproc2 reads /proc itself, not below the root. */
static int check_vmstat_reach(struct sample_reader *r)
{
        _cleanup_close_ int fd = open("/proc/vmstat", O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        _cleanup_free_ char *first = malloc(LIBPROC2_VMSTAT_READ + 1);
        if (!first)
                return -ENOMEM;
        ssize_t n = read(fd, first, LIBPROC2_VMSTAT_READ);
        if (n < 0)
                return -errno;
        first[n] = '\0';
        ssize_t all = read_file_at("", "/proc/vmstat", &r->buf, &r->bufsz);
        if (all < 0)
                return (int)all;
        const char *cut = vmstat_counter_cut(first, r->buf);
        if (cut) {
                snprintf(r->vmstat_cut, sizeof(r->vmstat_cut),
                         "/proc/vmstat (libproc2 reads its first %zd of %zd bytes, and %s is past them: it would read as 0)",
                         n, all, cut);
                r->failed = r->vmstat_cut;
                return -EOVERFLOW;
        }
        r->vmstat_reach_checked = true;
        return 0;
}

/* procps_*_select() re-reads the file on every call; procps_*_get() would
 * cache for a second and return stale counters at sub-second intervals. */
static int read_counters(struct sample_reader *r, struct sample *s)
{
        int e = r->vmstat_reach_checked ? 0 : check_vmstat_reach(r);
        if (e < 0)
                return e;
        errno = 0;
        struct vmstat_stack *vs = procps_vmstat_select(r->vm_info, vm_items, ARRAY_SIZE(vm_items));
        if (!vs)
                return errno == ENOMEM ? -ENOMEM : -EIO;
#define V(i) ((uint64_t)VMSTAT_VAL(i, ul_int, vs, r->vm_info))
        s->vm = (struct vmstat){
                .pgsteal_kswapd = V(0), .pgsteal_direct = V(1),
                .pgscan_kswapd = V(2), .pgscan_direct = V(3),
                .allocstall = V(4) + V(5) + V(6) + V(7) + V(8),
                .compact_stall = V(9), .compact_success = V(10), .compact_fail = V(11),
                .pgalloc = V(12) + V(13) + V(14) + V(15) + V(16),
                .kswapd_low_wmark_hit_quickly = V(17), .nr_free_pages = V(18),
                .oom_kill = V(19),
        };
#undef V
        errno = 0;
        struct meminfo_stack *ms = procps_meminfo_select(r->mem_info, mem_items, ARRAY_SIZE(mem_items));
        if (!ms)
                return errno == ENOMEM ? -ENOMEM : -EIO;
#define M(i) ((uint64_t)MEMINFO_VAL(i, ul_int, ms, r->mem_info))
        uint64_t pk = (uint64_t)r->page_kb;
        s->mem = (struct meminfo){
                .mem_total = M(0) / pk, .mem_free = M(1) / pk, .mem_available = M(2) / pk,
                .active_file = M(3) / pk, .inactive_file = M(4) / pk,
                .hugepages_total = M(5), .hugepages_free = M(6), .anon_huge = M(7) / pk,
                .anon_pages = M(8) / pk, .shmem = M(9) / pk, .dirty = M(10) / pk,
                .writeback = M(11) / pk, .parts_known = true,
                .swap_free = M(12) / pk, .swap_known = true,
        };
#undef M
        return 0;
}

const char *sample_reader_failed(const struct sample_reader *r)
{
        return r->failed ? r->failed : "/proc";
}

/* /proc/buddyinfo through the kept fd, parsed into b (the caller frees). */
static int read_buddyinfo(struct sample_reader *r, struct buddyinfo *b)
{
        ssize_t n = kfile_read(&r->buddyinfo_file, r->root, "/proc/buddyinfo", &r->buf, &r->bufsz);
        return n < 0 ? (int)n : buddyinfo_parse(r->buf, b);
}

static int refresh_zoneinfo(struct sample_reader *r)
{
        r->failed = "/proc/zoneinfo";
        ssize_t n = kfile_read(&r->zoneinfo_file, r->root, "/proc/zoneinfo", &r->buf, &r->bufsz);
        if (n < 0)
                return (int)n;
        struct zoneinfo zi;
        int e = zoneinfo_parse(r->buf, &zi);
        if (e < 0)
                return e;
        zoneinfo_free(&r->zi);
        r->zi = zi;
        r->zi_valid = true;
        r->since_zi = 0;
        r->zi_unreclaimable = false;
        for (size_t i = 0; i < zi.nr_zones; i++)
                r->zi_unreclaimable |= zi.zones[i].node_unreclaimable != 0;
        return 0;
}

int sample_read(struct sample_reader *r, struct sample *out)
{
        out->time = clock_secs(CLOCK_MONOTONIC);

        r->failed = "/proc/sys/vm/watermark_scale_factor";
        int e = kfile_read_long(&r->wsf_file, r->root, "/proc/sys/vm/watermark_scale_factor", &out->wsf);
        if (e < 0)
                return e;
        r->failed = "/proc/vmstat or /proc/meminfo (libproc2)";
        if ((e = read_counters(r, out)) < 0)
                return e;
        r->failed = "/proc/buddyinfo";
        struct buddyinfo b;
        if ((e = read_buddyinfo(r, &b)) < 0)
                return e;

        /* The watermarks change with the scale factor; managed pages when
         * the kernel adds or removes memory (lazily initialised at boot,
         * hotplug, a balloon), which MemTotal, read every sample, shows:
         * a stale managed count would hide consumption (used = managed -
         * free). */
        /* While a node is flagged node_unreclaimable, every sample: the
         * flag holds raises back (policy.h), and the kernel clears it at
         * the first reclaim progress -- a burst's direct reclaim -- which a
         * flag 30 samples stale would miss (bench bursts: a flag read at
         * start held every raise back through two bursts, 915 stalls). */
        if (!r->zi_valid || r->zi_unreclaimable || out->wsf != r->last_wsf || b.nr_zones != r->last_layout ||
            out->mem.mem_total != r->last_mem_total || ++r->since_zi >= ZONEINFO_EVERY)
                e = refresh_zoneinfo(r);
        if (e >= 0) {
                r->failed = "/proc/buddyinfo and /proc/zoneinfo (no zone in both)";
                e = sample_assemble(out, &b, &r->zi);
        }
        if (e >= 0) {
                r->last_wsf = out->wsf;
                r->last_layout = b.nr_zones;
                r->last_mem_total = out->mem.mem_total;
                r->failed = NULL;
        }
        buddyinfo_free(&b);
        return e;
}

int free_bytes_quick(uint64_t *bytes)
{
        struct sysinfo si;
        if (sysinfo(&si) < 0)
                return -errno;
        *bytes = (uint64_t)si.freeram * (uint64_t)si.mem_unit;
        return 0;
}

int zone_free_quick(struct sample_reader *r, int node, const char *zone, unsigned order, uint64_t *pages,
                    uint64_t *pages_at_order)
{
        struct buddyinfo b;
        int e = read_buddyinfo(r, &b);
        if (e < 0)
                return e;
        e = -ENOENT;
        for (size_t i = 0; i < b.nr_zones && e < 0; i++) {
                if (b.zones[i].node != node || strcmp(b.zones[i].name, zone) != 0)
                        continue;
                struct zone z = { 0 };
                memcpy(z.nr_free, b.zones[i].nr_free, sizeof(z.nr_free));
                zone_sum_orders(&z, b.nr_orders);
                *pages = z.free_pages;
                *pages_at_order = zone_free_at_order(&z, b.nr_orders, order);
                e = 0;
        }
        buddyinfo_free(&b);
        return e;
}

int zone_index_read(const char *root, const char *name)
{
        _cleanup_free_ char *buf = NULL;
        size_t size = 0;
        ssize_t n = read_file_at(root, "/proc/zoneinfo", &buf, &size);
        if (n < 0)
                return (int)n;
        return zoneinfo_zone_index(buf, name);
}
