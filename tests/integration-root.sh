#!/bin/bash
# On the real kernel, as root: the daemon raises vm.watermark_scale_factor
# when memory is being consumed towards the low watermark, logs why, keeps
# the baseline in its state file, and puts the baseline back on SIGTERM.
# Skipped (exit 77, saying why) without root or a writable sysctl.
set -euo pipefail
bin=$1 hog=$2
wsf=/proc/sys/vm/watermark_scale_factor

if [ "$(id -u)" -ne 0 ]; then echo "SKIP: needs root to write $wsf"; exit 77; fi
if ! cat "$wsf" > "$wsf" 2>/dev/null; then echo "SKIP: $wsf is not writable here"; exit 77; fi
avail_kb=$(awk '/^MemAvailable:/ {print $2}' /proc/meminfo)
if [ "$avail_kb" -lt $((8 * 1024 * 1024)) ]; then echo "SKIP: needs 8 GiB available, have $((avail_kb / 1024)) MiB"; exit 77; fi

boot=$(cat "$wsf")
tmp=$(mktemp -d)
pid= hogpid=
cleanup() {
        [ -n "$hogpid" ] && kill "$hogpid" 2>/dev/null || true
        [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null || true
        wait 2>/dev/null || true
        echo "$boot" > "$wsf"           # whatever happened, the machine is left as found
        rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

# A long horizon makes a moderate, steady allocation call for a raise; a low
# cap keeps the test gentle on the machine.
printf 'interval = 200ms\nwindow = 4\nhorizon = 60s\nmax_wsf = 200\ncalm_period = 10min\ncompaction = no\n' > "$tmp/conf"
RUNTIME_DIRECTORY=$tmp/run "$bin" --config "$tmp/conf" 2> "$tmp/log" &
pid=$!
sleep 1.5
"$hog" --size 4G --rate 1G --hold 4s > "$tmp/hog.out" &
hogpid=$!

raised=
for _ in $(seq 50); do
        now=$(cat "$wsf")
        if [ "$now" -gt "$boot" ]; then raised=$now; break; fi
        sleep 0.2
done
cat "$tmp/log"
[ -n "$raised" ] || { echo "FAIL: scale factor never rose above $boot"; exit 1; }
grep -q "raise vm.watermark_scale_factor $boot -> " "$tmp/log" || { echo "FAIL: no raise logged"; exit 1; }
grep -q "^baseline=$boot\$" "$tmp/run/state" || { echo "FAIL: state file lacks baseline=$boot"; exit 1; }
[ "$raised" -le 200 ] || { echo "FAIL: $raised is above max_wsf 200"; exit 1; }

# SIGKILL leaves the raised value and the state file; the next instance
# takes the baseline over from it and restores that on SIGTERM.
kill -KILL "$pid"
wait "$pid" 2>/dev/null || true
kill "$hogpid" 2>/dev/null || true
wait "$hogpid" 2>/dev/null || true
hogpid=
left=$(cat "$wsf")
[ "$left" -gt "$boot" ] || { echo "FAIL: expected the raised value to survive SIGKILL, have $left"; exit 1; }
grep -q "^written=$left\$" "$tmp/run/state" || { echo "FAIL: state file does not record $left"; cat "$tmp/run/state"; exit 1; }
RUNTIME_DIRECTORY=$tmp/run "$bin" --config "$tmp/conf" 2> "$tmp/log2" &
pid=$!
sleep 1
cat "$tmp/log2"
grep -q "previous instance left vm.watermark_scale_factor at $left; its baseline $boot will be restored" "$tmp/log2" ||
        { echo "FAIL: restart did not take the baseline over"; exit 1; }
grep -q "lower vm.watermark_scale_factor" "$tmp/log2" &&
        { echo "FAIL: the inherited value was lowered before a calm period"; exit 1; }

kill -TERM "$pid"
status=0
wait "$pid" || status=$?
pid=
cat "$tmp/log2" >> "$tmp/log"
[ "$status" -eq 0 ] || { echo "FAIL: exit status $status"; exit 1; }
after=$(cat "$wsf")
[ "$after" = "$boot" ] || { echo "FAIL: after SIGTERM the scale factor is $after, not $boot"; exit 1; }
grep -q "restored vm.watermark_scale_factor .* -> $boot" "$tmp/log" || { echo "FAIL: restore not logged"; exit 1; }
[ ! -e "$tmp/run/state" ] || { echo "FAIL: state file left behind"; exit 1; }
echo "PASS: raised $boot -> $raised, restored $boot on SIGTERM"
