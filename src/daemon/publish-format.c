/* The two published formats: live.json (json-c) and the Prometheus text
 * exposition format. Field and metric meanings: docs/status-json.md and
 * memoptimizer(8), METRICS. */
#include "publish-format.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "build-config.h"
#include "util.h"

#define MS_PER_SEC 1000.0

const char *publish_mode_str(enum publish_mode m)
{
        static const char *const s[] = {
                [MODE_ACTING] = "acting", [MODE_DRY_RUN] = "dry-run",
                [MODE_MONITOR_ONLY] = "monitor-only",
        };
        return s[m];
}

double publish_heartbeat(const struct config *cfg)
{
        return dmax(LIVE_HEARTBEAT, cfg->interval);
}

/* Every json_put*() leaves -ENOMEM in *err when an allocation failed, and
 * publish_live_json() then writes nothing rather than nulls (util.h). */
static json_object *live_wsf(int *err, const struct publish_input *in)
{
        json_object *o = json_object_new_object();
        if (in->sample)
                json_put(err, o, "kernel", json_object_new_int64(in->sample->wsf));
        else
                json_put_null(err, o, "kernel");
        json_put(err, o, "decided", json_object_new_int64(in->policy->current));
        json_put(err, o, "baseline", json_object_new_int64(in->policy->baseline));
        if (in->decision)
                json_put(err, o, "ceiling", json_object_new_int64(in->decision->ceiling));
        else
                json_put_null(err, o, "ceiling");
        json_put(err, o, "raises_held", json_object_new_string(raise_hold_str(in->policy->hold)));
        return o;
}

static json_object *live_zone(int *err, const struct zone_forecast *z)
{
        json_object *o = json_object_new_object();
        json_put(err, o, "node", json_object_new_int(z->node));
        json_put(err, o, "zone", json_object_new_string(z->name));
        json_put(err, o, "trend", json_object_new_boolean(z->trend));
        json_put_number(err, o, "free_pages_per_second", z->free_fit.slope, 1);
        json_put_number(err, o, "seconds_to_low", z->secs_to_low, 3);
        json_put_number(err, o, "seconds_to_min", z->secs_to_min, 3);
        return o;
}

static json_object *live_node(int *err, const struct forecast *f, const struct node_forecast *n)
{
        json_object *o = json_object_new_object(), *orders = json_object_new_array();
        json_put(err, o, "node", json_object_new_int(n->node));
        for (unsigned k = 1; k <= f->max_order; k++) {
                json_object *e = json_object_new_object();
                json_put(err, e, "order", json_object_new_int((int)k));
                json_put_number(err, e, "seconds_to_exhaustion", n->secs_to_exhaust[k], 3);
                json_put_number(err, e, "free_pages_in_blocks", n->free_at_order[k], 0);
                json_put_number(err, e, "unusable_index", n->extfrag[k], 4);
                json_append(err, orders, e);
        }
        json_put(err, o, "orders", orders);
        return o;
}

static void live_forecast(int *err, json_object *doc, const struct forecast *f)
{
        if (!f) {
                json_put_null(err, doc, "forecast");
                return;
        }
        json_object *o = json_object_new_object(), *zones = json_object_new_array(),
                    *nodes = json_object_new_array();
        for (size_t i = 0; i < f->nr_zones; i++)
                json_append(err, zones, live_zone(err, &f->zones[i]));
        for (size_t i = 0; i < f->nr_nodes; i++)
                json_append(err, nodes, live_node(err, f, &f->nodes[i]));
        json_put(err, o, "zones", zones);
        json_put(err, o, "nodes", nodes);
        json_put_number(err, o, "kswapd_pages_per_second", f->kswapd_rate, 1);
        json_put_number(err, o, "direct_reclaim_pages_per_second", f->direct_rate, 1);
        json_put(err, o, "stalls_last_interval",
                 json_object_new_int64((int64_t)(f->allocstalls + f->compact_stalls)));
        json_put(err, doc, "forecast", o);
}

