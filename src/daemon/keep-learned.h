/* keep-learned.h — the running daemon's side of what it learned (learn.h):
 * read from the state directory at start (an unusable file is set aside and
 * said so once), forgotten when learnt on a machine of another size, aged,
 * saved at most once a minute when it changed and at exit, and forgotten
 * when somebody removes the file (`memoptimizer forget`), which an inotify
 * watch on the directory tells. Only the instance that owns the state (it
 * holds the instance lock and is not in dry-run) writes there; the others
 * read it and learn in memory. */
#pragma once

#include <stdbool.h>

#include <systemd/sd-event.h>

#include "forecast.h"
#include "learn.h"
#include "log.h"

struct keeper {
        const char *dir;
        struct learned *l;
        const struct logger *log;
        sd_event *event;
        sd_event_source *watch;         /* the directory; NULL until it exists */
        struct learn_clock clock;       /* aging; a save at most every LEARN_AGE_EVERY
                                         * (an episode ends every few seconds, the file
                                         * is fsync()ed) */
        bool save_failed;               /* logged; said again when it works */
};

/* Read dir/learned into *l (owner: the instance that may write there). */
void keeper_start(struct keeper *k, sd_event *e, const char *dir, struct learned *l,
                  const struct logger *log, bool owner);

/* Every forecast: forget what was learnt on a machine of another size (at
 * the first), age, and save when it changed and a minute has passed. */
void keeper_step(struct keeper *k, const struct forecast *f, double now, bool owner);

/* At exit: save what changed. */
void keeper_stop(struct keeper *k, bool owner);
