#!/bin/sh
# The sitting of prereg.txt; run under the machine lock.
cd /var/tmp/vol/base || exit 1
d=bench/results/steps/onset-class
B=/var/tmp/vol/onset/build/src/memoptimizer
mkdir -p $d/acc $d/warm
date -u +"start %FT%TZ"
bench/run --scenarios accumulate --configs defaults,wsf=300,memoptimizer-warm,memoptimizer-other-warm --other-daemon $B --runs 7 --warm --out $d/acc > $d/acc/run.log 2>&1
echo "acc rc $?"
date -u +"mid %FT%TZ"
bench/run --scenarios mixed,bursts --configs memoptimizer-warm,memoptimizer-other-warm --other-daemon $B --runs 7 --warm --out $d/warm > $d/warm/run.log 2>&1
echo "warm rc $?"
date -u +"end %FT%TZ"
