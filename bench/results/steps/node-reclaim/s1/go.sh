#!/bin/sh
cd /var/tmp/vol/jitclone && exec bench/run --scenarios mixed --configs defaults,memoptimizer,memoptimizer-other --other-daemon /var/tmp/vol/jit/jit-reclaim --runs 3 --no-settling-run --out /var/tmp/vol/jit/s1/out
