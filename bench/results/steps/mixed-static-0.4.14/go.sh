#!/bin/sh
# The sitting of prereg.txt; run under the machine lock.
cd /var/tmp/vol/mixedR || exit 1
d=bench/results/steps/mixed-static-0.4.14
date -u +"start %FT%TZ"
bench/run --scenarios mixed --configs defaults,wsf=100,min_free=1%,defrag_mode=1,memoptimizer-warm --runs 4 --warm --warm-from bench/results/steps/thp-kind/traces/mixed-memoptimizer-other-warm-7.state --out $d > $d/run.log 2>&1
echo "rc $?"
date -u +"end %FT%TZ"
