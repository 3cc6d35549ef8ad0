#!/bin/bash
# Does compaction's output show in buddyinfo at once, on this VM with free page reporting?
# usage: probe.sh compact|none
set -u
F=${FRAG:-/var/tmp/vol/relB/build/bench/frag}   # build/bench/frag of any build
mode=$1
sync; echo 3 > /proc/sys/vm/drop_caches
coproc H { exec $F fragment 20G; }
hp=$H_PID
trap 'kill $hp 2>/dev/null; wait $hp 2>/dev/null' EXIT
read -r line <&"${H[0]}"; echo "frag: $line"
sleep 1
snap() { awk -v t="$1" '$4=="Normal"{printf "%s Normal o8 %s o9 %s o10 %s", t, $13, $14, $15} $4=="DMA32"{d=$15} END{printf " dma32_o10 %s rep_kib %s\n", d, rk}' rk=$(cat /sys/module/page_reporting/parameters/reported_kib) /proc/buddyinfo; }
snap before
t0=$(date +%s.%N)
if [ "$mode" = compact ]; then echo 1 > /sys/devices/system/node/node0/compact; fi
t1=$(date +%s.%N); echo "compact took $(echo "$t1 - $t0" | bc) s"
for i in $(seq 1 30); do snap "+$(echo "$(date +%s.%N) - $t1" | bc | cut -c1-5)"; sleep 0.1; done
