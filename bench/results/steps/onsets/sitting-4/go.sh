#!/bin/sh
# Sitting 4: B (branch onsets3, /var/tmp/snapO3) against A = main c18eaa3 (0.4.6, /var/tmp/snapM6), cold.
B=/var/tmp/snapO3/bench/run; A=/var/tmp/snapM6/build/src/memoptimizer
$B --scenarios mixed --configs memoptimizer,memoptimizer-other --other-daemon $A --runs 7 --no-warm --out /var/tmp/sit-onsets4/mixed > /var/tmp/sit-onsets4/mixed.log 2>&1
echo "mixed exit $?" >> /var/tmp/sit-onsets4/mixed.log
