#!/bin/sh
# The sitting of prereg.txt; run under the machine lock.
cd /var/tmp/vol/base || exit 1
d=bench/results/steps/thp-kind
date -u +"start %FT%TZ"
bench/run --scenarios mixed --configs defaults,memoptimizer-warm,memoptimizer-other-warm --other-daemon /var/tmp/vol/kinds/build/src/memoptimizer --runs 7 --warm --out $d > $d/run.log 2>&1
echo "rc $?"
date -u +"end %FT%TZ"
