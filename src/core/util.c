#include "util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

/* ---- UTC calendar (proleptic Gregorian), without the C library's time
 * zone machinery: days since 1970-01-01 to a date and back (Howard
 * Hinnant's algorithms, for years >= 0). */

static int64_t days_from_civil(int64_t y, int m, int d)
{
        y -= m <= 2;
        int64_t era = y / 400;
        int64_t yoe = y - era * 400;
        int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
        int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        return era * 146097 + doe - 719468;
}

void utc_date(int64_t z, int64_t *y, int *m, int *d)
{
        z += 719468;
        int64_t era = z / 146097;
        int64_t doe = z - era * 146097;
        int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
        int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        int64_t mp = (5 * doy + 2) / 153;
        *d = (int)(doy - (153 * mp + 2) / 5 + 1);
        *m = (int)(mp < 10 ? mp + 3 : mp - 9);
        *y = yoe + era * 400 + (*m <= 2);
}

static int days_in_month(int64_t y, int m)
{
        static const int days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
        bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
        return m == 2 && leap ? 29 : days[m - 1];
}

static bool digit(char c)
{
        return c >= '0' && c <= '9';
}

static int two(const char *s)
{
        return (s[0] - '0') * 10 + (s[1] - '0');
}

double utc_parse(const char *s, bool millis)
{
        const char *shape = millis ? "dddd-dd-ddTdd:dd:dd.dddZ" : "dddd-dd-ddTdd:dd:ddZ";
        if (strlen(s) != strlen(shape))
                return -1;
        for (size_t i = 0; shape[i]; i++)
                if (shape[i] == 'd' ? !digit(s[i]) : s[i] != shape[i])
                        return -1;
        int64_t y = two(s) * 100 + two(s + 2);
        int mo = two(s + 5), d = two(s + 8), h = two(s + 11), mi = two(s + 14), sec = two(s + 17);
        int ms = millis ? two(s + 20) * 10 + (s[22] - '0') : 0;
        if (y < 1970 || mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, mo) || h > 23 || mi > 59 || sec > 59)
                return -1;
        int64_t secs = days_from_civil(y, mo, d) * 86400 + (int64_t)h * 3600 + (int64_t)mi * 60 + sec;
        return (double)secs + ms / 1000.0;
}

void utc_format(double secs, char *buf, size_t size)
{
        double held = secs > 0 ? (secs < UTC_MAX ? secs : UTC_MAX) : 0;      /* NaN: 0 */
        int64_t ms = (int64_t)(held * 1000 + 0.5);                              /* rounded */
        int64_t s = ms / 1000, y;
        int m, d;
        utc_date(s / 86400, &y, &m, &d);
        int64_t sod = s % 86400;
        snprintf(buf, size, "%04" PRId64 "-%02d-%02dT%02d:%02d:%02d.%03dZ", y, m, d, (int)(sod / 3600),
                 (int)(sod / 60 % 60), (int)(sod % 60), (int)(ms % 1000));
}

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
