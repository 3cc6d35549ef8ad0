#include "status-live.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "actuate.h"
#include "config.h"
#include "policy.h"
#include "process.h"
#include "publish-format.h"
#include "util.h"

/* Bounds of what the daemon writes: nodes are the kernel's (MAX_NUMNODES
 * is at most 1 << 10), orders at most 63, a decision's reason and a zone's
 * name as long as their fields. */
#define LIVE_NODE_MAX 1023
#define LIVE_ORDER_MAX 63
#define LIVE_TEXT_MAX 256
#define LIVE_DECISIONS_MAX PUBLISH_RECENT

struct check {
        char *why;
        size_t whysz;
        double now;
        bool bad;
};

/* Record the first thing wrong; false to stop. */
__attribute__((format(printf, 3, 4)))
static bool wrong(struct check *c, const char *path, const char *fmt, ...);

static bool wrong(struct check *c, const char *path, const char *fmt, ...)
{
        if (!c->bad) {
                int n = snprintf(c->why, c->whysz, "%s ", path);
                va_list ap;
                va_start(ap, fmt);
                if (n >= 0 && (size_t)n < c->whysz)
                        /* NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized): false positive of clang 14 */
                        vsnprintf(c->why + n, c->whysz - (size_t)n, fmt, ap);
                va_end(ap);
        }
        c->bad = true;
        return false;
}

/* A number within [lo, hi] (NULL allowed with `null_ok`). */
static bool num(struct check *c, json_object *o, const char *key, double lo, double hi, bool null_ok)
{
        json_object *v = json_get(o, key);
        if (!v)
                return null_ok || wrong(c, key, "is missing");
        if (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int))
                return wrong(c, key, "is not a number");
        double x = json_object_get_double(v);
        if (!(x >= lo && x <= hi))
                return wrong(c, key, "is %.6g, not within %.6g..%.6g", x, lo, hi);
        return true;
}

/* An integer within [lo, hi]. */
static bool integer(struct check *c, json_object *o, const char *key, int64_t lo, int64_t hi, bool null_ok)
{
        json_object *v = json_get(o, key);
        if (!v)
                return null_ok || wrong(c, key, "is missing");
        if (!json_object_is_type(v, json_type_int))
                return wrong(c, key, "is not an integer");
        int64_t x = json_object_get_int64(v);
        if (x < lo || x > hi)
                return wrong(c, key, "is %lld, not within %lld..%lld", (long long)x, (long long)lo, (long long)hi);
        return true;
}

/* A string of at most LIVE_TEXT_MAX bytes, one of `allowed` unless NULL. */
static bool text(struct check *c, json_object *o, const char *key, const char *const *allowed, bool null_ok)
{
        json_object *v = json_get(o, key);
        if (!v)
                return null_ok || wrong(c, key, "is missing");
        if (!json_object_is_type(v, json_type_string) || json_object_get_string_len(v) > LIVE_TEXT_MAX)
                return wrong(c, key, "is not a string of at most %d bytes", LIVE_TEXT_MAX);
        for (const char *const *a = allowed; a && *a; a++)
                if (strcmp(json_object_get_string(v), *a) == 0)
                        return true;
        return !allowed || wrong(c, key, "is not a value the daemon writes");
}

static json_object *typed(struct check *c, json_object *o, const char *key, json_type t, bool null_ok)
{
        json_object *v = json_get(o, key);
        if (!v && !null_ok)
                wrong(c, key, "is missing");
        else if (v && !json_object_is_type(v, t))
                wrong(c, key, "is not %s", t == json_type_array ? "an array" : "an object");
        return v && json_object_is_type(v, t) ? v : NULL;
}

static bool forecast(struct check *c, json_object *f)
{
        json_object *zones = typed(c, f, "zones", json_type_array, false);
        json_object *nodes = typed(c, f, "nodes", json_type_array, false);
        for (size_t i = 0; zones && i < json_object_array_length(zones); i++) {
                json_object *z = json_object_array_get_idx(zones, i);
                if (!json_object_is_type(z, json_type_object))
                        return wrong(c, "forecast.zones[]", "is not an object");
                if (!integer(c, z, "node", 0, LIVE_NODE_MAX, false) || !text(c, z, "zone", NULL, false) ||
                    !num(c, z, "seconds_to_low", 0, INFINITY, true) || !num(c, z, "seconds_to_min", 0, INFINITY, true) ||
                    !typed(c, z, "trend", json_type_boolean, false))
                        return false;
        }
        for (size_t i = 0; nodes && i < json_object_array_length(nodes); i++) {
                json_object *n = json_object_array_get_idx(nodes, i), *orders;
                if (!json_object_is_type(n, json_type_object))
                        return wrong(c, "forecast.nodes[]", "is not an object");
                if (!integer(c, n, "node", 0, LIVE_NODE_MAX, false) ||
                    !(orders = typed(c, n, "orders", json_type_array, false)))
                        return false;
                for (size_t j = 0; j < json_object_array_length(orders); j++) {
                        json_object *e = json_object_array_get_idx(orders, j);
                        if (!json_object_is_type(e, json_type_object))
                                return wrong(c, "forecast.nodes[].orders[]", "is not an object");
                        if (!integer(c, e, "order", 0, LIVE_ORDER_MAX, false) ||
                            !num(c, e, "seconds_to_exhaustion", 0, INFINITY, true))
                                return false;
                }
        }
        return !c->bad;
}

