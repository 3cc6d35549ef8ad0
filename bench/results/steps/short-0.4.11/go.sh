#!/bin/bash
cd /var/tmp/vol/relE || exit 1
out=/work/main/bench/results/steps/short-0.4.11
bench/run --scenarios bursts,streaming,accumulate,fragmented --configs defaults,wsf=100,wsf=300,memoptimizer --runs 5 --no-warm --out /var/tmp/vol/sit-short > $out/run.log 2>&1
echo "rc=$?" >> $out/run.log
