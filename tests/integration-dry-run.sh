#!/bin/bash
# The daemon in --dry-run on the real kernel: it samples, forecasts, logs
# that it started, never writes the sysctl, and exits 0 on SIGTERM. Needs
# no root.
#
# "Never writes" is about this daemon, not about whoever else may write the
# sysctl meanwhile (another test, a benchmark): the daemon runs where
# vm.watermark_scale_factor is a private copy (a bind mount in its own mount
# namespace, lib.sh's private_wsf), so any write it made would be in the
# copy, and nothing else writes there. Where user namespaces are not
# allowed, the real sysctl is compared instead, and another writer can make
# that fail (run it under the machine lock).
set -euo pipefail
bin=$1
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d)
pid=
cleanup() {
        [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
        notify_stop
        rm -rf "$tmp"
}
trap cleanup EXIT
notify_listen "$tmp"

where="its private copy of vm.watermark_scale_factor"
private_wsf "$tmp" ||
        where="vm.watermark_scale_factor (user namespaces are not allowed here: the real one, which others may write)"
before=$(cat "$WSF_FILE")
printf 'interval = 100ms\nwindow = 4\nlog_level = debug\n' > "$tmp/conf"
STATE_DIRECTORY=$tmp/lib RUNTIME_DIRECTORY=$tmp/run "${PRIVATE_WSF[@]}" "$bin" --config "$tmp/conf" --dry-run 2> "$tmp/log" &
pid=$!
# Enough samples for forecasts and decisions on a full window.
wait_ready "$pid" && wait_samples "$pid" "$tmp/log" 12 || { cat "$tmp/log"; exit 1; }
kill -TERM "$pid"
status=0
wait "$pid" || status=$?
pid=
cat "$tmp/log"

[ "$status" -eq 0 ] || { echo "FAIL: exit status $status after SIGTERM"; exit 1; }
grep -q 'info: started: vm.watermark_scale_factor' "$tmp/log" || { echo "FAIL: no start line"; exit 1; }
# the THP policy a burst of huge pages meets, as the kernel shows it
if [ -r /sys/kernel/mm/transparent_hugepage/enabled ] && [ -r /sys/kernel/mm/transparent_hugepage/defrag ]; then
        want_thp="$(sed 's/.*\[\(.*\)\].*/\1/' /sys/kernel/mm/transparent_hugepage/enabled), defrag $(sed 's/.*\[\(.*\)\].*/\1/' /sys/kernel/mm/transparent_hugepage/defrag)"
else
        want_thp="absent, defrag absent"
fi
grep -qF "; transparent huge pages $want_thp; " "$tmp/log" ||
        { echo "FAIL: the start line does not give the THP policy '$want_thp': $(grep 'started:' "$tmp/log")"; exit 1; }
grep -q 'dry run' "$tmp/log" || { echo "FAIL: start line does not say dry run"; exit 1; }
grep -q 'received Terminated, stopping' "$tmp/log" || { echo "FAIL: no stop line"; exit 1; }
grep -q 'skipping a sample' "$tmp/log" && { echo "FAIL: sampling failed"; exit 1; }
after=$(cat "$WSF_FILE")
[ "$before" = "$after" ] || { echo "FAIL: dry run changed $where: $before -> $after"; exit 1; }
[ ! -e "$tmp/run/state" ] || { echo "FAIL: dry run left a state file"; exit 1; }

# Bad configuration: refused with FILE:LINE and exit status 1, nothing run.
printf 'interval = 1s\nwindow = 100\n' > "$tmp/bad"
status=0
"$bin" --config "$tmp/bad" 2> "$tmp/err" || status=$?
[ "$status" -eq 1 ] || { echo "FAIL: bad config exit status $status"; exit 1; }
grep -q "$tmp/bad:2: out-of-range value '100' for window; allowed: 3..64" "$tmp/err" ||
        { echo "FAIL: bad config message:"; cat "$tmp/err"; exit 1; }
status=0
"$bin" --check-config --config "$tmp/bad" 2>/dev/null || status=$?
[ "$status" -eq 1 ] || { echo "FAIL: --check-config of a bad file exit $status"; exit 1; }
"$bin" --check-config --config "$tmp/conf" | grep -q valid
status=0
"$bin" --interval 5 2>/dev/null || status=$?
[ "$status" -eq 1 ] || { echo "FAIL: --interval without unit exit $status"; exit 1; }
status=0
"$bin" --config /nonexistent 2>/dev/null || status=$?
[ "$status" -eq 1 ] || { echo "FAIL: missing explicit config exit $status"; exit 1; }

# A second acting instance refuses while the first holds the lock (taken
# before it is ready). max_wsf below the baseline and no compaction keep
# the first from ever acting.
printf 'interval = 100ms\nmax_wsf = 1\ncompaction = no\n' > "$tmp/first"
STATE_DIRECTORY=$tmp/lib RUNTIME_DIRECTORY=$tmp/run "${PRIVATE_WSF[@]}" "$bin" --config "$tmp/first" 2> "$tmp/first.log" &
pid=$!
wait_ready "$pid" || { cat "$tmp/first.log"; exit 1; }
status=0
STATE_DIRECTORY=$tmp/lib RUNTIME_DIRECTORY=$tmp/run "$bin" --config "$tmp/first" 2> "$tmp/second.log" || status=$?
kill -TERM "$pid"; wait "$pid" || true; pid=
[ "$status" -eq 1 ] || { echo "FAIL: a second instance exited $status, not 1"; cat "$tmp/second.log"; exit 1; }
grep -q 'another memoptimizer is running' "$tmp/second.log" || { echo "FAIL: no clear refusal"; cat "$tmp/second.log"; exit 1; }
[ "$(cat "$WSF_FILE")" = "$before" ] || { echo "FAIL: $where changed"; exit 1; }

# status works without root and shows every zone
"$bin" status > "$tmp/status"
grep -q '^vm.watermark_scale_factor: ' "$tmp/status"
grep -q 'watermarks: min [0-9]*, low [0-9]*, high [0-9]*' "$tmp/status"
echo "PASS (writes checked on $where)"
