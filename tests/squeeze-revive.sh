#!/bin/bash
# scripts/revive-kswapd on a node kswapd really gave up on (root; drops the
# page cache, writes the sysctl, pins most of RAM for ~15 s: run it under
# flock /run/lock/memoptimizer-machine.lock). With the page cache dropped
# and the scale factor at 1000, a workload touches anonymous memory until
# free memory is below the zones' summed low and holds it: kswapd finds
# nothing to reclaim (no swap) and gives up (node_unreclaimable). The
# workload exits, which does not revive it. Then revive-kswapd must refuse
# without root and on a tmpfs directory (exit 2, the node still given up),
# and as root revive every node (exit 0, node_unreclaimable 0 everywhere)
# and leave no cgroup and no file behind.
# Usage: squeeze-revive.sh REVIVE_KSWAPD
set -euo pipefail
revive=$1
. "$(dirname "$0")/lib.sh"
wsf=/proc/sys/vm/watermark_scale_factor
skip_unless_wsf_writable
command -v python3 > /dev/null || { echo "SKIP: needs python3 for its workload"; exit 77; }
boot=$(cat "$wsf")
tmp=$(mktemp -d /var/tmp/squeeze-revive.XXXXXX)
hogpid=
cleanup() {
        [ -n "$hogpid" ] && kill -KILL "$hogpid" 2>/dev/null || true
        wait "$hogpid" 2>/dev/null || true
        echo "$boot" > "$wsf"
        # never leave the machine with kswapd given up, whatever failed
        "$revive" "$tmp" 2> /dev/null || true
        rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

memcg_dirs() { find /sys/fs/cgroup -maxdepth 2 -name 'memoptimizer-revive.*' 2> /dev/null; }
# free memory kswapd keeps at 1000: the zones' summed low, and their min
sum_field() { awk -v f="$1" '$1 == f && NF == 2 { n += $2 } END { print n * 4 }' /proc/zoneinfo; }

if ! kswapd_gave_up > /dev/null; then
        sync
        echo 3 > /proc/sys/vm/drop_caches
        echo 1000 > "$wsf"
        low_kb=$(sum_field low) min_kb=$(sum_field min)
        target_kb=$(((low_kb + min_kb) / 2))
        echo "zones' low at 1000: $((low_kb / 1024)) MiB, min $((min_kb / 1024)) MiB: holding free memory at $((target_kb / 1024)) MiB"
        # Grows until free memory is below the target, whatever memory the
        # kernel is still adding to its zones (a freshly booted machine).
        python3 - "$target_kb" "$tmp/held" <<'EOF' &
import sys, time
target_kb, ready = int(sys.argv[1]), sys.argv[2]
def free_kb():
    with open("/proc/meminfo") as f:
        return next(int(l.split()[1]) for l in f if l.startswith("MemFree:"))
chunks, step = [], 128 << 20
while free_kb() - step // 1024 > target_kb:
    b = bytearray(step)
    b[::4096] = b"\x01" * len(range(0, step, 4096))
    chunks.append(b)
open(ready, "w").close()
time.sleep(120)
EOF
        hogpid=$!
        wait_for --pid "$hogpid" 120 "the workload at its size" test -e "$tmp/held"
        if ! wait_for 60 "node_unreclaimable" kswapd_gave_up > /dev/null; then
                echo "SKIP: kswapd did not give up on this kernel with $(awk '/^MemFree:/ {print int($2 / 1024)}' /proc/meminfo) MiB free"
                exit 77
        fi
        kill -KILL "$hogpid"; wait "$hogpid" 2> /dev/null || true; hogpid=
        echo "$boot" > "$wsf"
fi
gave_up=$(kswapd_gave_up) || { echo "SKIP: kswapd revived by itself when the workload exited (nothing to test)"; exit 77; }
echo "kswapd gave up on $gave_up"

fail=0
rc=0; setpriv --reuid=65534 --regid=65534 --clear-groups "$revive" "$tmp" 2> "$tmp/err" || rc=$?
[ "$rc" -eq 2 ] && grep -q 'needs root' "$tmp/err" || { echo "FAIL: without root: exit $rc, $(cat "$tmp/err")"; fail=1; }
if [ "$(stat -f -c %T /dev/shm 2> /dev/null)" = tmpfs ]; then
        rc=0; "$revive" /dev/shm 2> "$tmp/err" || rc=$?
        [ "$rc" -eq 2 ] && grep -q tmpfs "$tmp/err" || { echo "FAIL: on tmpfs: exit $rc, $(cat "$tmp/err")"; fail=1; }
fi
kswapd_gave_up > /dev/null || { echo "FAIL: a refused call revived kswapd"; fail=1; }

rc=0; "$revive" "$tmp" 2> "$tmp/err" || rc=$?
cat "$tmp/err"
[ "$rc" -eq 0 ] || { echo "FAIL: as root: exit $rc"; fail=1; }
left=$(kswapd_gave_up) && { echo "FAIL: kswapd still gave up on $left"; fail=1; }
[ -z "$(memcg_dirs)" ] || { echo "FAIL: left the cgroup $(memcg_dirs)"; fail=1; }
[ -z "$(find "$tmp" -name 'memoptimizer-revive.*')" ] || { echo "FAIL: left its file in $tmp"; fail=1; }
[ "$fail" -eq 0 ] && echo "PASS: kswapd revived on $gave_up; refused without root and on tmpfs"
exit "$fail"
