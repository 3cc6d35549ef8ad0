#!/bin/sh
# The sitting of prereg.txt; run under the machine lock.
cd /var/tmp/ewA || exit 1
d=bench/results/steps/end-watch
date -u +"start %FT%TZ"
bench/run --scenarios mixed,outside --configs memoptimizer,memoptimizer-other --other-daemon /var/tmp/ewB/build/src/memoptimizer --runs 6 --no-warm --out $d > $d/run.log 2>&1
echo "rc $?"
date -u +"end %FT%TZ"
