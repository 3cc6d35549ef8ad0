#!/bin/sh
cd /var/tmp/vol/base || exit 1
O=/var/tmp/vol/young-out
( while :; do date -u +"%FT%TZ"; grep -A4 "Number of blocks type" /proc/pagetypeinfo; sleep 60; done ) > $O/pagetypes.log 2>&1 &
LOGGER=$!
date -u +"start %FT%TZ"
bench/run --scenarios mixed --configs defaults,wsf=100,min_free=1%,memoptimizer --runs 3 --no-warm --out $O/results > $O/run.log 2>&1
echo "rc $?"
kill $LOGGER
date -u +"end %FT%TZ"
