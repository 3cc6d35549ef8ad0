/* tick.h — the wakeup of bench/floor and bench/page-touch: a timerfd every
 * `ms` milliseconds, waited for through epoll, as the daemon's event loop
 * waits for its timer. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

struct tick {
        int timer, epoll;
};

/* 0, or -1 with errno set. */
static inline int tick_open(struct tick *t, long ms)
{
        struct timespec every = { ms / 1000, (ms % 1000) * 1000000L };
        struct itimerspec its = { .it_interval = every, .it_value = every };
        struct epoll_event ev = { .events = EPOLLIN };
        t->timer = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
        t->epoll = epoll_create1(EPOLL_CLOEXEC);
        if (t->timer < 0 || t->epoll < 0 || timerfd_settime(t->timer, 0, &its, NULL) < 0 ||
            epoll_ctl(t->epoll, EPOLL_CTL_ADD, t->timer, &ev) < 0)
                return -1;
        return 0;
}

/* Sleeps until the next tick; false when the wait was cut short (a signal). */
static inline bool tick_wait(const struct tick *t)
{
        struct epoll_event ev;
        uint64_t expirations;
        return epoll_wait(t->epoll, &ev, 1, -1) == 1 &&
               read(t->timer, &expirations, sizeof(expirations)) == sizeof(expirations);
}

/* Calls each(arg) at every tick, until killed; returns 1 (after saying
 * why, as `name`) only when the timer cannot be set up. */
static inline int tick_run(const char *name, long ms, void (*each)(void *), void *arg)
{
        struct tick t;
        if (tick_open(&t, ms) < 0) {
                perror(name);
                return 1;
        }
        for (;;)
                if (tick_wait(&t))
                        each(arg);
}