static json_object *live_recent(int *err, const struct publisher *p)
{
        json_object *a = json_object_new_array();
        for (size_t i = 0; i < p->nr_recent; i++) {
                const struct publish_event *e = &p->recent[i];
                json_object *o = json_object_new_object();
                json_put_number(err, o, "time", e->time, 3);
                json_put(err, o, "kind", json_object_new_string(e->kind));
                json_put(err, o, "wsf_old", json_object_new_int64(e->wsf_old));
                json_put(err, o, "wsf_new", json_object_new_int64(e->wsf_new));
                if (e->node >= 0)
                        json_put(err, o, "node", json_object_new_int(e->node));
                else
                        json_put_null(err, o, "node");
                if (e->zone[0])
                        json_put(err, o, "zone", json_object_new_string(e->zone));
                else
                        json_put_null(err, o, "zone");
                if (e->order >= 0)
                        json_put(err, o, "order", json_object_new_int(e->order));
                else
                        json_put_null(err, o, "order");
                json_put(err, o, "reason", json_object_new_string(e->reason));
                json_append(err, a, o);
        }
        return a;
}

static json_object *live_counters(int *err, const struct publish_counters *n, double cpu)
{
        json_object *o = json_object_new_object(), *dec = json_object_new_object();
        for (int r = WSF_KEEP + 1; r < PUBLISH_WSF_KINDS; r++)
                json_put(err, dec, wsf_reason_str((enum wsf_reason)r), json_object_new_int64((int64_t)n->decisions[r]));
        json_put(err, o, "decisions", dec);
        json_put(err, o, "compactions", json_object_new_int64((int64_t)n->compactions));
        json_put(err, o, "compaction_backoffs", json_object_new_int64((int64_t)n->backoffs));
        json_put(err, o, "samples", json_object_new_int64((int64_t)n->samples));
        json_put(err, o, "sample_errors", json_object_new_int64((int64_t)n->sample_errors));
        json_put_number(err, o, "cpu_seconds", cpu, 3);
        return o;
}

char *publish_live_json(const struct publisher *p, const struct publish_input *in,
                        double now_real, double cpu_seconds)
{
        int err = 0;
        json_object *o = json_object_new_object();
        json_put(&err, o, "schema_version", json_object_new_int(LIVE_SCHEMA_VERSION));
        json_put(&err, o, "version", json_object_new_string(PACKAGE_VERSION));
        json_put(&err, o, "pid", json_object_new_int((int)getpid()));
        /* with the pid, how `status` knows this process (process.h) */
        if (p->start_ticks)
                json_put(&err, o, "pid_start_ticks", json_object_new_uint64(p->start_ticks));
        else
                json_put_null(&err, o, "pid_start_ticks");
        json_put(&err, o, "mode", json_object_new_string(publish_mode_str(in->mode)));
        json_put_number(&err, o, "started", p->started, 3);
        json_put_number(&err, o, "updated", now_real, 3);
        json_put_number(&err, o, "interval_seconds", in->cfg->interval, 3);
        json_put_number(&err, o, "heartbeat_seconds", publish_heartbeat(in->cfg), 3);
        json_put(&err, o, "watermark_scale_factor", live_wsf(&err, in));
        live_forecast(&err, o, in->forecast);
        json_put(&err, o, "recent_decisions", live_recent(&err, p));
        json_put(&err, o, "counters", live_counters(&err, &p->n, cpu_seconds));
        return json_text(o, err, JSON_C_TO_STRING_PLAIN);
}

/* ---- Prometheus text exposition format, version 0.0.4 ---- */

static void family(FILE *f, const char *name, const char *type, const char *help)
{
        fprintf(f, "# HELP memoptimizer_%s %s\n# TYPE memoptimizer_%s %s\n", name, help, name, type);
}

static void value(FILE *f, double v)
{
        if (isnan(v))
                fputs(" NaN\n", f);
        else if (isinf(v))
                fputs(v > 0 ? " +Inf\n" : " -Inf\n", f);
        else
                fprintf(f, " %.15g\n", v);
}

/* Label values are kernel zone names and fixed words; escape anyway. */
static void label(FILE *f, const char *name, const char *v, bool first)
{
        fprintf(f, "%s%s=\"", first ? "" : ",", name);
        for (; *v; v++) {
                if (*v == '\\' || *v == '"')
                        fputc('\\', f);
                if (*v == '\n')
                        fputs("\\n", f);
                else
                        fputc(*v, f);
        }
        fputc('"', f);
}

/* One sample of a zone's series, memoptimizer_NAME{node="N",zone="Z"} V,
 * with one more label KEY="VAL" when key and val are not NULL. */
static void zone_series(FILE *f, const char *name, int node, const char *zone, const char *key,
                        const char *val, double v)
{
        fprintf(f, "memoptimizer_%s{node=\"%d\",", name, node);
        label(f, "zone", zone, true);
        if (key && val)
                label(f, key, val, false);
        fputc('}', f);
        value(f, v);
}

