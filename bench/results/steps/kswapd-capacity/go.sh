#!/bin/sh
# The sitting of prereg.txt; run under the machine lock.
cd /var/tmp/vol/base || exit 1
d=bench/results/steps/kswapd-capacity
date -u +"start %FT%TZ"
bench/run --scenarios mixed --configs memoptimizer-warm,memoptimizer-other-warm --other-daemon /var/tmp/vol/cap2/build-rel/src/memoptimizer --runs 6 --warm --out $d > $d/run.log 2>&1
echo "rc $?"
date -u +"end %FT%TZ"
