#!/bin/sh
# The sitting of prereg.txt; run under the machine lock.
cd /var/tmp/vol/rel-wake || exit 1
d=bench/results/steps/wake-off
date -u +"start %FT%TZ"
bench/run --scenarios mixed,outside --configs defaults,memoptimizer,memoptimizer-other --other-config $d/wake-no.conf --runs 6 --no-warm --out $d > $d/run.log 2>&1
echo "rc $?"
date -u +"end %FT%TZ"
