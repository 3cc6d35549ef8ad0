#!/bin/bash
cd /var/tmp/out6
date -u
bench/run --scenarios outside --configs defaults,wsf=100,min_free=1%,memoptimizer,memoptimizer-warm --warm --runs 5 --out /var/tmp/sit-out6/results
echo "rc $?"; date -u
for f in watermark_scale_factor min_free_kbytes defrag_mode compaction_proactiveness lowmem_reserve_ratio; do echo "$f $(cat /proc/sys/vm/$f)"; done
