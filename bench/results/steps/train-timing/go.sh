#!/bin/sh
cd /var/tmp/vol/relG || exit 1
d=bench/results/steps/train-timing
date -u +"start %FT%TZ"
bench/run --scenarios mixed --configs defaults --runs 3 --no-settling-run --out $d > $d/run.log 2>&1
echo "rc $?"
date -u +"end %FT%TZ"
