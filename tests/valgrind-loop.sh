#!/bin/bash
# The daemon's loop under valgrind (memcheck, --leak-check=full, every leak
# kind an error) for at least 300 cycles at 100 ms, dry run, with reloads in
# between: a good file that resizes the window, then a bad one that must be
# refused. Any memcheck error or any byte left allocated at exit fails it.
# Uses the build's sanitizer-free binary (valgrind cannot run ASan code).
set -euo pipefail
bin=$1
cycles=${2:-300}
. "$(dirname "$0")/lib.sh"
command -v valgrind >/dev/null || { echo "SKIP: valgrind is not installed"; exit 77; }
tmp=$(mktemp -d)
pid=
cleanup() { [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT

# A dry run writes nothing: checked on a private copy of the sysctl that
# nobody else writes (lib.sh's private_wsf), where user namespaces allow.
private_wsf "$tmp" || true
before=$(cat "$WSF_FILE")
printf 'interval = 100ms\nwindow = 8\nlog_level = debug\n' > "$tmp/conf"
STATE_DIRECTORY=$tmp/lib RUNTIME_DIRECTORY=$tmp/run "${PRIVATE_WSF[@]}" valgrind -q --leak-check=full --show-leak-kinds=all \
        --errors-for-leak-kinds=all --error-exitcode=99 --log-file="$tmp/vg" \
        "$bin" --config "$tmp/conf" --dry-run 2> "$tmp/log" &
pid=$!

wait_n() {      # wait_n N: until N samples were taken (10 min at most)
        wait_samples "$pid" "$tmp/log" "$1" 600 || { cat "$tmp/log" "$tmp/vg"; exit 1; }
}
wait_n $((cycles / 3))
printf 'interval = 100ms\nwindow = 16\nlog_level = debug\n' > "$tmp/conf"
kill -HUP "$pid"
wait_n $((2 * cycles / 3))
printf 'interval = 100ms\nwindow = 100\n' > "$tmp/conf"
kill -HUP "$pid"
wait_n "$cycles"
kill -TERM "$pid"
status=0
wait "$pid" || status=$?
pid=
n=$(samples "$tmp/log")
grep -v 'debug: sample ' "$tmp/log"
echo "--- valgrind:"; cat "$tmp/vg"
[ "$status" -eq 0 ] || { echo "FAIL: exit status $status (99: valgrind found errors)"; exit 1; }
[ ! -s "$tmp/vg" ] || { echo "FAIL: valgrind reported something"; exit 1; }
grep -q 'configuration reloaded' "$tmp/log" || { echo "FAIL: the good reload was not applied"; exit 1; }
grep -q "reload refused, old configuration stays: $tmp/conf:2: out-of-range value '100' for window" "$tmp/log" ||
        { echo "FAIL: the bad reload was not refused"; exit 1; }
grep -q "debug: sample $n: .*window 16\$" "$tmp/log" || { echo "FAIL: the window is not 16 after the refused reload"; exit 1; }
[ "$(cat "$WSF_FILE")" = "$before" ] || { echo "FAIL: $WSF_FILE changed"; exit 1; }
echo "PASS: $n cycles under valgrind memcheck, no error, no leak"
