#!/bin/sh
# The sitting of prereg.txt; run under the machine lock.
cd /var/tmp/vol/fA || exit 1
d=bench/results/steps/frag-window
date -u +"start %FT%TZ"
bench/run --scenarios fragmented --configs defaults,memoptimizer,memoptimizer-other --other-daemon /var/tmp/vol/fB/build/src/memoptimizer --runs 10 --no-warm --out $d > $d/run.log 2>&1
echo "rc $?"
date -u +"end %FT%TZ"
