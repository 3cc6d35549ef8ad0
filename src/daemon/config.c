#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include "fileio.h"
#include "sample.h"
#include "util.h"

enum key_type { T_DURATION, T_UINT, T_LONG, T_R2, T_PERCENT, T_BOOL, T_ORDER, T_LEVEL, T_PATH, T_SIZE, T_RATE };

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
        K(kswapd_rate_prior, T_RATE, 1048576, 1099511627776.0, "auto, or 1M/s..1T/s (K, M, G or T: powers of 1024)"),
        K(trend_min_r2, T_R2, 0, 1, "0..1"),
        K(oom_headroom, T_PERCENT, 0, 0.5, "0%..50%"),
        K(compaction, T_BOOL, 0, 0, "yes or no"),
        K(compaction_max_order, T_ORDER, 1, 31, "auto or 1..31 (and below the kernel's order count)"),
        K(compaction_lead_time, T_DURATION, 1, 600, "1s..10min"),
        K(wake_kswapd, T_BOOL, 0, 0, "yes or no"),
        K(dry_run, T_BOOL, 0, 0, "yes or no"),
        K(log_level, T_LEVEL, 0, 0, "err, warning, notice, info or debug"),
        K(record, T_PATH, 0, 0, "an absolute file name, or none"),
        K(record_max_size, T_SIZE, 65536, 1099511627776.0, "64K..1T (K, M, G or T: powers of 1024), or none"),
        K(metrics_dir, T_PATH, 0, 0, "an absolute path, or none"),
        K(metrics_interval, T_DURATION, 1, 600, "1s..10min"),
};
#undef K
_Static_assert(ARRAY_SIZE(keys) == CONFIG_NR_KEYS, "CONFIG_NR_KEYS is the number of keys");

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
                        .kswapd_prior_pages_per_sec =
                                page_size > 0 ? (double)c->kswapd_rate_prior / (double)page_size : 0,
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
                .calm_period = 1, .trend_min_r2 = 0.6, .oom_headroom = 0.05,
                .compaction = true, .compaction_max_order = CONFIG_ORDER_AUTO,
                .compaction_lead_time = 10, .wake_kswapd = true, .dry_run = false, .log_level = LOG_INFO,
                .record_max_size = CONFIG_RECORD_MAX_SIZE_DEFAULT,
                .metrics_dir = "", .metrics_interval = 15,
        };
}

/* The file's one number syntax: decimal digits, optionally a point and
 * more digits ("0.5", never ".5", "5.", "+5", "5e-1", "0x5" or "inf",
 * which strtod() alone would all take). Returns the length of the number
 * at the start of s, 0 if there is none. */
static size_t decimal_len(const char *s, bool *fraction)
{
        size_t n = strspn(s, "0123456789");
        *fraction = false;
        if (n == 0 || s[n] != '.')
                return n;
        size_t f = strspn(s + n + 1, "0123456789");
        if (f == 0)
                return 0;
        *fraction = true;
        return n + 1 + f;
}

/* A whole number at the start of s; *end is what follows. */
static int scan_uint(const char *s, const char **end, uint64_t *out)
{
        bool fraction;
        size_t n = decimal_len(s, &fraction);
        if (n == 0 || fraction)
                return -EINVAL;
        uint64_t v = 0;
        for (size_t i = 0; i < n; i++) {
                unsigned d = (unsigned)(s[i] - '0');
                if (v > (UINT64_MAX - d) / 10)
                        return -ERANGE;
                v = v * 10 + d;
        }
        *out = v;
        *end = s + n;
        return 0;
}

/* A number with an optional fraction at the start of s; *end is what
 * follows. */
static int scan_real(const char *s, const char **end, double *out)
{
        bool fraction;
        size_t n = decimal_len(s, &fraction);
        char buf[48];
        if (n == 0)
                return -EINVAL;
        if (n >= sizeof(buf))
                return -ERANGE;
        memcpy(buf, s, n);      /* strtod() of exactly the digits checked */
        buf[n] = '\0';
        *out = strtod(buf, NULL);
        *end = s + n;
        return 0;
}

int parse_duration(const char *s, double *secs)
{
        static const struct { const char *unit; double scale; } units[] = {
                { "ms", 1e-3 }, { "s", 1 }, { "min", 60 }, { "h", 3600 },
        };
        const char *end;
        double v;
        if (scan_real(s, &end, &v) < 0)
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
        const char *end;
        uint64_t v;
        int r = scan_uint(s, &end, &v);
        if (r < 0)
                return r;
        unsigned shift = 0;
        if (*end) {
                const char *u = strchr(units, *end);
                if (!u || end[1])
                        return -EINVAL;
                shift = 10 * (unsigned)(u - units + 1);
        }
        if (v > UINT64_MAX >> shift)
                return -ERANGE;
        *bytes = v << shift;
        return 0;
}

