#!/bin/bash
# The command line and the state file, with the real binary:
#  1. a command word (status, restore, record, replay) anywhere but first
#     is refused, exit 1, and runs nothing: `--check-config restore` once
#     ran a real restore.
# The state files planted here record the value in force as both baseline
# and written value, so that even a wrong restore writes nothing new.
set -euo pipefail
bin=$1
wsf=/proc/sys/vm/watermark_scale_factor
tmp=$(mktemp -d)
run=$tmp/run
pid=
cleanup() { [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; for f in "$tmp/err" "$tmp/log"; do [ -f "$f" ] && cat "$f"; done; exit 1; }
now=$(cat "$wsf")
plant() { mkdir -p "$run"; printf 'baseline=%s\nwritten=%s\npid=1\n' "$now" "$now" > "$run/state"; }
expect() {      # STATUS MESSAGE COMMAND...: exit status and a line of stderr
        local want=$1 msg=$2 status=0
        shift 2
        RUNTIME_DIRECTORY=$run "$@" > "$tmp/out" 2> "$tmp/err" || status=$?
        [ "$status" -eq "$want" ] || fail "'${*:2}' exited $status, want $want"
        grep -qF -- "$msg" "$tmp/err" || fail "'${*:2}' did not say '$msg'"
}
printf 'interval = 100ms\nwindow = 3\n' > "$tmp/conf"

# --- 1. the grammar: the command first
plant
expect 1 "'restore' is a command and must come first" "$bin" --check-config restore
[ -f "$run/state" ] || fail "--check-config restore acted on the state file"
for w in status restore record replay; do
        expect 1 "'$w' is a command and must come first" "$bin" -c "$tmp/conf" "$w"
        expect 1 "'$w' is a command and must come first" "$bin" --dry-run "$w"
done
expect 1 "'restore' is a command and must come first" "$bin" status restore
expect 1 "invalid option" "$bin" status -n
[ -f "$run/state" ] || fail "a misplaced command word acted on the state file"
RUNTIME_DIRECTORY=$run "$bin" status --json -c "$tmp/conf" > "$tmp/out" || fail "status --json -c FILE"
grep -q '"schema_version"' "$tmp/out" || fail "status --json printed no document"
"$bin" --help | grep -q 'A command (status, restore, record, replay) is the first argument' ||
        fail "--help does not state the grammar"
echo "ok: a command word after options is refused and runs nothing"

echo "PASS"
