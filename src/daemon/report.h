/* report.h — turning decisions into log events: one message a person can
 * read, plus the numbers as journal fields. Nothing is logged for a
 * decision that changes nothing. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "forecast.h"
#include "log.h"
#include "policy.h"
#include "wake.h"

/* `acting` is false in dry-run and monitor-only: messages say "would". */
/* Why the scale factor decision was taken, for a person ("" for keep). */
void report_reason(char *buf, size_t size, const struct decision *d);
void report_wsf(const struct logger *l, const struct decision *d, bool acting);
void report_compact(const struct logger *l, const struct compact_order *c, bool acting,
                    bool all_nodes, double seconds, int err);
void report_backoff(const struct logger *l, const struct compact_backoff *b);
/* What asked for a compaction, and what harm made the next one wait: the
 * words the log line and the status events share, at most REPORT_WHY_MAX
 * bytes with the terminating NUL (the longest, a back-off judged by faults
 * with 20-digit counts, takes about 120). */
#define REPORT_WHY_MAX 160
void report_compact_why(char *buf, size_t size, const struct compact_order *c);
void report_backoff_why(char *buf, size_t size, const struct compact_backoff *b);
/* Raises started or stopped being held back at this decision (a guard:
 * kswapd cannot use a higher watermark); nothing when that did not change. */
void report_hold(const struct logger *l, const struct decision *d);
/* An episode ended at this decision: what it showed and what was learnt. */
void report_episode(const struct logger *l, const struct decision *d);

/* A pulse that wakes kswapd (wake.h): its start, and its end with Normal's
 * free pages then (and those in huge blocks, when the pulse watches them),
 * `held` seconds in; err: the write that reopened failed. */
void report_wake(const struct logger *l, const struct wake_pulse *p, long page_size, bool acting);
void report_wake_end(const struct logger *l, const struct wake_pulse *p, enum wake_end e, uint64_t normal_free,
                     uint64_t normal_free_huge, double held, long page_size, int err);

/* The same messages as text, for `memoptimizer replay`. A scale-factor
 * message is at most REPORT_REASON_MAX - 1 bytes of reason with its verb,
 * values and the wake-now note around it: REPORT_MSG_MAX holds it whole.
 * The daemon and replay make every message in REPORT_MSG_MAX bytes, so
 * the journal and a replay say the same. */
#define REPORT_REASON_MAX 256
#define REPORT_MSG_MAX 512
void report_wsf_message(char *msg, size_t size, const struct decision *d, bool acting);
void report_compact_message(char *msg, size_t size, const struct compact_order *c, bool acting,
                            bool all_nodes, int err);
void report_backoff_message(char *msg, size_t size, const struct compact_backoff *b);
void report_episode_message(char *msg, size_t size, const struct decision *d);
void report_hold_message(char *msg, size_t size, const struct decision *d);
void report_wake_message(char *msg, size_t size, const struct wake_pulse *p, long page_size, bool acting);

/* The journal fields of a scale-factor decision, as report_wsf() sends
 * them; how many. REPORT_FIELDS_MAX holds the most one can have (21: a
 * forecast raise for a zone, of a learnt class, lifted towards the pace
 * floor and held to what kswapd could reclaim). */
#define REPORT_FIELDS_MAX 21
size_t report_wsf_fields(struct log_field f[REPORT_FIELDS_MAX], const struct decision *d, bool acting);

/* Pages per second as a person reads it: "1.2 GB/s". */
void format_rate(char *buf, size_t size, double pages_per_sec);
/* Seconds, or "never" for INFINITY. */
void format_secs(char *buf, size_t size, double secs);
