#!/bin/sh
B=/var/tmp/snapT/bench/run; A=/var/tmp/snapM4/build/src/memoptimizer
$B --scenarios bursts,accumulate --configs defaults,wsf=100,memoptimizer,memoptimizer-other --other-daemon $A --runs 7 --no-warm --out /var/tmp/sit-teach/short > /var/tmp/sit-teach/short.log 2>&1
echo "short exit $?" >> /var/tmp/sit-teach/short.log
