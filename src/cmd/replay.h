/* replay.h — `memoptimizer replay`: a recorded trace fed through the
 * daemon's own engine (engine.h) with a configuration, printing each
 * decision, a summary and its difference from the recorded decisions, the
 * forecast scores (score.h) and a CSV of the scale factor over time. */
#pragma once

/* argv[0] is "replay". Returns the exit status. */
int replay_main(int argc, char **argv);
