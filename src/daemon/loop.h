/* loop.h — the event loop the daemon and `memoptimizer record` share: an
 * sd-event loop that ends on the signals that stop a process, a periodic
 * timer, and the signal set-up that main() does before anything else.
 *
 * Every signal whose default action ends the process is either taken by the
 * loop or ignored, so that the daemon always ends through its restore:
 *   SIGTERM, SIGINT, SIGQUIT, SIGXCPU   stop: the loop exits;
 *   SIGHUP                             the caller's (the daemon reloads);
 *   SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGPIPE, SIGXFSZ, SIGIO,
 *   SIGPWR, SIGSTKFLT, SIGRTMIN..SIGRTMAX
 *                                      ignored: a write into a closed pipe
 *                                      or past RLIMIT_FSIZE fails with EPIPE
 *                                      or EFBIG instead of killing.
 * The signals of a crash (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP,
 * SIGSYS) keep their default: nothing can be trusted after one, and the
 * unit's ExecStopPost=memoptimizer restore cleans up, as after SIGKILL. */
#pragma once

#include <signal.h>

#include <systemd/sd-event.h>

/* What the process started with, to give back to commands that run no
 * loop. */
struct loop_signals {
        sigset_t mask;
        struct sigaction action[_NSIG];         /* of the ignored signals */
};

/* First thing in main(), before anything can change the sysctl: block the
 * signals the loop takes, so that one that comes early waits for the loop
 * instead of killing the process, and ignore the others above. */
void loop_signals_take(struct loop_signals *saved);
/* Back to what the process started with (status and replay: a signal ends
 * them as it ends any command). */
void loop_signals_give_back(const struct loop_signals *saved);

/* A new loop whose stop signals call on_stop, and SIGHUP on_hup (NULL:
 * on_stop too). 0 or a negative errno. */
int loop_new(sd_event **out, sd_event_signal_handler_t on_stop, sd_event_signal_handler_t on_hup,
             void *userdata);
/* A stop handler that only ends the loop (exit code 0). */
int loop_stop(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata);

#define USEC_PER_SEC 1000000.0        /* sd-event counts time in µs */

/* A timer that fires at once; its handler re-arms it with
 * loop_timer_next(). */
int loop_timer_add(sd_event *e, sd_event_source **out, sd_event_time_handler_t on_tick, void *userdata);
/* Fire again `interval` seconds after this tick was due: no drift; ticks
 * missed while a step ran long are skipped, not run in a burst. */
int loop_timer_next(sd_event_source *s, double interval);
