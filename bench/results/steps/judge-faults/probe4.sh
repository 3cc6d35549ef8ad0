#!/bin/bash
# after a compaction of a fragmented node: where did the migrated pages' old homes go? pcp counts, buddyinfo
set -u
F=${FRAG:-/var/tmp/vol/relB/build/bench/frag}   # build/bench/frag of any build
sync; echo 3 > /proc/sys/vm/drop_caches
coproc H { exec $F fragment 20G; }
hp=$H_PID
trap 'kill $hp 2>/dev/null; wait $hp 2>/dev/null' EXIT
read -r line <&"${H[0]}"
sleep 1
pcp() { awk '/zone +Normal/{z=1;next} /^Node/{z=0} z && /count:/{s+=$2} END{printf "pcp_count %d", s}' /proc/zoneinfo; }
o() { awk '$4=="Normal"{printf "o8 %s o9 %s o10 %s", $13, $14, $15}' /proc/buddyinfo; }
nf() { awk '/zone +Normal/{z=1} /^Node/&&!/Normal/{z=0} z && /nr_free_pages/{print "nr_free_pages", $2; exit}' /proc/zoneinfo; }
mig() { awk '$1=="pgmigrate_success"{printf "pgmigrate_success %s", $2}' /proc/vmstat; }
echo "before:  $(o) $(pcp) $(nf) $(mig)"
echo 1 > /sys/devices/system/node/node0/compact
echo "after:   $(o) $(pcp) $(nf) $(mig)"
sleep 1
echo "+1 s:    $(o) $(pcp) $(nf) $(mig)"
cat /proc/sys/vm/percpu_pagelist_high_fraction > /dev/null; echo 0 > /proc/sys/vm/percpu_pagelist_high_fraction
echo "+sysctl:   $(o) $(pcp) $(nf) $(mig)"
# one huge page fault: does it find the blocks at once?
$F demand 4M >/dev/null
echo "one THP: $(o) $(pcp) $(nf) $(mig) $(grep compact_stall /proc/vmstat)"
