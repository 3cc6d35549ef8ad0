#include "config.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include <ini.h>

#include "util.h"

enum key_type { T_DURATION, T_UINT, T_LONG, T_R2, T_PERCENT, T_BOOL, T_ORDER, T_LEVEL, T_PATH, T_SIZE };

struct key {
        const char *name;
        enum key_type type;
        size_t offset;
        double min, max;        /* seconds for durations, fraction for percent */
        const char *range;      /* as shown to the user */
};

#define K(n, t, lo, hi, txt) { #n, t, offsetof(struct config, n), lo, hi, txt }
static const struct key keys[] = {
        K(interval, T_DURATION, CONFIG_INTERVAL_MIN, CONFIG_INTERVAL_MAX, CONFIG_INTERVAL_RANGE),
        K(window, T_UINT, 3, 64, "3..64"),
        K(horizon, T_DURATION, 1, 600, "1s..10min"),
        K(max_wsf, T_LONG, 1, 3000, "1..3000"),
        K(calm_period, T_DURATION, 1, 3600, "1s..1h"),
        K(trend_min_r2, T_R2, 0, 1, "0..1"),
        K(oom_headroom, T_PERCENT, 0, 0.5, "0%..50%"),
        K(compaction, T_BOOL, 0, 0, "yes or no"),
        K(compaction_max_order, T_ORDER, 1, 31, "auto or 1..31 (and below the kernel's order count)"),
        K(compaction_lead_time, T_DURATION, 1, 600, "1s..10min"),
        K(dry_run, T_BOOL, 0, 0, "yes or no"),
        K(log_level, T_LEVEL, 0, 0, "err, warning, notice, info or debug"),
        K(record, T_PATH, 0, 0, "an absolute file name, or none"),
        K(record_max_size, T_SIZE, 65536, 1099511627776.0, "64K..1T (K, M, G or T: powers of 1024), or none"),
        K(metrics_dir, T_PATH, 0, 0, "an absolute path, or none"),
        K(metrics_interval, T_DURATION, 1, 600, "1s..10min"),
};
#undef K

static const char *const levels[] = {
        [LOG_ERR] = "err", [LOG_WARNING] = "warning", [LOG_NOTICE] = "notice",
        [LOG_INFO] = "info", [LOG_DEBUG] = "debug",
};

const char *log_level_name(int level)
{
        if (level >= LOG_ERR && level <= LOG_DEBUG && levels[level])
                return levels[level];
        return "?";
}

void config_engine_params(struct engine_params *p, const struct config *c, bool writes,
                          long page_size, long thp_pmd_size)
{
        *p = (struct engine_params){
                .forecast = {
                        .min_r2 = c->trend_min_r2,
                        .min_points = c->window,
                },
                .policy = {
                        .interval = c->interval, .horizon = c->horizon,
                        .calm_period = c->calm_period, .lead_time = c->compaction_lead_time,
                        .max_wsf = c->max_wsf, .oom_headroom = c->oom_headroom,
                        .compaction = c->compaction, .writes = writes,
                },
                .max_order = c->compaction_max_order,
                .page_size = page_size, .thp_pmd_size = thp_pmd_size,
        };
}

const char *const *config_keys(void)
{
        static const char *names[ARRAY_SIZE(keys) + 1];
        for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
                names[i] = keys[i].name;
        return names;
}

void config_defaults(struct config *c)
{
        *c = (struct config){
                .interval = 1, .window = 8, .horizon = 10, .max_wsf = 1000,
                .calm_period = 3, .trend_min_r2 = 0.6, .oom_headroom = 0.05,
                .compaction = true, .compaction_max_order = CONFIG_ORDER_AUTO,
                .compaction_lead_time = 10, .dry_run = false, .log_level = LOG_INFO,
                .record_max_size = CONFIG_RECORD_MAX_SIZE_DEFAULT,
                .metrics_dir = "", .metrics_interval = 15,
        };
}

int parse_duration(const char *s, double *secs)
{
        static const struct { const char *unit; double scale; } units[] = {
                { "ms", 1e-3 }, { "s", 1 }, { "min", 60 }, { "h", 3600 },
        };
        char *end;
        errno = 0;
        double v = strtod(s, &end);
        if (end == s || errno || !isfinite(v) || v < 0 || *s == '-' || *s == '+')
                return -EINVAL;
        for (size_t i = 0; i < ARRAY_SIZE(units); i++)
                if (strcmp(end, units[i].unit) == 0) {
                        *secs = v * units[i].scale;
                        return 0;
                }
        return -EINVAL;
}

