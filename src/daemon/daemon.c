#include "daemon.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <systemd/sd-daemon.h>
#include <systemd/sd-event.h>

#include "actuate.h"
#include "clock.h"
#include "fileio.h"
#include "engine.h"
#include "forecast.h"
#include "keep-learned.h"
#include "loop.h"
#include "policy.h"
#include "publish.h"
#include "pulse.h"
#include "recorder.h"
#include "report.h"
#include "sample-read.h"
#include "state.h"
#include "thp.h"
#include "util.h"
#include "window.h"

struct daemon {
        const struct daemon_options *opt;
        struct config cfg;
        struct logger *log;
        struct sample_reader *reader;
        struct sample sample;
        struct engine engine;   /* window, forecast, policy state */
        bool monitor_only;      /* the kernel refused our write: never write again */
        bool ready;
        bool state_warned;
        bool baseline_known;    /* restore() may act */
        int lock_fd;
        long page_size, thp_pmd_size;   /* bytes, read once at start */
        char status[256];       /* last STATUS= sent to the service manager */
        unsigned read_failures;
        unsigned write_failures;        /* of the sysctl, in a row */
        unsigned long samples;  /* taken since start, for the debug log */
        sd_event_source *timer;
        sd_event_source *fast;  /* the onset watch between samples; off while disarmed */
        double fast_ref_time;   /* monotonic seconds */
        uint64_t fast_ref_free; /* bytes free (sysinfo) at the last sample or check */
        unsigned fast_left;     /* checks still to make before the next sample */
        double fast_trigger;    /* bytes per second of fall that take a sample at once */
        struct recorder *rec;   /* record = FILE, NULL when not recording */
        struct publisher publisher;
        int exit_status;        /* non-zero: stopped for this reason */
        struct keeper keeper;   /* what was learnt, in the state directory */
        struct pulse pulse;     /* waking kswapd before DMA32 runs out */
};

static bool acting(const struct daemon *d)
{
        return !d->cfg.dry_run && !d->monitor_only;
}

/* The instance that writes the state directory: the one holding the
 * instance lock, unless in dry-run (which does not take it, and may run
 * beside the service). Monitor-only still learns what the kernel does. */
static bool owns_state(const struct daemon *d)
{
        return d->lock_fd >= 0 && !d->cfg.dry_run;
}

static void enter_monitor_only(struct daemon *d, int err)
{
        char msg[256];
        struct log_field f = { .name = "ERRNO" };
        snprintf(f.value, sizeof(f.value), "%d", -err);
        snprintf(msg, sizeof(msg),
                 "cannot write vm.watermark_scale_factor (%s): monitor-only, logging what would be done",
                 strerror(-err));
        d->monitor_only = true;
        log_event(d->log, LOG_WARNING, MSGID_MONITOR_ONLY, msg, &f, 1);
}

static void save_state(struct daemon *d)
{
        int r = engine_kernel_seen(&d->engine) == engine_baseline(&d->engine) ?
                state_remove(d->opt->state_dir) :
                state_save(d->opt->state_dir, engine_baseline(&d->engine), engine_kernel_seen(&d->engine));
        if (r < 0 && !d->state_warned) {
                d->state_warned = true;
                log_msg(d->log, LOG_WARNING, "cannot keep the state file in %s: %s",
                        d->opt->state_dir, strerror(-r));
        }
}

/* Write the decided value; bisect down when the kernel says it is above its
 * maximum, and drop to monitor-only when we may not write at all. */
