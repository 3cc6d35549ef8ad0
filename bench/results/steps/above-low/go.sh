#!/bin/bash
cd /var/tmp/snapAL
date -u
bench/run --scenarios outside --configs defaults,memoptimizer,memoptimizer-other,memoptimizer-warm,memoptimizer-other-warm --warm --other-daemon /var/tmp/out6/build/src/memoptimizer --runs 5 --out /var/tmp/sit-al/results
echo "rc $?"; date -u
for f in watermark_scale_factor min_free_kbytes defrag_mode compaction_proactiveness lowmem_reserve_ratio; do echo "$f $(cat /proc/sys/vm/$f)"; done