static bool decisions(struct check *c, json_object *a)
{
        static const char *const kinds[] = { "raise", "raise-stall", "lower", "lower-guard", "adopt", "compact",
                                             "backoff", NULL };
        if (json_object_array_length(a) > LIVE_DECISIONS_MAX)
                return wrong(c, "recent_decisions", "holds more than %d", LIVE_DECISIONS_MAX);
        for (size_t i = 0; i < json_object_array_length(a); i++) {
                json_object *e = json_object_array_get_idx(a, i);
                if (!json_object_is_type(e, json_type_object))
                        return wrong(c, "recent_decisions[]", "is not an object");
                if (!num(c, e, "time", 0, c->now + LIVE_CLOCK_SLACK, false) || !text(c, e, "kind", kinds, false) ||
                    !integer(c, e, "wsf_old", WSF_MIN, WSF_MAX_ANY_KERNEL, false) ||
                    !integer(c, e, "wsf_new", WSF_MIN, WSF_MAX_ANY_KERNEL, false) ||
                    !integer(c, e, "node", 0, LIVE_NODE_MAX, true) || !text(c, e, "reason", NULL, false))
                        return false;
        }
        return true;
}

static bool counters(struct check *c, json_object *n)
{
        static const char *const keys[] = { "samples", "sample_errors", "compactions", "compaction_backoffs" };
        for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
                if (!integer(c, n, keys[i], 0, INT64_MAX, false))
                        return false;
        json_object *d = typed(c, n, "decisions", json_type_object, false);
        for (int k = WSF_KEEP + 1; d && k < PUBLISH_WSF_KINDS; k++)
                if (!integer(c, d, wsf_reason_str((enum wsf_reason)k), 0, INT64_MAX, false))
                        return false;
        return d && num(c, n, "cpu_seconds", 0, INFINITY, true);
}

/* One of raise_hold_str()'s names; absent from daemons before 0.3.3. */
static bool raises_held(struct check *c, json_object *w)
{
        json_object *v = json_get(w, "raises_held");
        if (!v || !text(c, w, "raises_held", NULL, false))
                return !v;
        for (int h = 0; h < _HOLD_REASONS; h++)
                if (strcmp(json_object_get_string(v), raise_hold_str((enum raise_hold)h)) == 0)
                        return true;
        return wrong(c, "raises_held", "is not a value the daemon writes");
}

static bool wsf(struct check *c, json_object *w)
{
        return raises_held(c, w) &&
               integer(c, w, "decided", WSF_MIN, WSF_MAX_ANY_KERNEL, false) &&
               integer(c, w, "baseline", WSF_MIN, WSF_MAX_ANY_KERNEL, false) &&
               integer(c, w, "ceiling", WSF_MIN, WSF_MAX_ANY_KERNEL, true) &&
               integer(c, w, "kernel", WSF_MIN, WSF_MAX_ANY_KERNEL, true);
}

int live_check(json_object *live, double now, char *why, size_t whysz)
{
        static const char *const modes[] = { "acting", "dry-run", "monitor-only", NULL };
        struct check c = { .why = why, .whysz = whysz, .now = now };
        double latest = now + LIVE_CLOCK_SLACK;
        json_object *o;
        bool ok = integer(&c, live, "pid", 1, PROCESS_PID_MAX, false) &&
                  integer(&c, live, "pid_start_ticks", 0, INT64_MAX, true) && text(&c, live, "mode", modes, false) &&
                  num(&c, live, "started", 0, latest, false) &&
                  num(&c, live, "updated", 0, latest, false) &&
                  num(&c, live, "interval_seconds", CONFIG_INTERVAL_MIN, CONFIG_INTERVAL_MAX, false) &&
                  num(&c, live, "heartbeat_seconds", CONFIG_INTERVAL_MIN, dmax(LIVE_HEARTBEAT, CONFIG_INTERVAL_MAX), true);
        if (ok && (o = typed(&c, live, "watermark_scale_factor", json_type_object, false)))
                ok = wsf(&c, o);
        if (ok && (o = typed(&c, live, "forecast", json_type_object, true)))
                ok = forecast(&c, o);
        if (ok && (o = typed(&c, live, "recent_decisions", json_type_array, false)))
                ok = decisions(&c, o);
        if (ok && (o = typed(&c, live, "counters", json_type_object, false)))
                ok = counters(&c, o);
        return ok && !c.bad ? 0 : -EBADMSG;
}