/* "500M/s" (a size per second), or "auto" (0). */
static int parse_rate(const char *s, uint64_t *bytes_per_sec)
{
        if (strcmp(s, "auto") == 0)
                return *bytes_per_sec = 0, 0;
        size_t n = strlen(s);
        char size[32];
        if (n < 3 || n - 2 >= sizeof(size) || strcmp(s + n - 2, "/s") != 0)
                return -EINVAL;
        memcpy(size, s, n - 2);
        size[n - 2] = '\0';
        if (strcmp(size, "none") == 0)
                return -EINVAL;
        return parse_size(size, bytes_per_sec);
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
        const char *end;
        int r = scan_real(s, &end, out);
        return r < 0 ? r : *end ? -EINVAL : 0;
}

static int parse_percent(const char *s, double *out)
{
        const char *end;
        int r = scan_real(s, &end, out);
        if (r < 0)
                return r;
        if (strcmp(end, "%") != 0)
                return -EINVAL;
        *out /= 100.0;
        return 0;
}

/* A whole number in [min, max]. */
static int parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
        const char *end;
        int r = scan_uint(s, &end, out);
        if (r < 0)
                return r;
        if (*end)
                return -EINVAL;
        return *out < min || *out > max ? -ERANGE : 0;
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
        uint64_t u;
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
                if ((r = parse_uint(v, (uint64_t)k->min, (uint64_t)k->max, &u)) < 0)
                        return r;
                if (k->type == T_LONG) {
                        long l = (long)u;
                        memcpy(field, &l, sizeof(l));
                } else if (k->type == T_UINT) {
                        unsigned n = (unsigned)u;
                        memcpy(field, &n, sizeof(n));
                } else {
                        int i = (int)u;
                        memcpy(field, &i, sizeof(i));
                }
                return 0;
        case T_BOOL:
                return parse_bool(v, (bool *)field);
        case T_LEVEL:
                return parse_level(v, (int *)field);
        case T_RATE:
        case T_SIZE: {
                uint64_t b;
                if ((r = k->type == T_RATE ? parse_rate(v, &b) : parse_size(v, &b)) < 0)
                        return r;
                bool none = k->type == T_RATE ? strcmp(v, "auto") == 0 : b == 0;
                if (!none && ((double)b < k->min || (double)b > k->max))
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

/* ---- the file's syntax ------------------------------------------------ */

/* One file's parse; `name` stands for the file in messages. */
struct parse {
        struct config cfg;
        const char *name;
        unsigned line;          /* being parsed, from 1 */
        char *err;
        size_t errsz;
};

#define QUOTE_MAX 64            /* bytes of a value or key quoted in a message */

/* s[0..n) for a message: at most QUOTE_MAX bytes, then "...". */
static const char *quote(char buf[QUOTE_MAX + 4], const char *s, size_t n)
{
        size_t k = n > QUOTE_MAX ? QUOTE_MAX : n;
        memcpy(buf, s, k);
        memcpy(buf + k, n > QUOTE_MAX ? "..." : "", n > QUOTE_MAX ? 4 : 1);
        return buf;
}

/* "NAME:LINE: message"; always -EINVAL. */
__attribute__((format(printf, 2, 3)))
static int refuse(struct parse *p, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        int n = snprintf(p->err, p->errsz, "%s:%u: ", p->name, p->line);
        if (n >= 0 && (size_t)n < p->errsz)
                /* NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized): false positive of clang 14 */
                vsnprintf(p->err + n, p->errsz - (size_t)n, fmt, ap);
        va_end(ap);
        return -EINVAL;
}

static int set_key(struct parse *p, const char *key, size_t klen, const char *val, size_t vlen)
{
        char q[QUOTE_MAX + 4];
        for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
                if (strlen(keys[i].name) != klen || memcmp(keys[i].name, key, klen) != 0)
                        continue;
                if (p->cfg.key_line[i])
                        return refuse(p, "duplicate key '%s' (first set on line %u); a key is set once",
                                      keys[i].name, p->cfg.key_line[i]);
                char v[CONFIG_PATH_MAX];
                int r = -ERANGE;        /* longer than any value can be */
                if (vlen < sizeof(v)) {
                        memcpy(v, val, vlen);
                        v[vlen] = '\0';
                        r = set_value(&keys[i], v, &p->cfg);
                }
                if (r == 0) {
                        p->cfg.key_line[i] = p->line;
                        return 0;
                }
                return refuse(p, "%s '%s' for %s; allowed: %s%s",
                              r == -ERANGE ? "out-of-range value" : "invalid value", quote(q, val, vlen),
                              keys[i].name, keys[i].range,
                              keys[i].type == T_DURATION ? ", with a unit (ms, s, min, h)" : "");
        }
        return refuse(p, "unknown key '%s'", quote(q, key, klen));
}

