#include "status.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "clock.h"
#include "fileio.h"
#include "learn-file.h"
#include "publish-format.h"
#include "sample-read.h"
#include "process.h"
#include "state.h"
#include "status-live.h"
#include "status-render.h"
#include "thp.h"
#include "util.h"

/* live.json older than its heartbeat, an interval (the write waits for a
 * cycle) and this slack (a slow cycle, a busy machine), and than this many
 * intervals, means the daemon is stale. */
#define STALE_SLACK_SEC 5.0
#define STALE_INTERVALS 3

static double jnum_at(json_object *o, const char *key)
{
        json_object *v = json_get(o, key);
        return v ? json_object_get_double(v) : NAN;
}

/* Whether the process that wrote live.json still runs: the pid it gives,
 * with the start time it gives (a recycled pid has another); a file of a
 * daemon from before pid_start_ticks names a process called memoptimizer*.
 * 1 yes, 0 no, -1 when this user cannot see other users' processes. Takes
 * no lock: the daemon's are its own (0600). */
static int writer_runs(json_object *live)
{
        json_object *pid = NULL, *ticks = NULL;
        json_object_object_get_ex(live, "pid", &pid);
        json_object_object_get_ex(live, "pid_start_ticks", &ticks);
        struct process_id p;
        int r = process_read(json_object_get_int64(pid), &p);
        if (r < 0)
                return r == -ENOENT && !process_visible() ? -1 : 0;
        if (p.gone)
                return 0;
        if (ticks)
                return p.start_ticks == (uint64_t)json_object_get_int64(ticks);
        return strncmp(p.comm, "memoptimizer", strlen("memoptimizer")) == 0;
}

/* Not running: r->daemon_detail says why; live.json is not shown. */
static void not_running(struct status_report *r)
{
        json_object_put(r->live);
        r->live = NULL;
        r->age = NAN;
}

/* The daemon is running when the process that wrote live.json runs and
 * wrote it within its heartbeat and a few seconds; stale when it runs but
 * stopped writing (hung, or stopped with SIGSTOP); not running otherwise. */
static int read_daemon(struct status_report *r, const char *state_dir)
{
        char path[PATH_MAX], why[160];
        const size_t size = sizeof(r->daemon_detail);
        snprintf(path, sizeof(path), "%s/" LIVE_FILE, state_dir);
        r->age = NAN;
        errno = 0;
        r->live = json_object_from_file(path);
        if (!r->live && errno == ENOMEM)
                return -ENOMEM;         /* not "unreadable": the file may be fine */
        double version = jnum_at(r->live, "schema_version");
        bool usable = false;
        if (!r->live)
                snprintf(r->daemon_detail, size, "no daemon publishes in %s (%s)", state_dir,
                         access(path, F_OK) < 0 ? "no " LIVE_FILE : "unreadable " LIVE_FILE);
        else if (version != LIVE_SCHEMA_VERSION)
                snprintf(r->daemon_detail, size, LIVE_FILE " has schema_version %.6g; this status reads %d", version,
                         LIVE_SCHEMA_VERSION);
        else if (live_check(r->live, r->time, why, sizeof(why)) < 0)
                snprintf(r->daemon_detail, size, LIVE_FILE " is not what a daemon writes: %s", why);
        else
                usable = true;
        if (!usable) {
                not_running(r);
                return 0;
        }
        r->age = r->time - jnum_at(r->live, "updated");
        double interval = jnum_at(r->live, "interval_seconds");
        /* written at least every heartbeat; a daemon from before the
         * heartbeat wrote every interval */
        double heartbeat = jnum_at(r->live, "heartbeat_seconds");
        if (isnan(heartbeat))
                heartbeat = interval;
        double limit = dmax(STALE_INTERVALS * interval, heartbeat + interval + STALE_SLACK_SEC);
        double pid = jnum_at(r->live, "pid");
        if (writer_runs(r->live) == 0) {
                snprintf(r->daemon_detail, sizeof(r->daemon_detail),
                         "pid %.0f, which wrote " LIVE_FILE " %.0f s ago, has exited without removing it", pid, r->age);
        } else if (!(r->age <= limit)) {
                r->daemon = DAEMON_STALE;
                snprintf(r->daemon_detail, sizeof(r->daemon_detail),
                         "pid %.0f has not written " LIVE_FILE " for %.0f s (interval %.3g s): hung or stopped", pid,
                         r->age, interval);
        } else {
                r->daemon = DAEMON_RUNNING;
                snprintf(r->daemon_detail, sizeof(r->daemon_detail), "pid %.0f, updated %.1f s ago", pid, r->age);
        }
        return 0;
}

