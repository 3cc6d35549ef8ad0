#!/bin/sh
# The sitting of prereg.txt; run under the machine lock.
cd /var/tmp/thpcalm || exit 1
date -u +"start %FT%TZ"
bench/run --scenarios fragmented --configs defaults,memoptimizer,memoptimizer-other \
  --other-daemon /var/tmp/every6/build/src/memoptimizer --runs 10 --no-warm \
  --out /var/tmp/thpcalm/bench/results/steps/thp-calm > /var/tmp/thpcalm/bench/results/steps/thp-calm/run.log 2>&1
echo "rc $?"
date -u +"end %FT%TZ"
