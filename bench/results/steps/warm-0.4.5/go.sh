#!/bin/sh
# 0.4.5 (B: /var/tmp/snap45, main at c9c4c4c) against 0.4.4 (A: /var/tmp/snapM4), both warm, in mixed.
B=/var/tmp/snap45/bench/run; A=/var/tmp/snapM4/build/src/memoptimizer
$B --scenarios mixed --configs memoptimizer-warm,memoptimizer-other-warm --other-daemon $A --runs 7 --warm --out /var/tmp/sit-warm45/mixed > /var/tmp/sit-warm45/mixed.log 2>&1
echo "mixed exit $?" >> /var/tmp/sit-warm45/mixed.log
