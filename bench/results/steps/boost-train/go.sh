#!/bin/sh
cd /var/tmp/vol/relH || exit 1
d=bench/results/steps/boost-train
date -u +"start %FT%TZ"
$d/sample-boost.py $d/boost.txt &
s=$!
trap 'kill $s 2>/dev/null' EXIT INT TERM
bench/run --scenarios mixed --full --configs defaults,memoptimizer --runs 1 --no-settling-run --out $d > $d/run.log 2>&1
echo "rc $?"
date -u +"end %FT%TZ"
