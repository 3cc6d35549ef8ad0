/* Writing traces: the recorder of the daemon's record = FILE and of
 * `memoptimizer record`. The lines are trace.c's. */
#include "recorder.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "build-config.h"
#include "clock.h"
#include "fileio.h"
#include "thp.h"
#include "trace.h"
#include "util.h"

struct recorder {
        FILE *f;
        bool own;
        char path[4096];
        char *root;                     /* for the header of a new file */
        char source[16];
        double interval;
        uint64_t max_size;              /* 0: no limit */
};

/* A trace holds nothing secret: `status` users may read it. */
#define TRACE_MODE 0644

static void header_from_system(struct trace_header *h, const char *root, const char *source,
                               double interval)
{
        struct utsname u;
        *h = (struct trace_header){ .version = TRACE_VERSION, .interval = interval,
                                    .page_size = sysconf(_SC_PAGESIZE),
                                    .thp_pmd_size = thp_pmd_size(root) };
        snprintf(h->source, sizeof(h->source), "%s", source);
        snprintf(h->program, sizeof(h->program), "memoptimizer %s", PACKAGE_VERSION);
        snprintf(h->kernel, sizeof(h->kernel), "%s", uname(&u) == 0 ? u.release : "unknown");
        /* read together, so that replay maps wall-clock times onto the
         * samples (whose clock is CLOCK_MONOTONIC) to the millisecond */
        double wall = clock_secs(CLOCK_REALTIME);
        h->started_mono = clock_secs(CLOCK_MONOTONIC);
        h->has_started_mono = true;
        utc_format(wall, h->started, sizeof(h->started));
}

/* Write one line (taking it) and flush it, so that a trace cut by a signal
 * or a crash ends with a complete line. 0 or a negative errno. */
static int write_line(FILE *f, char *line)
{
        if (!line)
                return -ENOMEM;
        int r = 0;
        if (fputs(line, f) < 0 || fputc('\n', f) < 0 || fflush(f) != 0)
                r = errno ? -errno : -EIO;
        free(line);
        return r;
}

/* Write the header of a new file (or of standard output). */
static int write_header(struct recorder *r)
{
        struct trace_header h;
        header_from_system(&h, r->root, r->source, r->interval);
        return write_line(r->f, trace_header_line(&h));
}

/* Create r->path anew, locked against a second writer, and write its
 * header. */
static int create(struct recorder *r)
{
        int fd = file_create_locked(r->path, TRACE_MODE);
        if (fd < 0)
                return fd;
        r->f = fdopen(fd, "we");
        if (!r->f) {
                int e = -errno;
                close(fd);
                return e;
        }
        return write_header(r);
}

/* FILE becomes FILE.1 (replacing an older one) while its lock is held, so a
 * second writer cannot slip in; rename(2) follows no link at either end. */
static int move_aside(const struct recorder *r, int fd)
{
        char old[sizeof(r->path) + 2];
        snprintf(old, sizeof(old), "%s.1", r->path);
        int e = file_same(r->path, fd);
        if (e == 0 && rename(r->path, old) < 0)
                e = -errno;
        return e;
}

/* An earlier trace at r->path: moved aside when it is one this process may
 * take over (its own regular file that no other process writes). */
static int take_over(struct recorder *r)
{
        int fd = file_lock_own(r->path);
        if (fd < 0)
                return fd;
        int e = move_aside(r, fd);
        close(fd);
        return e;
}

static void recorder_free(struct recorder *r)
{
        if (r->f && r->own)
                fclose(r->f);
        free(r->root);
        free(r);
}

/* Why the file at path is refused, as the words after its name; NULL for
 * an error of the system (no space, no such directory). */
static const char *refusal(int err)
{
        switch (err) {
        case -EEXIST:
                return "exists; not overwriting it (remove it or name another file)";
        case -EPERM:
                return "belongs to another user";
        case -EWOULDBLOCK:
                return "is being written by another memoptimizer";
        case -ESTALE:
                return "was replaced by another file";
        default:
                return file_strerror(err);
        }
}

void recorder_strerror(char *buf, size_t size, const char *path, int err)
{
        if (refusal(err))
                snprintf(buf, size, "%s %s", path, refusal(err));
        else
                snprintf(buf, size, "cannot write %s: %s", path, strerror(-err));
}

int recorder_open(struct recorder **out, const char *path, const char *root, const char *source,
                  double interval, uint64_t max_size, bool take_over_existing, char *err, size_t errsz)
{
        struct recorder *r = calloc(1, sizeof(*r));
        if (!r)
                return -ENOMEM;
        bool is_stdout = strcmp(path, "-") == 0;
        snprintf(r->path, sizeof(r->path), "%s", is_stdout ? "standard output" : path);
        snprintf(r->source, sizeof(r->source), "%s", source);
        r->interval = interval;
        r->max_size = is_stdout ? 0 : max_size;
        r->own = !is_stdout;
        r->root = strdup(root ? root : "");
        int e = !r->root ? -ENOMEM : 0, moved = 0;
        if (e == 0 && is_stdout) {
                r->f = stdout;
                e = write_header(r);
        } else if (e == 0) {
                e = create(r);
                if (e == -EEXIST && take_over_existing && (e = take_over(r)) == 0) {
                        moved = 1;
                        e = create(r);
                }
        }
        if (e < 0) {
                recorder_strerror(err, errsz, r->path, e);
                recorder_free(r);
                return e;
        }
        *out = r;
        return moved;
}

/* FILE becomes FILE.1 and FILE starts afresh with its own header, so both
 * are traces replay reads whole. */
static int rotate(struct recorder *r)
{
        int e = fflush(r->f) == 0 ? move_aside(r, fileno(r->f)) : -errno;
        if (fclose(r->f) != 0 && e == 0)
                e = -errno;
        r->f = NULL;
        return e < 0 ? e : create(r);
}

int recorder_configure(struct recorder *r, double interval, uint64_t max_size)
{
        if (r->own)
                r->max_size = max_size;
        if (interval == r->interval)
                return 0;
        r->interval = interval;
        if (!r->own)
                return 0;
        int e = rotate(r);
        return e < 0 ? e : 1;
}

int recorder_sample(struct recorder *r, const struct sample *s)
{
        int rotated = 0;
        if (r->max_size) {
                long at = ftell(r->f);
                if (at < 0)
                        return -errno;
                if ((uint64_t)at >= r->max_size) {
                        int e = rotate(r);
                        if (e < 0)
                                return e;
                        rotated = 1;
                }
        }
        int e = write_line(r->f, trace_sample_line(s));
        return e < 0 ? e : rotated;
}

int recorder_decision(struct recorder *r, double time, const struct decision *d, bool acting)
{
        if (!trace_decision_worth(d))
                return 0;
        struct trace_decision td = { .time = time, .acting = acting, .d = *d };
        return write_line(r->f, trace_decision_line(&td));
}

int recorder_close(struct recorder *r)
{
        if (!r)
                return 0;
        int e = 0;
        if (r->f) {             /* NULL after a failed rotation */
                e = fflush(r->f) == 0 ? 0 : -errno;
                if (r->own && fclose(r->f) != 0 && e == 0)
                        e = -errno;
                r->f = NULL;
        }
        recorder_free(r);
        return e;
}

const char *recorder_path(const struct recorder *r)
{
        return r->path;
}
