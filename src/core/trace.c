/* The trace format: one JSON object per line, written and read with json-c. */
#include "trace.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "util.h"

/* More pages than any machine has (4 EiB of 4 KiB pages): bounds every
 * count so that sums and shifts of them cannot overflow. */
#define TRACE_MAX_PAGES (UINT64_C(1) << 50)
/* Page counts kept as doubles (forecast figures), and the figures of a
 * decision (pages, pages per second, seconds): beyond any machine. */
#define TRACE_MAX_PAGES_DBL 1e18
#define TRACE_MAX_FIGURE 1e18
/* Times and durations, seconds: about 30,000 years of uptime. */
#define TRACE_MAX_SEC 1e12
/* Far above any kernel's limit (3000 today). */
#define TRACE_MAX_WSF 1000000L
/* The interval a trace may say it was recorded at, seconds. */
#define TRACE_INTERVAL_MIN_SEC 0.001
#define TRACE_INTERVAL_MAX_SEC 3600
/* Page and PMD sizes, bytes: the smallest page Linux has (512 B) to 1 GiB,
 * a huge page up to 1 TiB. */
#define TRACE_PAGE_SIZE_MIN 512
#define TRACE_PAGE_SIZE_MAX (INT64_C(1) << 30)
#define TRACE_PMD_SIZE_MAX (INT64_C(1) << 40)
/* Nesting deeper than a trace needs (line, zones, zone, nr_free) is refused. */
#define TRACE_MAX_DEPTH 8

struct u64_field { const char *name; size_t offset; };

#define VM(n) { #n, offsetof(struct vmstat, n) }
static const struct u64_field vmstat_fields[] = {
        VM(pgsteal_kswapd), VM(pgsteal_direct), VM(pgscan_kswapd), VM(pgscan_direct),
        VM(allocstall), VM(compact_stall), VM(compact_success), VM(compact_fail),
        VM(pgalloc), VM(kswapd_low_wmark_hit_quickly), VM(nr_free_pages), VM(oom_kill),
};
#undef VM
#define MI(n) { #n, offsetof(struct meminfo, n) }
static const struct u64_field meminfo_fields[] = {
        MI(mem_total), MI(mem_free), MI(mem_available), MI(active_file), MI(inactive_file),
        MI(hugepages_total), MI(hugepages_free), MI(anon_huge),
};
/* optional (traces before 0.2 lack them): all or none */
static const struct u64_field meminfo_parts_fields[] = { MI(anon_pages), MI(shmem), MI(dirty), MI(writeback) };
/* optional (traces before 0.4.9 lack it) */
static const struct u64_field meminfo_swap_fields[] = { MI(swap_free) };
#undef MI
#define ZF(n) { #n, offsetof(struct zone, n) }
static const struct u64_field zone_fields[] = {
        ZF(managed_pages), ZF(wmark_min), ZF(wmark_low), ZF(wmark_high),
};
#undef ZF

/* Optional numbers of a decision, null when infinite. */
struct dbl_field { const char *name; size_t offset; };
#define DF(n) { #n, offsetof(struct decision, n) }
static const struct dbl_field decision_numbers[] = {
        DF(secs_to_low), DF(secs_to_min), DF(drain), DF(reclaim), DF(reclaim_peak), DF(direct),
};
/* Why a raise was sized as it was, in the optional "why" object (traces
 * before 0.2 lack it): all or none. Not negative, but for when a recurring
 * episode is due: one that is late is due in less than no time. */
static const struct dbl_field decision_why_numbers[] = {
        DF(thp), DF(cover), { "recur_period", offsetof(struct decision, recur.period) },
};
#define RECUR_DUE_IN "recur_due_in"

#undef DF

static uint64_t *u64_at(void *base, size_t offset)
{
        return (uint64_t *)((char *)base + offset);
}

static double dbl_get(const void *base, size_t offset)
{
        double v;
        memcpy(&v, (const char *)base + offset, sizeof(v));
        return v;
}

/* ---- writing ----------------------------------------------------------- */

/* Every json_put*() below leaves -ENOMEM in *err when an allocation failed;
 * line_of() then drops the whole line (util.h). */
static void put_u64s(int *err, json_object *o, const void *base, const struct u64_field *f, size_t n)
{
        for (size_t i = 0; i < n; i++)
                json_put(err, o, f[i].name, json_object_new_uint64(*u64_at((void *)base, f[i].offset)));
}

/* The object as one line of text (no newline), taking it; NULL when out of
 * memory, now or while it was built (err). */
