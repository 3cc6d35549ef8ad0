#include "status.h"

#include <errno.h>
#include <string.h>

#include "actuate.h"
#include "daemon.h"
#include "sample.h"

static void print_zone(FILE *out, const struct zone *z, unsigned nr_orders, unsigned max_order)
{
        fprintf(out, "node%d %s: managed %llu pages, free %llu pages\n", z->node, z->name,
                (unsigned long long)z->managed_pages, (unsigned long long)z->free_pages);
        fprintf(out, "  watermarks: min %llu, low %llu, high %llu pages\n",
                (unsigned long long)z->wmark_min, (unsigned long long)z->wmark_low,
                (unsigned long long)z->wmark_high);
        fprintf(out, "  free blocks per order:");
        for (unsigned k = 0; k < nr_orders; k++)
                fprintf(out, " %u:%llu", k, (unsigned long long)z->nr_free[k]);
        fprintf(out, "\n  fragmented (free memory not in blocks >= order):");
        unsigned first = max_order > 3 ? max_order - 3 : 1;
        for (unsigned k = first; k <= max_order && k < nr_orders; k++) {
                double h = (double)zone_free_at_order(z, nr_orders, k);
                double f = (double)z->free_pages;
                fprintf(out, " %u:%.0f%%", k, f > 0 ? (f - h) / f * 100 : 0);
        }
        fprintf(out, "\n");
}

int status_print(FILE *out, const char *root, const char *state_dir, const struct config *cfg)
{
        struct sample_reader *r;
        struct sample s = { 0 };
        int e = sample_reader_new(&r, root);
        if (e >= 0) {
                e = sample_read(r, &s);
                sample_reader_free(r);
        }
        if (e < 0) {
                fprintf(stderr, "memoptimizer: cannot read the kernel's memory state: %s\n", strerror(-e));
                return 2;
        }
        long baseline, written;
        e = actuate_state_load(state_dir, &baseline, &written);
        fprintf(out, "vm.watermark_scale_factor: %ld\n", s.wsf);
        if (e == 0)
                fprintf(out, "baseline: %ld (the daemon changed it and will restore it)\n", baseline);
        else if (e == -ENOENT)
                fprintf(out, "baseline: %ld (the daemon has not changed it)\n", s.wsf);
        else
                fprintf(out, "baseline: unknown (state file in %s: %s)\n", state_dir, strerror(-e));
        unsigned max_order = resolve_max_order(root, cfg->compaction_max_order, s.nr_orders);
        for (size_t i = 0; i < s.nr_zones; i++)
                print_zone(out, &s.zones[i], s.nr_orders, max_order);
        fprintf(out, "MemAvailable: %llu pages; file LRU %llu pages; stalls since boot: allocstall %llu, compact_stall %llu\n",
                (unsigned long long)s.mem.mem_available,
                (unsigned long long)s.mem.active_file + (unsigned long long)s.mem.inactive_file,
                (unsigned long long)s.vm.allocstall, (unsigned long long)s.vm.compact_stall);
        sample_free(&s);
        return 0;
}
