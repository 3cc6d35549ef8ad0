#!/bin/bash
# Does a compaction made ahead of THP faults slow them on this VM (free page reporting)?
# Arms: none (1 s gap), wait (4 s gap), compact (compact node 0, then fault at once),
# compact-wait (compact node 0, wait 3 s, then fault). Run under the machine lock.
set -u
B=/var/tmp/rel8/build/bench
holder=
trap '[ -n "$holder" ] && kill $holder 2>/dev/null; wait 2>/dev/null' EXIT INT TERM
trial() {
  coproc H { exec $B/frag fragment 20480M; }
  holder=$H_PID
  read -r line <&"${H[0]}"
  t0=$(date +%s.%N)
  case $1 in
    none) sleep 1 ;;
    wait) sleep 4 ;;
    compact) echo 1 > /sys/devices/system/node/node0/compact ;;
    compact-wait) echo 1 > /sys/devices/system/node/node0/compact; sleep 3 ;;
  esac
  gap=$(echo "$(date +%s.%N) - $t0" | bc)
  c0=$(awk '/^compact_stall/ {print $2}' /proc/vmstat)
  huge=$(awk '/Normal|DMA32/ {s=0; for (i=14;i<=15;i++) s+=$i*2^(i-5); t+=s} END {printf "%.2f", t*4096/2^30}' /proc/buddyinfo)
  out=$($B/frag demand 7270M)
  c1=$(awk '/^compact_stall/ {print $2}' /proc/vmstat)
  kill $holder; wait $holder 2>/dev/null; holder=
  echo "$1 gap $(printf %.2f $gap) s huge_at_start ${huge} GiB stalls $((c1-c0)) $out  ($line)"
  sleep 3
}
echo "# $(uname -r), up $(cut -d' ' -f1 /proc/uptime) s, $(date -u +%FT%TZ)"
for r in 1 2 3 4; do
  case $r in 1) o="none wait compact compact-wait";; 2) o="wait compact compact-wait none";; 3) o="compact compact-wait none wait";; 4) o="compact-wait none wait compact";; esac
  for a in $o; do trial $a; done
done
echo "# end $(date -u +%FT%TZ)"
