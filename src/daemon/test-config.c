#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include <cmocka.h>

#include "config.h"
#include "fixture-tree.h"
#include "util.h"
#include "tmp-tree.h"

static char conf_path[] = "/tmp/memoptimizer-conf-XXXXXX";

static int load_text(const char *text, struct config *c, char *err, size_t errsz)
{
        FILE *f = fopen(conf_path, "we");
        assert_non_null(f);
        fputs(text, f);
        fclose(f);
        config_defaults(c);
        return config_load(c, conf_path, true, err, errsz);
}

/* One line of `n` bytes: prefix, then `fill` up to n bytes in all. */
static char *line_of(char *buf, size_t bufsz, const char *prefix, char fill, size_t n)
{
        size_t p = strlen(prefix);
        assert_true(n >= p && n < bufsz);
        memcpy(buf, prefix, p);
        memset(buf + p, fill, n - p);
        buf[n] = '\0';
        return buf;
}

/* Lines are read whole, however long: never split into two settings. The
 * first cases are what inih, which holds 199 bytes of a line as Debian
 * builds it, made of them. */
static void long_lines_read_whole(void **state)
{
        (void)state;
        static char text[8192], line[6000];
        char err[ERR_MSG_MAX] = "";
        struct config c;
        /* a comment of 199 bytes, then more of the same line */
        snprintf(text, sizeof(text), "%swindow = 16\n", line_of(line, sizeof(line), "#", 'x', 199));
        assert_int_equal(load_text(text, &c, err, sizeof(err)), 0);
        assert_int_equal(c.window, 8);
        snprintf(text, sizeof(text), "dry_run = yes\n%sdry_run = no\n", line_of(line, sizeof(line), "#", 'x', 199));
        assert_int_equal(load_text(text, &c, err, sizeof(err)), 0);
        assert_true(c.dry_run);
        /* the line after a long one has its own number */
        snprintf(text, sizeof(text), "%s\nwindow = 99\n", line_of(line, sizeof(line), "#", 'x', 700));
        assert_int_equal(load_text(text, &c, err, sizeof(err)), -EINVAL);
        if (!strstr(err, ":2: out-of-range value '99' for window"))
                fail_msg("got '%s'", err);
        /* a long value is read whole: an absolute file name of 300 bytes */
        snprintf(text, sizeof(text), "record = %s\n", line_of(line, sizeof(line), "/", 'a', 300));
        assert_int_equal(load_text(text, &c, err, sizeof(err)), 0);
        assert_string_equal(c.record, line);
        /* and refused whole when longer than the key allows */
        snprintf(text, sizeof(text), "window = 8\nrecord = %s\n",
                 line_of(line, sizeof(line), "/", 'a', CONFIG_PATH_MAX + 10));
        assert_int_equal(load_text(text, &c, err, sizeof(err)), -EINVAL);
        if (!strstr(err, ":2: out-of-range value '/aaaa") || !strstr(err, "...' for record"))
                fail_msg("got '%s'", err);
        assert_string_equal(c.record, "");
}

/* A NUL byte does not end the line (or the file) quietly. */
static void nul_byte_refused(void **state)
{
        (void)state;
        static const char text[] = "window = 9\0 and more\nwindow = 10\n";
        char err[ERR_MSG_MAX] = "";
        struct config c;
        config_defaults(&c);
        assert_int_equal(config_parse_buffer(&c, "t.conf", text, sizeof(text) - 1, err, sizeof(err)), -EINVAL);
        assert_string_equal(err, "t.conf:1: NUL byte; a configuration file is text");
        assert_int_equal(c.window, 8);
        static const char later[] = "window = 9\n\0\n";
        assert_int_equal(config_parse_buffer(&c, "t.conf", later, sizeof(later) - 1, err, sizeof(err)), -EINVAL);
        assert_string_equal(err, "t.conf:2: NUL byte; a configuration file is text");
}

/* Only a regular file is a configuration file: a directory, a FIFO or a
 * device is refused at once, missing or not (the alarm turns a read that
 * blocks or never ends into a failure instead of a hang). */
