/* overhead: the cost of one daemon cycle (sample, window, forecast, decide)
 * on this machine's real /proc, and the memory it needs.
 *   usage: overhead [CYCLES [GAP_MS]]
 * GAP_MS sleeps between cycles, as the daemon does, so caches go cold.
 * Prints CPU microseconds per cycle (user+system, from getrusage) and the
 * peak resident set. Under `valgrind --tool=callgrind` the instruction
 * count of the run is the stable figure. Writes nothing to the kernel. */
#include <stdlib.h>
#include <time.h>

#include "cycle.h"

int main(int argc, char **argv)
{
        long cycles = argc > 1 ? strtol(argv[1], NULL, 10) : 10000;
        long gap_ms = argc > 2 ? strtol(argv[2], NULL, 10) : 0;
        if (cycles < 1 || gap_ms < 0) {
                fprintf(stderr, "usage: overhead [CYCLES [GAP_MS]]\n");
                return 1;
        }
        struct cycle c;
        if (cycle_init(&c) < 0)
                return 1;
        long decisions = 0;
        double t0 = cpu_seconds();
        struct timespec gap = { gap_ms / 1000, (gap_ms % 1000) * 1000000L };
        for (long i = 0; i < cycles; i++) {
                if (gap_ms)
                        nanosleep(&gap, NULL);
                int r = cycle_step(&c);
                if (r < 0)
                        return 1;
                decisions += r == 1 && (c.decision.reason != WSF_KEEP || c.decision.nr_compact);
        }
        double per = (cpu_seconds() - t0) / (double)cycles;
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        printf("cycles %ld\ncpu_us_per_cycle %.1f\nshare_of_core_at_1s %.4f%%\nmax_rss_kib %ld\ndecisions %ld\n",
               cycles, per * 1e6, per * 100, ru.ru_maxrss, decisions);
        cycle_free(&c);
        return 0;
}
