#!/bin/bash
# Are the blocks a node compaction makes reported to the VM's host before
# THP faults take them (free page reporting), and does that slow the faults?
# bench/frag's fragment (20 GiB, one page kept per 2 MiB) and demand (7270M
# of MADV_HUGEPAGE), as steps/frag-runtime/direct-check.sh, plus the host
# reporting counter /sys/module/page_reporting/parameters/reported_kib (this
# kernel's; cumulative KiB) read around each step. Arms: none (1 s after the
# fragmenter lets go), compact (compact node 0, fault at once), compact-wait
# (compact, wait 3 s). No sysctl is written. Run under the machine lock.
set -u
B=${1:?usage: report-check.sh BUILD_BENCH_DIR}
rk=/sys/module/page_reporting/parameters/reported_kib
holder=
trap '[ -n "$holder" ] && kill $holder 2>/dev/null; wait 2>/dev/null' EXIT INT TERM
kib() { cat $rk; }
trial() {
  coproc H { exec "$B/frag" fragment 20480M; }
  holder=$H_PID
  read -r line <&"${H[0]}"
  r0=$(kib); t0=$(date +%s.%N)
  case $1 in
    none) sleep 1 ;;
    compact) echo 1 > /sys/devices/system/node/node0/compact ;;
    compact-wait) echo 1 > /sys/devices/system/node/node0/compact; sleep 3 ;;
  esac
  r1=$(kib); gap=$(echo "$(date +%s.%N) - $t0" | bc)
  c0=$(awk '/^compact_stall/ {print $2}' /proc/vmstat)
  out=$("$B/frag" demand 7270M)
  r2=$(kib)
  c1=$(awk '/^compact_stall/ {print $2}' /proc/vmstat)
  kill $holder; wait $holder 2>/dev/null; holder=
  echo "$1 gap $(printf %.2f $gap) s reported_before_demand_mib $(( (r1-r0)/1024 )) reported_during_demand_mib $(( (r2-r1)/1024 )) stalls $((c1-c0)) $out"
  sleep 3
}
echo "# $(uname -r), up $(cut -d' ' -f1 /proc/uptime) s, $(date -u +%FT%TZ); page_reporting: order $(cat /sys/module/page_reporting/parameters/page_reporting_order), min_free_ms $(cat /sys/module/page_reporting/parameters/min_free_ms), max_waiting_mib $(cat /sys/module/page_reporting/parameters/max_waiting_mib)"
for r in 1 2 3 4; do
  case $r in 1) o="none compact compact-wait";; 2) o="compact compact-wait none";; 3) o="compact-wait none compact";; 4) o="none compact-wait compact";; esac
  for a in $o; do trial $a; done
done
echo "# end $(date -u +%FT%TZ)"
