#!/bin/sh
cd /var/tmp/vol/hgD || exit 1
date -u
bench/run --scenarios mixed --configs defaults,wsf=100,wsf=300,defrag_mode=1,min_free=1%,memoptimizer,memoptimizer-other --other-daemon /var/tmp/vol/hgC/build/src/memoptimizer --runs 3 --no-settling-run --out /var/tmp/vol/hg/mixed
date -u
bench/run --scenarios bursts,accumulate --configs defaults,memoptimizer,memoptimizer-other --other-daemon /var/tmp/vol/hgC/build/src/memoptimizer --runs 3 --out /var/tmp/vol/hg/short
date -u
