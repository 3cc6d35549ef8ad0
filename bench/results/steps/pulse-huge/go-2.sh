#!/bin/sh
# The sitting of prereg-2.txt; run under the machine lock.
cd /var/tmp/vol/base || exit 1
d=bench/results/steps/pulse-huge/second
mkdir -p $d
date -u +"start %FT%TZ"
bench/run --scenarios outside --configs memoptimizer,memoptimizer-other --other-daemon /var/tmp/vol/patched/build/src/memoptimizer --runs 7 --no-warm --out $d > $d/run.log 2>&1
echo "rc $?"
date -u +"end %FT%TZ"
