#!/bin/bash
cd /var/tmp/vol/relC || exit 1
out=/work/main/bench/results/steps/judge-faults
bench/run --scenarios fragmented --configs defaults,memoptimizer,memoptimizer-other --other-daemon /var/tmp/vol/relB/build/src/memoptimizer --runs 10 --no-warm --out /var/tmp/vol/sit-jf > $out/run.log 2>&1
echo "rc=$?" >> $out/run.log
