/* The learned state as text (learn.h: learn_format(), learn_parse()): one
 * record a line, a keyword and then name-value pairs, in a fixed order:
 *
 *   # comment lines (only before the version line)
 *   version 3
 *   machine managed_pages N
 *   kswapd unknown | kswapd capacity_pages_per_sec X at TIME
 *   class C wsf X episodes N stalled N updated TIME         (known base classes, C increasing)
 *   thp_class C wsf X episodes N stalled N updated TIME     (known THP classes, C increasing)
 *   episode start TIME duration X peak_demand_pages_per_sec X
 *           peak_thp_pages_per_sec X demand_pages X
 *           min_margin_pages X wsf_max N stalls N            (one line; oldest first)
 *
 * Version 1, which knew no kinds, is read too: it has no thp_class lines
 * and no peak_thp_pages_per_sec, and each of its classes stands for both
 * kinds (what the daemon had learnt is kept across the upgrade).
 *
 * N: a whole number; X: fixed decimal with three places; TIME: UTC,
 * 2026-11-23T12:41:10.123Z. The parser takes nothing else: no other
 * spacing, no exponent, no NaN. */
#include "learn.h"
#include "util.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bounds of what the text may hold: wider than anything real, so that the
 * learner's values always fit, narrow enough that no number in range can
 * overflow what is computed from it. learn_format() writes a value beyond
 * them at the bound, so its output is always accepted.
 * Pages: 10^15 (4 EiB of 4 KiB pages). Rates: 10^12 pages/s (4 PB/s).
 * Scale factors: LEARN_WSF_MAX (10000), the learner's own cap: there the
 * low-min gap is the whole zone, above any kernel's limit.
 * Durations: 10^9 s. Times: years 1970 to 9999. */
#define PAGES_MAX 1e15
#define COUNT_MAX UINT64_C(1000000000000000)   /* PAGES_MAX, for whole numbers */
#define RATE_MAX 1e12
#define SECS_MAX 1e9
#define LINE_MAX_LEN 512
#define TOKENS_MAX 24

static double clamp(double v, double lo, double hi)
{
        return v >= lo ? (v <= hi ? v : hi) : lo;       /* NaN: lo */
}

/* ---- format ---- */

struct text {
        char *p;
        size_t len, cap;
        bool failed;
};

__attribute__((format(printf, 2, 3))) static void put(struct text *t, const char *fmt, ...)
{
        for (;;) {
                va_list ap;
                va_start(ap, fmt);
                /* NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized): false positive of clang 14 */
                int n = t->failed ? 0 : vsnprintf(t->p + t->len, t->cap - t->len, fmt, ap);
                va_end(ap);
                if (t->failed || n < 0) {
                        t->failed = true;
                        return;
                }
                if ((size_t)n < t->cap - t->len) {
                        t->len += (size_t)n;
                        return;
                }
                size_t cap = t->cap * 2 + (size_t)n + 1;
                char *p = realloc(t->p, cap);
                if (!p) {
                        t->failed = true;
                        return;
                }
                t->p = p;
                t->cap = cap;
        }
}

/* A sample time as UTC with milliseconds. */
static void put_time(struct text *t, double time, double wall_offset)
{
        char buf[UTC_MILLIS_SIZE];
        utc_format(time + wall_offset, buf, sizeof(buf));
        put(t, "%s", buf);
}

static void put_kswapd(struct text *t, const struct learned *l, double wall_offset)
{
        if (!(l->kswapd_capacity_pages_per_sec > 0)) {
                put(t, "kswapd unknown\n");
                return;
        }
        put(t, "kswapd capacity_pages_per_sec %.3f at ", clamp(l->kswapd_capacity_pages_per_sec, 0, RATE_MAX));
        put_time(t, l->kswapd_updated, wall_offset);
        put(t, "\n");
}

static void put_class(struct text *t, enum learn_kind kind, int c, const struct learn_class *k,
                      double wall_offset)
{
        put(t, "%s %d wsf %.3f episodes %u stalled %u updated ", kind == LEARN_THP ? "thp_class" : "class", c,
            clamp(k->wsf, 0, LEARN_WSF_MAX), k->episodes, k->stalled < k->episodes ? k->stalled : k->episodes);
        put_time(t, k->updated, wall_offset);
        put(t, "\n");
}