static void apply_wsf(struct daemon *d, struct decision *dec)
{
        long v = dec->wsf_new;
        int r;
        while ((r = actuate_write_wsf(d->opt->root, v)) == -EINVAL) {
                long next = engine_kernel_refused(&d->engine, dec->wsf_old, v);
                log_msg(d->log, LOG_INFO, "kernel refused watermark_scale_factor %ld; its maximum is lower", v);
                if (next == dec->wsf_old)
                        break;
                v = next;
        }
        dec->wsf_new = engine_wsf(&d->engine);
        if (r == 0 || r == -EINVAL) {
                if (d->write_failures)
                        log_msg(d->log, LOG_INFO, "writing vm.watermark_scale_factor works again after %u failures",
                                d->write_failures);
                d->write_failures = 0;
                save_state(d);
                return;
        }
        engine_write_failed(&d->engine, dec, actuate_denied(r));
        if (actuate_denied(r)) {
                enter_monitor_only(d, r);
                return;
        }
        /* It is tried again each interval: rate-limited like sampling. */
        unsigned n = ++d->write_failures;
        int prio = log_repeat_prio(n, d->cfg.interval);
        if (prio == LOG_WARNING)
                log_msg(d->log, prio, "writing vm.watermark_scale_factor=%ld: %s; trying again each interval", v,
                        strerror(-r));
        else if (prio == LOG_ERR)
                log_msg(d->log, prio, "writing vm.watermark_scale_factor has failed %u times in a row (last: %ld: %s)",
                        n, v, strerror(-r));
}

static void apply_compaction(struct daemon *d, const struct compact_order *c)
{
        bool all = false;
        double t0 = clock_secs(CLOCK_MONOTONIC);
        int r = acting(d) ? actuate_compact_node(d->opt->root, c->node, &all) : 0;
        double took = clock_secs(CLOCK_MONOTONIC) - t0;
        report_compact(d->log, c, acting(d), all, took, r);
        engine_compaction_took(&d->engine, c->node, took);
        if (actuate_denied(r) && !d->monitor_only)
                enter_monitor_only(d, r);
}

/* STATUS= for `systemctl status`, sent only when its text changes. */
static void notify_status(struct daemon *d, const struct decision *dec)
{
        char low[96] = "", rate[32], text[sizeof(d->status)];
        format_rate(rate, sizeof(rate), d->engine.forecast.kswapd_rate);
        double soonest = INFINITY;
        const struct zone_forecast *zs = NULL;
        for (size_t i = 0; i < d->engine.forecast.nr_zones; i++)
                if (d->engine.forecast.zones[i].secs_to_low < soonest)
                        soonest = d->engine.forecast.zones[i].secs_to_low, zs = &d->engine.forecast.zones[i];
        if (zs)
                snprintf(low, sizeof(low), "node%d %s crosses low in %.0f s", zs->node, zs->name, soonest);
        snprintf(text, sizeof(text), "%swsf %ld (baseline %ld): %s; kswapd %s",
                 acting(d) ? "" : d->monitor_only ? "monitor-only, " : "dry run, ",
                 dec->wsf_new, engine_baseline(&d->engine), zs ? low : "no watermark crossing forecast", rate);
        if (strcmp(text, d->status) == 0)
                return;
        memcpy(d->status, text, sizeof(text));
        sd_notifyf(false, "STATUS=%s", text);
}

static void act(struct daemon *d, struct decision *dec)
{
        if (dec->reason == WSF_ADOPT && acting(d))
                save_state(d);
        else if (dec->reason != WSF_KEEP && acting(d))
                apply_wsf(d, dec);
        report_wsf(d->log, dec, acting(d));
        report_hold(d->log, dec);
        report_episode(d->log, dec);
        for (size_t i = 0; i < dec->nr_backoff; i++)
                report_backoff(d->log, &dec->backoff[i]);
        for (size_t i = 0; i < dec->nr_compact; i++)
                apply_compaction(d, &dec->compact[i]);
        notify_status(d, dec);
}

/* record = FILE: a trace of the samples and decisions, for replay. */
static int record_start(struct daemon *d)
{
        char err[ERR_MSG_MAX];
        if (!d->cfg.record[0])
                return 0;
        int r = recorder_open(&d->rec, d->cfg.record, d->opt->root, "daemon", d->cfg.interval,
                              d->cfg.record_max_size, true, err, sizeof(err));
        if (r < 0) {
                log_msg(d->log, LOG_ERR, "record: %s", err);
                return r;
        }
        log_msg(d->log, LOG_INFO, "recording a trace to %s", d->cfg.record);
        if (r == 1)
                log_msg(d->log, LOG_INFO, "the trace an earlier run left in %s is now %s.1", d->cfg.record,
                        d->cfg.record);
        return 0;
}