static char *line_of(json_object *o, int err)
{
        return json_text(o, err, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
}

int trace_wall_offset(const struct trace_header *h, double first_sample_time, double *offset)
{
        double started = utc_parse(h->started, true);
        if (started >= 0 && h->has_started_mono) {
                *offset = started - h->started_mono;
                return 0;
        }
        if (started < 0)
                started = utc_parse(h->started, false);
        if (started < 0)
                return -EINVAL;
        *offset = started - first_sample_time;
        return 1;
}

char *trace_header_line(const struct trace_header *h)
{
        int err = 0;
        json_object *o = json_object_new_object();
        json_put(&err, o, "type", json_object_new_string("header"));
        json_put(&err, o, "format", json_object_new_string(TRACE_FORMAT));
        json_put(&err, o, "version", json_object_new_int(TRACE_VERSION));
        json_put(&err, o, "source", json_object_new_string(h->source));
        json_put(&err, o, "program", json_object_new_string(h->program));
        json_put(&err, o, "kernel", json_object_new_string(h->kernel));
        json_put(&err, o, "started", json_object_new_string(h->started));
        if (h->has_started_mono)
                json_put_number(&err, o, "started_mono", h->started_mono, 6);
        json_put_number(&err, o, "interval", h->interval, 3);
        json_put(&err, o, "page_size", json_object_new_int64(h->page_size));
        json_put(&err, o, "thp_pmd_size", json_object_new_int64(h->thp_pmd_size));
        return line_of(o, err);
}

static json_object *zone_json(int *err, const struct zone *z, unsigned nr_orders)
{
        json_object *o = json_object_new_object(), *free = json_object_new_array();
        json_put(err, o, "node", json_object_new_int(z->node));
        json_put(err, o, "zone", json_object_new_string(z->name));
        put_u64s(err, o, z, zone_fields, ARRAY_SIZE(zone_fields));
        if (z->node_unreclaimable)      /* only when true: traces before 0.3.3 lack it */
                json_put(err, o, "node_unreclaimable", json_object_new_boolean(true));
        for (unsigned k = 0; k < nr_orders && k < ORDER_CAP; k++)
                json_append(err, free, json_object_new_uint64(z->nr_free[k]));
        json_put(err, o, "nr_free", free);
        return o;
}

char *trace_sample_line(const struct sample *s)
{
        int err = 0;
        json_object *o = json_object_new_object(), *zones = json_object_new_array(),
                    *vm = json_object_new_object(), *mem = json_object_new_object();
        json_put(&err, o, "type", json_object_new_string("sample"));
        json_put_number(&err, o, "t", s->time, 6);
        json_put(&err, o, "wsf", json_object_new_int64(s->wsf));
        json_put(&err, o, "nr_orders", json_object_new_int((int)s->nr_orders));
        for (size_t i = 0; i < s->nr_zones; i++)
                json_append(&err, zones, zone_json(&err, &s->zones[i], s->nr_orders));
        json_put(&err, o, "zones", zones);
        put_u64s(&err, vm, &s->vm, vmstat_fields, ARRAY_SIZE(vmstat_fields));
        json_put(&err, o, "vmstat", vm);
        put_u64s(&err, mem, &s->mem, meminfo_fields, ARRAY_SIZE(meminfo_fields));
        if (s->mem.parts_known)
                put_u64s(&err, mem, &s->mem, meminfo_parts_fields, ARRAY_SIZE(meminfo_parts_fields));
        if (s->mem.swap_known)
                put_u64s(&err, mem, &s->mem, meminfo_swap_fields, ARRAY_SIZE(meminfo_swap_fields));
        json_put(&err, o, "meminfo", mem);
        if (s->onset)
                json_put(&err, o, "onset", json_object_new_boolean(true));
        return line_of(o, err);
}

bool trace_decision_worth(const struct decision *d)
{
        return d->reason != WSF_KEEP || d->nr_compact > 0 || d->nr_backoff > 0;
}

static json_object *compact_json(int *err, const struct decision *d)
{
        json_object *a = json_object_new_array();
        for (size_t i = 0; i < d->nr_compact; i++) {
                const struct compact_order *c = &d->compact[i];
                json_object *o = json_object_new_object();
                json_put(err, o, "node", json_object_new_int(c->node));
                json_put(err, o, "order", json_object_new_int((int)c->order));
                json_put_number(err, o, "secs_to_exhaust", c->secs_to_exhaust, 3);
                json_put_number(err, o, "free_at_order", c->free_at_order, 0);
                json_put_number(err, o, "extfrag", c->extfrag, 4);
                if (c->stalled)
                        json_put(err, o, "stalled", json_object_new_boolean(true));
                if (c->released)
                        json_put(err, o, "released", json_object_new_boolean(true));
                json_append(err, a, o);
        }
        return a;
}

static json_object *backoff_json(int *err, const struct decision *d)
{
        json_object *a = json_object_new_array();
        for (size_t i = 0; i < d->nr_backoff; i++) {
                const struct compact_backoff *b = &d->backoff[i];
                json_object *o = json_object_new_object();
                json_put(err, o, "node", json_object_new_int(b->node));
                json_put(err, o, "order", json_object_new_int((int)b->order));
                json_put(err, o, "defer_shift", json_object_new_int((int)b->defer_shift));
                json_put_number(err, o, "before", b->before, 0);
                json_put_number(err, o, "after", b->after, 0);
                json_put_number(err, o, "retry_in", b->retry_in, 3);
                if (b->too_slow)
                        json_put(err, o, "too_slow", json_object_new_boolean(true));
                if (b->faulted_blocks > 0) {
                        json_put(err, o, "fault_stalls", json_object_new_int64((int64_t)b->fault_stalls));
                        json_put_number(err, o, "faulted_blocks", b->faulted_blocks, 1);
                }
                json_append(err, a, o);
        }
        return a;
}

static json_object *why_json(int *err, const struct decision *d)
{
        json_object *w = json_object_new_object();
        json_put(err, w, "onset", json_object_new_boolean(d->onset));
        json_put(err, w, "wake_capped", json_object_new_boolean(d->wake_capped));
        json_put(err, w, "paced", json_object_new_boolean(d->paced));
        json_put(err, w, "reclaim_capped", json_object_new_boolean(d->reclaim_capped));
        json_put(err, w, "demand_class", json_object_new_int(d->demand_class));
        json_put(err, w, "demand_thp", json_object_new_boolean(d->demand_kind == LEARN_THP));
        json_put(err, w, "learned_wsf", json_object_new_int64(d->learned_wsf));
        json_put(err, w, "learned_above", json_object_new_int(d->learned_above));
        json_put(err, w, "learned_thp", json_object_new_boolean(d->learned_kind == LEARN_THP));
        json_put(err, w, "recur_episodes", json_object_new_int64(d->recur.episodes));
        for (size_t i = 0; i < ARRAY_SIZE(decision_why_numbers); i++)
                json_put_number(err, w, decision_why_numbers[i].name, dbl_get(d, decision_why_numbers[i].offset), 3);
        json_put_number(err, w, RECUR_DUE_IN, d->recur_due_in, 3);
        json_put_number(err, w, "thp_cover", d->thp_cover, 3);
        return w;
}

char *trace_decision_line(const struct trace_decision *td)
{
        const struct decision *d = &td->d;
        int err = 0;
        json_object *o = json_object_new_object();
        json_put(&err, o, "type", json_object_new_string("decision"));
        json_put_number(&err, o, "t", td->time, 6);
        json_put(&err, o, "acting", json_object_new_boolean(td->acting));
        json_put(&err, o, "reason", json_object_new_string(wsf_reason_str(d->reason)));
        json_put(&err, o, "wsf_old", json_object_new_int64(d->wsf_old));
        json_put(&err, o, "wsf_new", json_object_new_int64(d->wsf_new));
        json_put(&err, o, "ceiling", json_object_new_int64(d->ceiling));
        json_put(&err, o, "node", json_object_new_int(d->node));
        json_put(&err, o, "zone", json_object_new_string(d->zone));
        for (size_t i = 0; i < ARRAY_SIZE(decision_numbers); i++)
                json_put_number(&err, o, decision_numbers[i].name, dbl_get(d, decision_numbers[i].offset), 3);
        json_put(&err, o, "stalls", json_object_new_uint64(d->stalls));
        json_put(&err, o, "why", why_json(&err, d));
        json_put(&err, o, "compact", compact_json(&err, d));
        json_put(&err, o, "backoff", backoff_json(&err, d));
        return line_of(o, err);
}

/* ---- parsing ----------------------------------------------------------- */

struct perr {
        char *buf;
        size_t size;
};

/* The message into e, and -EBADMSG (a macro, so that static analysis sees
 * the error returned). */
#define fail(e, ...) (snprintf((e)->buf, (e)->size, __VA_ARGS__), -EBADMSG)
/* Out of memory is no fault of the line. */
#define fail_nomem(e) (snprintf((e)->buf, (e)->size, "%s", strerror(ENOMEM)), -ENOMEM)

static int int_value(json_object *v, const char *key, int64_t min, int64_t max, int64_t *out,
                     const struct perr *e)
{
        if (!v)
                return fail(e, "\"%s\" is missing", key);
        if (!json_object_is_type(v, json_type_int))
                return fail(e, "\"%s\" is not an integer", key);
        errno = 0;
        int64_t i = json_object_get_int64(v);
        if (i < min || i > max)
                return fail(e, "\"%s\" is out of range (%lld..%lld)", key, (long long)min, (long long)max);
        *out = i;
        return 0;
}

static int get_int(json_object *o, const char *key, int64_t min, int64_t max, int64_t *out,
                   const struct perr *e)
{
        return int_value(json_get(o, key), key, min, max, out, e);
}

/* A number in [min, max]; null means infinity where `null_inf`. */
static int get_num(json_object *o, const char *key, double min, double max, bool null_inf,
                   double *out, const struct perr *e)
{
        json_object *v = json_get(o, key);
        if (!v && !json_object_object_get_ex(o, key, NULL))
                return fail(e, "\"%s\" is missing", key);
        if (!v) {
                if (!null_inf)
                        return fail(e, "\"%s\" is null", key);
                *out = INFINITY;
                return 0;
        }
        if (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int))
                return fail(e, "\"%s\" is not a number", key);
        double d = json_object_get_double(v);
        if (!isfinite(d) || d < min || d > max)
                return fail(e, "\"%s\" is out of range (%g..%g)", key, min, max);
        *out = d;
        return 0;
}

