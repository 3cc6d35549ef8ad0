/* engine.h — the pure step shared by the daemon and replay: a sample goes
 * into the window, the window into the forecast, the forecast into the
 * policy, and a decision comes out.
 *
 * Owns the window, the newest forecast and the policy state. No I/O, no
 * clock: what the caller must read from the system (the THP order) comes in
 * as numbers, so a recorded trace runs through exactly this code. */
#pragma once

#include <stdbool.h>

#include "config.h"
#include "forecast.h"
#include "policy.h"
#include "window.h"

struct engine {
        struct window window;
        struct forecast forecast;
        struct policy_state policy;
};

struct engine_params {
        struct forecast_params forecast;
        struct policy_config policy;
};

int engine_init(struct engine *e, unsigned window, long baseline);
void engine_free(struct engine *e);
/* Change the window length, keeping the newest samples. */
int engine_resize(struct engine *e, unsigned window);

/* The parameters a configuration gives; writes is false in dry-run and
 * monitor-only. */
void engine_params_from(struct engine_params *p, const struct config *c, unsigned max_order,
                        bool writes);

/* Push s and decide. Returns 1 with d filled when there was a forecast, 0
 * when there was none (too few samples, no time passed), a negative errno
 * when the sample could not be kept. *restarted: the zone layout changed
 * and the window started afresh. */
int engine_step(struct engine *e, const struct engine_params *p, const struct sample *s,
                struct decision *d, bool *restarted);

/* compaction_max_order: `configured`, or for CONFIG_ORDER_AUTO the order of
 * a transparent huge page of pmd_size bytes (0: no THP) with pages of
 * page_size bytes, else the highest order minus one. Capped below nr_orders. */
unsigned engine_max_order(int configured, unsigned nr_orders, long page_size, long pmd_size);
