#!/bin/sh
B=/var/tmp/snapN/bench/run; A=/var/tmp/snapM4/build/src/memoptimizer
$B --scenarios bursts,accumulate --configs defaults,wsf=100,memoptimizer,memoptimizer-other --other-daemon $A --runs 7 --no-warm --out /var/tmp/sit-near/short > /var/tmp/sit-near/short.log 2>&1
echo "short exit $?" >> /var/tmp/sit-near/short.log
$B --scenarios mixed --configs memoptimizer,memoptimizer-other --other-daemon $A --runs 7 --no-warm --out /var/tmp/sit-near/mixed > /var/tmp/sit-near/mixed.log 2>&1
echo "mixed exit $?" >> /var/tmp/sit-near/mixed.log
