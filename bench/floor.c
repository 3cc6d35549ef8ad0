/* floor: what any 1 s sampler of these files costs on this machine. Wakes
 * every second from a timerfd, as the daemon's event loop does, and reads
 * each file given (whole, no parsing), then sleeps again. Its CPU time,
 * measured from outside (bench/daemon-cost), is the floor under the
 * daemon's cost per cycle.   usage: floor FILE...
 * Writes nothing; runs until killed. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

static char buf[1 << 16];

static void slurp(const char *path)
{
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return;
        while (read(fd, buf, sizeof(buf)) > 0)
                ;
        close(fd);
}

int main(int argc, char **argv)
{
        int t = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
        int e = epoll_create1(EPOLL_CLOEXEC);
        struct itimerspec its = { .it_interval = { 1, 0 }, .it_value = { 1, 0 } };
        struct epoll_event ev = { .events = EPOLLIN };
        if (t < 0 || e < 0 || timerfd_settime(t, 0, &its, NULL) < 0 ||
            epoll_ctl(e, EPOLL_CTL_ADD, t, &ev) < 0) {
                perror("floor");
                return 1;
        }
        for (;;) {
                uint64_t expirations;
                if (epoll_wait(e, &ev, 1, -1) < 0 || read(t, &expirations, sizeof(expirations)) < 0)
                        continue;
                for (int i = 1; i < argc; i++)
                        slurp(argv[i]);
        }
}
