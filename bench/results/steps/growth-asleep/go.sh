#!/bin/sh
cd /var/tmp/vol/cand || exit 1
BASE=/var/tmp/vol/base/build/src/memoptimizer
O=/var/tmp/vol/ga-out
date -u +"start %FT%TZ"
bench/run --scenarios streaming --configs defaults,wsf=300,memoptimizer,memoptimizer-other --other-daemon $BASE --runs 5 --no-warm --out $O/streaming > $O/run-streaming.log 2>&1
echo "streaming rc $?"
date -u +"mid %FT%TZ"
bench/run --scenarios mixed --configs defaults,memoptimizer,memoptimizer-other --other-daemon $BASE --runs 3 --no-warm --out $O/mixed > $O/run-mixed.log 2>&1
echo "mixed rc $?"
date -u +"end %FT%TZ"
