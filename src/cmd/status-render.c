/* The two renderings of a struct status_report: text for a person and the
 * JSON document of docs/status-json.md. */
#include "status-render.h"

#include <math.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "publish-format.h"
#include "report.h"
#include "util.h"

const char *daemon_state_str(enum daemon_state s)
{
        static const char *const n[] = {
                [DAEMON_NOT_RUNNING] = "not-running", [DAEMON_RUNNING] = "running",
                [DAEMON_STALE] = "stale",
        };
        return n[s];
}

/* The text shows fragmentation and exhaustion for the compaction order and
 * the few below it, not for every order. */
#define TEXT_ORDERS_BELOW 3

static unsigned first_frag_order(const struct status_report *r)
{
        return r->max_order > TEXT_ORDERS_BELOW ? r->max_order - TEXT_ORDERS_BELOW : 1;
}

/* ---- JSON ---- */

/* Every json_put*() leaves -ENOMEM in *err when an allocation failed, and
 * status_report_json() then returns NULL rather than a document with nulls
 * where values belong (util.h). */

/* A value taken from live.json (a reference, no allocation), or null. */
static void put_ref(int *err, json_object *o, const char *key, json_object *v)
{
        if (v)
                json_put(err, o, key, json_object_get(v));
        else
                json_put_null(err, o, key);
}

static json_object *jzone(int *err, const struct status_report *r, const struct zone *z)
{
        json_object *o = json_object_new_object(), *w = json_object_new_object(),
                    *blocks = json_object_new_array(), *frag = json_object_new_array();
        json_put(err, o, "node", json_object_new_int(z->node));
        json_put(err, o, "zone", json_object_new_string(z->name));
        json_put(err, o, "managed_pages", json_object_new_uint64(z->managed_pages));
        json_put(err, o, "free_pages", json_object_new_uint64(z->free_pages));
        json_put(err, w, "min", json_object_new_uint64(z->wmark_min));
        json_put(err, w, "low", json_object_new_uint64(z->wmark_low));
        json_put(err, w, "high", json_object_new_uint64(z->wmark_high));
        json_put(err, o, "watermarks", w);
        for (unsigned k = 0; k < r->s.nr_orders; k++)
                json_append(err, blocks, json_object_new_uint64(z->nr_free[k]));
        json_put(err, o, "free_blocks", blocks);
        for (unsigned k = 1; k < r->s.nr_orders; k++) {
                json_object *e = json_object_new_object();
                json_put(err, e, "order", json_object_new_int((int)k));
                json_put_number(err, e, "unusable_index", zone_unusable_index(z, r->s.nr_orders, k),
                                JSON_FULL_PRECISION);
                json_append(err, frag, e);
        }
        json_put(err, o, "fragmentation", frag);
        return o;
}

static json_object *jdaemon(int *err, const struct status_report *r)
{
        json_object *o = json_object_new_object();
        json_put(err, o, "state", json_object_new_string(daemon_state_str(r->daemon)));
        json_put(err, o, "detail", json_object_new_string(r->daemon_detail));
        put_ref(err, o, "mode", json_get(r->live, "mode"));
        put_ref(err, o, "pid", json_get(r->live, "pid"));
        json_put_number(err, o, "age_seconds", r->age, JSON_FULL_PRECISION);
        put_ref(err, o, "live", r->live);
        return o;
}

