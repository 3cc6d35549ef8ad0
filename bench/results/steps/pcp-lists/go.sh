#!/bin/bash
cd /var/tmp/vol/relD || exit 1
out=/work/main/bench/results/steps/pcp-lists
bench/run --scenarios accumulate --configs defaults,pcp=268,pcp=100000 --runs 6 --no-warm --out /var/tmp/vol/sit-pcp > $out/run.log 2>&1
echo "rc=$?" >> $out/run.log
