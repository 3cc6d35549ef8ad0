/* pulse.h — the daemon's side of waking kswapd before DMA32 runs out
 * (core/wake.h decides; this times and does it).
 *
 * At start: the boot vm.lowmem_reserve_ratio and where DMA32 and Normal are
 * in it (from /proc/zoneinfo's zone order), or a logged reason why pulses
 * cannot be made here. Each sample: wake_step(); when it says so, the lowmem
 * file is saved (state.h), the zones below Normal are closed, and a timer
 * reads Normal's free pages every PULSE_POLL_MS until wake_end_due() says
 * to open them again. Before closing, the value in force must still be the
 * boot value: an administrator's own setting is never fought (pulses stop
 * for good, said once). Every pulse is logged (MSGID_WAKE, MSGID_WAKE_END). */
#pragma once

#include <stdbool.h>

#include <systemd/sd-event.h>

#include "log.h"
#include "sample-read.h"
#include "wake.h"

/* How often Normal is read while the zones below it are closed: at 1 GB/s a
 * 20 ms read lags 5,000 pages, a quarter of the floor's margin at wsf 100
 * on a 24 GiB machine. */
#define PULSE_POLL_MS 20
/* Seconds of DMA32's fall left that start a pulse: long enough for kswapd to
 * be running at full rate by the time DMA32 is empty (it starts slowly). */
#define PULSE_LEAD_SECONDS 2.0

struct pulse {
        const char *root, *state_dir;
        const struct logger *log;
        struct sample_reader *reader;
        long page_size;
        bool usable;            /* false: never close (not here, or not ours to touch) */
        struct lowmem_ratio boot, closed;
        long dma32_ratio;
        unsigned huge_order;    /* a transparent huge page's; 0: no THP */
        struct wake_state state;
        struct wake_pulse now;  /* the pulse in progress */
        sd_event_source *poll;  /* non-NULL while closed */
        double started;         /* monotonic seconds */
};

/* Set up; logs why pulses are off when they cannot be made (no DMA32, an
 * unreadable ratio). A lowmem file a previous instance left (it died
 * mid-pulse) is acted on first: its boot value back while its value is in
 * force. enabled: the configuration's wake_kswapd; acting: not dry-run;
 * huge_order: a transparent huge page's order, 0 without THP. */
void pulse_init(struct pulse *w, const char *root, const char *state_dir, const struct logger *log,
                struct sample_reader *reader, long page_size, unsigned huge_order, bool enabled, bool acting);

/* After each sample: start a pulse if wake_step() says so (never while
 * one lasts, nor when not acting: then the would-be pulse is logged). */
void pulse_sample(struct pulse *w, sd_event *e, const struct sample *s, long baseline, bool acting);

/* Stop: open the zones again if closed, remove the lowmem file. */
void pulse_stop(struct pulse *w);
