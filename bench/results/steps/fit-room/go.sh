#!/bin/sh
cd /var/tmp/vol/fitE || exit 1
date -u
bench/run --scenarios mixed --configs defaults,wsf=100,memoptimizer,memoptimizer-other --other-daemon /var/tmp/vol/fitD/build/src/memoptimizer --runs 3 --no-settling-run --out /var/tmp/vol/fit/mixed
date -u
bench/run --scenarios bursts,accumulate --configs defaults,memoptimizer,memoptimizer-other --other-daemon /var/tmp/vol/fitD/build/src/memoptimizer --runs 3 --out /var/tmp/vol/fit/short
date -u
bench/run --scenarios mixed --configs defaults,wsf=100,memoptimizer,memoptimizer-other --other-daemon /var/tmp/vol/fitD/build/src/memoptimizer --runs 3 --no-settling-run --out /var/tmp/vol/fit/mixed2
date -u