/* The daemon's learnt state as any user reads it (the file is 0644), with
 * the daemon's distrust; times as Unix time. */
static void read_learned(struct status_report *r, const char *learn_dir)
{
        snprintf(r->learned_file, sizeof(r->learned_file), "%s/" LEARN_FILE, learn_dir);
        int e = learn_load(learn_dir, &r->learned, 0, r->learned_error, sizeof(r->learned_error));
        r->learned_state = e == 0 ? LEARNED_OK : e == -ENOENT ? LEARNED_NONE : LEARNED_UNUSABLE;
        struct stat st;
        r->learned_saved = e == 0 && stat(r->learned_file, &st) == 0 ?
                           (double)st.st_mtim.tv_sec + (double)st.st_mtim.tv_nsec * 1e-9 : NAN;
}

int status_report_read(struct status_report *r, const char *root, const char *state_dir,
                       const char *learn_dir, const struct config *cfg)
{
        *r = (struct status_report){ .time = clock_secs(CLOCK_REALTIME) };
        struct sample_reader *rd;
        int e = sample_reader_new(&rd, root);
        if (e >= 0) {
                e = sample_read(rd, &r->s);
                if (e < 0)
                        snprintf(r->sample_error, sizeof(r->sample_error), "%s", sample_reader_failed(rd));
                sample_reader_free(rd);
        }
        if (e < 0)
                return e;
        long written;
        e = state_load(state_dir, &r->baseline, &written);
        r->baseline_source = e == 0 ? BASELINE_STATE_FILE : e == -ENOENT ? BASELINE_UNCHANGED : BASELINE_UNKNOWN;
        if (e == -ENOENT)
                r->baseline = r->s.wsf;
        else if (e < 0)
                snprintf(r->baseline_error, sizeof(r->baseline_error), "%s", state_strerror(e));
        r->max_order = resolve_max_order(root, cfg->compaction_max_order, r->s.nr_orders);
        e = read_daemon(r, state_dir);
        if (e < 0) {
                status_report_free(r);
                return e;
        }
        read_learned(r, learn_dir);
        return 0;
}

void status_report_free(struct status_report *r)
{
        sample_free(&r->s);
        json_object_put(r->live);
        r->live = NULL;
}

int status_print(FILE *out, const char *root, const char *state_dir, const char *learn_dir,
                 const struct config *cfg, bool json)
{
        struct status_report r;
        int e = status_report_read(&r, root, state_dir, learn_dir, cfg);
        if (e < 0) {
                if (r.sample_error[0])
                        fprintf(stderr, "memoptimizer: cannot read the kernel's memory state: reading %s: %s\n",
                                r.sample_error, strerror(-e));
                else
                        fprintf(stderr, "memoptimizer: cannot read %s: %s\n",
                                e == -ENOMEM ? "the status" : "the kernel's memory state", strerror(-e));
                return 2;
        }
        if (json) {
                char *text = json_text(status_report_json(&r), 0, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED);
                if (text)
                        fprintf(out, "%s\n", text);
                else
                        e = -ENOMEM;
                free(text);
        } else {
                status_report_text(out, &r);
        }
        status_report_free(&r);
        if (e < 0 || fflush(out) != 0) {
                fprintf(stderr, "memoptimizer: cannot write the status: %s\n", strerror(e < 0 ? -e : errno));
                return 2;
        }
        return 0;
}
