#!/bin/bash
# The command line and the state file, with the real binary:
#  1. a command word (status, restore, record, replay) anywhere but first
#     is refused, exit 1, and runs nothing: `--check-config restore` once
#     ran a real restore;
#  2. `restore` leaves everything alone while a daemon holds the instance
#     lock (it restores by itself when it stops), and acts once the daemon
#     is gone, as ExecStopPost= runs it;
#  3. a state file that is a directory, a symbolic link, out of range or
#     garbled is not acted on, and restore says which it is.
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

# --- 2. restore and a running daemon
# Acting (it takes the instance lock) but never writing: max_wsf 1.
printf 'interval = 100ms\nwindow = 3\nmax_wsf = 1\ncompaction = no\nlog_level = debug\n' > "$tmp/acting.conf"
rm -f "$run/state"
RUNTIME_DIRECTORY=$run "$bin" --config "$tmp/acting.conf" 2> "$tmp/log" &
pid=$!
for _ in $(seq 200); do grep -q 'debug: sample 2:' "$tmp/log" && break; sleep 0.05; done
grep -q 'debug: sample 2:' "$tmp/log" || fail "the daemon did not start sampling"
plant
expect 1 "a daemon is running (it holds $run/lock)" "$bin" restore
[ -f "$run/state" ] || fail "restore removed the state file of a running daemon"
kill -KILL "$pid"
wait "$pid" 2>/dev/null || true
pid=
status=0
RUNTIME_DIRECTORY=$run "$bin" restore 2> "$tmp/err" || status=$?
[ "$status" -eq 0 ] || fail "restore after the daemon was killed exited $status"
[ ! -e "$run/state" ] || fail "restore after the daemon was killed left the state file"
echo "ok: restore refuses while the daemon runs, acts once it is gone"

# --- 3. what the state file is, said truthfully; nothing acted on
mkdir -p "$run"
rm -f "$run/state"
mkdir "$run/state"
expect 1 "state file $run/state is a directory; not acting on it" "$bin" restore
[ -d "$run/state" ] || fail "the directory was removed"
rmdir "$run/state"
printf 'baseline=%s\nwritten=%s\npid=1\n' "$now" "$now" > "$tmp/elsewhere"
ln -s "$tmp/elsewhere" "$run/state"
expect 1 "state file $run/state is a symbolic link, which is not followed; not acting on it" "$bin" restore
[ -L "$run/state" ] && [ -s "$tmp/elsewhere" ] || fail "the link or its target was touched"
rm "$run/state"
for b in 0 100000; do
        printf 'baseline=%s\nwritten=%s\npid=1\n' "$b" "$now" > "$run/state"
        expect 1 "state file $run/state records a scale factor outside 1..3000, which no kernel accepts; removed it" "$bin" restore
        [ "$(cat "$wsf")" = "$now" ] || fail "baseline $b was written"
done
printf 'baseline=%s\nbaseline=%s\nwritten=%s\n' "$now" "$now" "$now" > "$run/state"
expect 1 "state file $run/state is not in the format memoptimizer writes; removed it" "$bin" restore
[ ! -e "$run/state" ] || fail "the corrupt state file was not removed"
echo "PASS"