/* A failed write stops the recording, not the daemon. */
static void record_check(struct daemon *d, int r, const char *why)
{
        if (r == 1)
                log_msg(d->log, LOG_INFO, "trace %s %s; the part before is in %s.1", recorder_path(d->rec), why,
                        recorder_path(d->rec));
        if (r >= 0)
                return;
        char text[ERR_MSG_MAX];
        recorder_strerror(text, sizeof(text), recorder_path(d->rec), r);
        log_msg(d->log, LOG_ERR, "stopped recording: %s", text);
        recorder_close(d->rec);
        d->rec = NULL;
}

/* live.json and the metrics file; dec is NULL until there is a forecast. */
static void publish(struct daemon *d, bool sampled, const struct decision *dec)
{
        struct publish_input in = {
                .cfg = &d->cfg, .state_dir = d->opt->state_dir, .log = d->log,
                .mode = d->cfg.dry_run ? MODE_DRY_RUN : d->monitor_only ? MODE_MONITOR_ONLY : MODE_ACTING,
                .sample = sampled ? &d->sample : NULL, .forecast = dec ? &d->engine.forecast : NULL,
                .decision = dec, .policy = &d->engine.policy,
        };
        publish_cycle(&d->publisher, &in);
}

static void sample_failed(struct daemon *d, int r)
{
        char why[200];
        snprintf(why, sizeof(why), "%s: %s", sample_reader_failed(d->reader),
                 r == -EBADMSG ? "not in the format the kernel writes" : strerror(-r));
        /* Rate-limited: a warning for the first failure; after 10 s an
         * error that says plainly nothing is being decided, repeated once
         * a minute while it lasts. */
        unsigned n = ++d->read_failures;
        int prio = log_repeat_prio(n, d->cfg.interval);
        if (prio == LOG_WARNING) {
                log_msg(d->log, LOG_WARNING, "skipping a sample: reading %s", why);
        } else if (prio == LOG_ERR) {
                log_msg(d->log, LOG_ERR,
                        "no sample for %.0f s (%u failures in a row; last: %s): nothing is decided and vm.watermark_scale_factor stays %ld until sampling works again",
                        (double)(n - 1) * d->cfg.interval, n, why, engine_wsf(&d->engine));
                sd_notifyf(false, "STATUS=sampling fails: %s; wsf held at %ld", why, engine_wsf(&d->engine));
                d->status[0] = '\0';   /* the next good sample sends its status again */
        }
        publish(d, false, NULL);
}

/* compaction_max_order of c against the kernel's orders, which only a
 * sample shows: at start the first, on reload the last (one is read if
 * there is none yet). */
static int check_orders(struct daemon *d, const struct config *c, char *err, size_t errsz)
{
        if (c->compaction_max_order == CONFIG_ORDER_AUTO)
                return 0;
        int r = d->sample.nr_orders ? 0 : sample_read(d->reader, &d->sample);
        if (r < 0) {
                snprintf(err, errsz, "%s: cannot check compaction_max_order against the kernel's orders: reading %s: %s",
                         d->opt->config_path, sample_reader_failed(d->reader), strerror(-r));
                return r;
        }
        return config_check_orders(c, d->opt->config_path, d->sample.nr_orders, err, errsz);
}

/* Checks of free memory between two samples, evenly spaced (at a third
 * and two thirds of the interval). Each is a wakeup, ~50 us of CPU on a
 * VM: three made the armed watch cost more than 0.05 % of a core
 * (bench/README.md, "Daemon overhead"). */
#define ONSET_CHECKS_BETWEEN_SAMPLES 2

static void fast_next(struct daemon *d)
{
        sd_event_source_set_time_relative(d->fast, (uint64_t)(d->cfg.interval * USEC_PER_SEC /
                                                              (ONSET_CHECKS_BETWEEN_SAMPLES + 1)));
        sd_event_source_set_enabled(d->fast, SD_EVENT_ONESHOT);
}

/* Arm the fast path when the engine asks for it: free memory is read with
 * one system call a few times per interval, and a fall faster than kswapd
 * can make up takes a sample at once instead of up to an interval later. */
