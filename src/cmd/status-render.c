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

const char *learned_state_str(enum learned_state s)
{
        static const char *const n[] = {
                [LEARNED_NONE] = "none", [LEARNED_OK] = "learned", [LEARNED_UNUSABLE] = "unusable",
        };
        return n[s];
}

/* The lowest demand of class c, pages per second, on a machine of
 * `managed` pages (learn.h: 2^c permyriad of managed memory a second). */
static double class_demand(int c, uint64_t managed)
{
        return ldexp((double)managed / 10000.0, c);
}

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

/* The learned state's numbers to the file's precision (learn-text.c). */
#define LEARNED_DECIMALS 3

static json_object *jclass(int *err, const struct learned *l, enum learn_kind kind, int c)
{
        const struct learn_class *k = &l->classes[kind][c];
        json_object *o = json_object_new_object();
        json_put(err, o, "class", json_object_new_int(c));
        json_put(err, o, "kind", json_object_new_string(learn_kind_name(kind)));
        json_put_number(err, o, "min_peak_demand_pages_per_sec", class_demand(c, l->managed_pages),
                        LEARNED_DECIMALS);
        json_put_number(err, o, "wsf", k->wsf, LEARNED_DECIMALS);
        json_put(err, o, "episodes", json_object_new_int64(k->episodes));
        json_put(err, o, "stalled", json_object_new_int64(k->stalled));
        json_put_number(err, o, "updated", k->updated, LEARNED_DECIMALS);
        return o;
}

static json_object *jepisode(int *err, const struct learn_episode *h)
{
        json_object *o = json_object_new_object();
        json_put_number(err, o, "start", h->start, LEARNED_DECIMALS);
        json_put_number(err, o, "duration", h->duration, LEARNED_DECIMALS);
        json_put_number(err, o, "peak_demand_pages_per_sec", h->peak_demand_pages_per_sec, LEARNED_DECIMALS);
        json_put_number(err, o, "peak_thp_pages_per_sec", h->peak_thp_pages_per_sec, LEARNED_DECIMALS);
        json_put_number(err, o, "demand_pages", h->demand_pages, LEARNED_DECIMALS);
        json_put_number(err, o, "min_margin_pages", h->min_margin_pages, LEARNED_DECIMALS);
        json_put(err, o, "wsf_max", json_object_new_int64(h->wsf_max));
        json_put(err, o, "stalls", json_object_new_uint64(h->stalls));
        return o;
}

