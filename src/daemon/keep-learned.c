#include "keep-learned.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "episode.h"
#include "learn-file.h"
#include "report.h"
#include "util.h"

/* Add to a sample time (CLOCK_MONOTONIC) to get Unix time. Taken afresh
 * each time: the wall clock may have been set meanwhile. */
static double wall_offset(void)
{
        return clock_secs(CLOCK_REALTIME) - clock_secs(CLOCK_MONOTONIC);
}

static bool nothing_learnt(const struct learned *l)
{
        return !l->managed_pages && !l->nr_history && !(l->kswapd_capacity_pages_per_sec > 0) && !learn_nr_classes(l);
}

/* The file was removed (`memoptimizer forget`, rm) or its directory was:
 * forget too, or the next save would bring it back. */
static void forget(struct keeper *k, const char *what)
{
        if (!nothing_learnt(k->l))
                log_msg(k->log, LOG_NOTICE, "%s/" LEARN_FILE " %s: forgetting what was learnt (%zu classes, %zu episodes)",
                        k->dir, what, learn_nr_classes(k->l), k->l->nr_history);
        learn_init(k->l);
}

static int on_dir_event(sd_event_source *s, const struct inotify_event *ev, void *userdata)
{
        struct keeper *k = userdata;
        (void)s;
        if (ev->mask & (IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF)) {
                /* the watch is gone with the directory; the next save makes both again */
                k->watch = sd_event_source_disable_unref(k->watch);
                forget(k, "was removed with its directory");
        } else if (ev->len && strcmp(ev->name, LEARN_FILE) == 0) {
                forget(k, ev->mask & IN_DELETE ? "was removed" : "was moved away");
        }
        return 0;
}

static void watch(struct keeper *k)
{
        if (k->watch)
                return;
        int r = sd_event_add_inotify(k->event, &k->watch, k->dir,
                                     IN_DELETE | IN_MOVED_FROM | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR,
                                     on_dir_event, k);
        if (r < 0)      /* no directory yet, or no inotify: removal is then seen at the next start */
                log_msg(k->log, LOG_DEBUG, "not watching %s: %s", k->dir, strerror(-r));
}

void keeper_start(struct keeper *k, sd_event *e, const char *dir, struct learned *l,
                  const struct logger *log, bool owner)
{
        char err[ERR_MSG_MAX];
        *k = (struct keeper){ .dir = dir, .l = l, .log = log, .event = e, .clock = { .aged = -INFINITY } };
        int r = learn_load(dir, l, wall_offset(), err, sizeof(err));
        if (r == 0) {
                char rate[32] = "unknown";
                if (l->kswapd_capacity_pages_per_sec > 0)
                        format_rate(rate, sizeof(rate), l->kswapd_capacity_pages_per_sec);
                log_msg(log, LOG_INFO, "learnt state read from %s/" LEARN_FILE ": %zu classes, %zu episodes, kswapd %s",
                        dir, learn_nr_classes(l), l->nr_history, rate);
        } else if (r == -ENOENT) {
                log_msg(log, LOG_DEBUG, "nothing learnt yet (no %s/" LEARN_FILE ")", dir);
        } else {
                /* Kept for whoever wants to know what it was; the next save
                 * writes a good file in its place. */
                bool aside = owner && learn_set_aside(dir) == 0;
                log_msg(log, LOG_WARNING, "ignoring the learnt state, starting from nothing: %s%s", err,
                        aside ? " (kept as " LEARN_FILE_BAD ")" : "");
                l->dirty = owner;
        }
        watch(k);
}

static void save(struct keeper *k)
{
        int r = learn_save(k->dir, k->l, wall_offset());
        if (r < 0) {
                if (!k->save_failed)
                        log_msg(k->log, LOG_WARNING, "cannot save the learnt state in %s: %s; kept in memory, trying again every %.0f s",
                                k->dir, strerror(-r), LEARN_AGE_EVERY);
                k->save_failed = true;
                return;
        }
        if (k->save_failed)
                log_msg(k->log, LOG_INFO, "saved the learnt state in %s again", k->dir);
        k->save_failed = false;
        k->l->dirty = false;
        watch(k);
}

void keeper_step(struct keeper *k, const struct forecast *f, double now, bool owner)
{
        /* the machine's size as the episodes count it (learn.h) */
        struct pressure p;
        pressure_of(f, &p);
        uint64_t was = k->l->managed_pages;
        bool aged = learn_tick(k->l, &k->clock, now, p.managed_pages);
        if (was && !k->l->managed_pages)
                log_msg(k->log, LOG_NOTICE,
                        "the learnt state in %s/" LEARN_FILE " is of a machine with %llu managed pages, this one has %llu: forgotten, learning afresh",
                        k->dir, (unsigned long long)was, (unsigned long long)p.managed_pages);
        if (aged && owner && k->l->dirty)
                save(k);
}

void keeper_stop(struct keeper *k, bool owner)
{
        if (owner && k->l->dirty)
                save(k);
        k->watch = sd_event_source_disable_unref(k->watch);
}