/* Names (zones, reasons, sources) are short and plain; anything else is
 * refused rather than printed to a terminal. */
static bool plain(const char *s)
{
        for (; *s; s++)
                if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
                      (*s >= '0' && *s <= '9') || *s == '_' || *s == '-'))
                        return false;
        return true;
}

/* A string copied into buf; `name_only` restricts it to plain names. */
static int get_str(json_object *o, const char *key, char *buf, size_t size, bool name_only,
                   const struct perr *e)
{
        json_object *v = json_get(o, key);
        if (!v)
                return fail(e, "\"%s\" is missing", key);
        if (!json_object_is_type(v, json_type_string))
                return fail(e, "\"%s\" is not a string", key);
        const char *s = json_object_get_string(v);
        size_t n = (size_t)json_object_get_string_len(v);
        if (n >= size || strlen(s) != n)
                return fail(e, "\"%s\" is too long or has a NUL byte", key);
        if (name_only && !plain(s))
                return fail(e, "\"%s\" has characters other than letters, digits, '_' and '-'", key);
        memcpy(buf, s, n + 1);
        return 0;
}

static int get_object(json_object *o, const char *key, json_type type, json_object **out,
                      const struct perr *e)
{
        json_object *v = json_get(o, key);
        if (!v)
                return fail(e, "\"%s\" is missing", key);
        if (!json_object_is_type(v, type))
                return fail(e, "\"%s\" is not %s", key, type == json_type_array ? "an array" : "an object");
        *out = v;
        return 0;
}

