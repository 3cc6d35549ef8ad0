#!/bin/bash
# record and replay from the command line, without root: broken traces are
# refused with FILE:LINE and exit 1; record writes complete, replayable
# traces, stops on --duration and SIGINT, and fails clearly when it cannot
# write; the daemon records in --dry-run; replay's CSV has its columns.
set -euo pipefail
bin=$1 src=$2
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d)
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; notify_stop; rm -rf "$tmp"; }
trap cleanup EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
notify_listen "$tmp"
# trace_samples FILE [N]: FILE holds N complete sample lines at least.
trace_samples() { logged "$1" '^{"type":"sample",.*}$' "${2:-1}"; }
# stop PID: SIGTERM, wait; the exit status in $status.
stop() { kill -TERM "$1"; status=0; wait "$1" || status=$?; pid=; }
conf=$src/conf/memoptimizer.conf

# --- broken traces: FILE:LINE: what is wrong, exit 1 --------------------
expect_refused() {      # fixture, line, message
        local f=$src/tests/traces/broken/$1 status=0
        "$bin" replay "$f" -c "$conf" > "$tmp/out" 2> "$tmp/err" || status=$?
        [ "$status" -eq 1 ] || bad "$1: exit status $status, not 1"
        grep -qF "memoptimizer replay: $f:$2: $3" "$tmp/err" ||
                bad "$1: expected '$f:$2: $3', got: $(cat "$tmp/err")"
}
expect_refused truncated.jsonl 3 "the last line is cut short"
expect_refused out-of-order.jsonl 3 "sample time 9157.587969 is not after the previous sample's 9157.788039"
expect_refused wrong-version.jsonl 1 "trace format version 2; this memoptimizer reads version 1"
expect_refused malformed.jsonl 3 "incomplete JSON object"
expect_refused bad-value.jsonl 3 '"nr_free[3] of zone DMA32" is out of range'
expect_refused orphan-decision.jsonl 2 "a decision that does not follow a sample"
expect_refused not-a-trace.jsonl 1 "invalid JSON"
expect_refused empty.jsonl 1 "empty: not a memoptimizer trace"
status=0; "$bin" replay "$tmp/none.jsonl" 2> "$tmp/err" || status=$?
[ "$status" -eq 1 ] && grep -q "none.jsonl: No such file" "$tmp/err" || bad "missing trace: $status $(cat "$tmp/err")"
head -1 "$src/tests/traces/broken/wrong-version.jsonl" | sed 's/"version":2/"version":1/' > "$tmp/header-only.jsonl"
status=0; "$bin" replay "$tmp/header-only.jsonl" -c "$conf" 2> "$tmp/err" || status=$?
[ "$status" -eq 1 ] && grep -q "header-only.jsonl: no samples in the trace" "$tmp/err" || bad "header only: $status $(cat "$tmp/err")"
status=0; "$bin" replay 2> /dev/null || status=$?
[ "$status" -eq 1 ] || bad "replay without a trace exits $status"

# --- record: --duration, complete lines, replayable ---------------------
"$bin" record -o "$tmp/d.jsonl" --interval 100ms --duration 1s 2> "$tmp/err" || bad "record --duration failed: $(cat "$tmp/err")"
n=$(grep -c '"type":"sample"' "$tmp/d.jsonl" || true)
[ "$n" -ge 9 ] && [ "$n" -le 11 ] || bad "record --interval 100ms --duration 1s wrote $n samples"
head -1 "$tmp/d.jsonl" | grep -q '"type":"header","format":"memoptimizer-trace","version":1' || bad "no header line"
"$bin" replay "$tmp/d.jsonl" -c "$conf" > "$tmp/out" || bad "replay of a fresh trace failed"
grep -q "^summary: $n samples" "$tmp/out" || bad "replay summary: $(cat "$tmp/out")"

# without root: as nobody when we are root
if [ "$(id -u)" -eq 0 ] && command -v setpriv > /dev/null; then
        mkdir "$tmp/user" && chmod 777 "$tmp/user" && chmod 755 "$tmp"
        setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --bounding-set=-all \
                "$bin" record -o "$tmp/user/t.jsonl" --interval 100ms --duration 500ms 2> "$tmp/err" &&
                "$bin" replay "$tmp/user/t.jsonl" -c "$conf" > /dev/null || bad "record as nobody: $(cat "$tmp/err")"