static void only_regular_files(void **state)
{
        (void)state;
        char dir[] = "/tmp/memoptimizer-kinds-XXXXXX", fifo[64], link[64];
        assert_non_null(mkdtemp(dir));
        snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
        snprintf(link, sizeof(link), "%s/link", dir);
        assert_int_equal(mkfifo(fifo, 0600), 0);
        assert_int_equal(symlink(dir, link), 0);
        const struct { const char *path, *words; } cases[] = {
                { dir, "a directory, not a regular file" },
                { link, "a directory, not a regular file" },
                { fifo, "a FIFO, not a regular file" },
                { "/dev/zero", "a character device, not a regular file" },
        };
        alarm(20);
        for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++)
                for (int must = 0; must <= 1; must++) {
                        struct config c;
                        char err[ERR_MSG_MAX] = "";
                        config_defaults(&c);
                        assert_int_equal(config_load(&c, cases[i].path, must, err, sizeof(err)), -EINVAL);
                        if (strncmp(err, cases[i].path, strlen(cases[i].path)) != 0 || !strstr(err, cases[i].words))
                                fail_msg("%s: got '%s', want '%s'", cases[i].path, err, cases[i].words);
                }
        alarm(0);
        unlink(link);
        unlink(fifo);
        rmdir(dir);
}

static void durations(void **state)
{
        (void)state;
        double s;
        assert_int_equal(parse_duration("200ms", &s), 0);
        assert_float_equal(s, 0.2, 1e-12);
        assert_int_equal(parse_duration("1.5s", &s), 0);
        assert_float_equal(s, 1.5, 1e-12);
        assert_int_equal(parse_duration("2min", &s), 0);
        assert_float_equal(s, 120, 1e-12);
        assert_int_equal(parse_duration("1h", &s), 0);
        assert_float_equal(s, 3600, 1e-12);
        assert_int_equal(parse_duration("0.25s", &s), 0);
        assert_float_equal(s, 0.25, 1e-12);
        assert_int_equal(parse_duration("007s", &s), 0);
        assert_float_equal(s, 7, 1e-12);
        static const char *const bad[] = { "1", "", "s", "1 s", "-1s", "1sec", "nan s", "infs", "1e400s",
                                           "1e3ms", "0x10s", "0x1p-1s", "+1s", " 1s", "1s ", ".5s", "5.s",
                                           "1,5s", "nans", "1.5.5s" };
        for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
                assert_int_equal(parse_duration(bad[i], &s), -EINVAL);
}

static void defaults_and_missing_file(void **state)
{
        (void)state;
        struct config c;
        char err[256];
        config_defaults(&c);
        assert_float_equal(c.interval, 1, 0);
        assert_int_equal(c.window, 8);
        assert_int_equal(c.max_wsf, 1000);
        assert_int_equal(c.compaction_max_order, CONFIG_ORDER_AUTO);
        assert_int_equal(config_load(&c, "/nonexistent/memoptimizer.conf", false, err, sizeof(err)), 0);
        assert_int_equal(c.window, 8);
        assert_int_equal(config_load(&c, "/nonexistent/memoptimizer.conf", true, err, sizeof(err)), -ENOENT);
        assert_non_null(strstr(err, "/nonexistent/memoptimizer.conf"));
}

