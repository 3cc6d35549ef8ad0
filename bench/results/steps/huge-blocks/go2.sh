#!/bin/sh
cd /var/tmp/vol/hgD || exit 1
date -u
bench/run --scenarios mixed --configs defaults,wsf=100,memoptimizer,memoptimizer-other --other-daemon /var/tmp/vol/hgC/build/src/memoptimizer --runs 3 --no-settling-run --out /var/tmp/vol/hg/mixed2
date -u
