#!/bin/sh
# A reading of 0.4.7 warm in bursts and accumulate, beside the defaults, static 100 and static 300.
B=/var/tmp/read47/bench/run
$B --scenarios bursts,accumulate --configs defaults,wsf=100,wsf=300,memoptimizer-warm --runs 7 --warm --out /var/tmp/sit-read47/short > /var/tmp/sit-read47/short.log 2>&1
echo "short exit $?" >> /var/tmp/sit-read47/short.log
