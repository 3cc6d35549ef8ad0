/* record.h — `memoptimizer record`: a trace of samples only, as any user,
 * nothing written to the kernel (the daemon's `record = FILE` adds its
 * decisions). The file is recorder.h's, the format trace.h's. */
#pragma once

/* `memoptimizer record [-o FILE] [--interval D] [--duration D]`; argv[0] is
 * "record". Returns the exit status. */
int record_main(int argc, char **argv);
