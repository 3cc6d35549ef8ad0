#!/bin/sh
cd /var/tmp/vol/nrC || exit 1
date -u
bench/run --scenarios mixed --configs defaults,memoptimizer,memoptimizer-other --other-daemon /var/tmp/vol/nrA/build/src/memoptimizer --runs 3 --no-settling-run --out /var/tmp/vol/rc/s2/mixed
date -u
bench/run --scenarios bursts,accumulate --configs defaults,memoptimizer,memoptimizer-other --other-daemon /var/tmp/vol/nrA/build/src/memoptimizer --runs 3 --out /var/tmp/vol/rc/s2/short
date -u
