/* status-live.h — reading the daemon's live.json for `status`: every field
 * status uses is checked for its type and range before anything is
 * computed from it or printed (a file with "updated": 1e308 once made
 * status print a 300-digit age). */
#pragma once

#include <stddef.h>

#include <json-c/json.h>

/* How far ahead of this clock a time in live.json may be (the daemon's
 * clock and ours are the same; it may have been stepped back since). */
#define LIVE_CLOCK_SLACK 60.0

/* 0 when live (schema_version already checked) holds what the daemon
 * writes, with times no later than now + LIVE_CLOCK_SLACK; otherwise
 * -EBADMSG and why names the field and what is wrong with it. */
int live_check(json_object *live, double now, char *why, size_t whysz);
