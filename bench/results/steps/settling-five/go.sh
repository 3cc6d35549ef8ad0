#!/bin/bash
cd /var/tmp/vol/set
date -u
bench/run --scenarios mixed --configs defaults,memoptimizer --runs 3 --no-warm --out /var/tmp/vol/set-out/run
echo rc=$?
date -u