fi

# another process's change in the trace is adopted, as the daemon would
awk 'NR > 6 { sub(/"wsf":10,/, "\"wsf\":50,") } { print }' "$tmp/d.jsonl" > "$tmp/foreign.jsonl"
"$bin" replay "$tmp/foreign.jsonl" -c "$conf" > "$tmp/out" || bad "replay of a foreign change failed"
grep -q "set to 50 by another process (recorded)" "$tmp/out" &&
        grep -q "adopt vm.watermark_scale_factor 10 -> 50: another process set it" "$tmp/out" &&
        grep -q "1 adoptions of another process's value" "$tmp/out" || bad "foreign change: $(cat "$tmp/out")"

# SIGINT or SIGTERM: exit 0, the last line complete. record takes the stop
# signals before it opens its output: a sample written means they are its.
for sig in INT TERM; do
        rm -f "$tmp/i.jsonl"    # record never overwrites a file
        "$bin" record -o "$tmp/i.jsonl" --interval 100ms 2> /dev/null & pid=$!
        wait_for --pid "$pid" 20 "a sample in the trace" trace_samples "$tmp/i.jsonl" 2 || bad "record did not start"
        kill -"$sig" "$pid"; status=0; wait "$pid" || status=$?; pid=
        [ "$status" -eq 0 ] || bad "record exits $status on SIG$sig"
        [ "$(tail -c 1 "$tmp/i.jsonl" | od -An -c | tr -d ' ')" = '\n' ] || bad "last line after SIG$sig is not complete"
        "$bin" replay "$tmp/i.jsonl" -c "$conf" > /dev/null || bad "the trace stopped by SIG$sig does not replay"
done

# stdout by default; unwritable output: a message and exit 1
"$bin" record --duration 200ms > "$tmp/stdout" 2> /dev/null && head -1 "$tmp/stdout" | grep -q '"type":"header"' || bad "record to stdout"
status=0; "$bin" record -o "$tmp/no/such/dir" 2> "$tmp/err" || status=$?
[ "$status" -eq 1 ] && grep -q "cannot write $tmp/no/such/dir: No such file or directory" "$tmp/err" ||
        bad "unwritable -o: exit $status, $(cat "$tmp/err")"
if [ -w /dev/full ]; then
        status=0; "$bin" record --duration 1s > /dev/full 2> "$tmp/err" || status=$?
        [ "$status" -ne 0 ] && grep -q "No space left on device" "$tmp/err" || bad "/dev/full: exit $status"
fi
for arg in "--interval 5" "--duration 0s" "--bogus"; do
        status=0; "$bin" record $arg 2> /dev/null || status=$?
        [ "$status" -eq 1 ] || bad "record $arg exits $status"
done

# --- the daemon records in --dry-run ------------------------------------
printf 'interval = 100ms\nwindow = 3\n' > "$tmp/conf"
STATE_DIRECTORY=$tmp/lib RUNTIME_DIRECTORY=$tmp/run "$bin" --config "$tmp/conf" --dry-run --record "$tmp/daemon.jsonl" 2> "$tmp/log" & pid=$!
wait_ready "$pid" && wait_for --pid "$pid" 20 "5 samples in the daemon's trace" trace_samples "$tmp/daemon.jsonl" 5 ||
        bad "daemon with --record: $(cat "$tmp/log")"