static json_object *jlearned(int *err, const struct status_report *r)
{
        const struct learned *l = &r->learned;
        bool ok = r->learned_state == LEARNED_OK;
        json_object *o = json_object_new_object(), *classes = json_object_new_array(),
                    *episodes = json_object_new_array();
        json_put(err, o, "state", json_object_new_string(learned_state_str(r->learned_state)));
        json_put(err, o, "file", json_object_new_string(r->learned_file));
        if (r->learned_state == LEARNED_UNUSABLE)
                json_put(err, o, "error", json_object_new_string(r->learned_error));
        else
                json_put_null(err, o, "error");
        json_put_number(err, o, "saved", r->learned_saved, LEARNED_DECIMALS);
        if (ok) {
                json_put(err, o, "version", json_object_new_int(l->version));
                json_put(err, o, "managed_pages", json_object_new_uint64(l->managed_pages));
        } else {
                json_put_null(err, o, "version");
                json_put_null(err, o, "managed_pages");
        }
        /* a rate of 0 is not known: null, as infinity is */
        bool kswapd = l->kswapd_capacity_pages_per_sec > 0;
        json_put_number(err, o, "kswapd_capacity_pages_per_sec",
                        kswapd ? l->kswapd_capacity_pages_per_sec : NAN, LEARNED_DECIMALS);
        json_put_number(err, o, "kswapd_updated", kswapd ? l->kswapd_updated : NAN, LEARNED_DECIMALS);
        for (int kind = 0; kind < LEARN_KINDS; kind++)
                for (int c = 0; c < LEARN_CLASSES; c++)
                        if (l->classes[kind][c].known)
                                json_append(err, classes, jclass(err, l, (enum learn_kind)kind, c));
        for (size_t i = 0; i < l->nr_history; i++)
                json_append(err, episodes, jepisode(err, &l->history[i]));
        json_put(err, o, "classes", classes);
        json_put(err, o, "episodes", episodes);
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
        json_put(&err, o, "learned", jlearned(&err, r));
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

/* A Unix time as local time for a person. */
static void format_when(char *buf, size_t size, double time)
{
        time_t t = (time_t)time;
        struct tm tm;
        snprintf(buf, size, "?");
        if (isfinite(time) && localtime_r(&t, &tm))
                strftime(buf, size, "%Y-%m-%d %H:%M:%S", &tm);
}

static void text_decisions(FILE *out, json_object *recent)
{
        size_t n = json_object_array_length(recent);
        fprintf(out, "  recent decisions:%s\n", n ? "" : " none");
        for (size_t i = 0; i < n; i++) {
                json_object *e = json_object_array_get_idx(recent, i);
                char when[32];
                format_when(when, sizeof(when), json_object_get_double(json_get(e, "time")));
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
        json_object *held = json_get(w, "raises_held");     /* checked by live_check() */
        if (held && strcmp(json_object_get_string(held), "none") != 0)
                fprintf(out, "  raises held back (%s): kswapd cannot use a higher watermark now\n",
                        json_object_get_string(held));
        text_forecast(out, r, json_get(l, "forecast"));
        text_decisions(out, json_get(l, "recent_decisions"));
        text_counters(out, json_get(l, "counters"));
}

/* One known class of the learned state, as a line. */
static void text_class(FILE *out, const struct learned *l, enum learn_kind kind, int c)
{
        const struct learn_class *k = &l->classes[kind][c];
        char rate[32], rate2[32], when[32];
        format_rate(rate, sizeof(rate), class_demand(c, l->managed_pages));
        format_rate(rate2, sizeof(rate2), class_demand(c + 1, l->managed_pages));
        format_when(when, sizeof(when), k->updated);
        fprintf(out, "  peak demand %s to %s%s: wsf %.0f, after %u episodes (%u stalled), the last %s\n", rate,
                rate2, kind == LEARN_THP ? ", mostly huge pages" : "", dceil(k->wsf), k->episodes, k->stalled, when);
}

static void text_learned(FILE *out, const struct status_report *r)
{
        const struct learned *l = &r->learned;
        char when[32], rate[32];
        if (r->learned_state == LEARNED_NONE) {
                fprintf(out, "learnt: nothing yet (no %s)\n", r->learned_file);
                return;
        }
        if (r->learned_state == LEARNED_UNUSABLE) {
                fprintf(out, "learnt: unusable, the daemon starts from nothing (%s)\n", r->learned_error);
                return;
        }
        format_when(when, sizeof(when), r->learned_saved);
        fprintf(out, "learnt (%s, saved %s): on a machine of %llu managed pages\n", r->learned_file, when,
                (unsigned long long)l->managed_pages);
        if (l->kswapd_capacity_pages_per_sec > 0) {
                format_rate(rate, sizeof(rate), l->kswapd_capacity_pages_per_sec);
                format_when(when, sizeof(when), l->kswapd_updated);
                fprintf(out, "  kswapd reclaimed up to %s (%s)\n", rate, when);
        }
        for (int kind = 0; kind < LEARN_KINDS; kind++)
                for (int c = 0; c < LEARN_CLASSES; c++)
                        if (l->classes[kind][c].known)
                                text_class(out, l, (enum learn_kind)kind, c);
        if (l->nr_history == 0)
                return;
        const struct learn_episode *e = &l->history[l->nr_history - 1];
        format_when(when, sizeof(when), e->start);
        format_rate(rate, sizeof(rate), e->peak_demand_pages_per_sec);
        fprintf(out, "  %zu episodes kept; the last %s, %.1f s, peak demand %s, %.0f pages taken, free came within %.0f pages of min, wsf up to %ld, %llu stalls\n",
                l->nr_history, when, e->duration, rate, e->demand_pages, e->min_margin_pages, e->wsf_max,
                (unsigned long long)e->stalls);
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
        text_learned(out, r);
}
