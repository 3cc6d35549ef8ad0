#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

int parse_long(const char *s, long min, long max, long *out)
{
        char *end;
        errno = 0;
        long v = strtol(s, &end, 10);
        if (end == s)
                return -EINVAL;
        while (*end == ' ' || *end == '\t' || *end == '\n')
                end++;
        if (*end != '\0')
                return -EINVAL;
        if (errno == ERANGE || v < min || v > max)
                return -ERANGE;
        *out = v;
        return 0;
}

void json_put(int *err, json_object *o, const char *key, json_object *v)
{
        if (!o || !v || json_object_object_add(o, key, v) < 0) {
                json_object_put(v);
                *err = -ENOMEM;
        }
}

json_object *json_get(json_object *o, const char *key)
{
        json_object *v = NULL;
        return json_object_object_get_ex(o, key, &v) ? v : NULL;
}

void json_put_null(int *err, json_object *o, const char *key)
{
        if (!o || json_object_object_add(o, key, NULL) < 0)
                *err = -ENOMEM;
}

void json_append(int *err, json_object *a, json_object *v)
{
        if (!a || !v || json_object_array_add(a, v) < 0) {
                json_object_put(v);
                *err = -ENOMEM;
        }
}

void json_put_number(int *err, json_object *o, const char *key, double v, int decimals)
{
        if (!isfinite(v)) {
                json_put_null(err, o, key);
                return;
        }
        char buf[64];
        int n = decimals == JSON_FULL_PRECISION ? -1 : snprintf(buf, sizeof(buf), "%.*f", decimals, v);
        /* a number too long for buf (1e300 with decimals) keeps its precision */
        json_put(err, o, key, n >= 0 && (size_t)n < sizeof(buf) ? json_object_new_double_s(v, buf) :
                                                                  json_object_new_double(v));
}

char *json_text(json_object *o, int err, int flags)
{
        const char *s = o && err == 0 ? json_object_to_json_string_ext(o, flags) : NULL;
        char *text = s ? strdup(s) : NULL;
        json_object_put(o);
        return text;
}
