/* status.h — `memoptimizer status`: the kernel's memory state, the daemon's
 * baseline, what it learnt (the state directory's file) and the running
 * daemon's own view (its live.json), for a person
 * or, with --json, as one JSON document (docs/status-json.md), without root.
 * Owns reading what it shows into one struct status_report; both outputs
 * are rendered from it (status-render.h), so they cannot disagree. */
#pragma once

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>

#include <json-c/json.h>

#include "config.h"
#include "learn.h"
#include "sample.h"

/* Raised when a field changes meaning or goes away; new fields keep it. */
#define STATUS_SCHEMA_VERSION 1

enum baseline_source { BASELINE_UNCHANGED, BASELINE_STATE_FILE, BASELINE_UNKNOWN };
enum daemon_state { DAEMON_NOT_RUNNING, DAEMON_RUNNING, DAEMON_STALE };
enum learned_state { LEARNED_NONE, LEARNED_OK, LEARNED_UNUSABLE };

struct status_report {
        double time;                    /* CLOCK_REALTIME */
        struct sample s;
        char sample_error[200];         /* when the sample failed: the file, and why if known */
        long baseline;
        enum baseline_source baseline_source;
        char baseline_error[96];        /* with BASELINE_UNKNOWN: what is wrong with the state file */
        unsigned max_order;             /* compaction_max_order resolved */
        enum daemon_state daemon;
        char daemon_detail[256];        /* why that state, for a person */
        double age;                     /* seconds since live.json was written */
        json_object *live;              /* live.json, NULL when absent or unusable */
        /* what the daemon learnt (learn-file.h), its times as Unix time */
        enum learned_state learned_state;
        char learned_file[PATH_MAX];
        char learned_error[PATH_MAX + 512];     /* why LEARNED_UNUSABLE */
        double learned_saved;                   /* the file's mtime */
        struct learned learned;
};

/* Read everything. Returns 0 or a negative errno (the kernel's state could
 * not be read, or out of memory); on success release with
 * status_report_free(). */
int status_report_read(struct status_report *r, const char *root, const char *state_dir,
                       const char *learn_dir, const struct config *cfg);
void status_report_free(struct status_report *r);

/* `memoptimizer status [--json]`. Returns an exit status. */
int status_print(FILE *out, const char *root, const char *state_dir, const char *learn_dir,
                 const struct config *cfg, bool json);