stop "$pid"
[ "$status" -eq 0 ] || bad "daemon with --record exits $status"
grep -q '"source":"daemon"' "$tmp/daemon.jsonl" || bad "daemon trace header"
"$bin" replay "$tmp/daemon.jsonl" -c "$tmp/conf" > "$tmp/out" || bad "daemon trace does not replay"
grep -q "recorded decisions: " "$tmp/out" || bad "no comparison with the recorded decisions"
# record = FILE, and a reload that names another file switches to it
printf 'interval = 100ms\nwindow = 3\nrecord = %s\n' "$tmp/a.jsonl" > "$tmp/rconf"
STATE_DIRECTORY=$tmp/lib RUNTIME_DIRECTORY=$tmp/run "$bin" --config "$tmp/rconf" --dry-run 2> "$tmp/log" & pid=$!
wait_ready "$pid" && wait_for --pid "$pid" 20 "a sample in a.jsonl" trace_samples "$tmp/a.jsonl" || bad "record = FILE: $(cat "$tmp/log")"
printf 'interval = 100ms\nwindow = 3\nrecord = %s\n' "$tmp/b.jsonl" > "$tmp/rconf"
kill -HUP "$pid"
wait_ready "$pid" 2 && wait_for --pid "$pid" 20 "a sample in b.jsonl" trace_samples "$tmp/b.jsonl" || bad "reload to b.jsonl: $(cat "$tmp/log")"
stop "$pid"
[ "$status" -eq 0 ] || bad "daemon with record = FILE exits $status"
for f in a b; do
        "$bin" replay "$tmp/$f.jsonl" -c "$tmp/conf" > /dev/null 2>&1 || bad "record = FILE: $f.jsonl does not replay"
done
grep -q "recording a trace to $tmp/b.jsonl" "$tmp/log" || bad "reload did not switch the trace: $(cat "$tmp/log")"
# record_max_size: the daemon rotates FILE to FILE.1 and says so; a reload
# that changes the interval rotates too; every file replays
printf 'interval = 100ms\nwindow = 3\nrecord = %s\nrecord_max_size = 64K\n' "$tmp/r.jsonl" > "$tmp/rconf"
STATE_DIRECTORY=$tmp/lib RUNTIME_DIRECTORY=$tmp/run "$bin" --config "$tmp/rconf" --dry-run 2> "$tmp/log" & pid=$!
wait_for --pid "$pid" 30 "a size rotation" logged "$tmp/log" "reached record_max_size" || true
grep -q "trace $tmp/r.jsonl reached record_max_size; the part before is in $tmp/r.jsonl.1" "$tmp/log" ||
        bad "no size rotation within 30 s: $(cat "$tmp/log")"
"$bin" replay "$tmp/r.jsonl.1" -c "$tmp/conf" > /dev/null 2>&1 || bad "rotated trace does not replay"
printf 'interval = 200ms\nwindow = 3\nrecord = %s\nrecord_max_size = 64K\n' "$tmp/r.jsonl" > "$tmp/rconf"
kill -HUP "$pid"
wait_ready "$pid" 2 && wait_for --pid "$pid" 20 "a sample in the restarted r.jsonl" trace_samples "$tmp/r.jsonl" ||
        bad "reload with a new interval: $(cat "$tmp/log")"
stop "$pid"
[ "$status" -eq 0 ] || bad "daemon with record_max_size exits $status"
grep -q "trace $tmp/r.jsonl restarted: the interval changed" "$tmp/log" || bad "no rotation on a new interval: $(cat "$tmp/log")"
head -1 "$tmp/r.jsonl" | grep -q '"interval":0\.20*[,}]' || bad "new header: $(head -1 "$tmp/r.jsonl")"
head -1 "$tmp/r.jsonl.1" | grep -q '"interval":0\.10*[,}]' || bad "old header: $(head -1 "$tmp/r.jsonl.1")"
for f in r.jsonl r.jsonl.1; do
        "$bin" replay "$tmp/$f" -c "$tmp/conf" > /dev/null 2>&1 || bad "$f does not replay"
done
printf 'record = relative.jsonl\n' > "$tmp/rel"
status=0; "$bin" --check-config -c "$tmp/rel" 2> "$tmp/err" || status=$?
[ "$status" -eq 1 ] && grep -q "$tmp/rel:1: invalid value 'relative.jsonl' for record" "$tmp/err" ||
        bad "relative record path: $status $(cat "$tmp/err")"