json_object *status_report_json(const struct status_report *r)
{
        int err = 0;
        json_object *o = json_object_new_object(), *wsf = json_object_new_object(),
                    *zones = json_object_new_array(), *mem = json_object_new_object(),
                    *stalls = json_object_new_object();
        static const char *const src[] = {
                [BASELINE_UNCHANGED] = "unchanged", [BASELINE_STATE_FILE] = "state-file",
                [BASELINE_UNKNOWN] = "unknown",
        };
        json_put(&err, o, "schema_version", json_object_new_int(STATUS_SCHEMA_VERSION));
        json_put_number(&err, o, "time", r->time, JSON_FULL_PRECISION);
        json_put(&err, o, "page_size", json_object_new_int64(sysconf(_SC_PAGESIZE)));
        json_put(&err, wsf, "current", json_object_new_int64(r->s.wsf));
        if (r->baseline_source == BASELINE_UNKNOWN)
                json_put_null(&err, wsf, "baseline");
        else
                json_put(&err, wsf, "baseline", json_object_new_int64(r->baseline));
        json_put(&err, wsf, "baseline_source", json_object_new_string(src[r->baseline_source]));
        json_put(&err, o, "watermark_scale_factor", wsf);
        json_put(&err, o, "compaction_max_order", json_object_new_int((int)r->max_order));
        for (size_t i = 0; i < r->s.nr_zones; i++)
                json_append(&err, zones, jzone(&err, r, &r->s.zones[i]));
        json_put(&err, o, "zones", zones);
        json_put(&err, mem, "mem_available_pages", json_object_new_uint64(r->s.mem.mem_available));
        json_put(&err, mem, "file_lru_pages", json_object_new_uint64(r->s.mem.active_file + r->s.mem.inactive_file));
        json_put(&err, o, "memory", mem);
        json_put(&err, stalls, "allocstall", json_object_new_uint64(r->s.vm.allocstall));
        json_put(&err, stalls, "compact_stall", json_object_new_uint64(r->s.vm.compact_stall));
        json_put(&err, o, "stalls_since_boot", stalls);
        json_put(&err, o, "daemon", jdaemon(&err, r));
        if (err < 0) {
                json_object_put(o);
                return NULL;
        }
        return o;
}

/* ---- text ---- */

static void text_zone(FILE *out, const struct status_report *r, const struct zone *z)
{
        fprintf(out, "node%d %s: managed %llu pages, free %llu pages\n", z->node, z->name,
                (unsigned long long)z->managed_pages, (unsigned long long)z->free_pages);
        fprintf(out, "  watermarks: min %llu, low %llu, high %llu pages\n",
                (unsigned long long)z->wmark_min, (unsigned long long)z->wmark_low,
                (unsigned long long)z->wmark_high);
        fprintf(out, "  free blocks per order:");
        for (unsigned k = 0; k < r->s.nr_orders; k++)
                fprintf(out, " %u:%llu", k, (unsigned long long)z->nr_free[k]);
        fprintf(out, "\n  fragmented (free memory not in blocks >= order):");
        for (unsigned k = first_frag_order(r); k <= r->max_order && k < r->s.nr_orders; k++)
                fprintf(out, " %u:%.0f%%", k, zone_unusable_index(z, r->s.nr_orders, k) * PERCENT);
        fprintf(out, "\n");
}

/* Forecast times beyond this are "never" to a person (about 30 years; a
 * fit's slope can be small enough to give 1e300 s). */
#define SECS_SHOWN_MAX 1e9

static void secs(char *buf, size_t size, json_object *v)
{
        double s = v ? json_object_get_double(v) : INFINITY;
        format_secs(buf, size, s <= SECS_SHOWN_MAX ? s : INFINITY);
}

static void text_forecast(FILE *out, const struct status_report *r, json_object *f)
{
        if (!f) {
                fprintf(out, "  forecast: none yet (fewer than two samples)\n");
                return;
        }
        json_object *zones = json_get(f, "zones"), *nodes = json_get(f, "nodes");
        for (size_t i = 0; i < json_object_array_length(zones); i++) {
                json_object *z = json_object_array_get_idx(zones, i);
                char low[32], min[32];
                secs(low, sizeof(low), json_get(z, "seconds_to_low"));
                secs(min, sizeof(min), json_get(z, "seconds_to_min"));
                fprintf(out, "  forecast node%d %s: low in %s, min in %s%s\n", json_object_get_int(json_get(z, "node")),
                        json_object_get_string(json_get(z, "zone")), low, min,
                        json_object_get_boolean(json_get(z, "trend")) ? "" : " (no trend)");
        }
        for (size_t i = 0; i < json_object_array_length(nodes); i++) {
                json_object *n = json_object_array_get_idx(nodes, i), *orders = json_get(n, "orders");
                fprintf(out, "  forecast node%d, blocks run out:", json_object_get_int(json_get(n, "node")));
                for (size_t j = 0; j < json_object_array_length(orders); j++) {
                        json_object *e = json_object_array_get_idx(orders, j);
                        int k = json_object_get_int(json_get(e, "order"));
                        char s[32];
                        secs(s, sizeof(s), json_get(e, "seconds_to_exhaustion"));
                        if (k >= (int)first_frag_order(r))
                                fprintf(out, " order %d %s;", k, s);
                }
                fprintf(out, "\n");
        }
}

