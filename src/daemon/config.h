/* config.h — /etc/memoptimizer.conf and the values it sets.
 *
 * Owns the key table (name, type, range, default), the file's syntax (one
 * `key = value` per line, whole-line comments, nothing else), the one
 * number syntax of every numeric value, durations with units ("200ms",
 * "1s", "2min"), who may have written the file, and error messages of the
 * form "FILE:LINE: what is wrong and what is allowed". */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "build-config.h"
#include "engine.h"

#define CONFIG_DEFAULT_PATH SYSCONFDIR "/memoptimizer.conf"
#define CONFIG_ORDER_AUTO ENGINE_ORDER_AUTO
/* The sampling interval's range, seconds: the key, --interval and record's. */
#define CONFIG_INTERVAL_MIN 0.1
#define CONFIG_INTERVAL_MAX 60.0
#define CONFIG_INTERVAL_RANGE "100ms..60s"
#define CONFIG_PATH_MAX 4096
/* Bytes in a configuration file, at most: the shipped one, every setting
 * commented, is 3 KB. Whatever is longer is not a configuration file. */
#define CONFIG_FILE_MAX 65536
#define CONFIG_NR_KEYS 18
/* A trace is moved to FILE.1 when it grows past this: about a day at 1 s. */
#define CONFIG_RECORD_MAX_SIZE_DEFAULT (100ull << 20)

struct config {
        double interval;                /* seconds */
        unsigned window;                /* samples */
        double horizon;                 /* seconds */
        long max_wsf;
        double calm_period;             /* seconds */
        uint64_t kswapd_rate_prior;     /* bytes per second; 0: auto (a share of memory) */
        double trend_min_r2;
        double oom_headroom;            /* fraction, 0..0.5 */
        bool compaction;
        int compaction_max_order;       /* CONFIG_ORDER_AUTO or 1.. */
        double compaction_lead_time;    /* seconds */
        bool wake_kswapd;               /* pulses of vm.lowmem_reserve_ratio (wake.h) */
        bool dry_run;
        int log_level;                  /* LOG_ERR .. LOG_DEBUG */
        char record[CONFIG_PATH_MAX];   /* trace file; "" for none */
        uint64_t record_max_size;       /* bytes before FILE moves to FILE.1; 0: no limit */
        char metrics_dir[CONFIG_PATH_MAX];      /* "" : no metrics file */
        double metrics_interval;        /* seconds */
        /* the line that set each key, in config_keys() order; 0: default */
        unsigned key_line[CONFIG_NR_KEYS];
};

void config_defaults(struct config *c);

/* Load `path` over the defaults. When must_exist is false a missing file
 * means defaults. Only a regular file of at most CONFIG_FILE_MAX bytes is
 * read (a directory, FIFO or device is refused without being opened).
 * Run as root, config_check_owner() must pass. On failure returns a
 * negative errno and puts a message (FILE:LINE: ... for content errors)
 * into err. c is untouched on failure. */
int config_load(struct config *c, const char *path, bool must_exist, char *err, size_t errsz);

/* The ownership rule of config_load() for `path` opened as fd, as seen by
 * a process with effective uid euid (a parameter so tests need not be
 * root); like sshd's StrictModes, as root only: the file must be root's and
 * writable by nobody else, and so must every directory whose entries are
 * looked up to reach it (those of symbolic links on the way too) — except
 * a sticky directory of root's (/tmp) when the entry in it is root's, which
 * nobody else can rename. Whoever could change the file, or what its name
 * leads to, could steer a root daemon. -EPERM with the reason in err. */
int config_check_owner(const char *path, int fd, uid_t euid, char *err, size_t errsz);

/* The same parse over `len` bytes of text (for the fuzzer, and for anything
 * that has the file's text already); `name` stands for the file in messages. */
int config_parse_buffer(struct config *c, const char *name, const char *text, size_t len,
                        char *err, size_t errsz);

/* compaction_max_order against the kernel's order count (from buddyinfo or
 * a sample), which the file alone cannot know: 0, or -ERANGE with
 * "NAME:LINE: ..." in err. `auto` always fits. */
int config_check_orders(const struct config *c, const char *name, unsigned nr_orders,
                        char *err, size_t errsz);

/* The same against root + /proc/buddyinfo: 0, -ERANGE as above, or the
 * negative errno of reading it (err says so; nothing was checked). */
int config_check_kernel_orders(const struct config *c, const char *name, const char *root,
                               char *err, size_t errsz);

/* "1.5s", "200ms", "2min", "1h" -> seconds. A number without unit is an
 * error. Numbers here and in every numeric value are plain decimals:
 * digits, optionally a point and more digits (no sign, exponent or hex). */
int parse_duration(const char *s, double *secs);

/* A sampling interval ("500ms") within CONFIG_INTERVAL_RANGE: 0, or
 * -EINVAL (malformed) / -ERANGE. */
int config_parse_interval(const char *s, double *secs);

/* "64K", "100M", "1G", "2T" (powers of 1024), plain bytes (decimal
 * digits), or "none" (0). */
int parse_size(const char *s, uint64_t *bytes);

/* The engine's parameters for this configuration; writes is false in
 * dry-run and monitor-only; page and THP sizes in bytes (thp_pmd_size 0:
 * no THP), from the system or from a trace's header. */
void config_engine_params(struct engine_params *p, const struct config *c, bool writes,
                          long page_size, long thp_pmd_size);

/* Key names in file order, NULL-terminated (for --help and tests). */
const char *const *config_keys(void);

const char *log_level_name(int level);