static int get_u64s(json_object *o, void *base, const struct u64_field *f, size_t n, uint64_t max,
                    const struct perr *e)
{
        for (size_t i = 0; i < n; i++) {
                int64_t v;
                int r = get_int(o, f[i].name, 0, (int64_t)max, &v, e);
                if (r < 0)
                        return r;
                *u64_at(base, f[i].offset) = (uint64_t)v;
        }
        return 0;
}

static int parse_header(json_object *o, struct trace_header *h, const struct perr *e)
{
        char format[32];
        int64_t v;
        int r;
        if ((r = get_str(o, "format", format, sizeof(format), false, e)) < 0)
                return r;
        if (strcmp(format, TRACE_FORMAT) != 0)
                return fail(e, "format is not \"" TRACE_FORMAT "\"");
        if ((r = get_int(o, "version", 0, INT32_MAX, &v, e)) < 0)
                return r;
        if (v != TRACE_VERSION)
                return fail(e, "trace format version %lld; this memoptimizer reads version %d",
                            (long long)v, TRACE_VERSION);
        *h = (struct trace_header){ .version = (int)v };
        int64_t page, pmd;
        if ((r = get_str(o, "source", h->source, sizeof(h->source), true, e)) < 0 ||
            (r = get_str(o, "program", h->program, sizeof(h->program), false, e)) < 0 ||
            (r = get_str(o, "kernel", h->kernel, sizeof(h->kernel), false, e)) < 0 ||
            (r = get_str(o, "started", h->started, sizeof(h->started), false, e)) < 0 ||
            (r = get_num(o, "interval", TRACE_INTERVAL_MIN_SEC, TRACE_INTERVAL_MAX_SEC, false, &h->interval,
                         e)) < 0 ||
            (r = get_int(o, "page_size", TRACE_PAGE_SIZE_MIN, TRACE_PAGE_SIZE_MAX, &page, e)) < 0 ||
            (r = get_int(o, "thp_pmd_size", 0, TRACE_PMD_SIZE_MAX, &pmd, e)) < 0)
                return r;
        h->page_size = (long)page;
        h->thp_pmd_size = (long)pmd;
        h->has_started_mono = json_object_object_get_ex(o, "started_mono", NULL);
        if (h->has_started_mono &&
            (r = get_num(o, "started_mono", 0, TRACE_MAX_SEC, false, &h->started_mono, e)) < 0)
                return r;
        return 0;
}

