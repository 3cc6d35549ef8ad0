#!/bin/bash
# Every signal that would end the daemon ends it through its restore, or is
# ignored (src/daemon/loop.h):
#  1. in --dry-run: SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGIO,
#     SIGPWR, SIGXFSZ, SIGPIPE and real-time signals leave it sampling;
#     SIGQUIT and SIGXCPU stop it with exit 0 and the stop line;
#  2. a stderr whose reader went away (logging into a closed pipe) is not
#     fatal: it goes on sampling and exits 0 on SIGTERM;
#  3. SIGTERM while it is still starting (held in its first log line by a
#     full pipe, before the loop exists) waits for the loop: exit 0, not 143;
#  4. `memoptimizer record` shares the loop: it ignores the same signals and
#     stops on SIGHUP with its last line complete;
#  5. as root, after a real raise (a workload allocating 4 GiB, max_wsf 30):
#     the ignored signals leave the value raised, SIGQUIT puts the baseline
#     back. The trap restores the value found whatever happens.
# Usage: integration-signals.sh MEMOPTIMIZER [THP_ALLOC]
set -euo pipefail
bin=$1 hog=${2:-}
. "$(dirname "$0")/lib.sh"
wsf=/proc/sys/vm/watermark_scale_factor
boot=$(cat "$wsf")
tmp=$(mktemp -d)
pid= hogpid= readerpid= wrote_wsf=
cleanup() {
        for p in $hogpid $pid $readerpid; do kill -KILL "$p" 2>/dev/null || true; done
        wait 2>/dev/null || true
        [ -n "$wrote_wsf" ] && echo "$boot" > "$wsf"
        rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
fail() { echo "FAIL: $*"; [ -f "$tmp/log" ] && tr -d '\0' < "$tmp/log"; exit 1; }
lines() { [ -f "$1" ] && wc -l < "$1" || echo 0; }
alive() {       # $pid runs (not gone, not a zombie)
        local st
        st=$(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null | cut -d' ' -f1)
        [ -n "$st" ] && [ "$st" != Z ]
}
wait_lines() {  # FILE N: until FILE has N lines, the process alive (10 s)
        for _ in $(seq 200); do
                [ "$(lines "$1")" -ge "$2" ] && return 0
                alive || fail "process $pid died waiting for $2 lines in $1"
                sleep 0.05
        done
        fail "$1 has $(lines "$1") lines, want $2"
}
ended() {       # EXPECTED-STATUS: until $pid ends (10 s), then its status
        for _ in $(seq 200); do alive || break; sleep 0.05; done
        alive && fail "process $pid did not end"
        local status=0
        wait "$pid" || status=$?
        pid=
        [ "$status" -eq "$1" ] || fail "exit status $status, want $1"
}
ignored=(USR1 USR2 ALRM VTALRM PROF IO PWR XFSZ PIPE RTMIN RTMAX)
send_ignored() {        # TRACE: each ignored signal, then the process still samples
        for sig in "${ignored[@]}"; do
                kill -"$sig" "$pid"
                wait_lines "$1" $(($(lines "$1") + 2))
        done
}
printf 'interval = 100ms\nwindow = 3\n' > "$tmp/conf"
run() {         # TRACE [OPTIONS...]: a dry-run daemon recording to TRACE, stderr to $tmp/log
        local trace=$1
        shift
        STATE_DIRECTORY=$tmp/lib RUNTIME_DIRECTORY=$tmp/run "$bin" --config "$tmp/conf" --dry-run --record "$trace" "$@" 2> "$tmp/log" &
        pid=$!
        wait_lines "$trace" 3
}

# --- 1. ignored signals; SIGQUIT and SIGXCPU stop
for stop in QUIT XCPU; do
        rm -f "$tmp/t.jsonl"
        run "$tmp/t.jsonl"
        send_ignored "$tmp/t.jsonl"
        kill -"$stop" "$pid"
        ended 0
        grep -q 'info: received .*, stopping' "$tmp/log" || fail "no stop line after SIG$stop"
        echo "ok: ${ignored[*]} ignored; SIG$stop stops with exit 0"
done

# --- 2. stderr into a pipe nobody reads any more
mkfifo "$tmp/pipe"
cat "$tmp/pipe" > "$tmp/log" &
readerpid=$!
rm -f "$tmp/t.jsonl"
STATE_DIRECTORY=$tmp/lib RUNTIME_DIRECTORY=$tmp/run "$bin" --config "$tmp/conf" --dry-run --verbose --record "$tmp/t.jsonl" 2> "$tmp/pipe" &
pid=$!
wait_lines "$tmp/t.jsonl" 3
kill "$readerpid"
wait "$readerpid" 2>/dev/null || true
readerpid=
n=$(lines "$tmp/t.jsonl")
wait_lines "$tmp/t.jsonl" $((n + 5))        # each sample logs a debug line into the closed pipe
kill -TERM "$pid"
ended 0
echo "ok: logging into a closed pipe is not fatal"

# --- 3. SIGTERM before the loop exists
rm -f "$tmp/pipe"
mkfifo "$tmp/pipe"
exec 3<> "$tmp/pipe"    # holds the pipe open; nobody reads it yet
exec 4< "$tmp/pipe"     # the reader's end, for later
# Fill it (page by page, then byte by byte), so that the first log line blocks.
dd if=/dev/zero of="$tmp/pipe" bs=4096 count=256 oflag=nonblock status=none 2>/dev/null || true
dd if=/dev/zero of="$tmp/pipe" bs=1 count=8192 oflag=nonblock status=none 2>/dev/null || true
STATE_DIRECTORY=$tmp/lib RUNTIME_DIRECTORY=$tmp/run "$bin" --config "$tmp/conf" --dry-run 2> "$tmp/pipe" &
pid=$!
blocked=
for _ in $(seq 200); do          # until it sits in write(2, ...)
        read -r nr fd _ < "/proc/$pid/syscall" 2>/dev/null || true
        if [ "${nr:-}" = 1 ] && [ "${fd:-}" = 0x2 ]; then blocked=1; break; fi
        sleep 0.05
done
[ -n "$blocked" ] || fail "the daemon never blocked writing its first log line"
kill -TERM "$pid"
cat <&4 3>&- > "$tmp/log" &
readerpid=$!
exec 3>&- 4<&-
ended 0
wait "$readerpid" || true
readerpid=
grep -q 'received Terminated, stopping' "$tmp/log" || fail "SIGTERM during start-up was not taken by the loop"
echo "ok: SIGTERM during start-up: exit 0 through the loop"

# --- 4. record: the same signals ignored; SIGHUP stops it cleanly
rm -f "$tmp/r.jsonl"
"$bin" record -o "$tmp/r.jsonl" --interval 100ms 2> "$tmp/log" &
pid=$!
wait_lines "$tmp/r.jsonl" 3
send_ignored "$tmp/r.jsonl"
kill -HUP "$pid"
ended 0
[ "$(tail -c 1 "$tmp/r.jsonl" | od -An -c | tr -d ' ')" = '\n' ] || fail "record's last line is not complete"
"$bin" replay "$tmp/r.jsonl" -c "$tmp/conf" > /dev/null || fail "record's trace does not replay"
echo "ok: record ignores ${ignored[*]}; SIGHUP stops it with a complete trace"

# --- 5. as root, a real raise, then the signals
if [ "$(id -u)" -ne 0 ] || [ -z "$hog" ]; then echo "PASS (without the root part: needs root and thp-alloc)"; exit 0; fi
cat "$wsf" > "$wsf" 2>/dev/null || { echo "PASS (without the root part: $wsf is not writable)"; exit 0; }
avail_kb=$(awk '/^MemAvailable:/ {print $2}' /proc/meminfo)
[ "$avail_kb" -ge $((8 * 1024 * 1024)) ] || { echo "PASS (without the root part: needs 8 GiB available)"; exit 0; }
revive_kswapd || true
if gave_up=$(kswapd_gave_up); then
        echo "PASS (without the root part: kswapd gave up on $gave_up, node_unreclaimable; the daemon holds its raises)"
        exit 0
fi
page_cache "$tmp" 2048          # what kswapd would reclaim for a raise
wrote_wsf=1
ceiling=$((boot + 20))
printf 'interval = 100ms\nwindow = 3\nhorizon = 60s\nmax_wsf = %d\ncalm_period = 10min\ncompaction = no\nkswapd_rate_prior = 1M/s\n' "$ceiling" > "$tmp/root.conf"
rm -f "$tmp/t.jsonl"
STATE_DIRECTORY=$tmp/lib RUNTIME_DIRECTORY=$tmp/run "$bin" --config "$tmp/root.conf" --record "$tmp/t.jsonl" 2> "$tmp/log" &
pid=$!
wait_lines "$tmp/t.jsonl" 3
"$hog" --size 4G --rate 1G --hold 60s > /dev/null &
hogpid=$!
raised=
for _ in $(seq 200); do
        [ "$(cat "$wsf")" -gt "$boot" ] && { raised=$(cat "$wsf"); break; }
        sleep 0.05
done
[ -n "$raised" ] || fail "the scale factor never rose above $boot"
send_ignored "$tmp/t.jsonl"
[ "$(cat "$wsf")" -gt "$boot" ] || fail "the raised value did not stay through the ignored signals"
kill -QUIT "$pid"
ended 0
kill "$hogpid"; wait "$hogpid" 2>/dev/null || true; hogpid=
[ "$(cat "$wsf")" = "$boot" ] || fail "after SIGQUIT the scale factor is $(cat "$wsf"), not $boot"
grep -q "restored vm.watermark_scale_factor .* -> $boot" "$tmp/log" || fail "no restore logged"
echo "PASS: raised $boot -> $raised; ${ignored[*]} ignored; SIGQUIT restored $boot"
