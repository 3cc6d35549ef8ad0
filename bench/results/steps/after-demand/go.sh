#!/bin/sh
# The sitting of prereg.txt; run under the machine lock.
cd /var/tmp/rel11 || exit 1
d=bench/results/steps/after-demand
date -u +"start %FT%TZ"
bench/run --scenarios mixed,outside --configs defaults,memoptimizer,memoptimizer-other --other-config $d/dry.conf --runs 4 --no-warm --out $d > $d/run.log 2>&1
echo "rc $?"
date -u +"end %FT%TZ"
