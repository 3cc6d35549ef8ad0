/* wake.h — waking kswapd before DMA32 runs out.
 *
 * The allocator's fast path falls back from Normal to DMA32 without waking
 * kswapd: kswapd wakes only when every zone an allocation may use is below
 * its low. So while a raise is in force Normal sits at its raised low,
 * DMA32 is spent, and kswapd starts only when DMA32 is empty -- too late
 * for the demand, from a standing start (bench/README.md, "Where a raise
 * cannot act yet"). Closing the zones below Normal for a moment
 * (vm.lowmem_reserve_ratio 1) sends the next allocation down the slow
 * path, which wakes kswapd; while they are closed kswapd cannot call the
 * node balanced by DMA32's free memory, so it reclaims Normal to its high.
 *
 * This module decides, from samples alone (no I/O, no clock), when such a
 * pulse starts -- DMA32 would be empty within `lead` seconds at the fall
 * it just had, kswapd asleep, a raise in force, Normal at its low with room
 * above its min -- and, from Normal's free pages read during it, when it
 * ends. A pulse started while huge pages are faulted in also ends when
 * Normal's free memory in huge blocks is at the pulse's floor: its free
 * memory in smaller blocks cannot serve those faults, and with DMA32
 * closed they would stall to compact while DMA32's huge blocks wait. Where
 * they are at the floor already, none starts. The kernel side closes and
 * opens (actuate.h); the daemon times it.
 *
 * The room asked for is half of Normal's low-min gap, or a sixteenth of it
 * (WAKE_SCANT_ROOM): in mixed the page cache holds Normal at the baseline's
 * low, 16-20 MB above its min, when most episodes start, and without a
 * pulse DMA32 drains with kswapd asleep until it is spent. kswapd is woken
 * by the first allocation the pulse sends to Normal; until its pages reach
 * them, those allocations may reclaim directly (a train burst did 150
 * times in one pulse: bench/README.md, "0.4.16"). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sample.h"

/* A pulse lasts at most this long; the next sample judges again. */
#define WAKE_MAX_SECONDS 1.0
/* The least room above Normal's min a pulse starts with: this share of
 * its low-min gap (about 13 MB at wsf 100 on 24 GiB); it ends at half. */
#define WAKE_SCANT_ROOM 16

struct wake_params {
        long baseline;          /* the scale factor's: pulses only above it */
        double lead;            /* seconds of DMA32's fall left that start a pulse */
        /* DMA32's vm.lowmem_reserve_ratio at the boot value: its reserve
         * against allocations that may use Normal is Normal's managed pages
         * over it (the kernel's rule), counted as spent; 0: none */
        long dma32_ratio;
        /* order of a transparent huge page; 0: no THP (pulses never end
         * for want of huge blocks) */
        unsigned huge_order;
};

/* What the previous sample left, for the falls between two. */
struct wake_state {
        bool seen;
        double time;
        uint64_t pgscan_kswapd;
        uint64_t dma32_free;
        uint64_t anon_huge;
};

/* Why a pulse starts, and where it ends (pages, seconds). */
struct wake_pulse {
        int node;
        uint64_t normal_free, normal_min, normal_low, normal_high;
        uint64_t dma32_free, dma32_fell;        /* fell: over `interval` */
        double interval;
        double dma32_left;      /* seconds of that fall DMA32 had left */
        uint64_t end_high;      /* open again when Normal has this many free */
        uint64_t end_floor;     /* or as few as this: its memory is needed now
                                 * (half the room the pulse asked for) */
        /* huge pages were faulted in over `interval`: the pulse also ends
         * when Normal's free memory in blocks of this order is at
         * end_floor (0: not watched) */
        unsigned huge_order;
        uint64_t normal_free_huge;
};

enum wake_end {
        WAKE_HOLD,              /* keep closed */
        WAKE_END_HIGH,          /* Normal at its high: kswapd did its work */
        WAKE_END_NEAR_MIN,      /* Normal near its min: DMA32 is needed now */
        WAKE_END_TIMEOUT,       /* WAKE_MAX_SECONDS */
        WAKE_END_UNREADABLE,    /* Normal's free pages could not be read: open at once */
        WAKE_END_NO_HUGE,       /* Normal's huge blocks spent while huge pages are faulted in */
};

void wake_init(struct wake_state *st);

/* Feed every sample, in order. Returns true when a pulse should start now
 * (*p says why). A sample without a DMA32 and a Normal zone on one node,
 * or taken less than a moment after the last, starts none. */
bool wake_step(struct wake_state *st, const struct sample *s, const struct wake_params *prm,
               struct wake_pulse *p);

/* During a pulse: what Normal's free pages, `held` seconds in, call for;
 * normal_free_huge: those in blocks of p->huge_order or larger (read only
 * when p->huge_order is not 0). */
enum wake_end wake_end_due(const struct wake_pulse *p, uint64_t normal_free, uint64_t normal_free_huge,
                           double held);

const char *wake_end_name(enum wake_end e);
/* The journal field WAKE_END: high, near-min, timeout, unreadable, no-huge. */
const char *wake_end_field(enum wake_end e);

/* vm.lowmem_reserve_ratio: one ratio per zone type, in the kernel's zone
 * order (DMA, DMA32, Normal, Movable, Device on x86-64). */
#define LOWMEM_MAX_ZONES 8
struct lowmem_ratio {
        size_t n;
        long v[LOWMEM_MAX_ZONES];
};

/* The file's text: 1..LOWMEM_MAX_ZONES decimal numbers of 0..INT_MAX
 * separated by blanks, on one line. -EBADMSG for anything else. */
int lowmem_ratio_parse(const char *text, struct lowmem_ratio *out);
/* As the kernel takes it: the numbers, one space apart, and a newline. */
void lowmem_ratio_format(const struct lowmem_ratio *r, char *buf, size_t size);
bool lowmem_ratio_equal(const struct lowmem_ratio *a, const struct lowmem_ratio *b);

/* The zones below index `normal` closed to allocations that may use it:
 * ratio 1, the smallest (their whole reserve is the zones above them).
 * -EINVAL when normal is 0 or not below boot->n. */
int lowmem_ratio_closed(const struct lowmem_ratio *boot, size_t normal, struct lowmem_ratio *closed);