static void text_decisions(FILE *out, json_object *recent)
{
        size_t n = json_object_array_length(recent);
        fprintf(out, "  recent decisions:%s\n", n ? "" : " none");
        for (size_t i = 0; i < n; i++) {
                json_object *e = json_object_array_get_idx(recent, i);
                time_t t = (time_t)json_object_get_double(json_get(e, "time"));
                struct tm tm;
                char when[32] = "?";
                if (localtime_r(&t, &tm))
                        strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
                const char *kind = json_object_get_string(json_get(e, "kind"));
                if (strcmp(kind, "compact") == 0 || strcmp(kind, "backoff") == 0)
                        fprintf(out, "    %s %s node%d: %s\n", when, kind, json_object_get_int(json_get(e, "node")),
                                json_object_get_string(json_get(e, "reason")));
                else
                        fprintf(out, "    %s %s %lld -> %lld: %s\n", when, kind,
                                (long long)json_object_get_int64(json_get(e, "wsf_old")),
                                (long long)json_object_get_int64(json_get(e, "wsf_new")),
                                json_object_get_string(json_get(e, "reason")));
        }
}

static void text_counters(FILE *out, json_object *c)
{
        fprintf(out, "  counters: %lld samples, %lld sample errors; decisions",
                (long long)json_object_get_int64(json_get(c, "samples")),
                (long long)json_object_get_int64(json_get(c, "sample_errors")));
        for (int k = WSF_KEEP + 1; k < PUBLISH_WSF_KINDS; k++) {
                const char *kind = wsf_reason_str((enum wsf_reason)k);
                fprintf(out, " %s %lld", kind, (long long)json_object_get_int64(json_get(json_get(c, "decisions"), kind)));
        }
        fprintf(out, "; %lld compactions, %lld back-offs; CPU %.2f s\n",
                (long long)json_object_get_int64(json_get(c, "compactions")),
                (long long)json_object_get_int64(json_get(c, "compaction_backoffs")),
                json_object_get_double(json_get(c, "cpu_seconds")));
}

static void text_daemon(FILE *out, const struct status_report *r)
{
        json_object *l = r->live;
        if (!l || r->daemon == DAEMON_NOT_RUNNING) {
                fprintf(out, "daemon: not running (%s)\n", r->daemon_detail);
                return;
        }
        fprintf(out, "daemon: %s, %s (%s)\n", daemon_state_str(r->daemon),
                json_object_get_string(json_get(l, "mode")), r->daemon_detail);
        json_object *w = json_get(l, "watermark_scale_factor");
        fprintf(out, "  scale factor decided %lld, baseline %lld, ceiling %s\n",
                (long long)json_object_get_int64(json_get(w, "decided")),
                (long long)json_object_get_int64(json_get(w, "baseline")),
                json_get(w, "ceiling") ? json_object_get_string(json_get(w, "ceiling")) : "not known yet");
        text_forecast(out, r, json_get(l, "forecast"));
        text_decisions(out, json_get(l, "recent_decisions"));
        text_counters(out, json_get(l, "counters"));
}

void status_report_text(FILE *out, const struct status_report *r)
{
        fprintf(out, "vm.watermark_scale_factor: %ld\n", r->s.wsf);
        if (r->baseline_source == BASELINE_STATE_FILE)
                fprintf(out, "baseline: %ld (the daemon changed it and will restore it)\n", r->baseline);
        else if (r->baseline_source == BASELINE_UNCHANGED)
                fprintf(out, "baseline: %ld (the daemon has not changed it)\n", r->baseline);
        else
                fprintf(out, "baseline: unknown (the state file %s)\n", r->baseline_error);
        for (size_t i = 0; i < r->s.nr_zones; i++)
                text_zone(out, r, &r->s.zones[i]);
        fprintf(out, "MemAvailable: %llu pages; file LRU %llu pages; stalls since boot: allocstall %llu, compact_stall %llu\n",
                (unsigned long long)r->s.mem.mem_available,
                (unsigned long long)r->s.mem.active_file + (unsigned long long)r->s.mem.inactive_file,
                (unsigned long long)r->s.vm.allocstall, (unsigned long long)r->s.vm.compact_stall);
        text_daemon(out, r);
}
