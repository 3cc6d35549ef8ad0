#!/bin/bash
cd /var/tmp/vol/rel3 || exit 1
out=/work/main/bench/results/steps/short-0.4.9
bench/run --scenarios bursts,streaming,accumulate --configs defaults,wsf=100,memoptimizer,memoptimizer-other --other-daemon /var/tmp/vol/rel2/build/src/memoptimizer --runs 5 --no-warm --out /var/tmp/vol/sit-s9 > $out/run.log 2>&1
echo "rc=$?" >> $out/run.log
