/* tick.h — the wakeup of bench/floor and bench/page-touch: a timerfd every
 * `ms` milliseconds, waited for through epoll, as the daemon's event loop
 * waits for its timer. */
#pragma once

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

/* Calls each(arg) at every tick, until killed; returns 1 (after saying
 * why, as `name`) only when the timer cannot be set up or waited on. A
 * wait cut short by a signal is not a tick. */
static inline int tick_run(const char *name, long ms, void (*each)(void *), void *arg)
{
        struct timespec every = { ms / 1000, (ms % 1000) * 1000000L };
        struct itimerspec its = { .it_interval = every, .it_value = every };
        struct epoll_event ev = { .events = EPOLLIN };
        int timer = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
        int epoll = epoll_create1(EPOLL_CLOEXEC);
        if (timer < 0 || epoll < 0 || timerfd_settime(timer, 0, &its, NULL) < 0 ||
            epoll_ctl(epoll, EPOLL_CTL_ADD, timer, &ev) < 0) {
                perror(name);
                return 1;
        }
        for (;;) {
                uint64_t expirations;
                int n = epoll_wait(epoll, &ev, 1, -1);
                if (n < 0 && errno != EINTR) {  /* would spin, not tick */
                        perror(name);
                        return 1;
                }
                if (n == 1 && read(timer, &expirations, sizeof(expirations)) == sizeof(expirations))
                        each(arg);
        }
}
