#!/bin/bash
cd /var/tmp/vol/rel2 || exit 1
out=/work/main/bench/results/steps/fragmented-revived
bench/run --scenarios fragmented --configs defaults,wsf=300,wsf=1000,memoptimizer --runs 10 --no-warm --out /var/tmp/vol/sit-fr > $out/run.log 2>&1
echo "rc=$?" >> $out/run.log