static void every_key(void **state)
{
        (void)state;
        struct config c;
        char err[256] = "";
        int r = load_text("# comment\n; another\n\ninterval = 250ms\nwindow = 16\nhorizon = 1min\n"
                          "max_wsf = 500\ncalm_period = 2min\ntrend_min_r2 = 0.8\noom_headroom = 10%\n"
                          "compaction = off\ncompaction_max_order = 4\ncompaction_lead_time = 5s\n"
                          "wake_kswapd = no\ndry_run = yes\nlog_level = debug\nmetrics_dir = /var/lib/x\n"
                          "metrics_interval = 30s\n", &c, err, sizeof(err));
        assert_int_equal(r, 0);
        assert_float_equal(c.interval, 0.25, 1e-12);
        assert_int_equal(c.window, 16);
        assert_float_equal(c.horizon, 60, 1e-12);
        assert_int_equal(c.max_wsf, 500);
        assert_float_equal(c.calm_period, 120, 1e-12);
        assert_float_equal(c.trend_min_r2, 0.8, 1e-12);
        assert_float_equal(c.oom_headroom, 0.10, 1e-12);
        assert_false(c.compaction);
        assert_int_equal(c.compaction_max_order, 4);
        assert_float_equal(c.compaction_lead_time, 5, 1e-12);
        assert_false(c.wake_kswapd);
        assert_true(c.dry_run);
        assert_int_equal(c.log_level, LOG_DEBUG);
        assert_string_equal(c.metrics_dir, "/var/lib/x");
        assert_float_equal(c.metrics_interval, 30, 1e-12);
        /* empty: no metrics file, as by default */
        assert_int_equal(load_text("metrics_dir =\n", &c, err, sizeof(err)), 0);
        assert_string_equal(c.metrics_dir, "");

        /* The buffer parse sets the same values; empty text is valid. */
        static const char text[] = "interval = 250ms\nwindow = 16\noom_headroom = 10%\ncompaction = off\n";
        struct config b;
        config_defaults(&b);
        assert_int_equal(config_parse_buffer(&b, "buf", text, strlen(text), err, sizeof(err)), 0);
        assert_float_equal(b.interval, 0.25, 1e-12);
        assert_int_equal(b.window, 16);
        assert_float_equal(b.oom_headroom, 0.10, 1e-12);
        assert_false(b.compaction);
        assert_int_equal(config_parse_buffer(&b, "buf", "", 0, err, sizeof(err)), 0);
        assert_int_equal(b.window, 16);
}

/* Each bad file is refused with FILE:LINE and the config left as it was. */
static void errors_name_file_and_line(void **state)
{
        (void)state;
        static const struct { const char *text, *line, *words; } cases[] = {
                { "window = 8\nthis is not a key value line\n", ":2: ", "syntax error" },
                { "\n\nfrobnicate = 1\n", ":3: ", "unknown key 'frobnicate'" },
                { "interval = 1\n", ":1: ", "with a unit" },
                { "interval = 50ms\n", ":1: ", "out-of-range value '50ms' for interval; allowed: 100ms..60s" },
                { "window = 2\n", ":1: ", "allowed: 3..64" },
                { "window = eight\n", ":1: ", "invalid value 'eight' for window" },
                { "max_wsf = 3001\n", ":1: ", "allowed: 1..3000" },
                { "oom_headroom = 5\n", ":1: ", "0%..50%" },
                { "compaction = maybe\n", ":1: ", "yes or no" },
                { "log_level = loud\n", ":1: ", "err, warning, notice, info or debug" },
                { "trend_min_r2 = 1.5\n", ":1: ", "0..1" },
                { "[main]\ninterval = 1s\n", ":1: ", "section header '[main]'; memoptimizer.conf has no sections" },
                { "window = 8\nfoo\nwindow = 99\n", ":2: ", "syntax error" },
                { "window = 99\nfoo\n", ":1: ", "allowed: 3..64" },
                { "metrics_dir = prom\n", ":1: ", "invalid value 'prom' for metrics_dir; allowed: an absolute path, or none" },
                { "metrics_interval = 500ms\n", ":1: ", "allowed: 1s..10min" },
                /* what memoptimizer.conf(5) forbids, refused where it is */
                { "window = 8\n  9\n", ":2: ", "indented line; a setting starts at the beginning of its line" },
                { "window = 8\n\twindow = 9\n", ":2: ", "indented line" },
                { "# ok\n   horizon = 5s\n", ":2: ", "indented line" },
                { "window: 9\n", ":1: ", "':' after the key; a setting is 'key = value'" },
                { "window : 9\n", ":1: ", "':' after the key" },
                { "window = 8\nhorizon = 5s\nwindow = 9\n", ":3: ", "duplicate key 'window' (first set on line 1)" },
                { "window = 8 ; 9\n", ":1: ", "';' in the value of window; comments are whole lines" },
                { "window = 8 # 9\n", ":1: ", "'#' in the value of window; comments are whole lines" },
                { "window = 8;\n", ":1: ", "';' in the value of window" },
                { "record = /var/tmp/a#b\n", ":1: ", "'#' in the value of record" },
                { "window = 8\r\n", ":1: ", "carriage return" },
                { "window = \x1b[1m8\n", ":1: ", "control character 0x1b" },
                { "\n\n[main]\n", ":3: ", "no sections" },
                { "= 8\n", ":1: ", "syntax error" },
                /* numbers are plain decimals, in every numeric value */
                { "interval = 1e3ms\n", ":1: ", "invalid value '1e3ms' for interval" },
                { "interval = 0x10s\n", ":1: ", "invalid value '0x10s' for interval" },
                { "horizon = .5min\n", ":1: ", "invalid value '.5min' for horizon" },
                { "horizon = 5.s\n", ":1: ", "invalid value '5.s' for horizon" },
                { "window = +8\n", ":1: ", "invalid value '+8' for window" },
                { "window = 8.0\n", ":1: ", "invalid value '8.0' for window" },
                { "max_wsf = 0x10\n", ":1: ", "invalid value '0x10' for max_wsf" },
                { "max_wsf = 1e3\n", ":1: ", "invalid value '1e3' for max_wsf" },
                { "trend_min_r2 = 0x1p-1\n", ":1: ", "invalid value '0x1p-1' for trend_min_r2" },
                { "trend_min_r2 = 5e-1\n", ":1: ", "invalid value '5e-1' for trend_min_r2" },
                { "trend_min_r2 = +0.5\n", ":1: ", "invalid value '+0.5' for trend_min_r2" },
                { "oom_headroom = 0x5%\n", ":1: ", "invalid value '0x5%' for oom_headroom" },
                { "oom_headroom = 5e0%\n", ":1: ", "invalid value '5e0%' for oom_headroom" },
                { "record_max_size = 0x10K\n", ":1: ", "invalid value '0x10K' for record_max_size" },
                { "compaction_max_order = +4\n", ":1: ", "invalid value '+4' for compaction_max_order" },
                { "window = 99999999999999999999999\n", ":1: ", "out-of-range value" },
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
                struct config c;
                char err[512] = "";
                assert_int_equal(load_text(cases[i].text, &c, err, sizeof(err)), -EINVAL);
                char want[128];
                snprintf(want, sizeof(want), "%s%s", conf_path, cases[i].line);
                if (strncmp(err, want, strlen(want)) != 0 || !strstr(err, cases[i].words))
                        fail_msg("case %zu: got '%s', want '%s...%s'", i, err, want, cases[i].words);
                /* The buffer parse (the fuzzer's entry) says exactly the same. */
                char berr[512] = "";
                struct config b;
                config_defaults(&b);
                assert_int_equal(config_parse_buffer(&b, conf_path, cases[i].text, strlen(cases[i].text),
                                                     berr, sizeof(berr)), -EINVAL);
                assert_string_equal(berr, err);
                struct config d;
                config_defaults(&d);
                assert_int_equal(b.window, d.window);
                assert_int_equal(b.max_wsf, d.max_wsf);
                assert_float_equal(c.interval, d.interval, 0);
                assert_int_equal(c.window, d.window);
                assert_int_equal(c.max_wsf, d.max_wsf);
                assert_true(c.compaction == d.compaction && c.dry_run == d.dry_run);
                assert_int_equal(c.log_level, d.log_level);
        }
}

