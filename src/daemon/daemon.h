/* daemon.h — the running daemon: the sd-event loop that drives
 * sample -> window -> forecast -> policy -> actuate every interval, the
 * signals (SIGTERM/SIGINT stop, SIGHUP reloads), start-up checks
 * (writability, kernel features) and putting the baseline back on exit. */
#pragma once

#include "config.h"
#include "log.h"

struct daemon_options {
        const char *config_path;
        bool config_must_exist;
        const char *root;               /* "" for the real system */
        const char *state_dir;          /* STATE_DIR unless testing */
        const char *learn_dir;          /* what was learnt: LEARN_DIR or $STATE_DIRECTORY */
        /* command-line overrides, re-applied after every reload */
        bool force_dry_run, force_debug;
        double interval_override;       /* 0: none */
        const char *record_override;    /* --record FILE; NULL: none */
};

/* Apply the command-line overrides to a configuration read from the file
 * (at start and after every reload). */
void daemon_apply_overrides(const struct daemon_options *opt, struct config *c);

/* Runs until SIGTERM/SIGINT. Returns the process exit status. */
int daemon_run(const struct daemon_options *opt, const struct config *cfg, struct logger *log);
