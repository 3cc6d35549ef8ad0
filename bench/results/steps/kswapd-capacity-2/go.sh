#!/bin/sh
# The sitting of prereg.txt; run under the machine lock.
cd /var/tmp/vol/base2 || exit 1
d=bench/results/steps/kswapd-capacity-2
date -u +"start %FT%TZ"
bench/run --scenarios mixed --configs memoptimizer-warm,memoptimizer-other-warm --other-daemon /var/tmp/vol/kcap/build/src/memoptimizer --runs 6 --warm --out $d > $d/run.log 2>&1
echo "rc $?"
date -u +"end %FT%TZ"