/* As root, a file another user could write is refused; not as root. */
static void owner_and_mode(void **state)
{
        (void)state;
        char err[512] = "";
        FILE *f = fopen(conf_path, "we");
        assert_non_null(f);
        fputs("window = 9\n", f);
        fclose(f);
        int fd = open(conf_path, O_RDONLY | O_CLOEXEC);
        assert_true(fd >= 0);
        assert_int_equal(config_check_owner(conf_path, fd, 1000, err, sizeof(err)), 0);
        if (geteuid() != 0) {
                assert_int_equal(config_check_owner(conf_path, fd, 0, err, sizeof(err)), -EPERM);
                assert_non_null(strstr(err, "not root; refusing a file another user can change"));
                close(fd);
                return;
        }
        static const struct { mode_t mode; uid_t uid; const char *words; } cases[] = {
                { 0644, 0, NULL }, { 0600, 0, NULL }, { 0400, 0, NULL },
                { 0664, 0, "writable by its group (mode 0664); refusing a file others can change (chmod go-w " },
                { 0666, 0, "writable by everyone (mode 0666)" },
                { 0602, 0, "writable by everyone (mode 0602)" },
                { 0644, 65534, "owned by uid 65534, not root" },
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
                assert_int_equal(fchmod(fd, cases[i].mode), 0);
                assert_int_equal(fchown(fd, cases[i].uid, (gid_t)-1), 0);
                err[0] = '\0';
                int r = config_check_owner(conf_path, fd, 0, err, sizeof(err));
                struct config c;
                config_defaults(&c);
                int l = config_load(&c, conf_path, true, err, sizeof(err));
                if (!cases[i].words) {
                        assert_int_equal(r, 0);
                        assert_int_equal(l, 0);
                        assert_int_equal(c.window, 9);
                        continue;
                }
                assert_int_equal(r, -EPERM);
                assert_int_equal(l, -EPERM);
                assert_int_equal(c.window, 8);
                if (strncmp(err, conf_path, strlen(conf_path)) != 0 || !strstr(err, cases[i].words))
                        fail_msg("case %zu: got '%s', want '%s'", i, err, cases[i].words);
        }
        /* back to root's: the tests after this one rewrite the file, which
         * protected_regular forbids for another user's file in /tmp */
        assert_int_equal(fchown(fd, 0, (gid_t)-1), 0);
        assert_int_equal(fchmod(fd, 0600), 0);
        close(fd);
}

