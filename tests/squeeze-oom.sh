#!/bin/bash
# The OOM guard on a real memory squeeze (root; writes the sysctl; run it
# under flock /run/lock/memoptimizer-machine.lock). A workload touches
# anonymous memory until only ~3% of RAM (at least 768 MiB) is left
# available, holds it, and exits, while the daemon runs at its most
# aggressive: max_wsf 3000 (its ceiling; the kernel's own limit is
# probed), horizon 10min (the largest gap for a forecast), trend_min_r2 0,
# window 3, interval 100ms, oom_headroom 0% (the guard at its thinnest),
# calm_period 1h (it never backs off by itself). Passes when the OOM killer
# did not run (oom_kill in /proc/vmstat did not move), the workload was not
# killed, and the boot value is back after SIGTERM.
# Usage: squeeze-oom.sh MEMOPTIMIZER THP_ALLOC
set -euo pipefail
bin=$1 hog=$2
. "$(dirname "$0")/lib.sh"
wsf=/proc/sys/vm/watermark_scale_factor
skip_unless_wsf_writable
boot=$(cat "$wsf")
tmp=$(mktemp -d)
pid= hogpid=
cleanup() {
        [ -n "$hogpid" ] && kill -KILL "$hogpid" 2>/dev/null || true
        [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null || true
        wait "$hogpid" "$pid" 2>/dev/null || true
        notify_stop
        echo "$boot" > "$wsf"
        rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
notify_listen "$tmp"
kb() { awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo; }
oom() { awk '$1 == "oom_kill" { print $2 }' /proc/vmstat; }

total=$(kb MemTotal) avail=$(kb MemAvailable)
leave=$((total * 3 / 100))
[ "$leave" -ge $((768 * 1024)) ] || leave=$((768 * 1024))
size=$((avail - leave))
[ "$size" -gt $((1024 * 1024)) ] || { echo "SKIP: only $((avail / 1024)) MiB available"; exit 77; }
echo "MemTotal $((total / 1024)) MiB, MemAvailable $((avail / 1024)) MiB: pinning $((size / 1024)) MiB, leaving $((leave / 1024)) MiB"

printf 'interval = 100ms\nwindow = 3\nhorizon = 10min\nmax_wsf = 3000\ntrend_min_r2 = 0\noom_headroom = 0%%\ncalm_period = 1h\ncompaction = yes\nkswapd_rate_prior = 1M/s\n' > "$tmp/conf"
oom_before=$(oom)
STATE_DIRECTORY=$tmp/lib RUNTIME_DIRECTORY=$tmp/run "$bin" --config "$tmp/conf" 2> "$tmp/log" &
pid=$!
wait_ready "$pid" || { cat "$tmp/log"; exit 1; }
"$hog" --size "${size}K" --rate 2G --hold 20s --no-thp > "$tmp/hog.out" 2>&1 &
hogpid=$!
peak=$boot
min_avail=$avail min_free=$(kb MemFree)
while kill -0 "$hogpid" 2>/dev/null; do
        v=$(cat "$wsf"); [ "$v" -gt "$peak" ] && peak=$v
        a=$(kb MemAvailable); [ "$a" -lt "$min_avail" ] && min_avail=$a
        f=$(kb MemFree); [ "$f" -lt "$min_free" ] && min_free=$f
        sleep 0.2       # how often the low points are read, not a wait
done
hog_status=0
wait "$hogpid" || hog_status=$?
hogpid=
kill -TERM "$pid"
status=0
wait "$pid" || status=$?
pid=
oom_after=$(oom)
cat "$tmp/log" | grep -v 'debug:' | tail -40
cat "$tmp/hog.out"
echo "scale factor: boot $boot, peak $peak while squeezed, $(cat "$wsf") after SIGTERM"
# MemAvailable excludes the high watermarks, so a raised scale factor
# lowers it too; MemFree is what was really left.
echo "low points: MemFree $((min_free / 1024)) MiB, MemAvailable $((min_avail / 1024)) MiB; oom_kill $oom_before -> $oom_after"
echo "raises: $(grep -c 'raise vm.watermark_scale_factor' "$tmp/log" || true), guard lowerings: $(grep -c 'the OOM guard allows' "$tmp/log" || true)"
fail=0
[ "$oom_after" = "$oom_before" ] || { echo "FAIL: the OOM killer ran ($oom_before -> $oom_after)"; fail=1; }
[ "$hog_status" -eq 0 ] || { echo "FAIL: the workload exited $hog_status"; fail=1; }
[ "$status" -eq 0 ] || { echo "FAIL: the daemon exited $status"; fail=1; }
[ "$(cat "$wsf")" = "$boot" ] || { echo "FAIL: the scale factor was not restored"; fail=1; }
[ "$fail" -eq 0 ] && echo "PASS: no OOM kill under a squeeze to $((min_free / 1024)) MiB free"
exit "$fail"
