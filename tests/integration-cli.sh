#!/bin/bash
# The command line and the state file, with the real binary:
#  1. a command word (status, restore, record, replay) anywhere but first
#     is refused, exit 1, and runs nothing: `--check-config restore` once
#     ran a real restore;
#  2. `restore` leaves everything alone while a daemon holds the instance
#     lock (it restores by itself when it stops), and acts once the daemon
#     is gone, as ExecStopPost= runs it;
#  3. a state file that is a directory, a symbolic link, out of range or
#     garbled is not acted on, and restore says which it is;
#  4. traces: a symbolic link planted where --record or record -o points
#     (as another user, in a directory everyone may write) is not followed,
#     its target keeps its content; a relative --record is refused; a
#     second daemon on the same trace is refused while the first goes on;
#     a restarted daemon moves its earlier trace to FILE.1; a trace's header
#     gives its start on the samples' clock too;
#  5. the daemon's locks are its own: live.lock is 0600, so another user
#     (nobody, when we are root) cannot hold it to stop the publishing;
#     status, as that user, still tells running from killed; an acting
#     daemon refuses a runtime directory others can write.
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
expect() {      # STATUS MESSAGE COMMAND...: exit status (within 10 s) and a line of stderr
        local want=$1 msg=$2 status=0
        shift 2
        STATE_DIRECTORY=$tmp/lib RUNTIME_DIRECTORY=$run timeout 10 "$@" > "$tmp/out" 2> "$tmp/err" || status=$?
        [ "$status" -eq "$want" ] || fail "'${*:2}' exited $status, want $want"
        grep -qF -- "$msg" "$tmp/err" || fail "'${*:2}' did not say '$msg'"
}
printf 'interval = 100ms\nwindow = 3\n' > "$tmp/conf"
lines() { if [ -f "$1" ]; then wc -l < "$1"; else echo 0; fi; }
wait_for() {    # COMMAND...: until it succeeds (10 s)
        for _ in $(seq 200); do "$@" && return 0; sleep 0.05; done
        fail "waited 10 s for: $*"
}
has_lines() { [ "$(lines "$1")" -ge "$2" ]; }

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
STATE_DIRECTORY=$tmp/lib RUNTIME_DIRECTORY=$run "$bin" status --json -c "$tmp/conf" > "$tmp/out" || fail "status --json -c FILE"
grep -q '"schema_version"' "$tmp/out" || fail "status --json printed no document"
"$bin" --help | grep -q 'A command (status, restore, forget, record, replay) is the first argument' ||
        fail "--help does not state the grammar"
echo "ok: a command word after options is refused and runs nothing"

# --- 2. restore and a running daemon
# Acting (it takes the instance lock) but never writing: max_wsf 1.
printf 'interval = 100ms\nwindow = 3\nmax_wsf = 1\ncompaction = no\nlog_level = debug\n' > "$tmp/acting.conf"
rm -f "$run/state"
STATE_DIRECTORY=$tmp/lib RUNTIME_DIRECTORY=$run "$bin" --config "$tmp/acting.conf" 2> "$tmp/log" &
pid=$!
wait_for grep -q 'debug: sample 2:' "$tmp/log"
plant
expect 1 "a daemon is running (it holds $run/lock)" "$bin" restore
[ -f "$run/state" ] || fail "restore removed the state file of a running daemon"
kill -KILL "$pid"
wait "$pid" 2>/dev/null || true
pid=
status=0
STATE_DIRECTORY=$tmp/lib RUNTIME_DIRECTORY=$run "$bin" restore 2> "$tmp/err" || status=$?
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
echo "ok: state files refused for what they are"

# --- 4. traces
mkdir -m 1777 "$tmp/pub"
printf 'root only\n' > "$tmp/secret"
chmod 600 "$tmp/secret"
as_other=()
[ "$(id -u)" -eq 0 ] && command -v setpriv > /dev/null && chmod 755 "$tmp" &&
        as_other=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
"${as_other[@]}" ln -s "$tmp/secret" "$tmp/pub/t.jsonl"
expect 2 "record: $tmp/pub/t.jsonl is a symbolic link, which is not followed" \
        "$bin" --config "$tmp/conf" --dry-run --record "$tmp/pub/t.jsonl"
