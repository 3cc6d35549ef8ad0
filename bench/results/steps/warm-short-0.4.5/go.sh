#!/bin/sh
# 0.4.5 (B: /var/tmp/snap45) against 0.4.4 (A: /var/tmp/snapM4), both warm, beside the defaults and a static 100.
B=/var/tmp/snap45/bench/run; A=/var/tmp/snapM4/build/src/memoptimizer
$B --scenarios bursts,accumulate --configs defaults,wsf=100,memoptimizer-warm,memoptimizer-other-warm --other-daemon $A --runs 7 --warm --out /var/tmp/sit-warm45/short > /var/tmp/sit-warm45/short.log 2>&1
echo "short exit $?" >> /var/tmp/sit-warm45/short.log
