#!/bin/sh
# The sitting of prereg.txt; run under the machine lock.
cd /var/tmp/vol/base || exit 1
d=bench/results/steps/stall-proportional
mkdir -p $d/outside $d/warm
date -u +"start %FT%TZ"
bench/run --scenarios outside --configs memoptimizer,memoptimizer-other --other-daemon /var/tmp/vol/prop/build/src/memoptimizer --runs 7 --no-warm --out $d/outside > $d/outside/run.log 2>&1
echo "outside rc $?"
date -u +"mid %FT%TZ"
bench/run --scenarios mixed,bursts --configs memoptimizer-warm,memoptimizer-other-warm --other-daemon /var/tmp/vol/prop/build/src/memoptimizer --runs 7 --warm --out $d/warm > $d/warm/run.log 2>&1
echo "warm rc $?"
date -u +"end %FT%TZ"
