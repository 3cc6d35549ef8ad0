/* sd_notify through the real protocol: bind a datagram socket, point
 * NOTIFY_SOCKET at it, run the daemon, and read what it says. */
#include <errno.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "tmp-tree.h"

static const char *daemon_path;

struct peer {
        char dir[64];
        int fd;
        pid_t pid;
};

static void write_conf(const struct peer *p, const char *text)
{
        char path[128];
        snprintf(path, sizeof(path), "%s/conf", p->dir);
        FILE *f = fopen(path, "we");
        assert_non_null(f);
        fputs(text, f);
        fclose(f);
}

static int start(void **state)
{
        struct peer *p = calloc(1, sizeof(*p));
        strcpy(p->dir, "/tmp/memoptimizer-notify-XXXXXX");
        assert_non_null(mkdtemp(p->dir));
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/notify", p->dir);
        p->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        assert_true(p->fd >= 0);
        assert_int_equal(bind(p->fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
        write_conf(p, "interval = 100ms\nwindow = 3\n");

        p->pid = fork();
        assert_true(p->pid >= 0);
        if (p->pid == 0) {
                char conf[128], log[128], pid[32], run[128], lib[128];
                snprintf(conf, sizeof(conf), "%s/conf", p->dir);
                snprintf(log, sizeof(log), "%s/log", p->dir);
                snprintf(run, sizeof(run), "%s/run", p->dir);
                snprintf(lib, sizeof(lib), "%s/lib", p->dir);
                snprintf(pid, sizeof(pid), "%d", (int)getpid());
                setenv("NOTIFY_SOCKET", sa.sun_path, 1);
                setenv("WATCHDOG_USEC", "400000", 1);
                setenv("WATCHDOG_PID", pid, 1);
                setenv("RUNTIME_DIRECTORY", run, 1);
                setenv("STATE_DIRECTORY", lib, 1);
                if (!freopen(log, "w", stderr))
                        _exit(127);
                execl(daemon_path, daemon_path, "--dry-run", "--config", conf, (char *)NULL);
                _exit(127);
        }
        *state = p;
        return 0;
}

static int stop(void **state)
{
        struct peer *p = *state;
        if (p->pid > 0) {
                kill(p->pid, SIGKILL);
                waitpid(p->pid, NULL, 0);
        }
        close(p->fd);
        assert_int_equal(tmp_tree_remove(p->dir), 0);
        free(p);
        return 0;
}

/* Wait up to `ms` for a datagram containing the line `want`; all datagrams
 * read on the way are appended to `seen`. */
static bool expect(struct peer *p, const char *want, int ms, char *seen, size_t seensz)
{
        struct timespec t0, t;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        for (;;) {
                clock_gettime(CLOCK_MONOTONIC, &t);
                int left = ms - (int)((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000);
                struct pollfd pfd = { .fd = p->fd, .events = POLLIN };
                if (left <= 0 || poll(&pfd, 1, left) <= 0)
                        return false;
                char buf[4096];
                ssize_t n = recv(p->fd, buf, sizeof(buf) - 1, 0);
                if (n <= 0)
                        return false;
                buf[n] = '\0';
                strncat(seen, buf, seensz - strlen(seen) - 2);
                strcat(seen, "\n");
                for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
                        if (strncmp(line, want, strlen(want)) == 0)
                                return true;
        }
}

/* A line of what was read so far starts with `want`. */
static bool already(const char *seen, const char *want)
{
        for (const char *l = seen; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l))
                if (strncmp(l, want, strlen(want)) == 0)
                        return true;
        return false;
}

static void protocol(void **state)
{
        struct peer *p = *state;
        static char seen[65536];
        seen[0] = '\0';
        assert_true(expect(p, "READY=1", 5000, seen, sizeof(seen)));
        /* the watchdog is pinged at half of WATCHDOG_USEC */
        assert_true(expect(p, "WATCHDOG=1", 2000, seen, sizeof(seen)));
        /* the first STATUS= (after a full window, ~0.3 s) may come before
         * the first WATCHDOG=1 (0.2 s), and was read on the way to it */
        assert_true(already(seen, "STATUS=dry run, wsf ") || expect(p, "STATUS=dry run, wsf ", 2000, seen, sizeof(seen)));

        kill(p->pid, SIGHUP);
        assert_true(expect(p, "RELOADING=1", 2000, seen, sizeof(seen)));
        assert_true(expect(p, "READY=1", 2000, seen, sizeof(seen)));

        /* an invalid file is refused; the daemon goes on with the old one */
        write_conf(p, "interval = 100ms\nwindow = 1000\n");
        kill(p->pid, SIGHUP);
        assert_true(expect(p, "RELOADING=1", 2000, seen, sizeof(seen)));
        assert_true(expect(p, "READY=1", 2000, seen, sizeof(seen)));
        assert_true(expect(p, "WATCHDOG=1", 2000, seen, sizeof(seen)));

        kill(p->pid, SIGTERM);
        assert_true(expect(p, "STOPPING=1", 2000, seen, sizeof(seen)));
        int status;
        assert_int_equal(waitpid(p->pid, &status, 0), p->pid);
        p->pid = 0;
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), 0);

        char log[128], cmd[512];
        snprintf(log, sizeof(log), "%s/log", p->dir);
        snprintf(cmd, sizeof(cmd), "grep -q 'reload refused, old configuration stays: %s/conf:2: out-of-range value' %s",
                 p->dir, log);
        if (system(cmd) != 0) {
                snprintf(cmd, sizeof(cmd), "cat %s", log);
                assert_int_equal(system(cmd), 0);
                fail_msg("no refusal with FILE:LINE in the log");
        }
        snprintf(cmd, sizeof(cmd), "grep -c 'configuration reloaded' %s | grep -qx 1", log);
        assert_int_equal(system(cmd), 0);
}

int main(int argc, char **argv)
{
        if (argc != 2) {
                fprintf(stderr, "usage: %s PATH-TO-MEMOPTIMIZER\n", argv[0]);
                return 2;
        }
        daemon_path = argv[1];
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(protocol, start, stop),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