static void watch_onset(struct daemon *d)
{
        double trigger;
        bool armed = engine_onset_watch(&d->engine, &trigger) &&
                     free_bytes_quick(&d->fast_ref_free) == 0;
        if (!armed) {
                sd_event_source_set_enabled(d->fast, SD_EVENT_OFF);
                return;
        }
        d->fast_ref_time = clock_secs(CLOCK_MONOTONIC);
        d->fast_trigger = trigger * (double)d->page_size;
        d->fast_left = ONSET_CHECKS_BETWEEN_SAMPLES;
        fast_next(d);
}

/* One cycle: sample -> engine -> act, record, publish. onset: the fast path
 * asked for it. */
static void take_sample(struct daemon *d, bool onset)
{
        int r = sample_read(d->reader, &d->sample);
        if (r < 0) {
                sample_failed(d, r);
                return;
        }
        d->sample.onset = onset;
        if (d->read_failures) {
                /* A gap longer than the window spans leaves only stale
                 * samples in it: start afresh rather than fit across it. */
                bool stale = d->read_failures >= d->engine.window.capacity;
                if (stale)
                        engine_restart(&d->engine);
                log_msg(d->log, LOG_INFO, "sampling works again after %u failures%s", d->read_failures,
                        stale ? "; window restarted" : "");
                d->read_failures = 0;
        }
        if (d->rec)
                record_check(d, recorder_sample(d->rec, &d->sample), "reached record_max_size");
        log_msg(d->log, LOG_DEBUG, "sample %lu%s: vm.watermark_scale_factor %ld, %zu zones, window %zu",
                ++d->samples, onset ? " (onset)" : "", d->sample.wsf, d->sample.nr_zones,
                d->engine.window.len);
        char err[ERR_MSG_MAX];
        if (!d->ready && check_orders(d, &d->cfg, err, sizeof(err)) < 0) {
                log_msg(d->log, LOG_ERR, "%s; not starting", err);
                d->exit_status = 1;
                sd_event_exit(sd_event_source_get_event(d->timer), 0);
                return;
        }
        struct engine_params p;
        config_engine_params(&p, &d->cfg, acting(d), d->page_size, d->thp_pmd_size);
        struct decision dec;
        bool restarted;
        r = engine_step(&d->engine, &p, &d->sample, &dec, &restarted);
        if (r < 0) {
                log_msg(d->log, LOG_ERR, "keeping the sample: %s", strerror(-r));
                return;
        }
        if (restarted)
                log_msg(d->log, LOG_NOTICE, "zone layout changed (memory hotplug?); window restarted");
        if (!d->ready) {
                d->ready = true;
                sd_notify(false, "READY=1");
        }
        if (r == 1) {
                keeper_step(&d->keeper, &d->engine.forecast, d->sample.time, owns_state(d));
                act(d, &dec);
        }
        if (r == 1 && d->rec)
                record_check(d, recorder_decision(d->rec, d->sample.time, &dec, acting(d)), "");
        pulse_sample(&d->pulse, sd_event_source_get_event(d->timer), &d->sample, engine_baseline(&d->engine),
                     acting(d));
        publish(d, true, r == 1 ? &dec : NULL);
        watch_onset(d);
}

static int on_tick(sd_event_source *s, uint64_t usec, void *userdata)
{
        struct daemon *d = userdata;
        (void)usec;
        int r = loop_timer_next(s, d->cfg.interval);
        if (r < 0)
                return sd_event_exit(sd_event_source_get_event(s), r);
        take_sample(d, false);
        return 0;
}

static int on_fast_tick(sd_event_source *s, uint64_t usec, void *userdata)
{
        struct daemon *d = userdata;
        (void)usec;
        uint64_t free;
        double now = clock_secs(CLOCK_MONOTONIC);
        if (free_bytes_quick(&free) < 0)
                return sd_event_source_set_enabled(s, SD_EVENT_OFF), 0;
        /* the fall since the previous check: a burst that starts late in
         * the interval shows at its full rate, not diluted by the calm
         * before it */
        double fell = (double)d->fast_ref_free - (double)free;
        if (fell > 0 && fell >= d->fast_trigger * (now - d->fast_ref_time)) {
                /* the next regular sample an interval after this one */
                sd_event_source_set_time_relative(d->timer, (uint64_t)(d->cfg.interval * USEC_PER_SEC));
                take_sample(d, true);
                return 0;
        }
        d->fast_ref_free = free;
        d->fast_ref_time = now;
        /* the last check's next would land on the sample: it takes none */
        if (--d->fast_left > 0)
                fast_next(d);
        return 0;
}

