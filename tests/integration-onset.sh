#!/bin/bash
# The fast path, on the real kernel: between samples the daemon watches free
# memory (sysinfo) a few times per interval, and a fall faster than kswapd
# can make up takes a sample at once. A dry-run daemon sampling every 2 s
# records a trace while a program faults in memory at several GiB/s for
# about a second: a sample marked "onset" must appear, taken less than an
# interval after the program started, and the debug log must say so.
# Writes nothing to the kernel (dry run). Skipped (77) without the memory.
set -euo pipefail
bin=$1 hog=$2
avail_kb=$(awk '/^MemAvailable:/ {print $2}' /proc/meminfo)
if [ "$avail_kb" -lt $((6 * 1024 * 1024)) ]; then echo "SKIP: needs 6 GiB available, have $((avail_kb / 1024)) MiB"; exit 77; fi
tmp=$(mktemp -d)
pid= hogpid=
cleanup() {
        [ -n "$hogpid" ] && kill "$hogpid" 2>/dev/null || true
        [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null || true
        wait 2>/dev/null || true
        rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
fail() { echo "FAIL: $*"; cat "$tmp/log"; exit 1; }
samples() { local n; n=$(grep -c '"type":"sample"' "$tmp/trace" 2>/dev/null); echo "${n:-0}"; }

# A horizon of 10 minutes arms the watch whatever free memory there is. The
# trigger is kswapd's capacity, here the prior of 50 MB/s (25 MB between two
# checks, far above an idle machine's noise): on a VM whose balloon takes
# freed memory back, a program's first touch of it can fault as slowly as
# 400 MB/s, below the default prior of 5 % of memory per second.
printf 'interval = 2s\nhorizon = 10min\ncompaction = no\nlog_level = debug\nkswapd_rate_prior = 50M/s\n' > "$tmp/conf"
STATE_DIRECTORY=$tmp/lib RUNTIME_DIRECTORY=$tmp/run "$bin" --dry-run --config "$tmp/conf" --record "$tmp/trace" 2> "$tmp/log" &
pid=$!
# the watch is armed from the first decision on, made at the second sample
for _ in $(seq 400); do [ "$(samples)" -ge 3 ] && break; sleep 0.02; done
[ "$(samples)" -ge 3 ] || fail "no samples"
size_kb=$((avail_kb / 3))
start=$(awk '{print $1}' /proc/uptime)
"$hog" --size "${size_kb}K" --hold 1s > /dev/null &
hogpid=$!
for _ in $(seq 300); do grep -q '"onset":true' "$tmp/trace" && break; sleep 0.02; done
wait "$hogpid"; hogpid=
kill -TERM "$pid"; wait "$pid" || fail "exit status $?"; pid=
grep -q '"onset":true' "$tmp/trace" || fail "no sample taken at the onset"
grep -q "sample [0-9]* (onset)" "$tmp/log" || fail "the debug log does not name the onset sample"
# sample times are CLOCK_MONOTONIC, /proc/uptime CLOCK_BOOTTIME: equal on a
# machine that has not been suspended, which the 0.5 s allowance covers
t=$(grep '"onset":true' "$tmp/trace" | head -n 1 | sed 's/.*"t":\([0-9.]*\).*/\1/')
awk -v t="$t" -v s="$start" 'BEGIN { exit !(t > s - 0.5 && t < s + 2) }' ||
        fail "the onset sample at $t s came more than an interval after the program started at $start s"
echo "PASS: the fast path took a sample at the onset"
