#!/bin/sh
# The sitting of prereg.txt; run under the machine lock.
cd /var/tmp/rel10 || exit 1
d=bench/results/steps/hold-15s
date -u +"start %FT%TZ"
bench/run --scenarios outside --configs defaults,memoptimizer,memoptimizer-other --other-config $d/hold15.conf --runs 6 --no-warm --out $d > $d/run.log 2>&1
echo "rc $?"
date -u +"end %FT%TZ"
