#!/bin/sh
# A/B of branch fall-seen against 0.4.8 in fragmented, beside the defaults and static 300.
/var/tmp/fs19/bench/run --scenarios fragmented --configs defaults,wsf=300,memoptimizer,memoptimizer-other --other-daemon /var/tmp/rel19/build/src/memoptimizer --runs 10 --no-warm --out /var/tmp/sit20 > /var/tmp/sit20.log 2>&1
echo "exit $?" >> /var/tmp/sit20.log
