#!/bin/bash
# Memory the kernel adds to a zone (lazily initialised at boot, hotplug, a
# balloon) must not hide consumption: the daemon fits pages in use,
# managed - free, so it must see a zone's new managed count at once, not at
# the next periodic re-read of /proc/zoneinfo (every 30 samples). MemTotal,
# which it reads every sample, is what tells it: the kernel raises both
# together. Fake /proc/zoneinfo and /proc/meminfo (through the LD_PRELOAD
# shim tests/fault-inject.c) under a dry-run daemon that records a trace,
# and change them:
#  1. managed and MemTotal grow: the trace shows the new managed within 3
#     samples;
#  2. managed grows alone (no sign the kernel gives): not seen for 5
#     samples, so 1 was the MemTotal trigger and not the periodic re-read.
set -euo pipefail
bin=$(realpath "$1") shim=$(realpath "$2")
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d)
pid=
cleanup() { [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; [ -f "$tmp/log" ] && cat "$tmp/log"; exit 1; }

cp /proc/zoneinfo "$tmp/zoneinfo"
# (a zone that kswapd gave up on is re-read every sample: not this test's case)
zoneinfo_reclaimable "$tmp/zoneinfo"
cp /proc/meminfo "$tmp/meminfo"
zone=$(awk '/^Node/ { z = $4 } /^ +managed/ && $2 > best { best = $2; name = z } END { print name }' "$tmp/zoneinfo")
managed() { awk -v z="$zone" '/^Node/ { cur = $4 } cur == z && /^ +managed/ { print $2; exit }' "$tmp/zoneinfo"; }
grow() {        # grow PAGES [meminfo]: the zone's managed, and MemTotal too if asked
        awk -v z="$zone" -v d="$1" '/^Node/ { cur = $4 } cur == z && /^ +managed/ { $0 = "        managed  " $2 + d } { print }' \
                "$tmp/zoneinfo" > "$tmp/z.new" && mv "$tmp/z.new" "$tmp/zoneinfo"
        if [ "${2:-}" = meminfo ]; then
                awk -v d="$1" '/^MemTotal:/ { $0 = sprintf("MemTotal:       %d kB", $2 + d * 4) } { print }' \
                        "$tmp/meminfo" > "$tmp/m.new"
                # in place: libproc2 keeps the file open and reads it again from the start
                cat "$tmp/m.new" > "$tmp/meminfo"
        fi
}
samples() { local n; n=$(grep -c '"type":"sample"' "$tmp/trace" 2>/dev/null); echo "${n:-0}"; }
# The managed count of the zone in the newest sample of the trace.
traced() {
        tail -n 1 "$tmp/trace" | grep -o "\"zone\":\"$zone\",\"managed_pages\":[0-9]*" | head -n 1 | sed 's/.*://'
}
wait_samples() {        # until the trace holds N samples
        for _ in $(seq 200); do
                [ "$(samples)" -ge "$1" ] && return 0
                kill -0 "$pid" 2>/dev/null || fail "the daemon died"
                sleep 0.02
        done
        fail "the trace has $(samples) samples, want $1"
}

printf 'interval = 100ms\nwindow = 3\ncompaction = no\n' > "$tmp/conf"
STATE_DIRECTORY=$tmp/lib RUNTIME_DIRECTORY=$tmp/run LD_PRELOAD=$shim \
        MEMOPTIMIZER_FAULT_REDIRECT="/proc/zoneinfo=$tmp/zoneinfo;/proc/meminfo=$tmp/meminfo" \
        "$bin" --dry-run --config "$tmp/conf" --record "$tmp/trace" 2> "$tmp/log" &
pid=$!
wait_samples 3
[ "$(traced)" = "$(managed)" ] || fail "the trace shows managed $(traced), the fake zoneinfo $(managed)"

# 1. both grow: seen within 3 samples
grow 262144 meminfo
want=$(managed) n=$(samples)
wait_samples $((n + 3))
[ "$(traced)" = "$want" ] || fail "managed grew to $want with MemTotal; 3 samples later the daemon still saw $(traced)"
echo "ok: a new managed count with MemTotal: seen within 3 samples"

# 2. managed alone: not seen for 5 samples (there is nothing to tell)
old=$(managed)
grow 262144
n=$(samples)
wait_samples $((n + 5))
[ "$(traced)" = "$old" ] || fail "managed grew without MemTotal and was seen at once: the MemTotal trigger is not what case 1 tested"
echo "ok: managed alone waits for the periodic re-read: case 1 was MemTotal's doing"

kill -TERM "$pid"
wait "$pid" || fail "exit status $? after SIGTERM"
pid=
echo "PASS: added memory is seen at the next sample"
