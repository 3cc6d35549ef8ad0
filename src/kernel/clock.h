/* clock.h — reading the clocks, the one place that does: seconds as a
 * double (CLOCK_MONOTONIC for intervals and sample times, CLOCK_REALTIME
 * for what people and other programs read). */
#pragma once

#include <time.h>

double clock_secs(clockid_t id);
