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
 * for good, said once). A reclaiming pulse (Normal too near its min to
 * close the zones below it) instead writes PULSE_RECLAIM_STEP at a time to
 * the node's reclaim file, one step after another, until wake_end_due()
 * says it is over; nothing is left to put back. Every pulse is logged
 * (MSGID_WAKE, MSGID_WAKE_END). */
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
/* What a reclaiming pulse asks the kernel for in one write (bytes): a few
 * ms of reclaim, so that Normal's free pages are read between writes and
 * a signal is served within one. */
#define PULSE_RECLAIM_STEP (32ULL << 20)

struct pulse {
        const char *root, *state_dir;
        const struct logger *log;
        struct sample_reader *reader;
        long page_size;
        bool usable;            /* false: never close (not here, or not ours to touch) */
        bool can_reclaim;       /* the node's reclaim file is there to write */
        struct lowmem_ratio boot, closed;
        long dma32_ratio;
        struct wake_state state;
        struct wake_pulse now;  /* the pulse in progress */
        sd_event_source *poll;  /* non-NULL while a pulse lasts */
        double started;         /* monotonic seconds */
        unsigned long long reclaimed;   /* bytes, by the reclaiming pulse in progress */
        int reclaim_err;        /* why its last write failed */
};

/* Set up; logs why pulses are off when they cannot be made (no DMA32, an
 * unreadable ratio). A lowmem file a previous instance left (it died
 * mid-pulse) is acted on first: its boot value back while its value is in
 * force. close, reclaim: the configuration's wake_kswapd and node_reclaim;
 * acting: not dry-run. */
void pulse_init(struct pulse *w, const char *root, const char *state_dir, const struct logger *log,
                struct sample_reader *reader, long page_size, bool close, bool reclaim, bool acting);

/* After each sample: start a pulse if wake_step() says so (never while
 * one lasts, nor when not acting: then the would-be pulse is logged). */
void pulse_sample(struct pulse *w, sd_event *e, const struct sample *s, long baseline, bool acting);

/* Stop: open the zones again if closed, remove the lowmem file; a
 * reclaiming pulse ends after the write in progress. */
void pulse_stop(struct pulse *w);