int config_parse_interval(const char *s, double *secs)
{
        double v;
        int r = parse_duration(s, &v);
        if (r < 0)
                return r;
        if (v < CONFIG_INTERVAL_MIN - 1e-12 || v > CONFIG_INTERVAL_MAX + 1e-12)
                return -ERANGE;
        *secs = v;
        return 0;
}

int parse_size(const char *s, uint64_t *bytes)
{
        static const char units[] = "KMGT";
        if (strcmp(s, "none") == 0)
                return *bytes = 0, 0;
        if (*s < '0' || *s > '9')
                return -EINVAL;
        char *end;
        errno = 0;
        unsigned long long v = strtoull(s, &end, 10);
        if (errno)
                return -ERANGE;
        unsigned shift = 0;
        if (*end) {
                const char *u = strchr(units, *end);
                if (!u || end[1])
                        return -EINVAL;
                shift = 10 * (unsigned)(u - units + 1);
        }
        if (v > UINT64_MAX >> shift)
                return -ERANGE;
        *bytes = (uint64_t)v << shift;
        return 0;
}

static int parse_bool(const char *s, bool *out)
{
        static const char *const yes[] = { "yes", "true", "on", "1" };
        static const char *const no[] = { "no", "false", "off", "0" };
        for (size_t i = 0; i < ARRAY_SIZE(yes); i++) {
                if (strcasecmp(s, yes[i]) == 0)
                        return *out = true, 0;
                if (strcasecmp(s, no[i]) == 0)
                        return *out = false, 0;
        }
        return -EINVAL;
}

static int parse_number(const char *s, double *out)
{
        char *end;
        errno = 0;
        double v = strtod(s, &end);
        if (end == s || *end || errno || !isfinite(v))
                return -EINVAL;
        *out = v;
        return 0;
}

static int parse_percent(const char *s, double *out)
{
        size_t n = strlen(s);
        if (n < 2 || s[n - 1] != '%')
                return -EINVAL;
        char buf[32];
        if (n >= sizeof(buf))
                return -EINVAL;
        memcpy(buf, s, n - 1);
        buf[n - 1] = '\0';
        int r = parse_number(buf, out);
        if (r < 0)
                return r;
        *out /= 100.0;
        return 0;
}

static int parse_level(const char *s, int *out)
{
        for (int l = LOG_ERR; l <= LOG_DEBUG; l++)
                if (levels[l] && strcmp(s, levels[l]) == 0)
                        return *out = l, 0;
        return -EINVAL;
}

/* Parse one value into the struct; -EINVAL for a malformed value, -ERANGE
 * for one outside [min, max]. */
static int set_value(const struct key *k, const char *v, struct config *c)
{
        char *field = (char *)c + k->offset;
        double d;
        long l;
        int r;
        switch (k->type) {
        case T_DURATION:
        case T_R2:
        case T_PERCENT:
                r = k->type == T_DURATION ? parse_duration(v, &d) :
                    k->type == T_R2 ? parse_number(v, &d) : parse_percent(v, &d);
                if (r < 0)
                        return r;
                if (d < k->min - 1e-12 || d > k->max + 1e-12)
                        return -ERANGE;
                memcpy(field, &d, sizeof(d));
                return 0;
        case T_UINT:
        case T_LONG:
        case T_ORDER:
                if (k->type == T_ORDER && strcmp(v, "auto") == 0) {
                        int a = CONFIG_ORDER_AUTO;
                        memcpy(field, &a, sizeof(a));
                        return 0;
                }
                if ((r = parse_long(v, (long)k->min, (long)k->max, &l)) < 0)
                        return r;
                if (k->type == T_LONG) {
                        memcpy(field, &l, sizeof(l));
                } else if (k->type == T_UINT) {
                        unsigned u = (unsigned)l;
                        memcpy(field, &u, sizeof(u));
                } else {
                        int i = (int)l;
                        memcpy(field, &i, sizeof(i));
                }
                return 0;
        case T_BOOL:
                return parse_bool(v, (bool *)field);
        case T_LEVEL:
                return parse_level(v, (int *)field);
        case T_SIZE: {
                uint64_t b;
                if ((r = parse_size(v, &b)) < 0)
                        return r;
                if (b && ((double)b < k->min || (double)b > k->max))
                        return -ERANGE;
                memcpy(field, &b, sizeof(b));
                return 0;
        }
        case T_PATH:
                if (strcmp(v, "none") == 0)
                        v = "";
                /* the service's working directory is /: a relative name would mislead */
                if (v[0] && v[0] != '/')
                        return -EINVAL;
                if (strlen(v) >= CONFIG_PATH_MAX)
                        return -ERANGE;
                memcpy(field, v, strlen(v) + 1);
                return 0;
        }
        return -EINVAL;
}