/* An optional true/false: written only when true, so absent is false. */
static int get_flag(json_object *o, const char *key, bool *out, const struct perr *e)
{
        json_object *v = json_get(o, key);
        if (v && !json_object_is_type(v, json_type_boolean))
                return fail(e, "\"%s\" is not true or false", key);
        *out = v && json_object_get_boolean(v);
        return 0;
}

static int parse_zone(json_object *o, unsigned nr_orders, struct zone *z, const struct perr *e)
{
        if (!json_object_is_type(o, json_type_object))
                return fail(e, "a zone is not an object");
        int64_t node;
        json_object *free;
        int r;
        *z = (struct zone){ 0 };
        if ((r = get_int(o, "node", 0, NODE_ID_MAX, &node, e)) < 0 ||
            (r = get_str(o, "zone", z->name, sizeof(z->name), true, e)) < 0 ||
            (r = get_u64s(o, z, zone_fields, ARRAY_SIZE(zone_fields), TRACE_MAX_PAGES, e)) < 0 ||
            (r = get_flag(o, "node_unreclaimable", &z->node_unreclaimable, e)) < 0 ||
            (r = get_object(o, "nr_free", json_type_array, &free, e)) < 0)
                return r;
        z->node = (int)node;
        if (z->name[0] == '\0')
                return fail(e, "a zone has an empty name");
        if (z->managed_pages == 0)
                return fail(e, "zone %s has no managed pages", z->name);
        if (json_object_array_length(free) != nr_orders)
                return fail(e, "zone %s has %zu free counts, not nr_orders %u", z->name,
                            json_object_array_length(free), nr_orders);
        for (unsigned k = 0; k < nr_orders; k++) {
                int64_t v;
                char key[48];
                snprintf(key, sizeof(key), "nr_free[%u] of zone %s", k, z->name);
                /* blocks of order k: their pages must stay within the bound */
                if ((r = int_value(json_object_array_get_idx(free, k), key, 0,
                                   (int64_t)(TRACE_MAX_PAGES >> k), &v, e)) < 0)
                        return r;
                z->nr_free[k] = (uint64_t)v;
        }
        zone_sum_orders(z, nr_orders);
        return 0;
}

static int parse_sample(json_object *o, struct sample *s, const struct perr *e)
{
        int64_t wsf, orders;
        json_object *zones, *vm, *mem;
        int r;
        if ((r = get_num(o, "t", 0, TRACE_MAX_SEC, false, &s->time, e)) < 0 ||
            (r = get_int(o, "wsf", 0, TRACE_MAX_WSF, &wsf, e)) < 0 ||
            (r = get_int(o, "nr_orders", 1, ORDER_CAP, &orders, e)) < 0 ||
            (r = get_object(o, "zones", json_type_array, &zones, e)) < 0 ||
            (r = get_object(o, "vmstat", json_type_object, &vm, e)) < 0 ||
            (r = get_object(o, "meminfo", json_type_object, &mem, e)) < 0)
                return r;
        s->wsf = (long)wsf;
        s->nr_orders = (unsigned)orders;
        size_t n = json_object_array_length(zones);
        if (n == 0 || n > TRACE_ZONE_CAP)
                return fail(e, "\"zones\" has %zu entries; 1..%d allowed", n, TRACE_ZONE_CAP);
        struct zone *z = realloc(s->zones, n * sizeof(*z));
        if (!z)
                return fail_nomem(e);
        s->zones = z;
        s->nr_zones = n;
        for (size_t i = 0; i < n; i++)
                if ((r = parse_zone(json_object_array_get_idx(zones, i), s->nr_orders, &z[i], e)) < 0)
                        return r;
        if ((r = get_u64s(vm, &s->vm, vmstat_fields, ARRAY_SIZE(vmstat_fields), INT64_MAX, e)) < 0 ||
            (r = get_u64s(mem, &s->mem, meminfo_fields, ARRAY_SIZE(meminfo_fields), TRACE_MAX_PAGES, e)) < 0)
                return r;
        /* optional: what the workload holds, all or none (older traces lack it) */
        size_t parts = 0;
        for (size_t i = 0; i < ARRAY_SIZE(meminfo_parts_fields); i++)
                parts += json_object_object_get_ex(mem, meminfo_parts_fields[i].name, NULL);
        if (parts != 0 && parts != ARRAY_SIZE(meminfo_parts_fields))
                return fail(e, "\"meminfo\" has some of \"anon_pages\", \"shmem\", \"dirty\" and \"writeback\" but not all");
        s->mem.parts_known = parts != 0;
        s->mem.anon_pages = s->mem.shmem = s->mem.dirty = s->mem.writeback = 0;
        if (s->mem.parts_known &&
            (r = get_u64s(mem, &s->mem, meminfo_parts_fields, ARRAY_SIZE(meminfo_parts_fields), TRACE_MAX_PAGES, e)) < 0)
                return r;
        s->mem.swap_known = json_object_object_get_ex(mem, "swap_free", NULL);
        s->mem.swap_free = 0;
        if (s->mem.swap_known &&
            (r = get_u64s(mem, &s->mem, meminfo_swap_fields, ARRAY_SIZE(meminfo_swap_fields), TRACE_MAX_PAGES, e)) < 0)
                return r;
        /* optional: a sample the fast path took early */
        return get_flag(o, "onset", &s->onset, e);
}

