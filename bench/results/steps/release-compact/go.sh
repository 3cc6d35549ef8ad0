#!/bin/bash
cd /var/tmp/vol/relB || exit 1
out=/work/main/bench/results/steps/release-compact
bench/run --scenarios fragmented --configs defaults,memoptimizer,memoptimizer-other --other-daemon /var/tmp/vol/relA/build/src/memoptimizer --runs 20 --no-warm --out /var/tmp/vol/sit-rel > $out/run.log 2>&1
echo "rc=$?" >> $out/run.log