static bool blank(char ch)
{
        return ch == ' ' || ch == '\t';
}

/* Text only: a NUL would end the line early for any C string function,
 * a control character can hide what the line says. */
static int check_bytes(struct parse *p, const char *s, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                unsigned char ch = (unsigned char)s[i];
                if (ch == '\0')
                        return refuse(p, "NUL byte; a configuration file is text");
                if (ch == '\r')
                        return refuse(p, "carriage return (DOS line ends?); a line ends with a newline alone");
                if ((ch < 0x20 && ch != '\t') || ch == 0x7f)
                        return refuse(p, "control character 0x%02x; allowed: text, spaces and tabs", ch);
        }
        return 0;
}

/* One line, without its newline: blank, a comment (first non-blank
 * character # or ;), or `key = value` from its first column. Everything
 * other INI dialects read otherwise is refused rather than guessed at. */
static int parse_line(struct parse *p, const char *s, size_t n)
{
        char q[QUOTE_MAX + 4];
        int r = check_bytes(p, s, n);
        if (r < 0)
                return r;
        size_t i = 0;
        while (i < n && blank(s[i]))
                i++;
        if (i == n || s[i] == '#' || s[i] == ';')
                return 0;
        if (i > 0)
                return refuse(p, "indented line; a setting starts at the beginning of its line (memoptimizer.conf has no continuation lines)");
        if (s[0] == '[')
                return refuse(p, "section header '%s'; memoptimizer.conf has no sections", quote(q, s, n));
        size_t k = 0;
        while (k < n && !blank(s[k]) && s[k] != '=' && s[k] != ':')
                k++;
        size_t eq = k;
        while (eq < n && blank(s[eq]))
                eq++;
        if (k > 0 && eq < n && s[eq] == ':')
                return refuse(p, "':' after the key; a setting is 'key = value'");
        if (k == 0 || eq == n || s[eq] != '=')
                return refuse(p, "syntax error; expected 'key = value', a comment or a blank line");
        size_t v = eq + 1, e = n;
        while (v < e && blank(s[v]))
                v++;
        while (e > v && blank(s[e - 1]))
                e--;
        for (size_t j = v; j < e; j++)
                if (s[j] == '#' || s[j] == ';')
                        return refuse(p, "'%c' in the value of %s; comments are whole lines, and a value may not contain # or ;",
                                      s[j], quote(q, s, k));
        return set_key(p, s, k, s + v, e - v);
}

int config_parse_buffer(struct config *c, const char *name, const char *text, size_t len,
                        char *err, size_t errsz)
{
        struct parse p = { .cfg = *c, .name = name, .err = err, .errsz = errsz };
        memset(p.cfg.key_line, 0, sizeof(p.cfg.key_line));
        for (const char *s = text, *end = text + len; s < end; ) {
                const char *nl = memchr(s, '\n', (size_t)(end - s));
                size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);
                p.line++;
                int r = parse_line(&p, s, n);
                if (r < 0)
                        return r;
                s += n + (nl != NULL);
        }
        *c = p.cfg;
        return 0;
}

/* ---- the file and who can change it ------------------------------------- */

static int sys_error(const char *what, char *err, size_t errsz)
{
        int e = errno ? errno : EIO;
        snprintf(err, errsz, "%s: %s", what, strerror(e));
        return -e;
}

static int not_regular(const char *path, mode_t m, char *err, size_t errsz)
{
        snprintf(err, errsz, "%s: %s, not a regular file", path,
                 S_ISDIR(m) ? "a directory" : S_ISFIFO(m) ? "a FIFO" : S_ISCHR(m) ? "a character device" :
                 S_ISBLK(m) ? "a block device" : S_ISSOCK(m) ? "a socket" : "something else");
        return -EINVAL;
}

