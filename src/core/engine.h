/* engine.h — the pure step shared by the daemon and replay: a sample goes
 * into the window, the window into the forecast, the forecast into the
 * policy, and a decision comes out.
 *
 * Owns the window, the newest forecast, the policy state and the resolved
 * compaction order. No I/O, no clock: what the caller must read from the
 * system (page and THP sizes) comes in as numbers, so a recorded trace runs
 * through exactly this code. */
#pragma once

#include <stdbool.h>

#include "forecast.h"
#include "policy.h"
#include "window.h"

/* compaction_max_order "auto": the THP order (see engine_max_order()). */
#define ENGINE_ORDER_AUTO (-1)

struct engine {
        struct window window;
        struct forecast forecast;
        struct policy_state policy;
        unsigned max_order;     /* compaction order resolved at the last step */
};

struct engine_params {
        struct forecast_params forecast;        /* its max_order is the engine's */
        struct policy_config policy;
        int max_order;                          /* ENGINE_ORDER_AUTO or an order */
        long page_size, thp_pmd_size;           /* bytes; thp_pmd_size 0: no THP */
};

/* `baseline` is the value to restore, `in_force` the value the kernel has
 * now (they differ when a previous instance left its value behind). */
int engine_init(struct engine *e, unsigned window, long baseline, long in_force);
void engine_free(struct engine *e);
/* Change the window length, keeping the newest samples. */
int engine_resize(struct engine *e, unsigned window);
/* Forget the window (after a gap in sampling), keeping what policy learnt. */
void engine_restart(struct engine *e);

/* The scale factor in force as the policy sees it (virtual in dry-run) and
 * the baseline it returns to. */
long engine_wsf(const struct engine *e);
long engine_baseline(const struct engine *e);
/* The value last written to or read from the kernel. */
long engine_kernel_seen(const struct engine *e);
/* What the policy has learnt (kept in the policy state): the daemon loads,
 * ages and saves it; a restart of the window keeps it. */
struct learned *engine_learned(struct engine *e);

/* Whether the fast path should watch free memory between samples, and
 * the rate of fall (pages per second) at which it should take a sample at
 * once (policy.h). */
bool engine_onset_watch(const struct engine *e, double *trigger_pages_per_sec);

/* Carrying out a decision went wrong: policy_write_failed() and
 * policy_kernel_refused() on the engine's policy. */
void engine_write_failed(struct engine *e, const struct decision *d, bool keep_intent);
long engine_kernel_refused(struct engine *e, long accepted, long refused);
/* A compaction the engine decided took `seconds` (policy_compaction_took()). */
void engine_compaction_took(struct engine *e, int node, double seconds);

/* Push s and decide. Returns 1 with d filled when there was a forecast, 0
 * when there was none (too few samples, no time passed), a negative errno
 * (-ENOMEM) when the step could not be done. *restarted: the zone layout
 * changed and the window started afresh. */
int engine_step(struct engine *e, const struct engine_params *p, const struct sample *s,
                struct decision *d, bool *restarted);

/* compaction_max_order: `configured`, or for ENGINE_ORDER_AUTO the order of
 * a transparent huge page of pmd_size bytes (0: no THP) with pages of
 * page_size bytes, else the highest order minus one. Capped below nr_orders. */
unsigned engine_max_order(int configured, unsigned nr_orders, long page_size, long pmd_size);
/* The order of a transparent huge page of pmd_size bytes with pages of
 * page_size bytes; 0 when there is none (pmd_size 0). */
unsigned engine_thp_order(long page_size, long pmd_size);
