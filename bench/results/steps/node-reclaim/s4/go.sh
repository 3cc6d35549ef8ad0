#!/bin/sh
cd /var/tmp/vol/jitclone && exec bench/run --scenarios mixed --configs defaults,memoptimizer-other --other-daemon /var/tmp/vol/jit/jit-reclaim4 --runs 3 --no-settling-run --out /var/tmp/vol/jit/s4/out
