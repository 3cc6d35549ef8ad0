#!/bin/sh
cd /var/tmp/vol/nrC || exit 1
date -u
bench/run --scenarios mixed --configs defaults,memoptimizer,memoptimizer-other --other-daemon /var/tmp/vol/nrA/build/src/memoptimizer --runs 3 --no-settling-run --out /var/tmp/vol/rc/s2/mixed2
date -u
date -u
