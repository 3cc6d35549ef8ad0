#!/bin/sh
cd /var/tmp/vol/mf1 || exit 1
date -u +"start %FT%TZ"
bench/run --scenarios bursts,accumulate --configs defaults,wsf=100,wsf=300,min_free=1%,memoptimizer --runs 3 --no-warm --out /var/tmp/vol/mf1-out/results > /var/tmp/vol/mf1-out/run.log 2>&1
echo "rc $?"
date -u +"end %FT%TZ"
