#!/bin/bash
# What the daemon learnt, in the state directory ($STATE_DIRECTORY, a
# temporary folder here), under the real daemon. It runs monitor-only (the
# shim tests/fault-inject.c refuses the sysctl with EROFS, the container
# case): it writes nothing to the kernel but holds the instance lock, so it
# owns the state directory. It reads a copy of /proc's files taken at the
# start (the shim again), so that nothing another process does on this
# shared machine makes it learn an episode meanwhile. Any user can run this.
#  1. a corrupt file: one warning naming the file, the line and why; set
#     aside as learned.bad; replaced by a good file; not said again;
#  2. a symbolic link, a file others can write: the same, the link's target
#     untouched;
#  3. learnt on a machine of another size: forgotten, said once, the file
#     rewritten empty;
#  4. a good file, of version 1 as 0.4.12 wrote it: read at start (its class
#     for both kinds), its week-old episode aged out and saved as version 3,
#     kept through SIGHUP and a restart, shown by status;
#  5. `memoptimizer forget` while it runs: the file goes and the daemon
#     forgets too (it does not write it back at exit);
#  6. dry-run reads but never writes the state directory; replay never
#     touches it.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bin=$(realpath "$1") shim=$(realpath "$2") src=$(realpath "$3")
wsf=/proc/sys/vm/watermark_scale_factor
tmp=$(mktemp -d)
lib=$tmp/lib file=$tmp/lib/learned
pid=
cleanup() { [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; [ -f "$tmp/log" ] && cat "$tmp/log"; [ -f "$file" ] && cat "$file"; exit 1; }
count() { grep -c -- "$1" "$tmp/log" || true; }
until_true() {  # until_true WHAT COMMAND...: wait up to 10 s for COMMAND, while the daemon lives
        local what=$1
        shift
        wait_for --pid "$pid" 10 "$what" "$@" || fail "$what"
}
mkdir "$tmp/proc"
redirect=
for f in buddyinfo zoneinfo vmstat meminfo; do
        cp "/proc/$f" "$tmp/proc/$f"
        redirect="$redirect${redirect:+;}/proc/$f=$tmp/proc/$f"
done
start() {       # start [OPTION...]: monitor-only, owning $lib
        : > "$tmp/log"
        STATE_DIRECTORY=$lib RUNTIME_DIRECTORY=$tmp/run MEMOPTIMIZER_FAULT_WRITE=$wsf:30 \
                MEMOPTIMIZER_FAULT_REDIRECT=$redirect LD_PRELOAD=$shim \
                "$bin" --config "$tmp/conf" "$@" 2>> "$tmp/log" &
        pid=$!
        until_true "the first samples" logged "$tmp/log" 'debug: sample ' 3
}
stop() {
        kill -TERM "$pid"
        local status=0
        wait "$pid" || status=$?
        pid=
        [ "$status" -eq 0 ] || fail "exit status $status after SIGTERM"
}
# status into a file first: grep -q would end the pipe early (SIGPIPE, and pipefail)
status_to() {   # status_to FILE [--json]
        local out=$1
        shift
        STATE_DIRECTORY=$lib RUNTIME_DIRECTORY=$tmp/run "$bin" status "$@" > "$out" || fail "status exit status $?"
}
good_file() {   # the daemon's own format: version 3 and a kswapd line
        head -n 8 "$file" 2>/dev/null | grep -q '^version 3$' && grep -q '^kswapd ' "$file"
}
now=$(date -u +%Y-%m-%dT%H:%M:%S.000Z)
old=$(date -u -d '8 days ago' +%Y-%m-%dT%H:%M:%S.000Z)
learnt() {      # learnt MANAGED: a file with a class, kswapd's rate and two episodes, one of them old,
                # as 0.4.12 wrote it (version 1: its class stands for both kinds)
        mkdir -p "$lib"
        cat > "$file" <<EOF
version 1
machine managed_pages $1
kswapd capacity_pages_per_sec 150000.000 at $now
class 8 wsf 120.000 episodes 2 stalled 1 updated $now
episode start $old duration 3.000 peak_demand_pages_per_sec 200000.000 demand_pages 600000.000 min_margin_pages 100.000 wsf_max 150 stalls 4
episode start $now duration 12.500 peak_demand_pages_per_sec 262144.000 demand_pages 1048576.000 min_margin_pages 2000.000 wsf_max 200 stalls 0
EOF
}
printf 'interval = 100ms\nwindow = 3\ncompaction = no\nlog_level = debug\n' > "$tmp/conf"

# --- 1. corrupt
mkdir -p "$lib"
printf 'version 1\nmachine managed_pages banana\n' > "$file"
start
until_true "a good file in place of the corrupt one" good_file
want="warning: ignoring the learnt state, starting from nothing: $file:2: managed_pages: 'banana' is not a number written as a whole number (kept as learned.bad)"
grep -qF -- "$want" "$tmp/log" || fail "no clear line for a corrupt file; want: $want"
[ "$(printf 'version 1\nmachine managed_pages banana\n')" = "$(cat "$file.bad")" ] || fail "learned.bad is not the corrupt file"
[ "$(stat -c %a "$file")" = 644 ] || fail "the new file has mode $(stat -c %a "$file")"
status_to "$tmp/status.json" --json
grep -q '"state": "learned"' "$tmp/status.json" || fail "status does not read the replacement"
stop
[ "$(count 'ignoring the learnt state')" -eq 1 ] || fail "said $(count 'ignoring the learnt state') times"
start
stop
[ "$(count 'ignoring the learnt state')" -eq 0 ] || fail "the replacement was refused at the next start"
echo "ok: a corrupt file: one line with the file, the line and why; kept as learned.bad; replaced"

# --- 2. a symbolic link, a file others can write
learnt 0
mv "$file" "$tmp/elsewhere"
ln -s "$tmp/elsewhere" "$file"
cp "$tmp/elsewhere" "$tmp/elsewhere.orig"
start
until_true "a good file in place of the link" good_file
[ ! -L "$file" ] || fail "the link is still there"
[ -L "$file.bad" ] || fail "the link was not set aside"
cmp -s "$tmp/elsewhere" "$tmp/elsewhere.orig" || fail "the link's target was changed"
grep -qF "ignoring the learnt state, starting from nothing: $file: is a symbolic link, which is not followed (kept as learned.bad)" "$tmp/log" ||
        fail "no clear line for a symbolic link"
stop
learnt 0
chmod 666 "$file"
start
until_true "a good file in place of the one others could write" good_file
grep -qF "ignoring the learnt state, starting from nothing: $file: writable by everyone (mode 0666); refusing what others can change (chmod go-w $file) (kept as learned.bad)" "$tmp/log" ||
        fail "no clear line for a file others can write"
[ "$(stat -c %a "$file")" = 644 ] || fail "the new file has mode $(stat -c %a "$file")"
stop
echo "ok: a symbolic link and a file others can write: refused, said why, replaced"

# --- 3. another machine's
learnt 1000
start
until_true "the foreign state forgotten and saved" grep -q '^machine managed_pages 0$' "$file"
grep -q "notice: the learnt state in $file is of a machine with 1000 managed pages, this one has [0-9]*: forgotten, learning afresh" "$tmp/log" ||
        fail "no clear line for another machine's state"
! grep -q '^class\|^episode' "$file" || fail "another machine's classes or episodes were kept"
stop
[ "$(count 'is of a machine with')" -eq 1 ] || fail "said $(count 'is of a machine with') times"
echo "ok: another machine's state: forgotten, one line, saved empty"

# --- 4. a good file: read, aged, kept through a reload and a restart
learnt 0
start
grep -q "info: learnt state read from $file: 2 classes, 2 episodes, kswapd [0-9.]* [MG]B/s" "$tmp/log" || fail "the good file was not read"
until_true "the old episode aged out and saved" sh -c "! grep -q 'episode start $old' '$file'"
grep -q '^version 3$' "$file" || fail "not saved as version 3"
grep -q "^episode start $now duration 12.500 peak_demand_pages_per_sec 262144.000 peak_thp_pages_per_sec 0.000 " "$file" ||
        fail "the recent episode was not kept"
grep -q "^class 8 wsf 120.000 episodes 2 stalled 1 updated $now$" "$file" &&
        grep -q "^thp_class 8 wsf 120.000 episodes 2 stalled 1 updated $now$" "$file" || fail "the class was not kept for both kinds"
grep -q "^kswapd capacity_pages_per_sec 150000.000 at $now$" "$file" || fail "kswapd's rate was not kept"
cp "$file" "$tmp/saved"
kill -HUP "$pid"
until_true "the reload" logged "$tmp/log" 'configuration reloaded'
until_true "samples after the reload" logged "$tmp/log" 'debug: sample ' $(($(samples "$tmp/log") + 3))
stop
cmp -s "$file" "$tmp/saved" || fail "the state changed through a reload and a stop with nothing new learnt"
start
grep -q "info: learnt state read from $file: 2 classes, 1 episodes, kswapd " "$tmp/log" || fail "not read back after a restart"
status_to "$tmp/status.json" --json
grep -q '"state": "learned"' "$tmp/status.json" && grep -q '"class": 8' "$tmp/status.json" ||
        fail "status does not show the learnt class"
status_to "$tmp/status.txt"
grep -q "wsf 120, after 2 episodes (1 stalled)" "$tmp/status.txt" || fail "status's text does not show the learnt class"

# --- 5. forget while it runs
out=$(STATE_DIRECTORY=$lib "$bin" forget)
[ "$out" = "removed $file: a running daemon forgets too and learns afresh" ] || fail "forget said: $out"
until_true "the daemon forgetting" logged "$tmp/log" "notice: $file was removed: forgetting what was learnt (2 classes, 1 episodes)"
stop
[ ! -e "$file" ] || fail "the daemon wrote back what it was told to forget"
out=$(STATE_DIRECTORY=$lib "$bin" forget)
[ "$out" = "nothing to forget: no $file" ] || fail "forget with nothing said: $out"
status_to "$tmp/status.txt"
grep -qF "learnt: nothing yet (no $file)" "$tmp/status.txt" || fail "status after forget"
echo "ok: good state read, aged, kept through reload and restart, shown, forgotten on request"

# --- 6. dry-run and replay write nothing there
printf 'garbage\n' > "$file"
rm -f "$file.bad"
start --dry-run
grep -qF "warning: ignoring the learnt state, starting from nothing: $file:1: expected the 'version' line, not 'garbage'" "$tmp/log" ||
        fail "dry-run: no clear line for a corrupt file"
grep -q 'kept as' "$tmp/log" && fail "dry-run set the file aside"
stop
[ "$(cat "$file")" = garbage ] && [ ! -e "$file.bad" ] || fail "dry-run changed the state directory"
STATE_DIRECTORY=$tmp/replay-lib "$bin" replay "$src/tests/traces/bursts.jsonl" > /dev/null
[ ! -e "$tmp/replay-lib" ] || fail "replay touched the state directory"
echo "ok: dry-run reads and says, writes nothing; replay does not touch it"
echo "PASS"
