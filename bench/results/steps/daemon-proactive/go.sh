#!/bin/bash
cd /var/tmp/vol/pro
date -u
bench/run --scenarios mixed --configs defaults,proactive=80,min_free=1%,memoptimizer,memoptimizer@proactive=80 --runs 3 --no-warm --out /var/tmp/vol/pro-out/run
echo rc=$?
date -u