status=0; STATE_DIRECTORY=$tmp/lib RUNTIME_DIRECTORY=$tmp/run "$bin" --dry-run --record "$tmp/no/dir/t" 2> "$tmp/err" || status=$?
[ "$status" -eq 2 ] && grep -q "record: cannot write $tmp/no/dir/t" "$tmp/err" || bad "daemon, unwritable record: $status"
# a trace that cannot grow (RLIMIT_FSIZE 0: EFBIG, SIGXFSZ ignored); the
# log goes through a pipe, which the limit does not cover
(ulimit -f 0; STATE_DIRECTORY=$tmp/lib RUNTIME_DIRECTORY=$tmp/run exec "$bin" --dry-run --record "$tmp/big.jsonl") 2>&1 > /dev/null |
        cat > "$tmp/err" && status=0 || status=${PIPESTATUS[0]}
[ "$status" -eq 2 ] && grep -q "cannot write $tmp/big.jsonl: File too large" "$tmp/err" ||
        bad "daemon, record past the file size limit: $status $(cat "$tmp/err")"

# --- CSV: a header and one row per sample, the report on stderr ----------
"$bin" replay "$tmp/d.jsonl" -c "$conf" --csv > "$tmp/csv" 2> "$tmp/report"
head -1 "$tmp/csv" | grep -qx 't,wsf,wsf_recorded,decision,compactions,free_pages,low_pages,secs_to_low,allocstall,compact_stall' ||
        bad "CSV header: $(head -1 "$tmp/csv")"
[ "$(($(wc -l < "$tmp/csv") - 1))" -eq "$n" ] || bad "CSV rows: $(wc -l < "$tmp/csv") for $n samples"
awk -F, 'NR > 1 && NF != 10 { exit 1 }' "$tmp/csv" || bad "CSV rows without 10 columns"
grep -q '^summary:' "$tmp/report" || bad "with --csv the report is not on stderr"
# the same trace through standard input
"$bin" replay - -c "$conf" < "$tmp/d.jsonl" | grep -q "^summary: $n samples" || bad "replay from stdin"

# --- --learned: a warm daemon's start, with the daemon's checks and aging --
# tests/fixtures/state-mixed-thp learnt 600 for class 7, the class of
# mixed-thp's first episode's peak, 8 minutes before the trace began: the
# replay raises to it at onset (143 MB/s of huge pages, THP class 5, not
# seen: the log names THP class 7, as the file is of version 1, whose
# classes stand for both kinds). The same file a week older, or of a machine of another size,
# is forgotten as the daemon forgets it: the cold raise (sized by the
# burst's huge pages at onset, far below the learnt 600) instead.
trace=$src/tests/traces/mixed-thp.jsonl.gz learned=$src/tests/fixtures/state-mixed-thp
first_raise() { grep -m1 'would raise' "$1" | sed 's/^ *//'; }
"$bin" replay "$trace" -c "$conf" --learned "$learned" > "$tmp/warm.txt"
grep -q "^learned state: $learned/learned: 2 classes, 0 episodes" "$tmp/warm.txt" || bad "--learned: no line saying what was read"
grep -q "^the trace gives its start to the second only (made before 0.4.8)" "$tmp/warm.txt" ||
        bad "--learned: no word that a trace before 0.4.8 places what was learnt only to the second"
# a header since 0.4.8 places it exactly, and says nothing of it
t1=$(gzip -dc "$trace" | sed -n '2s/.*"t":\([0-9.]*\),.*/\1/p')
gzip -dc "$trace" | sed "1s/\"started\":\"2026-11-24T17:38:01Z\"/\"started\":\"2026-11-24T17:38:01.250Z\",\"started_mono\":$t1/" \
        > "$tmp/mono.jsonl"
"$bin" replay "$tmp/mono.jsonl" -c "$conf" --learned "$learned" > "$tmp/warm-mono.txt"
! grep -q "start to the second only" "$tmp/warm-mono.txt" || bad "--learned: a header with started_mono called inexact"
[ "$(first_raise "$tmp/warm-mono.txt")" = "$(first_raise "$tmp/warm.txt")" ] ||
        bad "--learned with started_mono: first raise '$(first_raise "$tmp/warm-mono.txt")'"
