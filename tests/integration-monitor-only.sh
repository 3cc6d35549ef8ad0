#!/bin/bash
# Without the right to write the sysctl (run as nobody when we are root),
# the daemon says so once, keeps running monitor-only, changes nothing, and
# exits 0 on SIGTERM. With $JOURNAL_STREAM naming its stderr but no journald
# to take the messages, they still reach stderr.
set -euo pipefail
bin=$(realpath "$1")
. "$(dirname "$0")/lib.sh"
wsf=/proc/sys/vm/watermark_scale_factor
tmp=$(mktemp -d)
chmod 755 "$tmp"
pid=
cleanup() { [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null; notify_stop; rm -rf "$tmp"; }
trap cleanup EXIT
notify_listen "$tmp"

as_user=()
if [ "$(id -u)" -eq 0 ]; then
        command -v setpriv >/dev/null || { echo "SKIP: setpriv (util-linux) is missing"; exit 77; }
        as_user=(setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --bounding-set=-all)
fi
if "${as_user[@]}" sh -c "echo 10 > $wsf" 2>/dev/null; then
        echo "SKIP: an unprivileged process can write $wsf here"; exit 77
fi

before=$(cat "$wsf")
printf 'interval = 100ms\nwindow = 3\n' > "$tmp/conf"
chmod 644 "$tmp/conf"
: > "$tmp/log"
chmod 666 "$tmp/log"
# The runtime directory is the daemon's (as under systemd), so it publishes.
mkdir -m 755 "$tmp/run"
[ "$(id -u)" -eq 0 ] && chown nobody "$tmp/run"
journal=
[ -S /run/systemd/journal/socket ] || journal=$(stat -c '%d:%i' "$tmp/log")
JOURNAL_STREAM=$journal STATE_DIRECTORY=$tmp/lib RUNTIME_DIRECTORY=$tmp/run "${as_user[@]}" "$bin" --config "$tmp/conf" 2>> "$tmp/log" &
pid=$!
# Ready (its first sample taken), and its live.json written (at the first
# forecast): status --json then sees it running.
running() { STATE_DIRECTORY=$tmp/lib RUNTIME_DIRECTORY=$tmp/run "$bin" status --json > "$tmp/status.json" && grep -q '"state": "running"' "$tmp/status.json"; }
wait_ready "$pid" && wait_for --pid "$pid" 20 "status --json saying running" running || { cat "$tmp/log"; exit 1; }
kill -TERM "$pid"
status=0
wait "$pid" || status=$?
pid=
cat "$tmp/log"
[ "$status" -eq 0 ] || { echo "FAIL: exit status $status"; exit 1; }
n=$(grep -c 'monitor-only' "$tmp/log" || true)
[ "$n" -eq 1 ] || { echo "FAIL: $n monitor-only lines, want exactly 1"; exit 1; }
grep -q 'cannot write vm.watermark_scale_factor (Permission denied)' "$tmp/log" ||
        { echo "FAIL: the reason is not given"; exit 1; }
[ "$(cat "$wsf")" = "$before" ] || { echo "FAIL: the sysctl changed"; exit 1; }
grep -q '"mode": "monitor-only"' "$tmp/status.json" && grep -q '"state": "running"' "$tmp/status.json" ||
        { echo "FAIL: status --json does not show a running monitor-only daemon:"; head -c 600 "$tmp/status.json"; exit 1; }
echo "PASS${journal:+ (JOURNAL_STREAM=$journal without journald: fell back to stderr)}"
