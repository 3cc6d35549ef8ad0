/* json-alloc-fail.h — json-c's constructors and adders failing on purpose,
 * to show that a document in which any allocation failed is dropped whole
 * (never written with a null where a value belongs, never leaked). A test
 * that includes it links with meson's json_alloc_fail_args (-Wl,--wrap=...),
 * so that the code under test calls the wrappers below. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include <json-c/json.h>

static long json_fail_at;      /* the call that fails, counted from 1; 0: none */
static long json_calls;        /* calls since json_fail_reset() */

static inline void json_fail_reset(long at)
{
        json_fail_at = at;
        json_calls = 0;
}

static inline bool json_fail_now(void)
{
        return ++json_calls == json_fail_at;
}

#define JSON_WRAP(ret, name, params, args, failed) \
        ret __real_##name params; \
        ret __wrap_##name params; \
        ret __wrap_##name params { return json_fail_now() ? failed : __real_##name args; }

JSON_WRAP(json_object *, json_object_new_object, (void), (), NULL)
JSON_WRAP(json_object *, json_object_new_array, (void), (), NULL)
JSON_WRAP(json_object *, json_object_new_string, (const char *s), (s), NULL)
JSON_WRAP(json_object *, json_object_new_int, (int32_t i), (i), NULL)
JSON_WRAP(json_object *, json_object_new_int64, (int64_t i), (i), NULL)
JSON_WRAP(json_object *, json_object_new_uint64, (uint64_t i), (i), NULL)
JSON_WRAP(json_object *, json_object_new_boolean, (json_bool b), (b), NULL)
JSON_WRAP(json_object *, json_object_new_double, (double d), (d), NULL)
JSON_WRAP(json_object *, json_object_new_double_s, (double d, const char *s), (d, s), NULL)
JSON_WRAP(int, json_object_object_add, (json_object *o, const char *k, json_object *v), (o, k, v), -1)
JSON_WRAP(int, json_object_array_add, (json_object *a, json_object *v), (a, v), -1)
JSON_WRAP(const char *, json_object_to_json_string_ext, (json_object *o, int flags), (o, flags), NULL)

/* build() with each json-c call in turn failing, up to the number of calls
 * a whole document takes: each must give NULL (freed by drop otherwise). */
static inline void every_json_failure_drops(void *(*build)(void *), void *arg, void (*drop)(void *))
{
        json_fail_reset(0);
        void *whole = build(arg);
        assert_non_null(whole);
        drop(whole);
        long total = json_calls;
        assert_true(total > 0);
        for (long k = 1; k <= total; k++) {
                json_fail_reset(k);
                void *doc = build(arg);
                if (doc) {
                        drop(doc);
                        fail_msg("a document was made though json-c call %ld of %ld failed", k, total);
                }
        }
        json_fail_reset(0);
}