static int parse_reason(json_object *o, enum wsf_reason *out, const struct perr *e)
{
        char s[WSF_REASON_NAME_MAX];
        int r = get_str(o, "reason", s, sizeof(s), true, e);
        if (r < 0)
                return r;
        for (int i = WSF_KEEP; i < _WSF_REASONS; i++)
                if (strcmp(s, wsf_reason_str((enum wsf_reason)i)) == 0) {
                        *out = (enum wsf_reason)i;
                        return 0;
                }
        return fail(e, "unknown reason \"%s\"", s);
}

static int parse_compact(json_object *a, struct decision *d, const struct perr *e)
{
        size_t n = json_object_array_length(a);
        if (n > POLICY_NODE_CAP)
                return fail(e, "\"compact\" has more than %d entries", POLICY_NODE_CAP);
        for (size_t i = 0; i < n; i++) {
                json_object *o = json_object_array_get_idx(a, i);
                struct compact_order *c = &d->compact[i];
                int64_t node, order;
                int r;
                if (!json_object_is_type(o, json_type_object))
                        return fail(e, "a compaction is not an object");
                if ((r = get_int(o, "node", 0, NODE_ID_MAX, &node, e)) < 0 ||
                    (r = get_int(o, "order", 0, ORDER_CAP - 1, &order, e)) < 0 ||
                    (r = get_num(o, "secs_to_exhaust", 0, TRACE_MAX_SEC, true, &c->secs_to_exhaust, e)) < 0 ||
                    (r = get_num(o, "free_at_order", 0, TRACE_MAX_PAGES_DBL, false, &c->free_at_order, e)) < 0 ||
                    (r = get_num(o, "extfrag", 0, 1, false, &c->extfrag, e)) < 0 ||
                    (r = get_flag(o, "stalled", &c->stalled, e)) < 0 ||  /* optional: before 0.4.3 */
                    (r = get_flag(o, "released", &c->released, e)) < 0)        /* before 0.4.10 */
                        return r;
                if (c->stalled && c->released)
                        return fail(e, "a compaction asked for by stalls and by a release at once");
                c->node = (int)node;
                c->order = (unsigned)order;
        }
        d->nr_compact = n;
        return 0;
}

/* Optional (before 0.4.11 a compaction was judged by its blocks only): the
 * huge-page faults a compaction was judged by, both or neither. */
static int parse_fault_judgement(json_object *o, struct compact_backoff *b, const struct perr *e)
{
        bool stalls = json_object_object_get_ex(o, "fault_stalls", NULL);
        bool blocks = json_object_object_get_ex(o, "faulted_blocks", NULL);
        int64_t n;
        int r;
        b->fault_stalls = 0;
        b->faulted_blocks = 0;
        if (stalls != blocks)
                return fail(e, "a back-off has one of \"fault_stalls\" and \"faulted_blocks\" but not both");
        if (!stalls)
                return 0;
        if ((r = get_int(o, "fault_stalls", 0, INT64_MAX, &n, e)) < 0 ||
            (r = get_num(o, "faulted_blocks", 0, TRACE_MAX_PAGES_DBL, false, &b->faulted_blocks, e)) < 0)
                return r;
        b->fault_stalls = (uint64_t)n;
        return 0;
}

static int parse_backoff(json_object *a, struct decision *d, const struct perr *e)
{
        size_t n = json_object_array_length(a);
        if (n > POLICY_NODE_CAP)
                return fail(e, "\"backoff\" has more than %d entries", POLICY_NODE_CAP);
        for (size_t i = 0; i < n; i++) {
                json_object *o = json_object_array_get_idx(a, i);
                struct compact_backoff *b = &d->backoff[i];
                int64_t node, order, shift;
                int r;
                if (!json_object_is_type(o, json_type_object))
                        return fail(e, "a back-off is not an object");
                if ((r = get_int(o, "node", 0, NODE_ID_MAX, &node, e)) < 0 ||
                    (r = get_int(o, "order", 0, ORDER_CAP - 1, &order, e)) < 0 ||
                    (r = get_int(o, "defer_shift", 0, POLICY_MAX_DEFER_SHIFT, &shift, e)) < 0 ||
                    (r = get_num(o, "before", 0, TRACE_MAX_PAGES_DBL, false, &b->before, e)) < 0 ||
                    (r = get_num(o, "after", 0, TRACE_MAX_PAGES_DBL, false, &b->after, e)) < 0 ||
                    (r = get_num(o, "retry_in", 0, TRACE_MAX_SEC, false, &b->retry_in, e)) < 0 ||
                    (r = get_flag(o, "too_slow", &b->too_slow, e)) < 0 ||     /* optional: before 0.4.3 */
                    (r = parse_fault_judgement(o, b, e)) < 0)
                        return r;
                b->node = (int)node;
                b->order = (unsigned)order;
                b->defer_shift = (unsigned)shift;
        }
        d->nr_backoff = n;
        return 0;
}