struct load_ctx {
        struct config cfg;
        FILE *f;
        int line;               /* line being parsed */
        int err_line;           /* first line the handler refused */
        char msg[256];
};

/* inih reports only the line of the first error; counting lines here ties
 * the handler's message to its own line. */
static char *read_line(char *str, int num, void *stream)
{
        struct load_ctx *ctx = stream;
        char *r = fgets(str, num, ctx->f);
        if (r)
                ctx->line++;
        return r;
}

static int on_key(void *user, const char *section, const char *name, const char *value)
{
        struct load_ctx *ctx = user;
        if (ctx->err_line)
                return 0;
        ctx->err_line = ctx->line;
        if (section[0]) {
                snprintf(ctx->msg, sizeof(ctx->msg),
                         "key '%s' is in section [%s]; memoptimizer.conf has no sections", name, section);
                return 0;
        }
        for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
                if (strcmp(keys[i].name, name) != 0)
                        continue;
                int r = set_value(&keys[i], value, &ctx->cfg);
                if (r == 0) {
                        ctx->err_line = 0;
                        return 1;
                }
                snprintf(ctx->msg, sizeof(ctx->msg), "%s '%s' for %s; allowed: %s%s",
                         r == -ERANGE ? "out-of-range value" : "invalid value", value, name,
                         keys[i].range, keys[i].type == T_DURATION ? ", with a unit (ms, s, min, h)" : "");
                return 0;
        }
        snprintf(ctx->msg, sizeof(ctx->msg), "unknown key '%s'", name);
        return 0;
}

/* The parse shared by files and buffers: `name` is what messages call it. */
static int parse_stream(struct config *c, const char *name, FILE *f, char *err, size_t errsz)
{
        struct load_ctx ctx = { .cfg = *c, .f = f };
        int line = ini_parse_stream(read_line, &ctx, on_key, &ctx);
        if (line < 0) {
                snprintf(err, errsz, "%s: cannot read", name);
                return -EIO;
        }
        if (line > 0) {
                bool ours = ctx.err_line == line;
                snprintf(err, errsz, "%s:%d: %s", name, line,
                         ours ? ctx.msg : "syntax error; expected 'key = value', a comment or a blank line");
                return -EINVAL;
        }
        *c = ctx.cfg;
        return 0;
}

int config_check_owner(const char *path, int fd, uid_t euid, char *err, size_t errsz)
{
        struct stat st;
        if (fstat(fd, &st) < 0) {
                int e = errno;
                snprintf(err, errsz, "%s: %s", path, strerror(e));
                return -e;
        }
        if (euid != 0)
                return 0;
        if (st.st_uid != 0) {
                snprintf(err, errsz, "%s: owned by uid %lu, not root; refusing a file another user can change (chown root %s)",
                         path, (unsigned long)st.st_uid, path);
                return -EPERM;
        }
        if (st.st_mode & (S_IWGRP | S_IWOTH)) {
                snprintf(err, errsz, "%s: writable by %s (mode %04o); refusing a file others can change (chmod go-w %s)",
                         path, st.st_mode & S_IWOTH ? "everyone" : "its group",
                         (unsigned)(st.st_mode & 07777), path);
                return -EPERM;
        }
        return 0;
}

int config_load(struct config *c, const char *path, bool must_exist, char *err, size_t errsz)
{
        _cleanup_fclose_ FILE *f = fopen(path, "re");
        if (!f) {
                int e = errno;
                if (e == ENOENT && !must_exist)
                        return 0;
                snprintf(err, errsz, "%s: %s", path, strerror(e));
                return -e;
        }
        int r = config_check_owner(path, fileno(f), geteuid(), err, errsz);
        if (r < 0)
                return r;
        return parse_stream(c, path, f, err, errsz);
}

int config_parse_buffer(struct config *c, const char *name, const char *text, size_t len,
                        char *err, size_t errsz)
{
        if (len == 0)   /* fmemopen() refuses a zero size; an empty file is valid */
                return 0;
        _cleanup_fclose_ FILE *f = fmemopen((void *)text, len, "r");
        if (!f) {
                int e = errno;
                snprintf(err, errsz, "%s: %s", name, strerror(e));
                return -e;
        }
        return parse_stream(c, name, f, err, errsz);
}
