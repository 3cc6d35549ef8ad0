#!/bin/sh
# The sitting of prereg.txt; run under the machine lock.
cd /var/tmp/rel8 || exit 1
d=bench/results/steps/frag-runtime
date -u +"start %FT%TZ"
bench/run --scenarios fragmented --configs defaults,memoptimizer,memoptimizer-other \
  --other-config $d/nocompact.conf --runs 10 --no-warm --out $d > $d/run.log 2>&1
echo "rc $?"
date -u +"end %FT%TZ"
