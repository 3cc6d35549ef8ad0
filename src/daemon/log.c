#include "log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <syslog.h>

#include <systemd/sd-journal.h>

#include "util.h"

/* The four fields every event has (MESSAGE, MESSAGE_ID, PRIORITY,
 * SYSLOG_IDENTIFIER). */
#define LOG_FIXED_FIELDS 4
/* Bytes of one message; longer ones are cut. */
#define LOG_LINE_MAX 1024

/* $JOURNAL_STREAM is "DEV:INO" of the stream systemd connected; only when
 * stderr is still that stream does journald read what we write there. */
static bool stderr_is_journal(void)
{
        const char *e = getenv("JOURNAL_STREAM");
        struct stat st;
        if (!e || fstat(STDERR_FILENO, &st) < 0)
                return false;
        char *end;
        errno = 0;
        unsigned long long dev = strtoull(e, &end, 10);
        if (errno || *end != ':')
                return false;
        unsigned long long ino = strtoull(end + 1, &end, 10);
        if (errno || *end)
                return false;
        return (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}

/* sd_journal_send() drops messages silently (returns 0) when journald's
 * socket does not exist, so only use it when the socket is there. */
#define JOURNAL_SOCKET "/run/systemd/journal/socket"

void log_init(struct logger *l, int level)
{
        struct stat st;
        l->level = level;
        l->journal = stderr_is_journal() && stat(JOURNAL_SOCKET, &st) == 0 && S_ISSOCK(st.st_mode);
}

static void plain(int prio, const char *msg)
{
        static const char *const tag[] = {
                [LOG_EMERG] = "emerg", [LOG_ALERT] = "alert", [LOG_CRIT] = "crit",
                [LOG_ERR] = "error", [LOG_WARNING] = "warning", [LOG_NOTICE] = "notice",
                [LOG_INFO] = "info", [LOG_DEBUG] = "debug",
        };
        fprintf(stderr, "memoptimizer: %s: %s\n", tag[LOG_PRI(prio)], msg);
}

void log_msg(const struct logger *l, int prio, const char *fmt, ...)
{
        if (prio > l->level)
                return;
        char buf[LOG_LINE_MAX];
        va_list ap;
        va_start(ap, fmt);
        /* NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized): false positive of clang 14 */
        vsnprintf(buf, sizeof(buf), fmt, ap);
        va_end(ap);
        /* If journald cannot take it, stderr still can: never lose a line. */
        if (!l->journal || sd_journal_send("MESSAGE=%s", buf, "PRIORITY=%d", prio,
                                           "SYSLOG_IDENTIFIER=memoptimizer", NULL) < 0)
                plain(prio, buf);
}

/* "NAME=value" at *at, which moves past it: the iovec journald takes. */
static struct iovec pack(char **at, const char *name, const char *value)
{
        char *start = *at;
        *at = stpcpy(stpcpy(stpcpy(start, name), "="), value);
        return (struct iovec){ .iov_base = start, .iov_len = (size_t)(*at - start) };
}

int log_event_fields(int prio, const char *message_id, const char *message,
                     const struct log_field *fields, size_t nr_fields,
                     struct iovec iov[LOG_EVENT_FIELDS_MAX], char **text)
{
        char prio_text[16];
        snprintf(prio_text, sizeof(prio_text), "%d", prio);
        struct {
                const char *name, *value;
        } all[LOG_EVENT_FIELDS_MAX] = {
                { "MESSAGE", message }, { "MESSAGE_ID", message_id }, { "PRIORITY", prio_text },
                { "SYSLOG_IDENTIFIER", "memoptimizer" },
        };
        size_t n = LOG_FIXED_FIELDS, need = 0;
        for (size_t i = 0; i < nr_fields && n < LOG_EVENT_FIELDS_MAX; i++)
                all[n].name = fields[i].name, all[n++].value = fields[i].value;
        for (size_t i = 0; i < n; i++)
                need += strlen(all[i].name) + 1 + strlen(all[i].value);
        /* On the heap, packed: a frame of fixed-size fields was 31 KiB of
         * stack, a fair part of the daemon's resident memory. */
        char *at = *text = malloc(need + 1);
        if (!at)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++)
                iov[i] = pack(&at, all[i].name, all[i].value);
        return (int)n;
}

void log_event(const struct logger *l, int prio, const char *message_id, const char *message,
               const struct log_field *fields, size_t nr_fields)
{
        if (prio > l->level)
                return;
        if (!l->journal) {
                plain(prio, message);
                return;
        }
        struct iovec iov[LOG_EVENT_FIELDS_MAX];
        _cleanup_free_ char *text = NULL;
        int n = log_event_fields(prio, message_id, message, fields, nr_fields, iov, &text);
        /* If journald cannot take it, stderr still can: never lose a line. */
        if (n < 0 || sd_journal_sendv(iov, n) < 0)
                plain(prio, message);
}

int log_repeat_prio(unsigned n, double interval_sec)
{
        unsigned first = (unsigned)(LOG_REPEAT_FIRST_SEC / interval_sec) + 1;
        unsigned every = (unsigned)(LOG_REPEAT_EVERY_SEC / interval_sec);
        if (n == 1)
                return LOG_WARNING;
        if (n >= first && (n - first) % (every ? every : 1) == 0)
                return LOG_ERR;
        return -1;
}