/* dir + "/" + name into out[PATH_MAX]; -1 with errno ENAMETOOLONG. */
static int join(char *out, const char *dir, const char *name)
{
        int n = snprintf(out, PATH_MAX, "%s%s%s", dir, strcmp(dir, "/") == 0 ? "" : "/", name);
        return n < 0 || n >= PATH_MAX ? (errno = ENAMETOOLONG, -1) : 0;
}

/* Whether only root can change what `name` in directory `dir` is: the
 * directory is root's and nobody else may write it, or it is sticky (like
 * /tmp) and the entry is root's, which then nobody else can rename. */
static int check_dir(const char *path, const char *dir, const char *name, char *err, size_t errsz)
{
        struct stat d, e;
        char entry[PATH_MAX];
        if (stat(dir, &d) < 0 || join(entry, dir, name) < 0)
                return sys_error(path, err, errsz);
        if (d.st_uid != 0) {
                snprintf(err, errsz, "%s: directory %s is owned by uid %lu, not root; refusing a file in a directory another user can change (chown root %s)",
                         path, dir, (unsigned long)d.st_uid, dir);
                return -EPERM;
        }
        if (!(d.st_mode & (S_IWGRP | S_IWOTH)))
                return 0;
        if ((d.st_mode & S_ISVTX) && lstat(entry, &e) == 0) {
                if (e.st_uid == 0)
                        return 0;
                snprintf(err, errsz, "%s: %s is owned by uid %lu, in directory %s that others can write (mode %04o); refusing a name another user can change",
                         path, entry, (unsigned long)e.st_uid, dir, (unsigned)(d.st_mode & 07777));
                return -EPERM;
        }
        snprintf(err, errsz, "%s: directory %s is writable by %s (mode %04o); refusing a file in a directory others can change (chmod go-w %s)",
                 path, dir, d.st_mode & S_IWOTH ? "everyone" : "its group", (unsigned)(d.st_mode & 07777), dir);
        return -EPERM;
}

/* Follow `path` one entry at a time as the kernel does, from / (a relative
 * name from the working directory's absolute name), and check the
 * directory of every entry looked up: those that symbolic links lead
 * through too, which sshd's walk up the canonical name would not see. *st
 * is the file it leads to now. */
static int check_path(const char *path, struct stat *st, char *err, size_t errsz)
{
        char dir[PATH_MAX] = "/", todo[PATH_MAX], next[2 * PATH_MAX], full[PATH_MAX], target[PATH_MAX];
        char cwd[PATH_MAX] = "";
        if (path[0] != '/' && !getcwd(cwd, sizeof(cwd)))
                return sys_error(path, err, errsz);
        if (snprintf(todo, sizeof(todo), "%s/%s", cwd, path) >= (int)sizeof(todo))
                return errno = ENAMETOOLONG, sys_error(path, err, errsz);
        unsigned links = 0;
        for (const char *rest = todo; ; ) {
                rest += strspn(rest, "/");
                size_t n = strcspn(rest, "/");
                if (n == 0 || n > NAME_MAX)     /* ends in a directory: not what was opened */
                        return errno = n ? ENAMETOOLONG : EISDIR, sys_error(path, err, errsz);
                char name[NAME_MAX + 1];
                memcpy(name, rest, n);
                name[n] = '\0';
                rest += n;
                bool last = rest[strspn(rest, "/")] == '\0';
                if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
                        char *slash = strrchr(dir, '/');
                        if (name[1] && slash)
                                slash[slash == dir] = '\0';     /* dir has no links: its parent */
                        continue;
                }
                int r = check_dir(path, dir, name, err, errsz);
                if (r < 0)
                        return r;
                if (join(full, dir, name) < 0 || lstat(full, st) < 0)
                        return sys_error(path, err, errsz);
                if (S_ISLNK(st->st_mode)) {
                        ssize_t t = ++links > 40 ? (errno = ELOOP, -1) : readlink(full, target, sizeof(target) - 1);
                        if (t < 0)
                                return sys_error(path, err, errsz);
                        target[t] = '\0';
                        if (target[0] == '/')
                                dir[1] = '\0';
                        int len = snprintf(next, sizeof(next), "%s/%s", target, rest);
                        if (len < 0 || len >= (int)sizeof(todo))
                                return errno = ENAMETOOLONG, sys_error(path, err, errsz);
                        memcpy(todo, next, (size_t)len + 1);
                        rest = todo;
                } else if (last) {
                        return 0;
                } else {
                        memcpy(dir, full, sizeof(dir));
                }
        }
}

