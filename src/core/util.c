#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

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

struct json_object *json_number(double v, int decimals)
{
        if (!isfinite(v))
                return NULL;
        char buf[64];
        snprintf(buf, sizeof(buf), "%.*f", decimals, v);
        return json_object_new_double_s(v, buf);
}
