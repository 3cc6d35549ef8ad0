#!/bin/sh
# The sitting of prereg.txt; run under the machine lock.
cd /var/tmp/rel8b || exit 1
d=bench/results/steps/frag-runtime-2
date -u +"start %FT%TZ"
bench/run --scenarios fragmented --configs defaults,memoptimizer,memoptimizer-other \
  --other-daemon $d/dry-run-daemon --runs 10 --no-warm --out $d > $d/run.log 2>&1
echo "rc $?"
date -u +"end %FT%TZ"
