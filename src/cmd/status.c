#include "status.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>

#include "fileio.h"
#include "publish-format.h"
#include "sample-read.h"
#include "state.h"
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

/* Whether a process holds live.lock: the publishing daemon does, for as
 * long as it runs. -1 when that cannot be known. */
static int lock_held(const char *state_dir)
{
        char path[PATH_MAX];
        if (snprintf(path, sizeof(path), "%s/" LIVE_LOCK, state_dir) >= (int)sizeof(path))
                return -1;
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0)
                return errno == ENOENT ? 0 : -1;
        if (flock(fd, LOCK_SH | LOCK_NB) == 0)
                return 0;       /* released when fd closes */
        return errno == EWOULDBLOCK ? 1 : -1;
}

/* The daemon is running when it holds live.lock and has written live.json
 * within its heartbeat and a few seconds; stale when it holds the lock but stopped writing
 * (hung, or stopped with SIGSTOP); not running otherwise. */
static int read_daemon(struct status_report *r, const char *state_dir)
{
        char path[PATH_MAX];
        snprintf(path, sizeof(path), "%s/" LIVE_FILE, state_dir);
        r->age = NAN;
        errno = 0;
        r->live = json_object_from_file(path);
        if (!r->live && errno == ENOMEM)
                return -ENOMEM;         /* not "unreadable": the file may be fine */
        if (!r->live) {
                snprintf(r->daemon_detail, sizeof(r->daemon_detail), "no daemon publishes in %s (%s)", state_dir,
                         access(path, F_OK) < 0 ? "no " LIVE_FILE : "unreadable " LIVE_FILE);
                return 0;
        }
        double version = jnum_at(r->live, "schema_version");
        if (version != LIVE_SCHEMA_VERSION) {
                snprintf(r->daemon_detail, sizeof(r->daemon_detail), LIVE_FILE " has schema_version %g; this status reads %d",
                         version, LIVE_SCHEMA_VERSION);
                json_object_put(r->live);
                r->live = NULL;
                return 0;
        }
        r->age = r->time - jnum_at(r->live, "updated");
        double interval = jnum_at(r->live, "interval_seconds");
        /* written at least every heartbeat; a daemon from before the
         * heartbeat wrote every interval */
        double heartbeat = jnum_at(r->live, "heartbeat_seconds");
        if (isnan(heartbeat))
                heartbeat = interval;
        double limit = fmax(STALE_INTERVALS * interval, heartbeat + interval + STALE_SLACK_SEC);
        int held = lock_held(state_dir);
        if (held == 0) {
                snprintf(r->daemon_detail, sizeof(r->daemon_detail),
                         "pid %.0f, which wrote " LIVE_FILE " %.0f s ago, has exited without removing it",
                         jnum_at(r->live, "pid"), r->age);
        } else if (!(r->age <= limit)) {
                r->daemon = DAEMON_STALE;
                snprintf(r->daemon_detail, sizeof(r->daemon_detail),
                         "pid %.0f has not written " LIVE_FILE " for %.0f s (interval %.3g s): hung or stopped",
                         jnum_at(r->live, "pid"), r->age, interval);
        } else {
                r->daemon = DAEMON_RUNNING;
                snprintf(r->daemon_detail, sizeof(r->daemon_detail), "pid %.0f, updated %.1f s ago",
                         jnum_at(r->live, "pid"), r->age);
        }
        return 0;
}

int status_report_read(struct status_report *r, const char *root, const char *state_dir,
                       const struct config *cfg)
{
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        *r = (struct status_report){ .time = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9 };
        struct sample_reader *rd;
        int e = sample_reader_new(&rd, root);
        if (e >= 0) {
                e = sample_read(rd, &r->s);
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
                snprintf(r->baseline_error, sizeof(r->baseline_error), "%s", strerror(-e));
        r->max_order = resolve_max_order(root, cfg->compaction_max_order, r->s.nr_orders);
        e = read_daemon(r, state_dir);
        if (e < 0)
                status_report_free(r);
        return e;
}

void status_report_free(struct status_report *r)
{
        sample_free(&r->s);
        json_object_put(r->live);
        r->live = NULL;
}

int status_print(FILE *out, const char *root, const char *state_dir, const struct config *cfg, bool json)
{
        struct status_report r;
        int e = status_report_read(&r, root, state_dir, cfg);
        if (e < 0) {
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