static void put_episode(struct text *t, const struct learn_episode *e, double wall_offset)
{
        put(t, "episode start ");
        put_time(t, e->start, wall_offset);
        put(t, " duration %.3f peak_demand_pages_per_sec %.3f peak_thp_pages_per_sec %.3f demand_pages %.3f min_margin_pages %.3f wsf_max %ld stalls %" PRIu64 "\n",
            clamp(e->duration, 0, SECS_MAX), clamp(e->peak_demand_pages_per_sec, 0, RATE_MAX),
            clamp(e->peak_thp_pages_per_sec, 0, RATE_MAX), clamp(e->demand_pages, 0, PAGES_MAX), clamp(e->min_margin_pages, -PAGES_MAX, PAGES_MAX),
            e->wsf_max < 0 ? 0 : e->wsf_max > (long)LEARN_WSF_MAX ? (long)LEARN_WSF_MAX : e->wsf_max,
            e->stalls < COUNT_MAX ? e->stalls : COUNT_MAX);
}

int learn_format(const struct learned *l, double wall_offset, char **text)
{
        struct text t = { .p = malloc(4096), .cap = 4096 };
        t.failed = !t.p;
        put(&t, "# memoptimizer learned state: what past memory pressure episodes taught the daemon.\n"
                "# Written by memoptimizer (memoptimizer(8), LEARNED STATE); `memoptimizer forget` deletes it.\n"
                "# Times are UTC; rates in pages per second; wsf is vm.watermark_scale_factor.\n"
                "# class C: episodes whose peak demand was 2^C to 2^(C+1) permyriad of managed memory a second;\n"
                "# thp_class C: of those, the ones whose demand was at least half transparent huge pages.\n"
                "version %d\n"
                "machine managed_pages %" PRIu64 "\n",
            LEARN_VERSION, l->managed_pages < COUNT_MAX ? l->managed_pages : COUNT_MAX);
        put_kswapd(&t, l, wall_offset);
        for (int kind = 0; kind < LEARN_KINDS; kind++)
                for (int c = 0; c < LEARN_CLASSES; c++)
                        if (l->classes[kind][c].known)
                                put_class(&t, (enum learn_kind)kind, c, &l->classes[kind][c], wall_offset);
        for (size_t i = 0; i < l->nr_history && i < LEARN_HISTORY; i++)
                put_episode(&t, &l->history[i], wall_offset);
        if (t.failed) {
                free(t.p);
                *text = NULL;
                return -ENOMEM;
        }
        *text = t.p;
        return 0;
}

/* ---- parse ---- */

enum kind { NUMBER_WHOLE, NUMBER_FIXED, NUMBER_TIME };

/* A value of a line: after its name, or bare (its name only for messages). */
struct field {
        const char *name;
        bool bare;
        enum kind kind;
        double min, max;
        int since;              /* the text version that added it (the version
                                 * line's own: 0, read before any is known) */
};

struct line_spec {
        const char *keyword;
        const struct field *fields;
        size_t nr_fields;
};

static const struct field version_fields[] = { { "version", true, NUMBER_WHOLE, 0, 1e9, 0 } };
static const struct field machine_fields[] = { { "managed_pages", false, NUMBER_WHOLE, 0, PAGES_MAX, 1 } };
static const struct field kswapd_fields[] = {
        { "capacity_pages_per_sec", false, NUMBER_FIXED, 0, RATE_MAX, 1 },
        { "at", false, NUMBER_TIME, 0, UTC_MAX, 1 },
};
static const struct field class_fields[] = {
        { "class", true, NUMBER_WHOLE, 0, LEARN_CLASSES - 1, 1 },
        { "wsf", false, NUMBER_FIXED, 0, LEARN_WSF_MAX, 1 },
        { "episodes", false, NUMBER_WHOLE, 0, UINT32_MAX, 1 },
        { "stalled", false, NUMBER_WHOLE, 0, UINT32_MAX, 1 },
        { "updated", false, NUMBER_TIME, 0, UTC_MAX, 1 },
};
static const struct field episode_fields[] = {
        { "start", false, NUMBER_TIME, 0, UTC_MAX, 1 },
        { "duration", false, NUMBER_FIXED, 0, SECS_MAX, 1 },
        { "peak_demand_pages_per_sec", false, NUMBER_FIXED, 0, RATE_MAX, 1 },
        { "peak_thp_pages_per_sec", false, NUMBER_FIXED, 0, RATE_MAX, 3 },
        { "demand_pages", false, NUMBER_FIXED, 0, PAGES_MAX, 1 },
        { "min_margin_pages", false, NUMBER_FIXED, -PAGES_MAX, PAGES_MAX, 1 },
        { "wsf_max", false, NUMBER_WHOLE, 0, LEARN_WSF_MAX, 1 },
        { "stalls", false, NUMBER_WHOLE, 0, PAGES_MAX, 1 },
};

