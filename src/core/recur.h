/* recur.h — episodes that recur: a train of episodes of one kind at a
 * steady period (the seeds' "transaction processing": periodic spikes of
 * allocation that keep recurring), which a linear trend cannot see coming.
 *
 * Owns finding such a pattern in the learner's episode history and saying
 * when the next episode is due. A pattern needs RECUR_MIN_EPISODES
 * episodes of the same kind (classes within one of each other, or volumes
 * within RECUR_VOLUME_RATIO) in a row, newest first, the gaps between
 * their starts within RECUR_JITTER of the run's own median period; two
 * episodes are a coincidence, not a pattern. It is dropped as soon as an
 * episode is overdue by RECUR_TOLERANCE of the period. Pure: the history
 * and the time in, the expectation out. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "learn.h"

#define RECUR_MIN_EPISODES 3
#define RECUR_MAX_EPISODES 8    /* the most recent ones looked at */
#define RECUR_JITTER 0.25       /* largest deviation of a period from the median, as a share */
#define RECUR_VOLUME_RATIO 2.0  /* volumes of one kind: the larger at most this times the smaller */
#define RECUR_TOLERANCE 0.25    /* an episode later than this share of the period: the pattern broke */

struct recurrence {
        bool expected;          /* a pattern holds and its next episode is not overdue */
        double period;          /* seconds between starts (median) */
        double next_start;      /* sample time the next episode is due */
        double peak_demand_pages_per_sec;       /* the highest of the pattern's episodes (the run's) */
        enum learn_kind kind;                   /* of its newest episode */
        unsigned episodes;      /* in the pattern */
};

/* The pattern ending with the last episode of l's history, as seen at
 * `now`; out->expected false when there is none (or it broke). */
void recur_find(const struct learned *l, uint64_t managed, double now, struct recurrence *out);
