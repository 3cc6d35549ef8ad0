#include "loop.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "util.h"

static const int stop_signals[] = { SIGTERM, SIGINT, SIGQUIT, SIGXCPU };
static const int ignored_signals[] = { SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGPIPE,
                                       SIGXFSZ, SIGIO, SIGPWR, SIGSTKFLT };

static bool is_ignored(int sig)
{
        for (size_t i = 0; i < ARRAY_SIZE(ignored_signals); i++)
                if (ignored_signals[i] == sig)
                        return true;
        return sig >= SIGRTMIN && sig <= SIGRTMAX;
}

void loop_signals_take(struct loop_signals *saved)
{
        sigset_t block;
        sigemptyset(&block);
        for (size_t i = 0; i < ARRAY_SIZE(stop_signals); i++)
                sigaddset(&block, stop_signals[i]);
        sigaddset(&block, SIGHUP);
        sigprocmask(SIG_BLOCK, &block, &saved->mask);
        struct sigaction ign = { .sa_handler = SIG_IGN };
        sigemptyset(&ign.sa_mask);
        for (int sig = 1; sig < _NSIG; sig++)
                if (is_ignored(sig))
                        sigaction(sig, &ign, &saved->action[sig]);
}

void loop_signals_give_back(const struct loop_signals *saved)
{
        for (int sig = 1; sig < _NSIG; sig++)
                if (is_ignored(sig))
                        sigaction(sig, &saved->action[sig], NULL);
        sigprocmask(SIG_SETMASK, &saved->mask, NULL);
}

int loop_new(sd_event **out, sd_event_signal_handler_t on_stop, sd_event_signal_handler_t on_hup,
             void *userdata)
{
        sd_event *e = NULL;
        int r = sd_event_new(&e);
        for (size_t i = 0; r >= 0 && i < ARRAY_SIZE(stop_signals); i++)
                r = sd_event_add_signal(e, NULL, stop_signals[i], on_stop, userdata);
        if (r >= 0)
                r = sd_event_add_signal(e, NULL, SIGHUP, on_hup ? on_hup : on_stop, userdata);
        if (r < 0) {
                sd_event_unref(e);
                return r;
        }
        *out = e;
        return 0;
}

int loop_stop(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
        (void)si, (void)userdata;
        return sd_event_exit(sd_event_source_get_event(s), 0);
}

/* Timers fire within a millisecond of their time. */
#define TIMER_ACCURACY_USEC 1000

int loop_timer_add(sd_event *e, sd_event_source **out, sd_event_time_handler_t on_tick, void *userdata)
{
        int r = sd_event_add_time_relative(e, out, CLOCK_MONOTONIC, 0, TIMER_ACCURACY_USEC, on_tick,
                                           userdata);
        return r < 0 ? r : sd_event_source_set_enabled(*out, SD_EVENT_ONESHOT);
}

int loop_timer_next(sd_event_source *s, double interval)
{
        uint64_t due, now, step = (uint64_t)(interval * USEC_PER_SEC);
        int r = sd_event_source_get_time(s, &due);
        if (r >= 0)
                r = sd_event_now(sd_event_source_get_event(s), CLOCK_MONOTONIC, &now);
        if (r < 0)
                return r;
        if (step == 0)
                step = 1;
        uint64_t next = due + step;
        if (next <= now)
                next += ((now - next) / step + 1) * step;
        r = sd_event_source_set_time(s, next);
        return r < 0 ? r : sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
}
