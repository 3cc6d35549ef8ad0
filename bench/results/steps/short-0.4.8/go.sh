#!/bin/sh
# A reading of 0.4.8 in the four short scenarios, cold and warm, beside the defaults, static 100 and 300.
mkdir -p /var/tmp/sit19
B=/var/tmp/rel19/bench/run
$B --scenarios bursts,streaming,accumulate,fragmented --configs defaults,wsf=100,wsf=300,memoptimizer,memoptimizer-warm --runs 6 --warm --out /var/tmp/sit19/short > /var/tmp/sit19/short.log 2>&1
echo "short exit $?" >> /var/tmp/sit19/short.log