#define SPEC(kw, f) { kw, f, sizeof(f) / sizeof((f)[0]) }
static const struct line_spec version_line = SPEC("version", version_fields);
static const struct line_spec machine_line = SPEC("machine", machine_fields);
static const struct line_spec kswapd_line = SPEC("kswapd", kswapd_fields);
static const struct line_spec class_line = SPEC("class", class_fields);
static const struct line_spec episode_line = SPEC("episode", episode_fields);

struct parser {
        unsigned line;
        int version;            /* of the text: 1 or LEARN_VERSION */
        int last_class[LEARN_KINDS];    /* the last class line's C, per kind; -1 none */
        char *err;
        size_t errsz;
};

__attribute__((format(printf, 2, 3))) static int fail(struct parser *p, const char *fmt, ...)
{
        int n = snprintf(p->err, p->errsz, "%u: ", p->line);
        if (n >= 0 && (size_t)n < p->errsz) {
                va_list ap;
                va_start(ap, fmt);
                /* NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized): false positive of clang 14 */
                vsnprintf(p->err + n, p->errsz - (size_t)n, fmt, ap);
                va_end(ap);
        }
        return -EBADMSG;
}

/* Whether a text of `version` has the field (the version line itself is
 * read before the version is known, as 0: it has no later fields). */
static bool has_field(const struct field *f, int version)
{
        return f->since <= version;
}

/* "class C wsf X ...": what a line of the spec looks like in a text of
 * `version`, for messages. */
static void usage(const struct line_spec *s, int version, char *buf, size_t size)
{
        static const char *const placeholder[] = {
                [NUMBER_WHOLE] = "N", [NUMBER_FIXED] = "X", [NUMBER_TIME] = "TIME"
        };
        size_t n = (size_t)snprintf(buf, size, "%s", s->keyword);
        for (size_t i = 0; i < s->nr_fields && n < size; i++) {
                const struct field *f = &s->fields[i];
                if (!has_field(f, version))
                        continue;
                n += (size_t)snprintf(buf + n, size - n, "%s%s %s", f->bare ? "" : " ", f->bare ? "" : f->name,
                                      placeholder[f->kind]);
        }
}

/* A whole number or a fixed decimal with three places, exactly as
 * learn_format() writes them; NAN when it is neither. */
static double parse_number(const char *s, enum kind kind)
{
        const char *p = s + (kind == NUMBER_FIXED && *s == '-');
        size_t whole = strspn(p, "0123456789");
        if (whole == 0 || whole > 16 || (whole > 1 && *p == '0'))
                return NAN;
        if (kind == NUMBER_WHOLE ? p[whole] != '\0' :
            p[whole] != '.' || strspn(p + whole + 1, "0123456789") != 3 || p[whole + 4] != '\0')
                return NAN;
        return strtod(s, NULL);         /* exact enough: at most 20 digits, checked above */
}

static int parse_value(struct parser *p, const struct field *f, const char *tok, double *v)
{
        const char *name = f->name;
        *v = f->kind == NUMBER_TIME ? utc_parse(tok, true) : parse_number(tok, f->kind);
        if (f->kind == NUMBER_TIME && *v < 0)
                return fail(p, "%s: '%s' is not a UTC time like 2026-11-23T12:41:10.123Z", name, tok);
        if (isnan(*v))
                return fail(p, "%s: '%s' is not a number written as %s", name, tok,
                            f->kind == NUMBER_WHOLE ? "a whole number" : "a decimal with three places");
        if (*v < f->min || *v > f->max)
                return fail(p, "%s %s out of range (%.0f to %.0f)", name, tok, f->min, f->max);
        return 0;
}