static int get_bool(json_object *o, const char *key, bool *out, const struct perr *e)
{
        json_object *v = json_get(o, key);
        if (!v)
                return fail(e, "\"%s\" is missing", key);
        if (!json_object_is_type(v, json_type_boolean))
                return fail(e, "\"%s\" is not true or false", key);
        *out = json_object_get_boolean(v);
        return 0;
}

/* A boolean a later version added to "why": absent, *out keeps what the
 * caller set (what the daemons before it did). */
static int get_bool_since(json_object *o, const char *key, bool *out, const struct perr *e)
{
        return json_object_object_get_ex(o, key, NULL) ? get_bool(o, key, out, e) : 0;
}

/* Absent in older traces, each read as what those daemons did: "demand_thp"
 * (0.4.13; before it classes had no kind) as base pages; "learned_above"
 * and "learned_thp" (0.4.14; before them where a learnt value came from
 * was not recorded) as the demand's own class and kind. */
static int parse_why_learned(json_object *w, struct decision *d, const struct perr *e)
{
        bool thp = false;
        int r;
        if ((r = get_bool_since(w, "demand_thp", &thp, e)) < 0)
                return r;
        d->demand_kind = thp ? LEARN_THP : LEARN_BASE;
        bool learned_thp = thp;
        if ((r = get_bool_since(w, "learned_thp", &learned_thp, e)) < 0)
                return r;
        d->learned_kind = learned_thp ? LEARN_THP : LEARN_BASE;
        int64_t above = 0;
        if (json_object_object_get_ex(w, "learned_above", NULL) &&
            (r = get_int(w, "learned_above", -(LEARN_CLASSES - 1), LEARN_CLASSES - 1, &above, e)) < 0)
                return r;
        /* the class it names must be one: the log prints its number */
        int64_t from = d->demand_class + above;
        if (above != 0 && (d->demand_class < 0 || from < 0 || from >= LEARN_CLASSES))
                return fail(e, "\"learned_above\" %lld names no class from \"demand_class\" %d", (long long)above,
                            d->demand_class);
        d->learned_above = (int)above;
        return 0;
}

/* The optional "why" of a decision: all its fields, or no "why" at all. */
static int parse_why(json_object *o, struct trace_decision *td, const struct perr *e)
{
        struct decision *d = &td->d;
        json_object *w;
        int64_t class, learned, episodes;
        int r;
        d->demand_class = -1;
        d->learned_wsf = -1;
        if (!json_object_object_get_ex(o, "why", NULL))
                return 0;
        if ((r = get_object(o, "why", json_type_object, &w, e)) < 0 ||
            (r = get_bool(w, "onset", &d->onset, e)) < 0 ||
            (r = get_bool(w, "wake_capped", &d->wake_capped, e)) < 0 ||
            (r = get_int(w, "demand_class", -1, LEARN_CLASSES - 1, &class, e)) < 0 ||
            (r = get_int(w, "learned_wsf", -1, TRACE_MAX_WSF, &learned, e)) < 0 ||
            (r = get_int(w, "recur_episodes", 0, UINT32_MAX, &episodes, e)) < 0)
                return r;
        for (size_t i = 0; i < ARRAY_SIZE(decision_why_numbers); i++) {
                double v;
                if ((r = get_num(w, decision_why_numbers[i].name, 0, TRACE_MAX_FIGURE, true, &v, e)) < 0)
                        return r;
                memcpy((char *)d + decision_why_numbers[i].offset, &v, sizeof(v));
        }
        if ((r = get_num(w, RECUR_DUE_IN, -TRACE_MAX_FIGURE, TRACE_MAX_FIGURE, true, &d->recur_due_in, e)) < 0)
                return r;
        /* Later than the rest of "why": before it a raise's huge pages were
         * covered for as long as the rest of the shortfall. */
        d->thp_cover = d->cover;
        if (json_object_object_get_ex(w, "thp_cover", NULL) &&
            (r = get_num(w, "thp_cover", 0, TRACE_MAX_FIGURE, false, &d->thp_cover, e)) < 0)
                return r;
        /* Later still (0.3.9): before it no raise was lifted to a floor. */
        if ((r = get_bool_since(w, "paced", &d->paced, e)) < 0)
                return r;
        /* Later still (0.4.9): before it no raise was held to reclaim_cap. */
        if ((r = get_bool_since(w, "reclaim_capped", &d->reclaim_capped, e)) < 0)
                return r;
        d->demand_class = (int)class;
        if ((r = parse_why_learned(w, d, e)) < 0)
                return r;
        d->learned_wsf = (long)learned;
        d->recur.episodes = (unsigned)episodes;
        td->why_recorded = true;
        return 0;
}

