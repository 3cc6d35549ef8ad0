#!/bin/sh
# A/B of branch fall-seen (e8865c6, compaction at a fill's release) against 0.4.8 in fragmented.
/var/tmp/fs20/bench/run --scenarios fragmented --configs defaults,wsf=300,memoptimizer,memoptimizer-other --other-daemon /var/tmp/rel19/build/src/memoptimizer --runs 10 --no-warm --out /var/tmp/sit21 > /var/tmp/sit21.log 2>&1
echo "exit $?" >> /var/tmp/sit21.log
