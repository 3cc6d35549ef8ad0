#!/bin/sh
# The sitting of prereg.txt; run under the machine lock.
cd /var/tmp/vol/mixedR || exit 1
d=bench/results/steps/recur-kind
date -u +"start %FT%TZ"
bench/run --scenarios mixed --configs memoptimizer-warm,memoptimizer-other-warm --other-daemon /var/tmp/vol/rk/build/src/memoptimizer --runs 6 --warm --no-settling-run --warm-from bench/results/steps/thp-kind/traces/mixed-memoptimizer-other-warm-7.state --out $d > $d/run.log 2>&1
echo "rc $?"
date -u +"end %FT%TZ"
