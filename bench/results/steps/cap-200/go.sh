#!/bin/sh
# The sitting of prereg.txt; run under the machine lock.
cd /var/tmp/rel9 || exit 1
d=bench/results/steps/cap-200
date -u +"start %FT%TZ"
bench/run --scenarios bursts --configs defaults,memoptimizer,memoptimizer-other --other-config $d/max200.conf --runs 6 --no-warm --out $d/bursts > $d/run-bursts.log 2>&1
echo "rc bursts $?"
date -u +"mid %FT%TZ"
bench/run --scenarios mixed,outside --configs defaults,wsf=100,memoptimizer,memoptimizer-other --other-config $d/max200.conf --runs 6 --no-warm --out $d > $d/run.log 2>&1
echo "rc $?"
date -u +"end %FT%TZ"