/* The values of a line of spec s into v[s->nr_fields]. */
static int parse_fields(struct parser *p, const struct line_spec *s, char **tok, size_t ntok, double *v)
{
        size_t want = 1;
        for (size_t i = 0; i < s->nr_fields; i++)
                if (has_field(&s->fields[i], p->version))
                        want += s->fields[i].bare ? 1 : 2;
        bool ok = ntok == want;
        for (size_t i = 0, t = 1; ok && i < s->nr_fields; i++)
                if (!has_field(&s->fields[i], p->version))
                        v[i] = 0;       /* not in this version's text */
                else if (!s->fields[i].bare && strcmp(tok[t++], s->fields[i].name) != 0)
                        ok = false;
                else if (parse_value(p, &s->fields[i], tok[t++], &v[i]) < 0)
                        return -EBADMSG;
        if (!ok) {
                char u[256];
                usage(s, p->version, u, sizeof(u));
                return fail(p, "expected '%s'", u);
        }
        return 0;
}

/* What the parser expects next: the lines come in this order. */
enum stage { WANT_VERSION, WANT_MACHINE, WANT_KSWAPD, IN_CLASSES, IN_THP_CLASSES, IN_EPISODES };

static int parse_kswapd(struct parser *p, struct learned *l, char **tok, size_t ntok, double off)
{
        double v[2];
        if (ntok == 2 && strcmp(tok[1], "unknown") == 0)
                return 0;
        if (parse_fields(p, &kswapd_line, tok, ntok, v) < 0)
                return -EBADMSG;
        l->kswapd_capacity_pages_per_sec = v[0];
        l->kswapd_updated = v[1] - off;
        return 0;
}

/* A class line of kind `kind`; version 1's stand for both kinds. */
static int parse_class(struct parser *p, struct learned *l, enum learn_kind kind, char **tok, size_t ntok,
                       double off)
{
        double v[5];
        if (parse_fields(p, &class_line, tok, ntok, v) < 0)
                return -EBADMSG;
        int c = (int)v[0], *last = &p->last_class[kind];
        if (c <= *last)
                return fail(p, "%s %d after %s %d: classes come once each, in increasing order", tok[0], c, tok[0],
                            *last);
        if (v[3] > v[2])
                return fail(p, "stalled %.0f of only %.0f episodes", v[3], v[2]);
        *last = c;
        struct learn_class k = {
                .known = true, .wsf = v[1], .episodes = (unsigned)v[2], .stalled = (unsigned)v[3],
                .updated = v[4] - off,
        };
        l->classes[kind][c] = k;
        if (p->version == 1)
                l->classes[LEARN_THP][c] = k;
        return 0;
}

static int parse_episode(struct parser *p, struct learned *l, char **tok, size_t ntok, double off)
{
        /* peak_thp_pages_per_sec is 0 in a version 1 text: taken as base pages */
        double v[sizeof(episode_fields) / sizeof(episode_fields[0])];
        if (parse_fields(p, &episode_line, tok, ntok, v) < 0)
                return -EBADMSG;
        if (l->nr_history == LEARN_HISTORY)
                return fail(p, "more than %d episodes", LEARN_HISTORY);
        l->history[l->nr_history++] = (struct learn_episode){
                .start = v[0] - off, .duration = v[1], .peak_demand_pages_per_sec = v[2],
                .peak_thp_pages_per_sec = v[3], .demand_pages = v[4], .min_margin_pages = v[5],
                .wsf_max = (long)v[6], .stalls = (uint64_t)v[7],
        };
        return 0;
}

