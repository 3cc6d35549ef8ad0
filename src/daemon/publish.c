#include "publish.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "clock.h"
#include "fileio.h"
#include "process.h"
#include "report.h"
#include "util.h"

static double cpu_seconds(void)
{
        struct rusage ru;
        if (getrusage(RUSAGE_SELF, &ru) < 0)
                return NAN;
        return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
               (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

void publish_init(struct publisher *p)
{
        *p = (struct publisher){ .started = clock_secs(CLOCK_REALTIME), .lock_fd = -1 };
        struct process_id self;
        if (process_read(getpid(), &self) == 0)
                p->start_ticks = self.start_ticks;
}

static struct publish_event *new_event(struct publisher *p, double now, const char *kind)
{
        if (p->nr_recent == PUBLISH_RECENT) {
                memmove(p->recent, p->recent + 1, sizeof(p->recent[0]) * (PUBLISH_RECENT - 1));
                p->nr_recent--;
        }
        struct publish_event *e = &p->recent[p->nr_recent++];
        *e = (struct publish_event){ .time = now, .node = -1, .order = -1 };
        snprintf(e->kind, sizeof(e->kind), "%s", kind);
        return e;
}

/* Counters and recent decisions from one cycle's decision. Returns true
 * when the cycle added a decision to the recent ones. */
static bool count(struct publisher *p, const struct publish_input *in, double now)
{
        const struct decision *d = in->decision;
        if (!in->sample) {
                p->n.sample_errors++;
                return false;
        }
        p->n.samples++;
        if (!d)
                return false;
        uint64_t events = p->n.compactions + p->n.backoffs;
        if (d->reason != WSF_KEEP && (size_t)d->reason < PUBLISH_WSF_KINDS) {
                p->n.decisions[d->reason]++;
                struct publish_event *e = new_event(p, now, wsf_reason_str(d->reason));
                e->wsf_old = d->wsf_old;
                e->wsf_new = d->wsf_new;
                e->node = d->node;
                snprintf(e->zone, sizeof(e->zone), "%s", d->node >= 0 ? d->zone : "");
                report_reason(e->reason, sizeof(e->reason), d);
        }
        for (size_t i = 0; i < d->nr_compact; i++) {
                const struct compact_order *c = &d->compact[i];
                struct publish_event *e = new_event(p, now, "compact");
                e->wsf_old = e->wsf_new = d->wsf_new;
                e->node = c->node;
                e->order = (int)c->order;
                char why[REPORT_WHY_MAX];
                report_compact_why(why, sizeof(why), c);
                snprintf(e->reason, sizeof(e->reason), "%s; %.0f%% of free memory fragmented", why,
                         c->extfrag * PERCENT);
        }
        for (size_t i = 0; i < d->nr_backoff; i++) {
                const struct compact_backoff *b = &d->backoff[i];
                struct publish_event *e = new_event(p, now, "backoff");
                e->wsf_old = e->wsf_new = d->wsf_new;
                e->node = b->node;
                e->order = (int)b->order;
                char why[REPORT_WHY_MAX];
                report_backoff_why(why, sizeof(why), b);
                snprintf(e->reason, sizeof(e->reason), "compaction %s (%.0f -> %.0f pages); next try in %.3g s",
                         why, b->before, b->after, b->retry_in);
        }
        p->n.compactions += d->nr_compact;
        p->n.backoffs += d->nr_backoff;
        return d->reason != WSF_KEEP || p->n.compactions + p->n.backoffs != events;
}

/* Take live.lock: only one instance (say the service, not a dry run started
 * by hand beside it) publishes. Retried every cycle until it is ours. */
static int take_lock(struct publisher *p, const char *dir)
{
        if (p->lock_fd >= 0)
                return 0;
        /* 0600: nobody else can open it, so nobody else can hold it and
         * stop the publishing (status knows the daemon by its pid) */
        int fd = lock_in_dir(dir, LIVE_LOCK, O_RDONLY, 0600);
        if (fd < 0)
                return fd;
        p->lock_fd = fd;
        return 0;
}

/* Log a failure to publish once, and once more when it works again. */
static void note(const struct logger *log, bool *warned, int r, const char *what, const char *dir)
{
        if (r < 0 && !*warned)
                log_msg(log, LOG_WARNING, "cannot write %s in %s: %s", what, dir, strerror(-r));
        else if (r == 0 && *warned)
                log_msg(log, LOG_INFO, "writing %s in %s works again", what, dir);
        *warned = r < 0;
}

static int write_text(const char *dir, const char *name, char *text)
{
        if (!text)
                return -ENOMEM;
        int r = write_file_atomic(dir, name, text, strlen(text), 0644, false);
        free(text);
        return r;
}

static void remove_file(const char *dir, const char *name)
{
        char path[PATH_MAX];
        if (*dir && snprintf(path, sizeof(path), "%s/%s", dir, name) < (int)sizeof(path))
                unlink(path);
}

static void write_metrics(struct publisher *p, const struct publish_input *in, double now, double cpu)
{
        const char *dir = in->cfg->metrics_dir;
        if (strcmp(dir, p->metrics_dir) != 0) {
                /* metrics_dir changed on reload: the old file must not linger. */
                remove_file(p->metrics_dir, METRICS_FILE);
                snprintf(p->metrics_dir, sizeof(p->metrics_dir), "%s", dir);
                p->metrics_due = 0;
                p->warned_metrics = false;
        }
        double mono = clock_secs(CLOCK_MONOTONIC);
        /* After a failed read the previous file stays: if reading keeps
         * failing, it goes stale, which is what the alert watches. */
        if (!*dir || !in->sample || mono < p->metrics_due)
                return;
        p->metrics_due = mono + in->cfg->metrics_interval;
        int r = write_text(dir, METRICS_FILE, publish_metrics_text(p, in, now, cpu));
        note(in->log, &p->warned_metrics, r, "the metrics file " METRICS_FILE, dir);
}

/* live.json is news when a decision was taken, the mode changed, sampling
 * failed or recovered, or the first forecast came (status would show none
 * for a heartbeat); otherwise it is rewritten only as a heartbeat. */
static bool live_is_due(const struct publisher *p, const struct publish_input *in, bool news, double mono)
{
        return news || p->live_due == 0 || mono >= p->live_due || p->warned_live ||
               in->mode != p->live_mode || !in->sample != !p->live_sampled ||
               !in->forecast != !p->live_forecast;
}

static void write_live(struct publisher *p, const struct publish_input *in, double now, double cpu)
{
        int r = write_text(in->state_dir, LIVE_FILE, publish_live_json(p, in, now, cpu));
        note(in->log, &p->warned_live, r, LIVE_FILE, in->state_dir);
        /* a heartbeat from the moment it was written, so status's limit holds */
        p->live_due = clock_secs(CLOCK_MONOTONIC) + publish_heartbeat(in->cfg) - in->cfg->interval / 2;
        p->live_mode = in->mode;
        p->live_sampled = in->sample != NULL;
        p->live_forecast = in->forecast != NULL;
}

void publish_cycle(struct publisher *p, const struct publish_input *in)
{
        double now = clock_secs(CLOCK_REALTIME);
        bool news = count(p, in, now);
        int r = take_lock(p, in->state_dir);
        if (r < 0) {
                if (!p->warned_lock && r == -EWOULDBLOCK)
                        log_msg(in->log, LOG_NOTICE, "another memoptimizer publishes its state in %s; this one does not (yet)",
                                in->state_dir);
                else if (!p->warned_lock)
                        log_msg(in->log, LOG_NOTICE,
                                "cannot publish the live state in %s: %s; `memoptimizer status` does not see this instance",
                                in->state_dir, strerror(-r));
                p->warned_lock = true;
                return;
        }
        if (p->warned_lock) {
                log_msg(in->log, LOG_INFO, "publishing the live state in %s", in->state_dir);
                p->live_due = 0;
        }
        p->warned_lock = false;
        double cpu = cpu_seconds();
        if (live_is_due(p, in, news, clock_secs(CLOCK_MONOTONIC)))
                write_live(p, in, now, cpu);
        write_metrics(p, in, now, cpu);
}

void publish_news(struct publisher *p)
{
        p->live_due = 0;
}

void publish_stop(struct publisher *p, const char *state_dir)
{
        if (p->lock_fd < 0)
                return;         /* published nothing */
        remove_file(p->metrics_dir, METRICS_FILE);
        remove_file(state_dir, LIVE_FILE);
        /* live.lock stays: unlinking a lock file races with its next user. */
        close(p->lock_fd);
        p->lock_fd = -1;
}