/* words with each BASE replaced by base */
static void with_base(char *out, size_t outsz, const char *words, const char *base)
{
        size_t n = 0;
        for (const char *w = words; *w; ) {
                const char *b = strncmp(w, "BASE", 4) == 0 ? base : NULL;
                size_t len = b ? strlen(b) : 1;
                assert_true(n + len < outsz);
                memcpy(out + n, b ? b : w, len);
                n += len;
                w += b ? 4 : 1;
        }
        out[n] = '\0';
}

/* As root, every directory on the way to the file must be root's and
 * writable by nobody else, as sshd's StrictModes wants of the directories
 * above a file it trusts: whoever can rename entries in one of them can
 * put another file under the name. A sticky directory of root's (/tmp)
 * protects root's own entries, and symbolic links are followed, each
 * directory they lead through checked. */
static void directories_others_can_write(void **state)
{
        (void)state;
        if (geteuid() != 0)
                skip();         /* the rule applies to root only; chown needs root */
        char base[] = "/tmp/memoptimizer-dirs-XXXXXX";
        assert_non_null(mkdtemp(base));
        assert_int_equal(chmod(base, 0755), 0);
        static const struct { const char *dir; mode_t mode; uid_t uid; } dirs[] = {
                { "ok", 0755, 0 }, { "grp", 0775, 0 }, { "all", 0777, 0 }, { "sticky", 01777, 0 },
                { "sticky/theirs", 0755, 65534 }, { "sticky/mine", 0755, 0 }, { "user", 0755, 65534 },
                { "ok/sub", 0755, 0 },
        };
        char p[256], q[512];
        for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
                snprintf(p, sizeof(p), "%s/%s", base, dirs[i].dir);
                assert_int_equal(mkdir(p, 0700), 0);
                snprintf(q, sizeof(q), "%s/conf", p);
                FILE *f = fopen(q, "we");
                assert_non_null(f);
                fputs("window = 9\n", f);
                fclose(f);
                assert_int_equal(chmod(q, 0644), 0);
                assert_int_equal(chown(p, dirs[i].uid, 0), 0);
                assert_int_equal(chmod(p, dirs[i].mode), 0);
        }
        static const struct { const char *link, *target; } links[] = {
                { "ok/alt", "sub/conf" },               /* /etc/alternatives style: fine */
                { "ok/up", "../ok/conf" },
                { "all/link", "../ok/conf" },           /* the link's directory others can write */
                { "ok/to-all", "../all/conf" },         /* its target's */
                { "ok/abs", "" },                       /* absolute, to BASE/grp/conf */
        };
        for (size_t i = 0; i < ARRAY_SIZE(links); i++) {
                snprintf(p, sizeof(p), "%s/%s", base, links[i].link);
                snprintf(q, sizeof(q), "%s/grp/conf", base);
                assert_int_equal(symlink(links[i].target[0] ? links[i].target : q, p), 0);
        }
        static const struct { const char *path, *words; } cases[] = {
                { "ok/conf", NULL }, { "ok/sub/conf", NULL }, { "sticky/conf", NULL },
                { "sticky/mine/conf", NULL }, { "ok/alt", NULL }, { "ok/up", NULL },
                { "grp/conf", "directory BASE/grp is writable by its group (mode 0775); refusing a file in a directory others can change (chmod go-w BASE/grp)" },
                { "all/conf", "directory BASE/all is writable by everyone (mode 0777)" },
                { "user/conf", "directory BASE/user is owned by uid 65534, not root; refusing a file in a directory another user can change (chown root BASE/user)" },
                { "sticky/theirs/conf", "BASE/sticky/theirs is owned by uid 65534, in directory BASE/sticky that others can write (mode 1777)" },
                { "all/link", "directory BASE/all is writable by everyone" },
                { "ok/to-all", "directory BASE/all is writable by everyone" },
                { "ok/abs", "directory BASE/grp is writable by its group" },
        };
        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                snprintf(p, sizeof(p), "%s/%s", base, cases[i].path);
                struct config c;
                char err[ERR_MSG_MAX] = "";
                config_defaults(&c);
                int r = config_load(&c, p, true, err, sizeof(err));
                if (!cases[i].words) {
                        if (r != 0)
                                fail_msg("%s: refused: %s", cases[i].path, err);
                        assert_int_equal(c.window, 9);
                        continue;
                }
                char want[512];
                with_base(want, sizeof(want), cases[i].words, base);
                if (r != -EPERM || strncmp(err, p, strlen(p)) != 0 || !strstr(err, want))
                        fail_msg("%s: got %d '%s', want '%s'", cases[i].path, r, err, want);
                assert_int_equal(c.window, 8);
        }
        /* a writable directory further up counts as much */
        assert_int_equal(chmod(base, 0777), 0);
        snprintf(p, sizeof(p), "%s/ok/conf", base);
        struct config c;
        char err[ERR_MSG_MAX] = "";
        config_defaults(&c);
        assert_int_equal(config_load(&c, p, true, err, sizeof(err)), -EPERM);
        assert_non_null(strstr(err, "is writable by everyone (mode 0777)"));
        assert_int_equal(tmp_tree_remove(base), 0);
}

