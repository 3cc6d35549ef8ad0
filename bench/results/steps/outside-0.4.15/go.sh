#!/bin/sh
# The sitting of prereg.txt; run under the machine lock.
cd /var/tmp/vol/relF || exit 1
d=bench/results/steps/outside-0.4.15
date -u +"start %FT%TZ"
bench/run --scenarios outside --configs defaults,wsf=100,memoptimizer,memoptimizer-warm --runs 6 --warm --out $d > $d/run.log 2>&1
echo "rc $?"
date -u +"end %FT%TZ"