/* The same with an order label. */
static void order_series(FILE *f, const char *name, const struct zone *z, unsigned k, double v)
{
        char order[16];
        snprintf(order, sizeof(order), "%u", k);
        zone_series(f, name, z->node, z->name, "order", order, v);
}

static void metrics_wsf(FILE *f, const struct publish_input *in)
{
        family(f, "watermark_scale_factor", "gauge", "vm.watermark_scale_factor in force in the kernel.");
        fputs("memoptimizer_watermark_scale_factor", f);
        value(f, (double)in->sample->wsf);
        family(f, "watermark_scale_factor_decided", "gauge",
               "Scale factor the daemon decided; differs from the kernel's only in dry-run and monitor-only mode.");
        fputs("memoptimizer_watermark_scale_factor_decided", f);
        value(f, (double)in->policy->current);
        family(f, "watermark_scale_factor_baseline", "gauge",
               "Scale factor found at start (or set by another process since), restored on exit.");
        fputs("memoptimizer_watermark_scale_factor_baseline", f);
        value(f, (double)in->policy->baseline);
        if (!in->decision)
                return;
        family(f, "watermark_scale_factor_ceiling", "gauge",
               "Highest scale factor allowed now: max_wsf, the kernel's limit and the OOM guard.");
        fputs("memoptimizer_watermark_scale_factor_ceiling", f);
        value(f, (double)in->decision->ceiling);
}

static void metrics_zones(FILE *f, const struct sample *s)
{
        double page = (double)sysconf(_SC_PAGESIZE);
        family(f, "zone_managed_bytes", "gauge", "Memory managed by the zone's buddy allocator.");
        for (size_t i = 0; i < s->nr_zones; i++)
                zone_series(f, "zone_managed_bytes", s->zones[i].node, s->zones[i].name, NULL, NULL,
                            (double)s->zones[i].managed_pages * page);
        family(f, "zone_free_bytes", "gauge", "Free memory in the zone (/proc/buddyinfo).");
        for (size_t i = 0; i < s->nr_zones; i++)
                zone_series(f, "zone_free_bytes", s->zones[i].node, s->zones[i].name, NULL, NULL,
                            (double)s->zones[i].free_pages * page);
        family(f, "zone_watermark_bytes", "gauge", "The zone's min, low and high watermarks (/proc/zoneinfo).");
        for (size_t i = 0; i < s->nr_zones; i++) {
                const struct zone *z = &s->zones[i];
                const uint64_t w[] = { z->wmark_min, z->wmark_low, z->wmark_high };
                const char *const names[] = { "min", "low", "high" };
                for (size_t j = 0; j < ARRAY_SIZE(w); j++)
                        zone_series(f, "zone_watermark_bytes", z->node, z->name, "watermark", names[j],
                                    (double)w[j] * page);
        }
}

static void metrics_orders(FILE *f, const struct sample *s)
{
        family(f, "zone_free_blocks", "gauge", "Free blocks of each order in the zone (/proc/buddyinfo).");
        for (size_t i = 0; i < s->nr_zones; i++)
                for (unsigned k = 0; k < s->nr_orders; k++)
                        order_series(f, "zone_free_blocks", &s->zones[i], k, (double)s->zones[i].nr_free[k]);
        family(f, "zone_unusable_free_ratio", "gauge",
               "Unusable free space index: share of the zone's free memory not in blocks of at least this order.");
        for (size_t i = 0; i < s->nr_zones; i++)
                for (unsigned k = 1; k < s->nr_orders; k++)
                        order_series(f, "zone_unusable_free_ratio", &s->zones[i], k,
                                     zone_unusable_index(&s->zones[i], s->nr_orders, k));
}