static unsigned key_line(const struct config *c, const char *key)
{
        const char *const *k = config_keys();
        for (size_t i = 0; k[i]; i++)
                if (strcmp(k[i], key) == 0)
                        return c->key_line[i];
        fail_msg("no key %s", key);
        return 0;
}

/* compaction_max_order is checked against the kernel's orders, which only
 * the daemon's first sample or /proc/buddyinfo knows, with the line that
 * set it. */
static void orders_against_kernel(void **state)
{
        (void)state;
        struct config c;
        char err[ERR_MSG_MAX] = "";
        assert_int_equal(load_text("window = 5\n\n# the THP order and two more\ncompaction_max_order = 11\n",
                                   &c, err, sizeof(err)), 0);
        assert_int_equal(key_line(&c, "window"), 1);
        assert_int_equal(key_line(&c, "compaction_max_order"), 4);
        assert_int_equal(key_line(&c, "horizon"), 0);
        assert_int_equal(config_check_orders(&c, "f.conf", 11, err, sizeof(err)), -ERANGE);
        assert_string_equal(err, "f.conf:4: compaction_max_order 11 is beyond the kernel's orders (0..10); allowed: auto or 1..10");
        assert_int_equal(config_check_orders(&c, "f.conf", 12, err, sizeof(err)), 0);
        assert_int_equal(config_check_orders(&c, "f.conf", 14, err, sizeof(err)), 0);
        /* against a kernel's buddyinfo: 11 orders on x86, 14 on arm64 with 64K pages */
        char root[4096];
        snprintf(root, sizeof(root), "%s/x86-1node", fixtures_dir());
        assert_int_equal(config_check_kernel_orders(&c, "f.conf", root, err, sizeof(err)), -ERANGE);
        assert_non_null(strstr(err, "f.conf:4: compaction_max_order 11 is beyond the kernel's orders (0..10)"));
        snprintf(root, sizeof(root), "%s/arm64-14order", fixtures_dir());
        assert_int_equal(config_check_kernel_orders(&c, "f.conf", root, err, sizeof(err)), 0);
        /* unreadable: said, and nothing checked */
        assert_int_equal(config_check_kernel_orders(&c, "f.conf", "/nonexistent", err, sizeof(err)), -ENOENT);
        assert_string_equal(err, "/proc/buddyinfo: No such file or directory");
        /* auto fits any kernel, and the defaults come from no line */
        config_defaults(&c);
        assert_int_equal(key_line(&c, "compaction_max_order"), 0);
        assert_int_equal(config_check_orders(&c, "f.conf", 1, err, sizeof(err)), 0);
        assert_int_equal(config_check_kernel_orders(&c, "f.conf", "/nonexistent", err, sizeof(err)), 0);
        /* a second file's lines are its own: no duplicate from the first */
        assert_int_equal(config_parse_buffer(&c, "a", "window = 4\n", 11, err, sizeof(err)), 0);
        assert_int_equal(config_parse_buffer(&c, "b", "\nwindow = 6\n", 12, err, sizeof(err)), 0);
        assert_int_equal(c.window, 6);
        assert_int_equal(key_line(&c, "window"), 2);
}

