/* learn.h — what past pressure episodes taught: how wide the low-min gap
 * had to be for each kind of episode, and how fast kswapd can reclaim.
 *
 * Episodes are told apart by how fast they demand memory and in what: the
 * class of an episode is the base-2 logarithm of its peak demand in
 * permyriad of the machine's managed memory per second (class 10: about
 * 10 % of memory per second), and its kind says whether that demand was
 * mostly transparent huge pages (learn_kind_of()). Huge pages stall on free
 * blocks, small ones on free pages: what one kind's stalls teach is no
 * evidence for the other (the mixed benchmark's streaming writers and its
 * THP burst, both class 9, taught each other 209-427). For each kind and
 * class the learner keeps the scale factor that would
 * just have done: it grows by the shortfall an episode's stalls showed and
 * shrinks by the margin an episode left unused. It also keeps the best
 * rate kswapd reclaimed at while free memory was below low (its capacity,
 * measured), for episodes of kinds it has not met, and the
 * last episodes (their times and sizes, for anticipating ones that recur).
 *
 * Pure: episodes in, numbers out. Times are the samples' (monotonic
 * seconds); the text form (learn_format(), learn_parse(), for the state
 * directory and `status`) converts them to and from the wall clock with an
 * offset the caller gives. Entries not confirmed for LEARN_MAX_AGE are
 * forgotten, so a changed workload is learnt again. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "episode.h"

/* Reads version 1 too: its classes stand for both kinds. Version 2 was an
 * experiment's, never released (bench/results/steps/unpaid-warm/): refused. */
#define LEARN_VERSION 3
#define LEARN_CLASSES 24                /* classes 0..23: up to 2^23 permyriad/s */
#define LEARN_HISTORY 32                /* episodes kept */
#define LEARN_MAX_AGE (7 * 24 * 3600.0) /* seconds without an episode of the class */
#define LEARN_NEIGHBOURS 2              /* classes either side consulted for an unknown one */
/* No class needs more than this: above any kernel's limit (3000), so the
 * bounds that apply (max_wsf, the kernel's, the OOM guard) still decide. */
#define LEARN_WSF_MAX 10000.0
/* The smallest raise that does its job: policy.h's pace floor, which is
 * defined by it (the learner sits below the policy). A class
 * raised to at least this for an episode that did not stall keeps at least
 * this: what the episode used of the gap with kswapd woken by the raise is
 * small, and halved towards it episode after episode the class would reach
 * the baseline, and its next episode get no raise at all (bursts with one
 * state directory: 146, 73, 37, 19 in runs 3-6, none of them stalled; four
 * more halvings reach the kernel's 10). */
#define LEARN_RAISED_FLOOR 100

/* What an episode demanded: mostly huge pages (THP) or not. */
enum learn_kind { LEARN_BASE, LEARN_THP, LEARN_KINDS };
/* THP: at least this share of the peak demand was huge pages faulted in. */
#define LEARN_THP_SHARE 0.5

struct learn_class {
        bool known;
        double wsf;             /* the scale factor this class needs */
        unsigned episodes;      /* seen (and not forgotten) */
        unsigned stalled;       /* of which stalled */
        double updated;         /* sample time of the last episode */
};

/* An episode as kept in the history. */
struct learn_episode {
        double start, duration;                 /* seconds */
        double peak_demand_pages_per_sec, demand_pages;
        double peak_thp_pages_per_sec;          /* 0 for one read from version 1 */
        double min_margin_pages;
        long wsf_max;
        uint64_t stalls;                        /* allocstall + compact_stall */
};

struct learned {
        uint64_t managed_pages;                 /* of the machine it was learnt on; 0: nothing yet */
        double kswapd_capacity_pages_per_sec;   /* best shown below low; 0: unknown */
        double kswapd_updated;                  /* sample time it was shown */
        struct learn_class classes[LEARN_KINDS][LEARN_CLASSES];
        struct learn_episode history[LEARN_HISTORY];    /* oldest first */
        size_t nr_history;
        int version;                            /* of the text it was read from; 0: not read */
        bool dirty;                             /* changed since saved (or loaded) */
};

void learn_init(struct learned *l);

/* The class of a demand of pages_per_sec on a machine of managed pages;
 * -1 when it is below class 0 (less than 1 permyriad per second). */
int learn_class_of(double pages_per_sec, uint64_t managed);

/* How many kinds and classes are known. */
size_t learn_nr_classes(const struct learned *l);

/* The kind of a demand of pages_per_sec of which thp_pages_per_sec were
 * huge pages. */
enum learn_kind learn_kind_of(double pages_per_sec, double thp_pages_per_sec);
/* "thp" or "base": the kind's name in status's JSON and the journal. */
const char *learn_kind_name(enum learn_kind kind);

/* Forget what is older than LEARN_MAX_AGE at `now`, and everything when the
 * machine's managed memory is no longer within 10 % of what it was learnt
 * on. */
void learn_expire(struct learned *l, double now, uint64_t managed);

/* The aging a running daemon applies, as a replay of it must too: at the
 * first forecast, forget what was learnt on a machine of another size
 * (managed: this machine's pages); then every LEARN_AGE_EVERY seconds,
 * forget what is older than LEARN_MAX_AGE. Returns true when it aged (the
 * daemon saves then). */
#define LEARN_AGE_EVERY 60.0
struct learn_clock {
        bool sized;             /* compared with this machine's size */
        double aged;            /* sample time of the last aging; start at -INFINITY */
};
bool learn_tick(struct learned *l, struct learn_clock *c, double now, uint64_t managed);

/* Take an ended episode in. */
void learn_episode(struct learned *l, const struct episode_stats *e);

/* A kswapd reclaim rate shown at `time`. */
void learn_kswapd(struct learned *l, double pages_per_sec, double time);
/* The best rate shown, halving in weight over LEARN_KSWAPD_HALF_LIFE; 0
 * when none was. */
double learn_kswapd_capacity(const struct learned *l, double now);

/* Where a kind and class are learnt. */
struct learn_key {
        enum learn_kind kind;
        int class;              /* -1: none */
};

/* The scale factor learnt for a demand of pages_per_sec of kind `kind` on
 * this machine: its class's, or the nearest known class's within
 * LEARN_NEIGHBOURS (above first), of its own kind; of the other kind only
 * when its own has none there (what the other kind needed is still the
 * best evidence for a kind not met yet). -1 when nothing applies; 0 means:
 * it needed no raise. */
long learn_wsf_for(const struct learned *l, enum learn_kind kind, double pages_per_sec, uint64_t managed);
/* The kind and class that value is taken from (for the log); class -1
 * when none. */
struct learn_key learn_class_for(const struct learned *l, enum learn_kind kind, double pages_per_sec,
                                 uint64_t managed);
/* What that class needs, as it is; -1 when it is not a known class. */
long learn_class_wsf(const struct learned *l, struct learn_key key);

/* ---- text (learn-text.c) --------------------------------------------- */

/* The text is at most this long (a full state is about 13 KB): a longer
 * one is refused unread. */
#define LEARN_TEXT_MAX 65536

/* The learned state as the text of the state directory's file (caller
 * frees *text). wall_offset: add to a sample time to get Unix time. 0 or
 * -ENOMEM. */
int learn_format(const struct learned *l, double wall_offset, char **text);

/* Parse such a text into *l (which is reset first). Anything not exactly as
 * learn_format() writes it, another version, or numbers out of range:
 * -EBADMSG with "LINE: what is wrong" in err, and *l reset. */
int learn_parse(struct learned *l, const char *text, size_t len, double wall_offset, char *err,
                size_t errsz);