static void metrics_forecast(FILE *f, const struct forecast *fc)
{
        if (!fc)
                return;         /* no forecast yet: the series are absent */
        static const char *const tail = " +Inf: not at the current trend; 0: already there.";
        char help[200];
        snprintf(help, sizeof(help), "Forecast seconds until the zone's free memory reaches its low watermark.%s", tail);
        family(f, "forecast_low_watermark_seconds", "gauge", help);
        snprintf(help, sizeof(help), "Forecast seconds until the zone's free memory reaches its min watermark.%s", tail);
        family(f, "forecast_min_watermark_seconds", "gauge", help);
        for (size_t i = 0; i < fc->nr_zones; i++) {
                const struct zone_forecast *z = &fc->zones[i];
                zone_series(f, "forecast_low_watermark_seconds", z->node, z->name, NULL, NULL, z->secs_to_low);
                zone_series(f, "forecast_min_watermark_seconds", z->node, z->name, NULL, NULL, z->secs_to_min);
        }
        snprintf(help, sizeof(help), "Forecast seconds until the node has no free block of this order or higher.%s", tail);
        family(f, "forecast_order_exhaustion_seconds", "gauge", help);
        for (size_t i = 0; i < fc->nr_nodes; i++)
                for (unsigned k = 1; k <= fc->max_order; k++) {
                        fprintf(f, "memoptimizer_forecast_order_exhaustion_seconds{node=\"%d\",order=\"%u\"}",
                                fc->nodes[i].node, k);
                        value(f, fc->nodes[i].secs_to_exhaust[k]);
                }
}

static void counter(FILE *f, const char *name, const char *help, double v)
{
        family(f, name, "counter", help);
        fprintf(f, "memoptimizer_%s", name);
        value(f, v);
}

static void metrics_counters(FILE *f, const struct publisher *p, const struct sample *s, double cpu)
{
        family(f, "decisions_total", "counter",
               "Scale factor decisions by kind, carried out or (dry-run, monitor-only) not.");
        for (int r = WSF_KEEP + 1; r < PUBLISH_WSF_KINDS; r++)
                fprintf(f, "memoptimizer_decisions_total{kind=\"%s\"} %llu\n",
                        wsf_reason_str((enum wsf_reason)r), (unsigned long long)p->n.decisions[r]);
        counter(f, "compactions_total", "Compactions decided (triggered only when acting).",
                (double)p->n.compactions);
        counter(f, "compaction_backoffs_total", "Compactions that made no new blocks, so the node's next one was deferred.",
                (double)p->n.backoffs);
        counter(f, "samples_total", "Samples of the kernel's memory state taken.", (double)p->n.samples);
        counter(f, "sample_errors_total", "Samples skipped because reading /proc failed.", (double)p->n.sample_errors);
        counter(f, "kernel_allocstalls_total", "Allocation stalls since boot (sum of allocstall_* in /proc/vmstat).",
                (double)s->vm.allocstall);
        counter(f, "kernel_compact_stalls_total", "Compaction stalls since boot (compact_stall in /proc/vmstat).",
                (double)s->vm.compact_stall);
        counter(f, "process_cpu_seconds_total", "User and system CPU time the daemon has used.", cpu);
}

static void metrics_process(FILE *f, const struct publisher *p, const struct publish_input *in, double now)
{
        family(f, "build_info", "gauge", "Always 1; the version in a label.");
        fprintf(f, "memoptimizer_build_info{version=\"%s\"} 1\n", PACKAGE_VERSION);
        family(f, "mode", "gauge", "1 for the mode the daemon is in: acting, dry-run or monitor-only.");
        for (int m = MODE_ACTING; m <= MODE_MONITOR_ONLY; m++)
                fprintf(f, "memoptimizer_mode{mode=\"%s\"} %d\n", publish_mode_str((enum publish_mode)m),
                        m == (int)in->mode);
        family(f, "process_start_time_seconds", "gauge", "Start time of the daemon since the Unix epoch.");
        fputs("memoptimizer_process_start_time_seconds", f);
        value(f, dfloor(p->started));
        family(f, "last_sample_timestamp_seconds", "gauge", "Time of the sample this file reports, since the Unix epoch.");
        fputs("memoptimizer_last_sample_timestamp_seconds", f);
        value(f, dfloor(now * MS_PER_SEC) / MS_PER_SEC);        /* to the millisecond */
        family(f, "interval_seconds", "gauge", "The sampling interval configured.");
        fputs("memoptimizer_interval_seconds", f);
        value(f, in->cfg->interval);
}

char *publish_metrics_text(const struct publisher *p, const struct publish_input *in,
                           double now_real, double cpu_seconds)
{
        if (!in->sample)
                return NULL;
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (!f)
                return NULL;
        metrics_process(f, p, in, now_real);
        metrics_wsf(f, in);
        metrics_zones(f, in->sample);
        metrics_orders(f, in->sample);
        metrics_forecast(f, in->forecast);
        metrics_counters(f, p, in->sample, cpu_seconds);
        bool failed = ferror(f);        /* out of memory while writing */
        if (fclose(f) != 0 || failed) {
                free(buf);
                return NULL;
        }
        return buf;
}