/* A file is at most CONFIG_FILE_MAX bytes; longer is refused unread. */
static void size_bound(void **state)
{
        (void)state;
        static char text[CONFIG_FILE_MAX + 2];
        struct config c;
        char err[ERR_MSG_MAX] = "";
        memset(text, '#', CONFIG_FILE_MAX - 11);
        strcpy(text + CONFIG_FILE_MAX - 11, "\nwindow = 9");
        assert_int_equal(strlen(text), CONFIG_FILE_MAX);
        assert_int_equal(load_text(text, &c, err, sizeof(err)), 0);
        assert_int_equal(c.window, 9);
        strcat(text, "\n");
        assert_int_equal(load_text(text, &c, err, sizeof(err)), -EFBIG);
        assert_non_null(strstr(err, ": longer than 65536 bytes; too long for a configuration file"));
        assert_int_equal(c.window, 8);
}

/* The file checked is the file read: a name that leads elsewhere than the
 * open descriptor (replaced in between) is refused. */
static void replaced_while_read(void **state)
{
        (void)state;
        char other[] = "/tmp/memoptimizer-other-XXXXXX", err[ERR_MSG_MAX] = "";
        int fd = mkstemp(other);
        assert_true(fd >= 0);
        assert_int_equal(fchmod(fd, 0644), 0);
        if (geteuid() != 0) {
                close(fd);
                unlink(other);
                skip();         /* the walk is root's rule */
        }
        int r = config_check_owner(conf_path, fd, 0, err, sizeof(err));
        close(fd);
        unlink(other);
        assert_int_equal(r, -EAGAIN);
        assert_non_null(strstr(err, ": replaced while it was read; try again"));
}

static void key_list(void **state)
{
        (void)state;
        size_t n = 0;
        for (const char *const *k = config_keys(); *k; k++)
                n++;
        assert_int_equal(n, 18);
}

/* record: an absolute file name, none or nothing; a relative name is refused
 * (the service runs in /). */
static void record_key(void **state)
{
        (void)state;
        struct config c;
        char err[512];
        config_defaults(&c);
        assert_string_equal(c.record, "");
        assert_int_equal(load_text("record = /var/tmp/trace.jsonl\n", &c, err, sizeof(err)), 0);
        assert_string_equal(c.record, "/var/tmp/trace.jsonl");
        assert_int_equal(load_text("record =\n", &c, err, sizeof(err)), 0);
        assert_string_equal(c.record, "");
        strcpy(c.record, "/x");
        assert_int_equal(load_text("record = none\n", &c, err, sizeof(err)), 0);
        assert_string_equal(c.record, "");
        assert_int_equal(load_text("record = trace.jsonl\n", &c, err, sizeof(err)), -EINVAL);
        assert_non_null(strstr(err, ":1: invalid value 'trace.jsonl' for record; allowed: an absolute file name, or none"));
}

