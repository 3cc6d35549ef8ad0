#include "pulse.h"

#include <errno.h>
#include <string.h>
#include <syslog.h>

#include "actuate.h"
#include "clock.h"
#include "report.h"
#include "state.h"

#define USEC_PER_MSEC 1000ULL

static const char *lowmem_strerror(int err)
{
        return err == -EBADMSG ? "not in the format the kernel writes" : strerror(-err);
}

/* A previous instance died with the zones closed: put its boot value back
 * while its own value is still in force. */
static void leftover(struct pulse *w)
{
        bool restored = false;
        int r = state_restore_lowmem_held(w->root, w->state_dir, &restored);
        if (r == -ENOENT)
                return;
        if (r < 0)
                log_msg(w->log, r == -EBADMSG ? LOG_WARNING : LOG_ERR,
                        "%s/" STATE_LOWMEM_FILE ", left by a previous instance: %s; vm.lowmem_reserve_ratio left as it is",
                        w->state_dir, r == -EBADMSG ? "not in the format memoptimizer writes, removed it" : state_strerror(r));
        else
                log_msg(w->log, LOG_NOTICE, "%s", restored ?
                        "a previous instance left the zones below Normal closed (vm.lowmem_reserve_ratio); restored its boot value" :
                        "a previous instance left a lowmem file, but vm.lowmem_reserve_ratio was changed since; left as it is");
}

void pulse_init(struct pulse *w, const char *root, const char *state_dir, const struct logger *log,
                struct sample_reader *reader, long page_size, unsigned huge_order, bool enabled, bool acting)
{
        *w = (struct pulse){ .root = root, .state_dir = state_dir, .log = log, .reader = reader,
                             .page_size = page_size, .huge_order = huge_order };
        wake_init(&w->state);
        if (acting)
                leftover(w);
        if (!enabled)
                return;
        int r = actuate_read_lowmem(root, &w->boot);
        if (r < 0) {
                log_msg(log, LOG_INFO, "not waking kswapd ahead of DMA32's end: reading " LOWMEM_PATH ": %s",
                        lowmem_strerror(r));
                return;
        }
        int normal = zone_index_read(root, "Normal"), dma32 = zone_index_read(root, "DMA32");
        if (normal < 0 || dma32 < 0 || dma32 >= normal || (size_t)normal >= w->boot.n ||
            lowmem_ratio_closed(&w->boot, (size_t)normal, &w->closed) < 0) {
                log_msg(log, LOG_INFO, "not waking kswapd ahead of DMA32's end: node 0 has no DMA32 zone below Normal");
                return;
        }
        if (lowmem_ratio_equal(&w->boot, &w->closed)) {
                log_msg(log, LOG_INFO, "not waking kswapd ahead of DMA32's end: the zones below Normal are closed already (vm.lowmem_reserve_ratio)");
                return;
        }
        w->dma32_ratio = w->boot.v[dma32];
        w->usable = true;
}

/* Open the zones again; only our own value is replaced. */
static int reopen(struct pulse *w)
{
        bool restored = false;
        int r = actuate_restore_lowmem(w->root, &w->boot, &w->closed, &restored);
        if (r < 0)
                return r;
        state_remove_lowmem(w->state_dir);
        if (!restored) {
                log_msg(w->log, LOG_NOTICE, "vm.lowmem_reserve_ratio was changed by someone else during a pulse; left as it is, and no more pulses");
                w->usable = false;
        }
        return 0;
}

static int on_poll(sd_event_source *s, uint64_t usec, void *userdata)
{
        struct pulse *w = userdata;
        (void)usec;
        double held = clock_secs(CLOCK_MONOTONIC) - w->started;
        uint64_t free = 0, free_huge = 0;
        int r = zone_free_quick(w->reader, w->now.node, "Normal", w->now.huge_order, &free, &free_huge);
        enum wake_end e = r < 0 ? WAKE_END_UNREADABLE : wake_end_due(&w->now, free, free_huge, held);
        if (r < 0)
                log_msg(w->log, LOG_WARNING, "reading /proc/buddyinfo during a pulse: %s; opening the zones below Normal at once",
                        strerror(-r));
        if (e == WAKE_HOLD) {
                sd_event_source_set_time_relative(s, PULSE_POLL_MS * USEC_PER_MSEC);
                return sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
        }
        r = reopen(w);
        report_wake_end(w->log, &w->now, e, free, free_huge, held, w->page_size, r);
        if (r == 0)
                w->poll = sd_event_source_disable_unref(w->poll);
        else    /* try again at the next read: never leave them closed */
                sd_event_source_set_time_relative(s, PULSE_POLL_MS * USEC_PER_MSEC);
        return 0;
}

/* The value in force must still be the boot value, or it is somebody
 * else's now: theirs is never fought. */
static bool still_ours(struct pulse *w)
{
        struct lowmem_ratio now;
        int r = actuate_read_lowmem(w->root, &now);
        if (r == 0 && lowmem_ratio_equal(&now, &w->boot))
                return true;
        log_msg(w->log, LOG_NOTICE, "vm.lowmem_reserve_ratio is not its value at start (%s); somebody else set it: no more pulses to wake kswapd",
                r < 0 ? lowmem_strerror(r) : "changed");
        w->usable = false;
        return false;
}

static void close_zones(struct pulse *w, sd_event *e, const struct wake_pulse *p)
{
        if (!still_ours(w))
                return;
        int r = state_save_lowmem(w->state_dir, &w->boot, &w->closed);
        if (r < 0) {
                log_msg(w->log, LOG_WARNING, "cannot keep %s/" STATE_LOWMEM_FILE ": %s; not closing the zones below Normal without it (no more pulses)",
                        w->state_dir, strerror(-r));
                w->usable = false;
                return;
        }
        r = actuate_write_lowmem(w->root, &w->closed);
        if (r == 0)
                r = sd_event_add_time_relative(e, &w->poll, CLOCK_MONOTONIC, PULSE_POLL_MS * USEC_PER_MSEC,
                                               USEC_PER_MSEC, on_poll, w);
        if (r < 0) {
                log_msg(w->log, LOG_WARNING, "cannot make a pulse to wake kswapd: %s; no more pulses", strerror(-r));
                reopen(w);
                w->usable = false;
                return;
        }
        w->now = *p;
        w->started = clock_secs(CLOCK_MONOTONIC);
        report_wake(w->log, p, w->page_size, true);
}

void pulse_sample(struct pulse *w, sd_event *e, const struct sample *s, long baseline, bool acting)
{
        if (!w->usable)
                return;
        struct wake_params prm = { .baseline = baseline, .lead = PULSE_LEAD_SECONDS,
                                   .dma32_ratio = w->dma32_ratio, .huge_order = w->huge_order };
        struct wake_pulse p;
        if (!wake_step(&w->state, s, &prm, &p) || w->poll)
                return;
        if (!acting)
                report_wake(w->log, &p, w->page_size, false);
        else
                close_zones(w, e, &p);
}

void pulse_stop(struct pulse *w)
{
        if (!w->poll)
                return;
        int r = reopen(w);
        if (r < 0)
                log_msg(w->log, LOG_ERR, "cannot open the zones below Normal again (" LOWMEM_PATH "): %s; `memoptimizer restore` will, from %s/" STATE_LOWMEM_FILE,
                        strerror(-r), w->state_dir);
        else
                log_msg(w->log, LOG_INFO, "zones below Normal open again: stopping");
        w->poll = sd_event_source_disable_unref(w->poll);
}
