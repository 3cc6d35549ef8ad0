#!/bin/sh
# The sitting of prereg.txt; run under the machine lock.
cd /var/tmp/vol/base || exit 1
d=bench/results/steps/short-0.4.13
date -u +"start %FT%TZ"
bench/run --scenarios bursts,streaming,accumulate,fragmented --configs defaults,wsf=100,wsf=300,memoptimizer,memoptimizer-warm --runs 6 --warm --out $d > $d/run.log 2>&1
echo "rc $?"
date -u +"end %FT%TZ"