line=$(first_raise "$tmp/warm.txt")
[[ $line == "+9.3 s  would raise vm.watermark_scale_factor 10 -> 600 at onset: a pressure episode of a kind not seen (demand 143 MB/s, THP class 5), slower than earlier ones (THP class 7): what they needed, 600" ]] ||
        bad "--learned: first raise '$line', not the learnt 600 at onset"
"$bin" replay "$trace" -c "$conf" > "$tmp/cold.txt"
cold=$(first_raise "$tmp/cold.txt")
[[ $cold == "+9.3 s  would raise vm.watermark_scale_factor 10 -> "*" at onset: a pressure episode the value in force does not cover: "*"of it huge pages"* &&
        $cold != *" -> 600 "* ]] || bad "without --learned: first raise '$cold'"
mkdir -m 755 "$tmp/old" "$tmp/other"
sed 's/2026-11-24T17:30/2026-11-17T17:30/' "$learned/learned" > "$tmp/old/learned"
sed 's/managed_pages 6171021/managed_pages 3000000/' "$learned/learned" > "$tmp/other/learned"
chmod 644 "$tmp/old/learned" "$tmp/other/learned"
for d in old other; do
        "$bin" replay "$trace" -c "$conf" --learned "$tmp/$d" > "$tmp/$d.txt"
        [ "$(first_raise "$tmp/$d.txt")" = "$cold" ] || bad "--learned $d: '$(first_raise "$tmp/$d.txt")', not the cold '$cold'"
done
grep -q "the learned state is of a machine with 3000000 managed pages, this one has [0-9]*: forgotten" "$tmp/other.txt" ||
        bad "--learned other: no line saying it was forgotten"
# placed to the millisecond: a warm bench run whose learnt recurrence is
# given back a sample late when the header's start, to the second, is taken
# for the first sample's (tests/fixtures/README.md, warm-recurrence); placed
# half a second later on the samples' clock, as a header since 0.4.8 does,
# every sample is decided as the daemon decided it
wtrace=$src/tests/fixtures/warm-recurrence/trace.jsonl.gz wstate=$src/tests/fixtures/warm-recurrence/state
"$bin" replay "$wtrace" -c "$conf" --learned "$wstate" > "$tmp/w-second.txt"
grep -q "replayed scale factor differs from the recorded daemon's on 1 of 31 samples" "$tmp/w-second.txt" ||
        bad "warm-recurrence, placed to the second: $(grep 'replayed scale factor' "$tmp/w-second.txt")"
wt1=$(gzip -dc "$wtrace" | sed -n '2s/.*"t":\([0-9.]*\),.*/\1/p')
gzip -dc "$wtrace" | sed "1s/\"started\":\"2026-11-30T01:14:11Z\"/\"started\":\"2026-11-30T01:14:11.500Z\",\"started_mono\":$wt1/" \
        > "$tmp/w-exact.jsonl"
"$bin" replay "$tmp/w-exact.jsonl" -c "$conf" --learned "$wstate" > "$tmp/w-exact.txt"
grep -q "replayed scale factor equals the recorded daemon's on every sample" "$tmp/w-exact.txt" ||
        bad "warm-recurrence, placed exactly: $(grep 'replayed scale factor' "$tmp/w-exact.txt")"
# refused, exit 1, naming the file: missing, a symbolic link, not the format
expect_learned_refused() {      # dir, message
        local status=0
        "$bin" replay "$trace" -c "$conf" --learned "$1" > /dev/null 2> "$tmp/err" || status=$?
        [ "$status" -eq 1 ] && grep -qF "memoptimizer replay: $1/learned$2" "$tmp/err" ||
                bad "--learned $1: exit $status, $(cat "$tmp/err")"
}
mkdir -m 755 "$tmp/none" "$tmp/link" "$tmp/bad"
expect_learned_refused "$tmp/none" ": No such file or directory"
ln -s "$learned/learned" "$tmp/link/learned"
expect_learned_refused "$tmp/link" ": is a symbolic link, which is not followed"
sed 's/^class 7 wsf 600.000/class 7 wsf six/' "$learned/learned" > "$tmp/bad/learned"
chmod 644 "$tmp/bad/learned"
expect_learned_refused "$tmp/bad" ":8: "
# the trace's start must be as the daemon writes it, or its times cannot be placed
gzip -dc "$trace" | sed '1s/"started":"2026-11-24T17:38:01Z"/"started":"2026-11-24 17:38:01"/' > "$tmp/started.jsonl"
status=0; "$bin" replay "$tmp/started.jsonl" -c "$conf" --learned "$learned" > /dev/null 2> "$tmp/err" || status=$?
[ "$status" -eq 1 ] && grep -qF "$tmp/started.jsonl: the header's start time \"2026-11-24 17:38:01\" is not UTC" "$tmp/err" ||
        bad "--learned with an unreadable start time: exit $status, $(cat "$tmp/err")"

