/* publish-format.h — what the running daemon publishes: its counters and
 * recent decisions (struct publisher), and the two formats, live.json
 * (documented in docs/status-json.md) and the Prometheus text exposition
 * format (memoptimizer(8), METRICS). Pure: numbers in, text out; the files
 * are publish.h's. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "forecast.h"
#include "log.h"
#include "policy.h"
#include "sample.h"

#define LIVE_FILE "live.json"
#define LIVE_LOCK "live.lock"
#define METRICS_FILE "memoptimizer.prom"
/* Raised when a field changes meaning or goes away; new fields keep it. */
#define LIVE_SCHEMA_VERSION 1
/* live.json is rewritten at least this often (or each interval, if longer). */
#define LIVE_HEARTBEAT 10.0
#define PUBLISH_RECENT 10       /* decisions kept in live.json */
#define PUBLISH_WSF_KINDS _WSF_REASONS

enum publish_mode { MODE_ACTING, MODE_DRY_RUN, MODE_MONITOR_ONLY };

struct publish_counters {
        uint64_t decisions[PUBLISH_WSF_KINDS];  /* by enum wsf_reason; [WSF_KEEP] unused */
        uint64_t compactions;           /* decided; carried out only when acting */
        uint64_t backoffs;
        uint64_t samples, sample_errors;
};

struct publish_event {
        double time;                    /* CLOCK_REALTIME, seconds */
        char kind[WSF_REASON_NAME_MAX]; /* wsf_reason_str(), "compact" or "backoff" */
        long wsf_old, wsf_new;
        int node;                       /* -1: none */
        char zone[ZONE_NAME_MAX];
        int order;                      /* -1: none */
        char reason[256];
};

struct publisher {
        struct publish_counters n;
        struct publish_event recent[PUBLISH_RECENT];
        size_t nr_recent;               /* newest at nr_recent - 1 */
        double started;                 /* CLOCK_REALTIME */
        uint64_t start_ticks;           /* this process's start (process.h); 0: not known */
        double metrics_due;             /* CLOCK_MONOTONIC */
        double live_due;                /* CLOCK_MONOTONIC; 0: write at the next cycle */
        enum publish_mode live_mode;    /* as last written */
        bool live_sampled;              /* as last written: the sample was read */
        bool live_forecast;             /* as last written: there was a forecast */
        int lock_fd;                    /* -1 until this instance publishes */
        char metrics_dir[CONFIG_PATH_MAX];      /* where the file was last written */
        bool warned_lock, warned_live, warned_metrics;
};

/* What one cycle saw and decided. */
struct publish_input {
        const struct config *cfg;
        const char *state_dir;
        const struct logger *log;
        enum publish_mode mode;
        const struct sample *sample;            /* NULL: reading failed */
        const struct forecast *forecast;        /* NULL: none yet */
        const struct decision *decision;        /* set with forecast */
        const struct policy_state *policy;
};

const char *publish_mode_str(enum publish_mode m);

/* Seconds between two writes of live.json when nothing happens. */
double publish_heartbeat(const struct config *cfg);

/* Pure formatters, for tests: the live document as JSON text (caller
 * frees) and the metrics as Prometheus text exposition format; NULL when
 * out of memory (the metrics: also without a sample). now_real is the
 * wall-clock time of the cycle, cpu_seconds the process's. */
char *publish_live_json(const struct publisher *p, const struct publish_input *in,
                        double now_real, double cpu_seconds);
char *publish_metrics_text(const struct publisher *p, const struct publish_input *in,
                           double now_real, double cpu_seconds);
