#!/bin/sh
# The sitting of prereg.txt; run under the machine lock.
cd /var/tmp/rel18 || exit 1
d=bench/results/steps/mixed-warm-0.4.8
date -u +"start %FT%TZ"
bench/run --scenarios mixed --configs defaults,wsf=100,memoptimizer,memoptimizer-warm --runs 6 --out $d > $d/run.log 2>&1
echo "rc $?"
date -u +"end %FT%TZ"
