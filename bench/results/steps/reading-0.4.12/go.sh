#!/bin/sh
# The sitting of prereg.txt; run under the machine lock.
cd /var/tmp/vol/new || exit 1
d=bench/results/steps/reading-0.4.12
mkdir -p $d
date -u +"start %FT%TZ"
bench/run --scenarios mixed --configs defaults,memoptimizer-warm,memoptimizer-other-warm --other-daemon /var/tmp/vol/base/build/src/memoptimizer --runs 6 --warm --out $d > $d/run.log 2>&1
echo "rc $?"
date -u +"end %FT%TZ"
