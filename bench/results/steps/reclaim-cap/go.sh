#!/bin/bash
cd /var/tmp/vol/rc1 || exit 1
out=/work/main/bench/results/steps/reclaim-cap
bench/run --scenarios fragmented --configs defaults,wsf=300,memoptimizer,memoptimizer-other --other-daemon /var/tmp/vol/rel2/build/src/memoptimizer --runs 10 --no-warm --out /var/tmp/vol/sit-rc > $out/run.log 2>&1
echo "rc=$?" >> $out/run.log