void daemon_apply_overrides(const struct daemon_options *opt, struct config *c)
{
        if (opt->force_dry_run)
                c->dry_run = true;
        if (opt->force_debug)
                c->log_level = LOG_DEBUG;
        if (opt->interval_override > 0)
                c->interval = opt->interval_override;
        if (opt->record_override)
                snprintf(c->record, sizeof(c->record), "%s", opt->record_override);
}

/* A configuration that loaded and fits the kernel takes effect. */
static void reload_apply(struct daemon *d, struct config *c)
{
        daemon_apply_overrides(d->opt, c);
        if (c->window != d->cfg.window && engine_resize(&d->engine, c->window) < 0)
                c->window = d->cfg.window;
        bool was_acting = acting(d), record_changed = strcmp(c->record, d->cfg.record) != 0;
        bool wake_changed = c->wake_kswapd != d->cfg.wake_kswapd || c->dry_run != d->cfg.dry_run;
        d->cfg = *c;
        if (wake_changed) {     /* a pulse in progress ends; set up anew */
                pulse_stop(&d->pulse);
                pulse_init(&d->pulse, d->opt->root, d->opt->state_dir, d->log, d->reader, d->page_size,
                           engine_thp_order(d->page_size, d->thp_pmd_size), c->wake_kswapd, acting(d));
        }
        if (!record_changed && d->rec)
                record_check(d, recorder_configure(d->rec, c->interval, c->record_max_size),
                             "restarted: the interval changed");
        if (record_changed) {
                int e = recorder_close(d->rec);
                if (e < 0)
                        log_msg(d->log, LOG_ERR, "the trace recorded so far may be incomplete: %s",
                                strerror(-e));
                d->rec = NULL;
                record_start(d);
        }
        d->log->level = c->log_level;
        publish_news(&d->publisher);    /* the interval may have changed */
        if (was_acting && !acting(d))
                log_msg(d->log, LOG_NOTICE, "dry run from now on; the scale factor stays %ld",
                        engine_wsf(&d->engine));
        log_event(d->log, LOG_INFO, MSGID_RELOAD, "configuration reloaded", NULL, 0);
}

static int on_reload(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
        struct daemon *d = userdata;
        (void)s, (void)si;
        char err[ERR_MSG_MAX];
        struct config c;
        config_defaults(&c);
        sd_notifyf(false, "RELOADING=1\nMONOTONIC_USEC=%llu", (unsigned long long)(clock_secs(CLOCK_MONOTONIC) * 1e6));
        /* The file must be there, even the default one a daemon started
         * without: a missing file is an error, not the built-in defaults. */
        int r = config_load(&c, d->opt->config_path, true, err, sizeof(err));
        if (r == 0)
                r = check_orders(d, &c, err, sizeof(err));
        if (r < 0)
                log_msg(d->log, LOG_ERR, "reload refused, old configuration stays: %s", err);
        else
                reload_apply(d, &c);
        sd_notify(false, "READY=1");
        return 0;
}

static int on_stop(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
        log_msg(((struct daemon *)userdata)->log, LOG_INFO, "received %s, stopping", strsignal((int)si->ssi_signo));
        return sd_event_exit(sd_event_source_get_event(s), 0);
}

