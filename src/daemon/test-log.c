/* log: the pace at which a recurring failure is logged. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* Each field whole, in order, "NAME=value", however long the message:
 * nothing of an event is cut or lost on its way to the journal. */
static void event_fields_whole(void **state)
{
        (void)state;
        char message[3000];
        memset(message, 'm', sizeof(message) - 1);
        message[sizeof(message) - 1] = '\0';
        struct log_field fields[30];
        for (size_t i = 0; i < 30; i++) {
                fields[i].name = "WSF_NEW";
                snprintf(fields[i].value, sizeof(fields[i].value), "%zu", i);
        }
        struct iovec iov[LOG_EVENT_FIELDS_MAX];
        char *text = NULL;
        int n = log_event_fields(LOG_NOTICE, MSGID_RAISE, message, fields, 2, iov, &text);
        assert_int_equal(n, 6);
        assert_int_equal(iov[0].iov_len, strlen("MESSAGE=") + strlen(message));
        assert_memory_equal(iov[0].iov_base, "MESSAGE=mmm", 11);
        const char *want[] = { ("MESSAGE_ID=" MSGID_RAISE), "PRIORITY=5", "SYSLOG_IDENTIFIER=memoptimizer",
                               "WSF_NEW=0", "WSF_NEW=1" };
        for (int i = 1; i < n; i++) {
                assert_int_equal(iov[i].iov_len, strlen(want[i - 1]));
                assert_memory_equal(iov[i].iov_base, want[i - 1], iov[i].iov_len);
        }
        free(text);
        /* more fields than an event carries: the first ones, up to the cap */
        n = log_event_fields(LOG_INFO, MSGID_LOWER, "m", fields, 30, iov, &text);
        assert_int_equal(n, LOG_EVENT_FIELDS_MAX);
        assert_memory_equal(iov[n - 1].iov_base, "WSF_NEW=23", iov[n - 1].iov_len);
        free(text);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(repeat_pace),
                cmocka_unit_test(event_fields_whole),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