static int parse_decision(json_object *o, struct trace_decision *td, const struct perr *e)
{
        struct decision *d = &td->d;
        json_object *acting, *compact, *backoff;
        int64_t wsf_old, wsf_new, ceiling, node, stalls;
        int r;
        *td = (struct trace_decision){ 0 };
        if ((r = get_num(o, "t", 0, TRACE_MAX_SEC, false, &td->time, e)) < 0 ||
            (r = parse_reason(o, &d->reason, e)) < 0 ||
            (r = get_int(o, "wsf_old", 0, TRACE_MAX_WSF, &wsf_old, e)) < 0 ||
            (r = get_int(o, "wsf_new", 0, TRACE_MAX_WSF, &wsf_new, e)) < 0 ||
            (r = get_int(o, "ceiling", 0, TRACE_MAX_WSF, &ceiling, e)) < 0 ||
            (r = get_int(o, "node", -1, NODE_ID_MAX, &node, e)) < 0 ||
            (r = get_str(o, "zone", d->zone, sizeof(d->zone), true, e)) < 0 ||
            (r = get_int(o, "stalls", 0, INT64_MAX, &stalls, e)) < 0 ||
            (r = get_object(o, "acting", json_type_boolean, &acting, e)) < 0 ||
            (r = get_object(o, "compact", json_type_array, &compact, e)) < 0 ||
            (r = get_object(o, "backoff", json_type_array, &backoff, e)) < 0)
                return r;
        for (size_t i = 0; i < ARRAY_SIZE(decision_numbers); i++) {
                double v;
                if ((r = get_num(o, decision_numbers[i].name, -TRACE_MAX_FIGURE, TRACE_MAX_FIGURE, true, &v, e)) < 0)
                        return r;
                memcpy((char *)d + decision_numbers[i].offset, &v, sizeof(v));
        }
        td->acting = json_object_get_boolean(acting);
        d->wsf_old = (long)wsf_old;
        d->wsf_new = (long)wsf_new;
        d->ceiling = (long)ceiling;
        d->node = (int)node;
        d->stalls = (uint64_t)stalls;
        if ((r = parse_why(o, td, e)) < 0 || (r = parse_compact(compact, d, e)) < 0)
                return r;
        return parse_backoff(backoff, d, e);
}

static int parse_object(json_object *o, struct trace_record *rec, const struct perr *e)
{
        char type[16];
        if (!json_object_is_type(o, json_type_object))
                return fail(e, "not a JSON object");
        int r = get_str(o, "type", type, sizeof(type), true, e);
        if (r < 0)
                return r;
        if (strcmp(type, "header") == 0) {
                rec->type = TRACE_HEADER;
                return parse_header(o, &rec->header, e);
        }
        if (strcmp(type, "sample") == 0) {
                rec->type = TRACE_SAMPLE;
                return parse_sample(o, &rec->sample, e);
        }
        if (strcmp(type, "decision") == 0) {
                rec->type = TRACE_DECISION;
                return parse_decision(o, &rec->decision, e);
        }
        return fail(e, "unknown type \"%s\"", type);
}

int trace_parse_line(const char *line, size_t len, struct trace_record *rec, char *err, size_t errsz)
{
        const struct perr e = { err, errsz };
        if (len > TRACE_LINE_MAX)
                return fail(&e, "line longer than %u bytes", TRACE_LINE_MAX);
        if (memchr(line, '\0', len))
                return fail(&e, "NUL byte in the line");
        struct json_tokener *tok = json_tokener_new_ex(TRACE_MAX_DEPTH);
        if (!tok)
                return fail_nomem(&e);
        json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
        json_object *o = json_tokener_parse_ex(tok, line, (int)len);
        enum json_tokener_error je = json_tokener_get_error(tok);
        size_t end = json_tokener_get_parse_end(tok);
        json_tokener_free(tok);
        int r;
        if (!o && (je == json_tokener_continue || je == json_tokener_success))
                r = fail(&e, "incomplete JSON object (cut short?)");
        else if (!o)
                r = fail(&e, "invalid JSON: %s", json_tokener_error_desc(je));
        else if (end < len && strspn(line + end, " \t\r") < len - end)
                r = fail(&e, "text after the JSON object");
        else
                r = parse_object(o, rec, &e);
        json_object_put(o);
        return r;
}

void trace_record_free(struct trace_record *rec)
{
        sample_free(&rec->sample);
}
