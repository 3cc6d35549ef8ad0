#!/bin/sh
cd /var/tmp/bfell || exit 1
date -u +"start %FT%TZ"
bench/run --scenarios fragmented --configs defaults,memoptimizer,memoptimizer-other \
  --other-daemon /var/tmp/thpcalm/build/src/memoptimizer --runs 10 --no-warm \
  --out /var/tmp/bfell/bench/results/steps/blocks-fell > /var/tmp/bfell/bench/results/steps/blocks-fell/run.log 2>&1
echo "rc $?"
date -u +"end %FT%TZ"