/* Report kernel features we steer around but never change. */
static void report_kernel(struct daemon *d, long boot_wsf)
{
        long pro = -1, defrag = -1;
        read_long_at(d->opt->root, "/proc/sys/vm/compaction_proactiveness", &pro);
        read_long_at(d->opt->root, "/proc/sys/vm/defrag_mode", &defrag);
        /* how a burst of huge pages meets the watermarks (thp.h) */
        struct thp_policy thp;
        if (thp_policy_read(d->opt->root, &thp) < 0)
                thp = (struct thp_policy){ "absent", "absent" };
        char msg[400];
        snprintf(msg, sizeof(msg),
                 "started: vm.watermark_scale_factor %ld (baseline), max %ld; compaction_proactiveness %s%ld, defrag_mode %s%ld; "
                 "transparent huge pages %s, defrag %s; interval %.3g s, window %u, horizon %.3g s%s",
                 boot_wsf, d->cfg.max_wsf, pro < 0 ? "absent " : "", pro < 0 ? 0 : pro,
                 defrag < 0 ? "absent " : "", defrag < 0 ? 0 : defrag, thp.enabled, thp.defrag, d->cfg.interval,
                 d->cfg.window, d->cfg.horizon, d->cfg.dry_run ? "; dry run" : "");
        struct log_field f[5] = { { .name = "WSF_BASELINE" }, { .name = "COMPACTION_PROACTIVENESS" },
                                  { .name = "DEFRAG_MODE" }, { .name = "THP_ENABLED" }, { .name = "THP_DEFRAG" } };
        snprintf(f[0].value, sizeof(f[0].value), "%ld", boot_wsf);
        snprintf(f[1].value, sizeof(f[1].value), "%ld", pro);
        snprintf(f[2].value, sizeof(f[2].value), "%ld", defrag);
        snprintf(f[3].value, sizeof(f[3].value), "%s", thp.enabled);
        snprintf(f[4].value, sizeof(f[4].value), "%s", thp.defrag);
        log_event(d->log, LOG_INFO, MSGID_START, msg, f, 5);
        if (pro > 0 && d->cfg.compaction)
                log_msg(d->log, LOG_INFO,
                        "the kernel compacts proactively too (compaction_proactiveness %ld); memoptimizer leaves that setting alone",
                        pro);
}

static void restore(struct daemon *d)
{
        if (d->cfg.dry_run)
                return;         /* wrote nothing, restores nothing */
        if (engine_kernel_seen(&d->engine) == engine_baseline(&d->engine)) {
                state_remove(d->opt->state_dir);
                return;
        }
        bool done = false;
        int r = actuate_restore(d->opt->root, engine_baseline(&d->engine), engine_kernel_seen(&d->engine), &done);
        char msg[200];
        if (r < 0)
                snprintf(msg, sizeof(msg), "could not restore vm.watermark_scale_factor %ld: %s",
                         engine_baseline(&d->engine), strerror(-r));
        else if (done)
                snprintf(msg, sizeof(msg), "restored vm.watermark_scale_factor %ld -> %ld",
                         engine_kernel_seen(&d->engine), engine_baseline(&d->engine));
        else
                snprintf(msg, sizeof(msg), "vm.watermark_scale_factor was changed by someone else; left as it is");
        struct log_field f = { .name = "WSF_NEW" };
        snprintf(f.value, sizeof(f.value), "%ld", engine_baseline(&d->engine));
        log_event(d->log, r < 0 ? LOG_ERR : LOG_INFO, MSGID_RESTORE, msg, &f, 1);
        if (r == 0)
                state_remove(d->opt->state_dir);
}

/* A previous instance that died without restoring left its baseline in the
 * state file: while its value is still in force, that baseline is ours. */
static long baseline_from_state(struct daemon *d, long now)
{
        long baseline, written;
        int r = state_load(d->opt->state_dir, &baseline, &written);
        if (r == -ENOENT)
                return now;
        if (r < 0) {
                log_msg(d->log, LOG_WARNING, "the state file %s/" STATE_FILE " %s; ignoring it",
                        d->opt->state_dir, state_strerror(r));
        } else if (written == now) {
                log_msg(d->log, LOG_NOTICE,
                        "a previous instance left vm.watermark_scale_factor at %ld; its baseline %ld will be restored",
                        now, baseline);
                return baseline;
        } else {
                log_msg(d->log, LOG_NOTICE,
                        "state file says %ld was written, but %ld is in force: somebody else set it; that is the baseline",
                        written, now);
        }
        if (!d->cfg.dry_run)
                state_remove(d->opt->state_dir);
        return now;
}

