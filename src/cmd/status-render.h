/* status-render.h — the two renderings of a struct status_report: text
 * for a person and the JSON document of docs/status-json.md. Pure: the
 * report in, text or JSON out. */
#pragma once

#include <stdio.h>

#include <json-c/json.h>

#include "status.h"

const char *daemon_state_str(enum daemon_state s);
const char *learned_state_str(enum learned_state s);

/* The JSON document (caller puts it; NULL when out of memory) and the text
 * for a person. */
json_object *status_report_json(const struct status_report *r);
void status_report_text(FILE *out, const struct status_report *r);
