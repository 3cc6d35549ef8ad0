#!/bin/sh
B=/var/tmp/snapT/bench/run; A=/var/tmp/snapM4/build/src/memoptimizer
$B --scenarios mixed --configs memoptimizer,memoptimizer-other --other-daemon $A --runs 7 --no-warm --out /var/tmp/sit-teach/mixed > /var/tmp/sit-teach/mixed.log 2>&1
echo "mixed exit $?" >> /var/tmp/sit-teach/mixed.log
