#!/bin/bash
# Faults a machine throws at the daemon, injected into the real binary
# (built without ASan) by the LD_PRELOAD shim tests/fault-inject.c:
#  1. the sysctl cannot be written (EPERM, EACCES, EROFS from the shim; a
#     real EROFS from a read-only bind mount in a private mount namespace
#     when root): monitor-only, one clear line, exit 0 on SIGTERM;
#  2. /proc/buddyinfo or /proc/zoneinfo missing, empty, truncated mid-line,
#     with a column too many, or garbled, for a few samples: each episode
#     skipped with one warning, the window kept (not restarted), no crash;
#  3. /proc/buddyinfo gone for good: after 10 s one error that says nothing
#     is decided, and on recovery the stale window is restarted;
#  and between 2 and 3, /proc/zoneinfo saying kswapd gave up on the node
#  (node_unreclaimable): one line that raises are held back, one when not.
set -euo pipefail
bin=$(realpath "$1") shim=$(realpath "$2")
. "$(dirname "$0")/lib.sh"
wsf=/proc/sys/vm/watermark_scale_factor
tmp=$(mktemp -d)
pid=
cleanup() { [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null; notify_stop; rm -rf "$tmp"; }
trap cleanup EXIT
notify_listen "$tmp"
before=$(cat "$wsf")
fail() { echo "FAIL: $*"; [ -f "$tmp/log" ] && cat "$tmp/log"; exit 1; }
count() { grep -c -- "$1" "$tmp/log" || true; }
wait_count() {  # wait_count PATTERN N [SECONDS]: until PATTERN is in the log N times
        wait_for --pid "$pid" "${3:-5}" "'$1' $2 times in the log" logged "$tmp/log" "$1" "$2" ||
                fail "'$1' seen $(count "$1") times, want $2"
}
stop() {        # SIGTERM; the daemon must exit 0
        kill -TERM "$pid"
        local status=0
        wait "$pid" || status=$?
        pid=
        [ "$status" -eq 0 ] || fail "exit status $status after SIGTERM"
}

# --- 1. the sysctl cannot be written
printf 'interval = 100ms\nwindow = 3\nlog_level = debug\n' > "$tmp/conf"
denied() {      # denied ERRNO-TEXT COMMAND...: run, stop, check the one line
        local what=$1
        shift
        : > "$tmp/log"
        STATE_DIRECTORY=$tmp/lib RUNTIME_DIRECTORY=$tmp/run "$@" --config "$tmp/conf" 2>> "$tmp/log" &
        pid=$!
        # Ready, then ten samples more: the line is not repeated.
        wait_ready "$pid" || fail "$what: not ready"
        wait_count 'debug: sample ' 10
        stop
        [ "$(count 'monitor-only')" -eq 1 ] || fail "$(count 'monitor-only') monitor-only lines for $what, want 1"
        grep -q "warning: cannot write vm.watermark_scale_factor ($what): monitor-only, logging what would be done" "$tmp/log" ||
                fail "no clear monitor-only line for $what"
        [ "$(cat "$wsf")" = "$before" ] || fail "the sysctl changed"
        [ ! -e "$tmp/run/state" ] || fail "a state file was left"
        echo "ok: $what: monitor-only, one line, exit 0"
}
for e in "1 Operation not permitted" "13 Permission denied" "30 Read-only file system"; do
        MEMOPTIMIZER_FAULT_WRITE=$wsf:${e%% *} LD_PRELOAD=$shim denied "${e#* }" "$bin"
done
if [ "$(id -u)" -eq 0 ] && unshare -m true 2>/dev/null; then
        # The container case for real: /proc/sys read-only for this process only.
        denied "Read-only file system" unshare -m --propagation private sh -c \
                "mount --bind $wsf $wsf && mount -o remount,bind,ro $wsf && exec \"\$0\" \"\$@\"" "$bin"
        echo "ok: (that was a real read-only bind mount over $wsf)"
else
        echo "note: not root or no mount namespaces: the read-only bind mount case was not run"
fi

# --- 2. a /proc file unusable for a few samples
cp /proc/buddyinfo "$tmp/buddyinfo"
cp /proc/zoneinfo "$tmp/zoneinfo"
zoneinfo_reclaimable "$tmp/zoneinfo"
cp "$tmp/buddyinfo" "$tmp/buddyinfo.good"
cp "$tmp/zoneinfo" "$tmp/zoneinfo.good"
printf 'interval = 100ms\nwindow = 32\nlog_level = debug\n' > "$tmp/conf"
: > "$tmp/log"
MEMOPTIMIZER_FAULT_REDIRECT="/proc/buddyinfo=$tmp/buddyinfo;/proc/zoneinfo=$tmp/zoneinfo" \
        LD_PRELOAD=$shim STATE_DIRECTORY=$tmp/lib RUNTIME_DIRECTORY=$tmp/run "$bin" --config "$tmp/conf" --dry-run 2>> "$tmp/log" &
pid=$!
wait_count 'debug: sample ' 5
episodes=0
episode() {     # episode FILE WHAT MESSAGE [SECONDS]: FILE is already broken
        episodes=$((episodes + 1))
        wait_count 'warning: skipping a sample' "$episodes" "${4:-5}"
        grep 'warning: skipping a sample' "$tmp/log" | tail -1 | grep -q -- "$3" ||
                fail "$2: the warning does not say '$3'"
        # The fault lasts two intervals more (a duration of the fault, not a
        # wait for the daemon): still one warning for the episode.
        sleep 0.2
        cp "$tmp/$1.good" "$tmp/$1.new" && mv "$tmp/$1.new" "$tmp/$1"
        wait_count 'sampling works again after' "$episodes"
        wait_count 'debug: sample ' $(($(count 'debug: sample ') + 2))
        echo "ok: $2: skipped with one warning, sampling resumed"
}
mv "$tmp/buddyinfo" "$tmp/gone"
episode buddyinfo "buddyinfo missing" "/proc/buddyinfo: No such file or directory"
: > "$tmp/buddyinfo"
episode buddyinfo "buddyinfo empty" "/proc/buddyinfo: not in the format the kernel writes"
head -c $(($(wc -c < "$tmp/buddyinfo.good") / 2)) "$tmp/buddyinfo.good" > "$tmp/buddyinfo"
episode buddyinfo "buddyinfo truncated mid-line" "/proc/buddyinfo: not in the format"
sed '1s/$/ 7/' "$tmp/buddyinfo.good" > "$tmp/buddyinfo"
episode buddyinfo "buddyinfo with a column too many on one line" "/proc/buddyinfo: not in the format"
sed '1s/ [0-9][0-9]* / x1 /' "$tmp/buddyinfo.good" > "$tmp/buddyinfo"
episode buddyinfo "buddyinfo garbled" "/proc/buddyinfo: not in the format"
# zoneinfo is re-read every 30 samples: the fault shows within 3 s.
head -c $(($(wc -c < "$tmp/zoneinfo.good") / 2)) "$tmp/zoneinfo.good" > "$tmp/zoneinfo"
episode zoneinfo "zoneinfo truncated mid-line" "/proc/zoneinfo: not in the format" 8
sed '/ managed /s/managed *[0-9]*/managed/' "$tmp/zoneinfo.good" > "$tmp/zoneinfo"
episode zoneinfo "zoneinfo without values" "/proc/zoneinfo: not in the format" 8
[ "$(count 'warning: skipping a sample')" -eq "$episodes" ] || fail "more than one warning per episode"
[ "$(count 'window restarted')" -eq 0 ] || fail "a short gap restarted the window"
# The window grew on through every episode: its length never went down.
grep -o 'window [0-9]*$' "$tmp/log" | awk '{ if ($2 < last) exit 1; last = $2 }' ||
        fail "the window length went down"

# --- 2b. kswapd gives up on the node (node_unreclaimable): raises are
# held back, said once each way
grep -q 'node_unreclaimable: *0' "$tmp/zoneinfo.good" || fail "this kernel's zoneinfo has no node_unreclaimable"
sed 's/node_unreclaimable: *0/node_unreclaimable:  1/' "$tmp/zoneinfo.good" > "$tmp/zoneinfo.new"
mv "$tmp/zoneinfo.new" "$tmp/zoneinfo"
wait_count 'warning: holding back raises of vm.watermark_scale_factor: kswapd gave up reclaiming on node 0' 1 8
cp "$tmp/zoneinfo.good" "$tmp/zoneinfo.new" && mv "$tmp/zoneinfo.new" "$tmp/zoneinfo"
wait_count 'raises of vm.watermark_scale_factor no longer held back' 1 8
wait_count 'debug: sample ' $(($(count 'debug: sample ') + 2))
[ "$(count 'holding back raises')" -eq 1 ] || fail "the hold was said $(count 'holding back raises') times"
echo "ok: node_unreclaimable: raises held back and allowed again, one line each"

# --- 3. persistent failure
mv "$tmp/buddyinfo" "$tmp/gone"
wait_count 'error: no sample for 10 s' 1 15
grep -q "error: no sample for 10 s (.* failures in a row; last: /proc/buddyinfo: No such file or directory): nothing is decided and vm.watermark_scale_factor stays [0-9]* until sampling works again" "$tmp/log" ||
        fail "the persistent failure is not reported clearly"
[ "$(count 'warning: skipping a sample')" -eq $((episodes + 1)) ] || fail "the warning was repeated"
mv "$tmp/gone" "$tmp/buddyinfo"
wait_count 'failures; window restarted' 1
stop
[ "$(count 'error: no sample')" -eq 1 ] || fail "the error was repeated within a minute"
echo "ok: persistent failure: one error after 10 s, window restarted on recovery"
grep -v 'debug: sample ' "$tmp/log"

# --- 4. as root, a configuration file others can write is refused, at
# start (exit 1) and on reload (the old configuration stays)
if [ "$(id -u)" -eq 0 ]; then
        printf 'interval = 100ms\nwindow = 3\nlog_level = debug\n' > "$tmp/conf"
        chmod 666 "$tmp/conf"
        status=0
        "$bin" --check-config --config "$tmp/conf" 2> "$tmp/err" || status=$?
        [ "$status" -eq 1 ] || fail "a world-writable file: exit status $status"
        grep -q "$tmp/conf: writable by everyone (mode 0666); refusing a file others can change (chmod go-w $tmp/conf)" "$tmp/err" ||
                { cat "$tmp/err"; fail "no clear message for a world-writable file"; }
        chmod 644 "$tmp/conf"
        chown nobody "$tmp/conf"
        status=0
        "$bin" --check-config --config "$tmp/conf" 2> "$tmp/err" || status=$?
        [ "$status" -eq 1 ] && grep -q "owned by uid $(id -u nobody), not root" "$tmp/err" ||
                fail "a file owned by nobody: exit $status, $(cat "$tmp/err")"
        chown root "$tmp/conf"
        : > "$tmp/log"
        STATE_DIRECTORY=$tmp/lib RUNTIME_DIRECTORY=$tmp/run "$bin" --config "$tmp/conf" --dry-run 2>> "$tmp/log" &
        pid=$!
        wait_count 'debug: sample ' 3
        printf 'interval = 100ms\nwindow = 16\nlog_level = debug\n' > "$tmp/conf"
        chmod 646 "$tmp/conf"
        kill -HUP "$pid"
        wait_count 'reload refused, old configuration stays: .*writable by everyone' 1
        wait_count 'debug: sample ' $(($(count 'debug: sample ') + 2))
        grep 'debug: sample ' "$tmp/log" | tail -1 | grep -q 'window 3$' || fail "the refused file took effect"
        stop
        echo "ok: a configuration others can write is refused at start and on reload"
else
        echo "note: not root: the configuration ownership check was not run"
fi
echo "PASS"
