/* trace-fixture.h — a sample and a header to write and read back in the
 * trace tests, and the line of a record as trace.h makes it. */
#pragma once

#include <stdint.h>
#include <string.h>

#include "trace.h"

static struct zone zones[2];

static inline struct sample make_sample(double t)
{
        memset(zones, 0, sizeof(zones));
        for (int i = 0; i < 2; i++) {
                zones[i].node = i;
                strcpy(zones[i].name, i ? "Normal" : "DMA32");
                zones[i].managed_pages = 1000000 + (uint64_t)i;
                zones[i].wmark_min = 1000;
                zones[i].wmark_low = 2000;
                zones[i].wmark_high = 3000;
                for (unsigned k = 0; k < 11; k++)
                        zones[i].nr_free[k] = 100 * (uint64_t)k + (uint64_t)i;
                zone_sum_orders(&zones[i], 11);
        }
        struct sample s = { .time = t, .wsf = 10, .nr_orders = 11, .nr_zones = 2, .zones = zones };
        s.vm = (struct vmstat){ .pgsteal_kswapd = 1, .pgsteal_direct = 2, .pgscan_kswapd = 3,
                                .pgscan_direct = 4, .allocstall = 5, .compact_stall = 6,
                                .compact_success = 7, .compact_fail = 8, .pgalloc = UINT64_C(1) << 60,
                                .kswapd_low_wmark_hit_quickly = 10, .nr_free_pages = 11, .oom_kill = 12 };
        s.mem = (struct meminfo){ .mem_total = 13, .mem_free = 14, .mem_available = 15,
                                  .active_file = 16, .inactive_file = 17, .hugepages_total = 18,
                                  .hugepages_free = 19, .anon_huge = 20 };
        return s;
}

static const struct trace_header trace_test_header = {
        .version = TRACE_VERSION, .source = "record", .program = "memoptimizer test",
        .kernel = "6.18", .started = "2026-11-21T00:00:00Z", .interval = 1,
        .page_size = 4096, .thp_pmd_size = 2097152,
};

/* line, checked to be one line, and its length (caller frees). */
static inline char *line_of(char *line, size_t *len)
{
        assert_non_null(line);
        *len = strlen(line);
        assert_true(*len > 0);
        assert_null(strchr(line, '\n'));
        return line;
}
