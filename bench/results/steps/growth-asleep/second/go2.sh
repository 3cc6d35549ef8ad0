#!/bin/sh
cd /var/tmp/vol/cand || exit 1
BASE=/var/tmp/vol/base/build/src/memoptimizer
O=/var/tmp/vol/ga-out/second
date -u +"start %FT%TZ"
bench/run --scenarios streaming --configs defaults,wsf=300,memoptimizer,memoptimizer-other --other-daemon $BASE --runs 7 --no-warm --out $O/streaming > $O/run-streaming.log 2>&1
echo "streaming rc $?"
date -u +"end %FT%TZ"
