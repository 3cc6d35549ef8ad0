#!/bin/sh
# F (branch huge-first, /var/tmp/snapF) against 0.4.4 = 0.4.6's decisions (A: /var/tmp/snapM4), both warm.
B=/var/tmp/snapF/bench/run; A=/var/tmp/snapM4/build/src/memoptimizer
$B --scenarios bursts,accumulate --configs defaults,wsf=100,memoptimizer-warm,memoptimizer-other-warm --other-daemon $A --runs 7 --warm --out /var/tmp/sit-first/short > /var/tmp/sit-first/short.log 2>&1
echo "short exit $?" >> /var/tmp/sit-first/short.log
$B --scenarios mixed --configs memoptimizer-warm,memoptimizer-other-warm --other-daemon $A --runs 7 --warm --out /var/tmp/sit-first/mixed > /var/tmp/sit-first/mixed.log 2>&1
echo "mixed exit $?" >> /var/tmp/sit-first/mixed.log