# --- recorded decisions: what sized a raise ("why", since 0.2) -----------
# mixed-thp's first recorded decision (0.2 before "why"): printed by its
# reason only, never with figures the trace does not hold ("class 0: they
# needed 0"). The same decision with a "why" added: printed as the daemon
# logged it; a "why" without thp_cover (before 0.3) covered the huge pages
# as long as the rest. (A recorded decision is printed where the replay's
# differs: here it is held to 150.)
printf 'max_wsf = 150\n' > "$tmp/max150.conf"
"$bin" replay "$trace" -c "$tmp/max150.conf" > "$tmp/rec.txt"
grep -q "(recorded: raise vm.watermark_scale_factor 10 -> 222: raise; why is not in the trace)" "$tmp/rec.txt" ||
        bad "a recorded raise without why: $(grep -m1 'recorded:' "$tmp/rec.txt")"
grep -q "they needed 0)\|grows by 0 s" "$tmp/rec.txt" && bad "a recorded raise printed with figures not in the trace"
gzip -dc "$trace" | sed '13s/,"stalls":0,"compact"/,"stalls":0,"why":{"onset":true,"wake_capped":false,"demand_class":7,"learned_wsf":-1,"recur_episodes":0,"thp":137000.000,"cover":1.000,"recur_due_in":0.000,"recur_period":0.000},"compact"/' > "$tmp/why.jsonl"
"$bin" replay "$tmp/why.jsonl" -c "$tmp/max150.conf" > "$tmp/why.txt"
grep -q "(recorded: raise vm.watermark_scale_factor 10 -> 222 at onset: a pressure episode the value in force does not cover: demand 569 MB/s, 561 MB/s of it huge pages, which kswapd's reclaim (1.3 GB/s) does not make; the gap covers 1 s of them, and 1 s of the rest of the shortfall)" "$tmp/why.txt" ||
        bad "a recorded raise with why: $(grep -m1 'recorded:' "$tmp/why.txt")"

# Pulses that wake kswapd are replayed from the samples: 0.3.10's outside
# run of the 1277 stalls (bench/results/steps/kswapd-kick-b) sat with
# Normal at its raised low while DMA32 drained and kswapd slept; with
# wake_kswapd (the default) the replay says where a pulse would start,
# and counts them; with wake_kswapd = no it says nothing of them.
trace=$src/bench/results/steps/kswapd-kick-b/traces/outside-memoptimizer-other-3.jsonl.gz
"$bin" replay "$trace" -c "$conf" > "$tmp/wake.txt"
grep -q "+18.7 s  would wake kswapd: DMA32 would be empty in 1.7 s (302 MB fell in 1.00 s, 636 MB free) while node0 Normal sits at its low (282 MB free, low 281 MB)" "$tmp/wake.txt" ||
        bad "no pulse replayed where DMA32 drained with kswapd asleep: $(grep -m1 'wake kswapd' "$tmp/wake.txt")"
grep -q "pulses to wake kswapd before DMA32 runs out: [1-9][0-9]* (their starts only" "$tmp/wake.txt" ||
        bad "the summary does not count the pulses: $(grep -m1 'pulses to wake' "$tmp/wake.txt")"
