/* log: the pace at which a recurring failure is logged. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <syslog.h>

#include <cmocka.h>

#include "log.h"

/* At 1 s: a warning, nothing for 10 s, an error, then one a minute. */
static void repeat_pace(void **state)
{
        (void)state;
        unsigned warnings = 0, errors = 0, last_error = 0;
        for (unsigned n = 1; n <= 200; n++) {
                int prio = log_repeat_prio(n, 1.0);
                if (prio == LOG_WARNING) {
                        assert_int_equal(n, 1);
                        warnings++;
                } else if (prio == LOG_ERR) {
                        assert_int_equal(n, errors ? last_error + 60 : 11);
                        errors++;
                        last_error = n;
                } else {
                        assert_int_equal(prio, -1);
                }
        }
        assert_int_equal(warnings, 1);
        assert_int_equal(errors, 4);    /* at 11, 71, 131, 191 */
        /* at 100 ms, the same seconds */
        assert_int_equal(log_repeat_prio(100, 0.1), -1);
        assert_int_equal(log_repeat_prio(101, 0.1), LOG_ERR);
        assert_int_equal(log_repeat_prio(700, 0.1), -1);
        assert_int_equal(log_repeat_prio(701, 0.1), LOG_ERR);
        /* intervals of a minute or more: an error each time after the first */
        assert_int_equal(log_repeat_prio(1, 60), LOG_WARNING);
        assert_int_equal(log_repeat_prio(2, 60), LOG_ERR);
        assert_int_equal(log_repeat_prio(3, 120), LOG_ERR);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(repeat_pace),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