int config_check_owner(const char *path, int fd, uid_t euid, char *err, size_t errsz)
{
        struct stat st, named = { 0 };
        if (fstat(fd, &st) < 0)
                return sys_error(path, err, errsz);
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
        int r = check_path(path, &named, err, errsz);
        if (r < 0)
                return r;
        if (named.st_dev != st.st_dev || named.st_ino != st.st_ino) {
                snprintf(err, errsz, "%s: replaced while it was read; try again", path);
                return -EAGAIN;
        }
        return 0;
}

/* The whole of a regular file, at most CONFIG_FILE_MAX bytes, if
 * config_check_owner() allows it. */
static int read_config(const char *path, char **text, size_t *len, char *err, size_t errsz)
{
        /* O_NONBLOCK: should a FIFO have taken the file's place since the
         * caller's stat(), the open does not wait for a writer */
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        struct stat st;
        if (fd < 0 || fstat(fd, &st) < 0)
                return sys_error(path, err, errsz);
        if (!S_ISREG(st.st_mode))
                return not_regular(path, st.st_mode, err, errsz);
        int r = config_check_owner(path, fd, geteuid(), err, errsz);
        if (r < 0)
                return r;
        _cleanup_free_ char *buf = st.st_size <= CONFIG_FILE_MAX ? malloc(CONFIG_FILE_MAX + 1) : NULL;
        size_t n = 0;
        ssize_t k = 1;
        while (buf && n <= CONFIG_FILE_MAX && k != 0) {
                k = read(fd, buf + n, CONFIG_FILE_MAX + 1 - n);
                if (k < 0 && errno != EINTR)
                        return sys_error(path, err, errsz);
                n += k > 0 ? (size_t)k : 0;
        }
        if (st.st_size <= CONFIG_FILE_MAX && !buf)
                return errno = ENOMEM, sys_error(path, err, errsz);
        if (!buf || n > CONFIG_FILE_MAX) {
                snprintf(err, errsz, "%s: longer than %d bytes; too long for a configuration file",
                         path, CONFIG_FILE_MAX);
                return -EFBIG;
        }
        *text = buf;
        buf = NULL;
        *len = n;
        return 0;
}

int config_load(struct config *c, const char *path, bool must_exist, char *err, size_t errsz)
{
        /* stat() first: a FIFO or a device is refused without an open,
         * which could block or have effects of its own */
        struct stat st;
        if (stat(path, &st) < 0) {
                if (errno == ENOENT && !must_exist)
                        return 0;
                return sys_error(path, err, errsz);
        }
        if (!S_ISREG(st.st_mode))
                return not_regular(path, st.st_mode, err, errsz);
        _cleanup_free_ char *text = NULL;
        size_t len = 0;
        int r = read_config(path, &text, &len, err, errsz);
        if (r < 0)
                return r;
        return config_parse_buffer(c, path, text, len, err, errsz);
}

/* ---- against the kernel ------------------------------------------------- */

int config_check_orders(const struct config *c, const char *name, unsigned nr_orders,
                        char *err, size_t errsz)
{
        int k = c->compaction_max_order;
        if (k == CONFIG_ORDER_AUTO || (unsigned)k < nr_orders)
                return 0;
        unsigned line = 0;
        for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
                if (keys[i].offset == offsetof(struct config, compaction_max_order))
                        line = c->key_line[i];
        char where[32] = "";
        if (line)
                snprintf(where, sizeof(where), "%u:", line);
        snprintf(err, errsz, "%s:%s compaction_max_order %d is beyond the kernel's orders (0..%u); allowed: auto or 1..%u",
                 name, where, k, nr_orders ? nr_orders - 1 : 0, nr_orders > 1 ? nr_orders - 1 : 1);
        return -ERANGE;
}

int config_check_kernel_orders(const struct config *c, const char *name, const char *root,
                               char *err, size_t errsz)
{
        if (c->compaction_max_order == CONFIG_ORDER_AUTO)
                return 0;
        _cleanup_free_ char *text = NULL;
        size_t size = 0;
        struct buddyinfo b;
        ssize_t n = read_file_at(root, "/proc/buddyinfo", &text, &size);
        int r = n < 0 ? (int)n : buddyinfo_parse(text, &b);
        if (r < 0) {
                snprintf(err, errsz, "/proc/buddyinfo: %s",
                         r == -EBADMSG ? "not in the format the kernel writes" : strerror(-r));
                return r;
        }
        r = config_check_orders(c, name, b.nr_orders, err, errsz);
        buddyinfo_free(&b);
        return r;
}
