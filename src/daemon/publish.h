/* publish.h — the running daemon's view, published for other programs.
 *
 * Owns writing two files atomically (temporary file and rename): live.json
 * in the runtime directory, read by `memoptimizer status`, when something
 * was decided or changed and otherwise every LIVE_HEARTBEAT seconds
 * (rewriting it each cycle was two thirds of the daemon's CPU time), and,
 * when metrics_dir is set, memoptimizer.prom there for node_exporter's
 * textfile collector (at most every metrics_interval). One instance
 * publishes at a time: the one holding live.lock in the runtime directory.
 * What the files hold is publish-format.h's. */
#pragma once

#include "publish-format.h"

void publish_init(struct publisher *p);

/* Count what the cycle did and write the files. Failures are logged once
 * each (and again once they work again); they never stop the daemon. */
void publish_cycle(struct publisher *p, const struct publish_input *in);

/* Write live.json at the next cycle (say, the configuration was reloaded). */
void publish_news(struct publisher *p);

/* On exit: remove both files; a stopped daemon publishes nothing. */
void publish_stop(struct publisher *p, const char *state_dir);
