#!/bin/bash
# fragment 20G, wait 1 s, [compact node0], wait G s, demand 7.1G; print compaction counters and stalls
set -u
F=${FRAG:-/var/tmp/vol/relB/build/bench/frag}   # build/bench/frag of any build
mode=$1; gap=${2:-0}
sync; echo 3 > /proc/sys/vm/drop_caches
coproc H { exec $F fragment 20G; }
hp=$H_PID
trap 'kill $hp 2>/dev/null; wait $hp 2>/dev/null' EXIT
read -r line <&"${H[0]}"
sleep 1
vm() { grep -E "^(compact_(stall|migrate_scanned|free_scanned|isolated|success|fail)|allocstall_normal|thp_fault_alloc|thp_fault_fallback) " /proc/vmstat | awk '{printf "%s=%s ", $1, $2}'; }
o() { awk '$4=="Normal"{printf "Normal o8 %s o9 %s o10 %s", $13, $14, $15}' /proc/buddyinfo; }
echo "before: $(o) $(vm)"
t0=$(date +%s.%N)
[ "$mode" = compact ] && echo 1 > /sys/devices/system/node/node0/compact
echo "compact($mode) took $(echo "$(date +%s.%N) - $t0" | bc) s: $(o) $(vm)"
sleep $gap
echo "demand: $($F demand 7100M)"
echo "after: $(o) $(vm)"