printf 'wake_kswapd = no\n' > "$tmp/nowake.conf"
"$bin" replay "$trace" -c "$tmp/nowake.conf" > "$tmp/nowake.txt"
grep -q "wake kswapd" "$tmp/nowake.txt" && bad "pulses replayed with wake_kswapd = no"

# Where the page cache holds Normal at the baseline's low, 16-20 MB above
# its min, as at most of mixed's episode starts, a pulse starts with that
# scant room (WAKE_SCANT_ROOM) -- unless huge pages are faulted in and
# Normal's huge blocks are already at the pulse's floor: it would end at
# its first poll, having sent them to compact (0.4.16 made one in mixed
# --full, 0.4.15, run 3, at 21.3 s, the irregular burst; and in a train
# burst that stalled 289 times). 0.4.16's streaming episode (no huge
# pages, +100.4 s) keeps its pulse; its train's later bursts, with Normal
# at the raised low, are watched for their huge blocks.
trace=$src/bench/results/steps/train-full/traces/mixed-memoptimizer-3.jsonl.gz
"$bin" replay "$trace" -c "$conf" > "$tmp/scant.txt"
grep -q "+21.3 s  would wake kswapd" "$tmp/scant.txt" &&
        bad "a pulse replayed that would end at its first poll: $(grep -m1 '+21.3 s  would wake' "$tmp/scant.txt")"
trace=$src/bench/results/steps/scant-room/traces/s1-mixed-memoptimizer-2.jsonl.gz
"$bin" replay "$trace" -c "$conf" > "$tmp/scant.txt"
grep -q "+100.4 s  would wake kswapd: DMA32 would be empty in 1.5 s (439 MB fell in 1.00 s, 791 MB free) while node0 Normal sits at its low (81 MB free, low 281 MB) and kswapd sleeps; the zones below Normal would be closed to it until Normal is at its high (502 MB)$" "$tmp/scant.txt" ||
        bad "no pulse replayed with Normal at the baseline's low: $(grep -m1 '+100.4 s' "$tmp/scant.txt")"
grep -q "+42.7 s  would wake kswapd: .* or, as huge pages are faulted in, until its huge blocks (279 MB) are spent$" "$tmp/scant.txt" ||
        bad "a train burst's pulse not watched for its huge blocks: $(grep -m1 '+42.7 s' "$tmp/scant.txt")"

# bench/replay-diff tells where two builds part: in the scale factor and in
# the compactions. Two "builds" here: the same binary with compaction on
# and off, on the fragmented trace (its fill's release compacts).
printf '\n' > "$tmp/empty.conf"
printf 'compaction = no\n' > "$tmp/nocompact.conf"
for c in empty nocompact; do
        printf '#!/bin/sh\nexec "%s" "$@" -c "%s"\n' "$bin" "$tmp/$c.conf" > "$tmp/$c.sh"
        chmod +x "$tmp/$c.sh"
done
trace=$src/bench/results/steps/frag-window/traces/fragmented-memoptimizer-1.jsonl.gz
"$src/bench/replay-diff" "$tmp/empty.sh" "$tmp/empty.sh" "$trace" > "$tmp/same.txt" ||
        bad "replay-diff of one build against itself failed: $(cat "$tmp/same.txt")"
grep -q "^$trace: the same at all [0-9]* samples$" "$tmp/same.txt" ||
        bad "replay-diff: a build differs from itself: $(head -1 "$tmp/same.txt")"
"$src/bench/replay-diff" "$tmp/empty.sh" "$tmp/nocompact.sh" "$trace" > "$tmp/differ.txt" ||
        bad "replay-diff failed: $(cat "$tmp/differ.txt")"
grep -q "^$trace: compactions differ: A at +[0-9.]* s; B at none$" "$tmp/differ.txt" ||
        bad "replay-diff: compactions switched off not told apart: $(head -1 "$tmp/differ.txt")"
grep -q "^fragmented cold: 1, 0; 0, -; 1, [1-9][0-9]* / 0$" "$tmp/differ.txt" ||
        bad "replay-diff: the summary does not count the compactions: $(tail -1 "$tmp/differ.txt")"

[ "$fail" -eq 0 ] && echo "PASS"
exit "$fail"
