#!/bin/sh
cd /var/tmp/vol/relH || exit 1
d=bench/results/steps/train-full-defaults
date -u +"start %FT%TZ"
bench/run --scenarios mixed --full --configs defaults+record --runs 2 --no-settling-run --out $d > $d/run.log 2>&1
echo "rc $?"
date -u +"end %FT%TZ"
