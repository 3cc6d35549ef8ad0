#!/bin/bash
# Somebody else writes vm.watermark_scale_factor while the daemon runs (as
# root, acting): their value becomes the baseline, logged once, and is left
# in place when the daemon stops. Writes the sysctl: the trap puts the
# value found back whatever happens.
set -euo pipefail
bin=$1
. "$(dirname "$0")/lib.sh"
wsf=/proc/sys/vm/watermark_scale_factor
skip_unless_wsf_writable
boot=$(cat "$wsf")
theirs=$((boot + 27))
tmp=$(mktemp -d)
pid=
cleanup() {
        [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null || true
        echo "$boot" > "$wsf"
        rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
fail() { echo "FAIL: $*"; cat "$tmp/log"; exit 1; }
wait_n() { wait_samples "$pid" "$tmp/log" "$1" || fail "only $(samples "$tmp/log") samples"; }

# max_wsf below the baseline and no compaction: it never writes by itself.
printf 'interval = 100ms\nwindow = 3\nmax_wsf = 1\ncompaction = no\nlog_level = debug\n' > "$tmp/conf"
STATE_DIRECTORY=$tmp/lib RUNTIME_DIRECTORY=$tmp/run "$bin" --config "$tmp/conf" 2> "$tmp/log" &
pid=$!
wait_n 3
echo "$theirs" > "$wsf"
wait_n $(($(samples "$tmp/log") + 10))
kill -TERM "$pid"
status=0
wait "$pid" || status=$?
pid=
grep -v 'debug: sample ' "$tmp/log"
[ "$status" -eq 0 ] || fail "exit status $status"
n=$(grep -c 'adopt vm.watermark_scale_factor' "$tmp/log" || true)
[ "$n" -eq 1 ] || fail "$n adopt lines, want 1"
grep -q "notice: adopt vm.watermark_scale_factor $boot -> $theirs: another process set it; adopted as the new baseline" "$tmp/log" ||
        fail "the adoption is not logged clearly"
[ "$(cat "$wsf")" = "$theirs" ] || fail "their value $theirs was not left in place: $(cat "$wsf")"
grep -q 'restored' "$tmp/log" && fail "it restored over their value"
[ ! -e "$tmp/run/state" ] || fail "a state file was left"
echo "PASS: $theirs adopted as the baseline, logged once, left in place on exit"