static int start(struct daemon *d, sd_event *e)
{
        long boot;
        int r = read_long_at(d->opt->root, WSF_PATH, &boot);
        if (r < 0) {
                log_msg(d->log, LOG_ERR, "cannot read %s: %s", WSF_PATH, strerror(-r));
                return r;
        }
        if ((r = sample_reader_new(&d->reader, d->opt->root)) < 0) {
                log_msg(d->log, LOG_ERR, "cannot set up sampling: %s", strerror(-r));
                return r;
        }
        if (!d->cfg.dry_run) {
                d->lock_fd = state_lock(d->opt->state_dir);
                if (d->lock_fd == -EWOULDBLOCK) {
                        log_msg(d->log, LOG_ERR, "another memoptimizer is running (lock %s/lock is held); not starting a second",
                                d->opt->state_dir);
                        return -EBUSY;
                }
                if (dir_is_safe(d->opt->state_dir) == -EPERM) {
                        log_msg(d->log, LOG_ERR, "%s is owned by neither root nor this user, or others can write it: not keeping a state file or locks there",
                                d->opt->state_dir);
                        return -EPERM;
                }
                if (d->lock_fd < 0)     /* not root: monitor-only follows */
                        log_msg(d->log, LOG_DEBUG, "no instance lock in %s: %s", d->opt->state_dir, strerror(-d->lock_fd));
        }
        if ((r = engine_init(&d->engine, d->cfg.window, baseline_from_state(d, boot), boot)) < 0) {
                log_msg(d->log, LOG_ERR, "cannot set up sampling: %s", strerror(-r));
                return r;
        }
        keeper_start(&d->keeper, e, d->opt->learn_dir, engine_learned(&d->engine), d->log, owns_state(d));
        d->page_size = sysconf(_SC_PAGESIZE);
        d->thp_pmd_size = thp_pmd_size(d->opt->root);
        d->baseline_known = true;
        report_kernel(d, engine_baseline(&d->engine));
        if ((r = record_start(d)) < 0)
                return r;
        if (!d->cfg.dry_run && (r = actuate_probe(d->opt->root, boot)) < 0) {
                if (!actuate_denied(r)) {
                        log_msg(d->log, LOG_ERR, "cannot write %s: %s", WSF_PATH, strerror(-r));
                        return r;
                }
                enter_monitor_only(d, r);
        }
        pulse_init(&d->pulse, d->opt->root, d->opt->state_dir, d->log, d->reader, d->page_size,
                   engine_thp_order(d->page_size, d->thp_pmd_size), d->cfg.wake_kswapd, acting(d));
        if ((r = loop_timer_add(e, &d->timer, on_tick, d)) < 0 ||
            (r = sd_event_add_time_relative(e, &d->fast, CLOCK_MONOTONIC, UINT64_MAX / 2, 1000,
                                            on_fast_tick, d)) < 0 ||
            (r = sd_event_source_set_enabled(d->fast, SD_EVENT_OFF)) < 0 ||
            (r = sd_event_set_watchdog(e, true)) < 0) {
                log_msg(d->log, LOG_ERR, "cannot set up the event loop: %s", strerror(-r));
                return r;
        }
        return 0;
}

int daemon_run(const struct daemon_options *opt, const struct config *cfg, struct logger *log)
{
        struct daemon d = { .opt = opt, .cfg = *cfg, .log = log, .lock_fd = -1 };
        publish_init(&d.publisher);
        sd_event *e = NULL;
        int r = loop_new(&e, on_stop, on_reload, &d);
        if (r < 0)
                log_msg(log, LOG_ERR, "cannot set up the event loop: %s", strerror(-r));
        else
                r = start(&d, e);
        if (r >= 0) {
                r = sd_event_loop(e);
                if (r < 0)
                        log_msg(log, LOG_ERR, "event loop failed: %s", strerror(-r));
        }
        sd_notify(false, "STOPPING=1");
        pulse_stop(&d.pulse);
        if (d.baseline_known) {
                restore(&d);
                keeper_stop(&d.keeper, owns_state(&d));
        }
        publish_stop(&d.publisher, opt->state_dir);
        sd_event_source_unref(d.timer);
        sd_event_source_unref(d.fast);
        sd_event_unref(e);
        engine_free(&d.engine);
        int rc = recorder_close(d.rec);
        if (rc < 0)
                log_msg(log, LOG_ERR, "the trace may be incomplete: %s", strerror(-rc));
        sample_free(&d.sample);
        sample_reader_free(d.reader);
        if (d.lock_fd >= 0)
                close(d.lock_fd);
        return d.exit_status ? d.exit_status : r == -EBUSY ? 1 : r < 0 ? 2 : 0;
}