expect 1 "$tmp/pub/t.jsonl exists; not overwriting it" "$bin" record -o "$tmp/pub/t.jsonl" --duration 1s
[ "$(cat "$tmp/secret")" = "root only" ] || fail "the link's target was written"
expect 1 "invalid --record 'pub/t.jsonl'; an absolute file name" "$bin" --config "$tmp/conf" --dry-run --record pub/t.jsonl
trace=$tmp/trace.jsonl
STATE_DIRECTORY=$tmp/lib RUNTIME_DIRECTORY=$run "$bin" --config "$tmp/conf" --dry-run --record "$trace" 2> "$tmp/log" &
pid=$!
wait_for has_lines "$trace" 3
expect 2 "$trace is being written by another memoptimizer" "$bin" --config "$tmp/conf" --dry-run --record "$trace"
wait_for has_lines "$trace" $(($(lines "$trace") + 3))     # the first one goes on
[ ! -e "$trace.1" ] || fail "the second daemon moved the first one's trace"
kill -TERM "$pid"
wait "$pid" || fail "the first daemon exited $?"
pid=
earlier=$(lines "$trace")
STATE_DIRECTORY=$tmp/lib RUNTIME_DIRECTORY=$run "$bin" --config "$tmp/conf" --dry-run --record "$trace" 2> "$tmp/log" &
pid=$!
wait_for test -e "$trace.1"
wait_for has_lines "$trace" 3
kill -TERM "$pid"
wait "$pid" || true
pid=
grep -q "the trace an earlier run left in $trace is now $trace.1" "$tmp/log" || fail "no word of the earlier trace"
[ "$(lines "$trace.1")" -eq "$earlier" ] || fail "$trace.1 is not the earlier trace"
"$bin" replay "$trace" -c "$tmp/conf" > /dev/null || fail "the restarted daemon's trace does not replay"
# its start on both clocks, to the millisecond, so that replay --learned
# places what was learnt on the samples exactly (before 0.4.8: to the second)
head -1 "$trace" | grep -qE '"started":"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z","started_mono":[0-9.]+' ||
        fail "the header's start is not on both clocks: $(head -1 "$trace")"
mono=$(head -1 "$trace" | sed -n 's/.*"started_mono":\([0-9.]*\).*/\1/p')
first=$(sed -n '2s/.*"t":\([0-9.]*\),.*/\1/p' "$trace")
awk -v m="$mono" -v t="$first" 'BEGIN { exit !(m > 0 && t >= m && t - m < 5) }' ||
        fail "started_mono $mono is not the samples' clock just before the first sample ($first)"
echo "ok: traces never follow a link, one writer each"

# --- 5. the daemon's locks
expect 2 "$tmp/pub is owned by neither root nor this user, or others can write it" \
        env STATE_DIRECTORY=$tmp/lib RUNTIME_DIRECTORY="$tmp/pub" "$bin" --config "$tmp/acting.conf"
rm -rf "$run"
STATE_DIRECTORY=$tmp/lib RUNTIME_DIRECTORY=$run "$bin" --config "$tmp/conf" --dry-run 2> "$tmp/log" &
pid=$!
wait_for test -e "$run/live.json"
[ "$(stat -c %a "$run/live.lock")" = 600 ] || fail "live.lock has mode $(stat -c %a "$run/live.lock")"
kill -TERM "$pid"
wait "$pid" || fail "the daemon exited $?"
pid=
holder=
if [ ${#as_other[@]} -gt 0 ]; then
        # what a local user did: hold live.lock so no daemon publishes
        "${as_other[@]}" flock -n "$run/live.lock" sleep 30 2> /dev/null &
        holder=$!
fi
STATE_DIRECTORY=$tmp/lib RUNTIME_DIRECTORY=$run "$bin" --config "$tmp/conf" --dry-run 2> "$tmp/log" &
pid=$!
wait_for test -e "$run/live.json"
STATE_DIRECTORY=$tmp/lib RUNTIME_DIRECTORY=$run "${as_other[@]}" "$bin" status --json > "$tmp/out" || fail "status as another user"
grep -q '"state": "running"' "$tmp/out" || fail "status as another user: $(grep '"detail"' "$tmp/out")"
kill -KILL "$pid"
wait "$pid" 2> /dev/null || true
pid=
if [ -n "$holder" ]; then kill "$holder" 2> /dev/null || true; wait "$holder" 2> /dev/null || true; fi
STATE_DIRECTORY=$tmp/lib RUNTIME_DIRECTORY=$run "${as_other[@]}" "$bin" status --json > "$tmp/out" || fail "status as another user"
grep -q '"state": "not-running"' "$tmp/out" && grep -q 'has exited without removing it' "$tmp/out" ||
        fail "status after SIGKILL: $(grep '"detail"' "$tmp/out")"
echo "PASS${as_other[*]:+ (the other user: nobody)}"