/* One line (NUL-terminated, without its newline). */
static int parse_line(struct parser *p, struct learned *l, char *s, double off, enum stage *stage)
{
        static const char *const next[] = {
                [WANT_VERSION] = "version", [WANT_MACHINE] = "machine", [WANT_KSWAPD] = "kswapd",
        };
        if (*s == '#' && *stage == WANT_VERSION)
                return 0;
        char *tok[TOKENS_MAX];
        size_t ntok = 0;
        for (char *t = s;; t++) {
                char *sp = strchr(t, ' ');
                if (ntok == 0 && *t == '\0')
                        return fail(p, "an empty line");
                if (ntok == TOKENS_MAX || sp == t || *t == '\0')
                        return fail(p, ntok == TOKENS_MAX ? "too many words" : "a space too many");
                tok[ntok++] = t;
                if (!sp)
                        break;
                *sp = '\0';
                t = sp;
        }
        double v;
        if (*stage < IN_CLASSES && strcmp(tok[0], next[*stage]) != 0)
                return fail(p, "expected the '%s' line, not '%s'", next[*stage], tok[0]);
        switch (*stage) {
        case WANT_VERSION:
                v = ntok == 2 ? parse_number(tok[1], NUMBER_WHOLE) : NAN;
                if (ntok == 2 && v != 1 && v != LEARN_VERSION)
                        return fail(p, "version %s; this memoptimizer reads versions 1 and %d", tok[1],
                                    LEARN_VERSION);
                if (parse_fields(p, &version_line, tok, ntok, &v) < 0)
                        return -EBADMSG;
                p->version = (int)v;
                l->version = p->version;
                *stage = WANT_MACHINE;
                return 0;
        case WANT_MACHINE:
                if (parse_fields(p, &machine_line, tok, ntok, &v) < 0)
                        return -EBADMSG;
                l->managed_pages = (uint64_t)v;
                *stage = WANT_KSWAPD;
                return 0;
        case WANT_KSWAPD:
                *stage = IN_CLASSES;
                return parse_kswapd(p, l, tok, ntok, off);
        case IN_CLASSES:
                if (strcmp(tok[0], "class") == 0)
                        return parse_class(p, l, LEARN_BASE, tok, ntok, off);
                *stage = IN_THP_CLASSES;
                /* fall through */
        case IN_THP_CLASSES:
                if (strcmp(tok[0], "thp_class") == 0 && p->version > 1)
                        return parse_class(p, l, LEARN_THP, tok, ntok, off);
                if (strcmp(tok[0], "class") == 0)
                        return fail(p, "a 'class' line after a 'thp_class' line: class lines come first");
                *stage = IN_EPISODES;
                /* fall through */
        case IN_EPISODES:
                if (strcmp(tok[0], "class") == 0 || (strcmp(tok[0], "thp_class") == 0 && p->version > 1))
                        return fail(p, "a '%s' line after an 'episode' line: classes come first", tok[0]);
                if (strcmp(tok[0], "episode") != 0)
                        return fail(p, p->version > 1 ? "expected a 'class', 'thp_class' or 'episode' line, not '%s'" :
                                                        "expected a 'class' or 'episode' line, not '%s'", tok[0]);
                return parse_episode(p, l, tok, ntok, off);
        }
        return fail(p, "unexpected line");
}

static int parse(struct learned *l, const char *text, size_t len, double off, struct parser *p)
{
        static const char *const missing[] = {
                [WANT_VERSION] = "version", [WANT_MACHINE] = "machine", [WANT_KSWAPD] = "kswapd",
        };
        if (len > LEARN_TEXT_MAX) {
                p->line = 1;
                return fail(p, "the text is longer than %d bytes", LEARN_TEXT_MAX);
        }
        enum stage stage = WANT_VERSION;
        for (int k = 0; k < LEARN_KINDS; k++)
                p->last_class[k] = -1;
        char line[LINE_MAX_LEN + 1];
        for (size_t pos = 0; pos < len;) {
                p->line++;
                const char *nl = memchr(text + pos, '\n', len - pos);
                size_t n = nl ? (size_t)(nl - (text + pos)) : len - pos;
                if (n > LINE_MAX_LEN)
                        return fail(p, "longer than %d bytes", LINE_MAX_LEN);
                if (!nl)
                        return fail(p, "no newline at its end: the text was cut short");
                for (size_t i = 0; i < n; i++)
                        if (text[pos + i] < 0x20 || text[pos + i] > 0x7e)
                                return fail(p, "a byte 0x%02x that is not printable ASCII",
                                            (unsigned char)text[pos + i]);
                memcpy(line, text + pos, n);
                line[n] = '\0';
                int r = parse_line(p, l, line, off, &stage);
                if (r < 0)
                        return r;
                pos += n + 1;
        }
        if (stage < IN_CLASSES) {
                p->line++;
                return fail(p, "the text ends before its '%s' line", missing[stage]);
        }
        return 0;
}

int learn_parse(struct learned *l, const char *text, size_t len, double wall_offset, char *err, size_t errsz)
{
        struct parser p = { .err = err, .errsz = errsz };
        learn_init(l);
        int r = parse(l, text, len, wall_offset, &p);
        if (r < 0)
                learn_init(l);
        return r;
}
