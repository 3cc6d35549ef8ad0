/* log.h — where messages go.
 *
 * Under journald (stderr is the stream named by $JOURNAL_STREAM) messages are
 * sent with sd_journal_send(), each decision with its MESSAGE_ID and its
 * numbers as fields; otherwise they are plain lines on stderr. Owns the
 * message IDs, which the journal catalog explains. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/uio.h>

#define MSGID_RAISE        "c89dbaa9299b408183ed13a3847aadbc"
#define MSGID_LOWER        "42da16f3d3c249a7a55fc0f0e182788d"
#define MSGID_COMPACT      "c14dfcab3d544f06a40c0242b7ab801d"
#define MSGID_BACKOFF      "5c6d2ed7eb214a0796dde4e278b62786"
#define MSGID_ADOPT        "568d340cae72420e8137e591ce8c0346"
#define MSGID_MONITOR_ONLY "ff2f58ec7beb483db62b7608b69944c2"
#define MSGID_RELOAD       "97615faba55b4e1cbdc8aa41d5ad405d"
#define MSGID_START        "6df4ba32e1784311bff3ad22c73222b7"
#define MSGID_RESTORE      "9b333cc74221435da8711887535c19dd"
#define MSGID_EPISODE      "69fc4fc1872f470a91b187c308ff607a"
#define MSGID_HOLD         "5278a16c960145018ec6de89fd8be03b"
#define MSGID_WAKE         "b1d306a3ff09438ab54b65487b496035"
#define MSGID_WAKE_END     "6cc5569f521e4741a458000640b1f902"

struct logger {
        int level;              /* LOG_ERR .. LOG_DEBUG */
        bool journal;
};

struct log_field {
        const char *name;       /* journal field name, e.g. "WSF_NEW" */
        char value[48];
};

void log_init(struct logger *l, int level);

__attribute__((format(printf, 3, 4)))
void log_msg(const struct logger *l, int prio, const char *fmt, ...);

/* One event: MESSAGE_ID, the human message, and its numbers as fields. */
void log_event(const struct logger *l, int prio, const char *message_id, const char *message,
               const struct log_field *fields, size_t nr_fields);

/* The journal fields of an event as log_event() sends them: MESSAGE,
 * MESSAGE_ID, PRIORITY, SYSLOG_IDENTIFIER, then the first fields, each
 * "NAME=value" in full, in one allocation *text for the caller to free.
 * Returns how many iov holds, or -ENOMEM. */
#define LOG_EVENT_FIELDS_MAX 28
int log_event_fields(int prio, const char *message_id, const char *message,
                     const struct log_field *fields, size_t nr_fields,
                     struct iovec iov[LOG_EVENT_FIELDS_MAX], char **text);

/* A failure that recurs every interval (a sample that cannot be read, a
 * sysctl that cannot be written) is logged at this pace: a warning for the
 * first, an error once it has lasted LOG_REPEAT_FIRST_SEC, then one every
 * LOG_REPEAT_EVERY_SEC while it lasts. n counts the failures in a row (1:
 * the first), one an interval. Returns the priority to log the n-th with,
 * or -1 when it is not logged. */
#define LOG_REPEAT_FIRST_SEC 10.0
#define LOG_REPEAT_EVERY_SEC 60.0
int log_repeat_prio(unsigned n, double interval_sec);
