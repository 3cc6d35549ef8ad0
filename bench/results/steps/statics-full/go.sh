#!/bin/sh
cd /var/tmp/vol/relH || exit 1
d=bench/results/steps/statics-full
date -u +"start %FT%TZ"
bench/run --scenarios mixed --full --configs defaults,wsf=100,wsf=300 --runs 3 --no-settling-run --out $d > $d/run.log 2>&1
echo "rc $?"
date -u +"end %FT%TZ"
