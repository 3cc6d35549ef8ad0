#!/bin/sh
# The sitting of prereg.txt; run under the machine lock.
cd /var/tmp/vol/onset || exit 1
d=bench/results/steps/onset-class/trap
mkdir -p $d
date -u +"start %FT%TZ"
bench/run --scenarios accumulate --configs memoptimizer-warm,memoptimizer-other-warm --other-daemon /var/tmp/vol/base/build/src/memoptimizer --runs 7 --warm --warm-from /var/tmp/vol/seed --out $d > $d/run.log 2>&1
echo "rc $?"
date -u +"end %FT%TZ"