/* Sizes: powers of 1024, "none" or 0 for no limit, 100M by default. */
static void sizes(void **state)
{
        (void)state;
        uint64_t b;
        assert_int_equal(parse_size("64K", &b), 0);
        assert_true(b == 65536);
        assert_int_equal(parse_size("100M", &b), 0);
        assert_true(b == 100ull << 20);
        assert_int_equal(parse_size("2T", &b), 0);
        assert_true(b == 2ull << 40);
        assert_int_equal(parse_size("123", &b), 0);
        assert_true(b == 123);
        assert_int_equal(parse_size("none", &b), 0);
        assert_true(b == 0);
        static const char *const bad[] = { "", "M", "1.5M", "-1M", "+1M", "1 M", "1m", "1MB", "1KK", "x" };
        for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
                assert_int_equal(parse_size(bad[i], &b), -EINVAL);
        assert_int_equal(parse_size("99999999999999999999", &b), -ERANGE);
        assert_int_equal(parse_size("16777216T", &b), -ERANGE);        /* 2^64 */

        struct config c;
        char err[512];
        config_defaults(&c);
        assert_true(c.record_max_size == 100ull << 20);
        assert_int_equal(load_text("record_max_size = 1G\n", &c, err, sizeof(err)), 0);
        assert_true(c.record_max_size == 1ull << 30);
        assert_int_equal(load_text("record_max_size = none\n", &c, err, sizeof(err)), 0);
        assert_true(c.record_max_size == 0);
        assert_int_equal(load_text("record_max_size = 0\n", &c, err, sizeof(err)), 0);
        assert_true(c.record_max_size == 0);
        assert_int_equal(load_text("record_max_size = 4K\n", &c, err, sizeof(err)), -EINVAL);
        assert_non_null(strstr(err, ":1: out-of-range value '4K' for record_max_size; allowed: 64K..1T"));
        assert_int_equal(load_text("record_max_size = 2T\n", &c, err, sizeof(err)), -EINVAL);
        assert_non_null(strstr(err, ":1: out-of-range value '2T'"));
        assert_int_equal(load_text("record_max_size = 10MB\n", &c, err, sizeof(err)), -EINVAL);
        assert_non_null(strstr(err, ":1: invalid value '10MB' for record_max_size"));
}

/* kswapd_rate_prior: auto (0) or a size per second in range */
static void rates(void **state)
{
        (void)state;
        struct config c;
        char err[512];
        config_defaults(&c);
        assert_true(c.kswapd_rate_prior == 0);
        assert_int_equal(load_text("kswapd_rate_prior = 200M/s\n", &c, err, sizeof(err)), 0);
        assert_true(c.kswapd_rate_prior == 200ull << 20);
        assert_int_equal(load_text("kswapd_rate_prior = auto\n", &c, err, sizeof(err)), 0);
        assert_true(c.kswapd_rate_prior == 0);
        static const char *const bad[] = { "200M", "200M/", "/s", "none/s", "1.5G/s", "200MB/s", "200M/S", "0x1G/s" };
        for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
                char text[64];
                snprintf(text, sizeof(text), "kswapd_rate_prior = %s\n", bad[i]);
                assert_int_equal(load_text(text, &c, err, sizeof(err)), -EINVAL);
                assert_non_null(strstr(err, "invalid value"));
        }
        assert_int_equal(load_text("kswapd_rate_prior = 0/s\n", &c, err, sizeof(err)), -EINVAL);
        assert_non_null(strstr(err, ":1: out-of-range value '0/s' for kswapd_rate_prior; allowed: auto, or 1M/s..1T/s"));
        assert_int_equal(load_text("kswapd_rate_prior = 2T/s\n", &c, err, sizeof(err)), -EINVAL);
        assert_non_null(strstr(err, "out-of-range"));
}

static int make_tmp(void **state)
{
        (void)state;
        int fd = mkstemp(conf_path);
        assert_true(fd >= 0);
        close(fd);
        return 0;
}

static int rm_tmp(void **state)
{
        (void)state;
        unlink(conf_path);
        return 0;
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(durations),
                cmocka_unit_test(long_lines_read_whole),
                cmocka_unit_test(nul_byte_refused),
                cmocka_unit_test(only_regular_files),
                cmocka_unit_test(defaults_and_missing_file),
                cmocka_unit_test(every_key),
                cmocka_unit_test(errors_name_file_and_line),
                cmocka_unit_test(owner_and_mode),
                cmocka_unit_test(directories_others_can_write),
                cmocka_unit_test(orders_against_kernel),
                cmocka_unit_test(size_bound),
                cmocka_unit_test(replaced_while_read),
                cmocka_unit_test(key_list),
                cmocka_unit_test(record_key),
                cmocka_unit_test(sizes),
                cmocka_unit_test(rates),
        };
        return cmocka_run_group_tests(tests, make_tmp, rm_tmp);
}
