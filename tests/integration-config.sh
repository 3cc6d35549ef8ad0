#!/bin/bash
# The configuration file as the daemon, --check-config and replay -c see it,
# beyond what test-config.c checks of the parser: a reload when the file has
# gone, --check-config of a missing default file, a file that is not a
# regular file, and compaction_max_order against the kernel's orders. The
# daemons run in --dry-run: nothing here writes a sysctl. The part with the
# default file needs root (a private mount namespace hides the real one).
set -euo pipefail
bin=$1 src=$2 inner=${3:-}

# ---- in the private mount namespace (below): the default file
if [ "$inner" = --default-file ]; then
        tmp=$4
        default=$("$bin" --help | sed -n 's/.*configuration file (default \(.*\))$/\1/p')
        etc=$(dirname "$default")
        top=$etc
        while [ ! -d "$top" ]; do top=$(dirname "$top"); done
        [ "$top" != / ] || { echo "FAIL: no directory to mount over for $etc"; exit 1; }
        mount -t tmpfs -o mode=0755 memoptimizer-test "$top"
        mkdir -p "$etc"
fi

pid=
tmp=${tmp:-$(mktemp -d)}
cleanup() {
        [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
        [ -n "$inner" ] || rm -rf "$tmp"
}
trap cleanup EXIT
fail() {
        echo "FAIL: $*"
        [ -s "$tmp/log" ] && sed 's/^/    log: /' "$tmp/log"
        exit 1
}
# wait_for PATTERN: until the daemon's log has a line with it (at most 20 s)
wait_for() {
        for _ in $(seq 200); do
                grep -q -- "$1" "$tmp/log" && return 0
                sleep 0.1
        done
        return 1
}
# start ARGS: a dry-run daemon logging at debug level, once it has sampled
# (its signal handlers are set up before the first sample)
start() {
        : > "$tmp/log"
        STATE_DIRECTORY=$tmp/lib RUNTIME_DIRECTORY=$tmp/run "$bin" --dry-run -v "$@" 2> "$tmp/log" &
        pid=$!
        wait_for 'debug: sample 1:' || fail "daemon $* did not sample"
}
stop() {
        kill -TERM "$pid"
        wait "$pid" || fail "daemon exit status $? after SIGTERM"
        pid=
}
# reload PATTERN: SIGHUP, and wait for the log line that answers it
reload() {
        kill -HUP "$pid"
        wait_for "$1" || fail "no '$1' after SIGHUP"
}

if [ "$inner" = --default-file ]; then
        conf=$default
        # Started with the file; it goes; a reload keeps what it said.
        printf 'interval = 100ms\nwindow = 3\nmax_wsf = 50\ndry_run = yes\n' > "$conf"
        start
        grep -q 'max 50; .*window 3' "$tmp/log" || fail "the default file was not read"
        rm "$conf"
        reload "reload refused, old configuration stays: $conf: No such file or directory"
        grep -q 'configuration reloaded' "$tmp/log" && fail "a reload without the file loaded something"
        printf 'interval = 100ms\nwindow = 3\nmax_wsf = 60\n' > "$conf"
        reload 'configuration reloaded'
        stop
        echo "PASS: a reload after the default file went keeps the configuration; it reloads once the file is back"

        # Started without it (the built-in defaults): a reload needs the file too.
        rm "$conf"
        start
        grep -q 'max 1000; .*window 8' "$tmp/log" || fail "no built-in defaults without the file"
        reload "reload refused, old configuration stays: $conf: No such file or directory"
        stop
        echo "PASS: started on the built-in defaults, a reload without the file is refused"

        # --check-config checks a file: a missing default one is not valid.
        status=0
        "$bin" --check-config > "$tmp/out" 2> "$tmp/err" || status=$?
        [ "$status" -eq 1 ] || fail "--check-config without the default file: exit status $status, $(cat "$tmp/out")"
        grep -q "$conf: No such file or directory" "$tmp/err" || fail "--check-config: $(cat "$tmp/err")"
        printf 'window = 5\n' > "$conf"
        "$bin" --check-config | grep -qx "$conf: valid" || fail "--check-config of the default file"
        echo "PASS: --check-config without -c: exit 1 when the default file is missing, valid when it is there"
        exit 0
fi

# ---- only a regular file is a configuration file
mkdir "$tmp/dir"
mkfifo "$tmp/fifo"
ln -s dir "$tmp/link"
trace=$src/tests/traces/idle.jsonl
for f in "$tmp/dir" "$tmp/link" "$tmp/fifo" /dev/zero; do
        for cmd in "--check-config -c" "--dry-run -c" "replay $trace -c"; do
                status=0
                # shellcheck disable=SC2086
                STATE_DIRECTORY=$tmp/lib RUNTIME_DIRECTORY=$tmp/run timeout 10 "$bin" $cmd "$f" > "$tmp/out" 2> "$tmp/err" || status=$?
                [ "$status" -eq 1 ] || fail "$cmd $f: exit status $status (124: still reading after 10 s)"
                grep -q "$f: .*, not a regular file" "$tmp/err" || fail "$cmd $f: $(cat "$tmp/err")"
        done
done
echo "PASS: a directory, a link to one, a FIFO and /dev/zero are refused at once by the daemon, --check-config and replay -c"

# ---- compaction_max_order against the kernel's orders
orders=$(awk 'NR == 1 { print NF - 4 }' /proc/buddyinfo)
printf 'window = 3\ncompaction_max_order = %d\n' "$orders" > "$tmp/beyond"
printf 'interval = 100ms\nwindow = 3\ncompaction_max_order = %d\n' "$((orders - 1))" > "$tmp/top"
what="compaction_max_order $orders is beyond the kernel's orders (0..$((orders - 1))); allowed: auto or 1..$((orders - 1))"
want="$tmp/beyond:2: $what"
status=0
"$bin" --check-config -c "$tmp/beyond" 2> "$tmp/err" || status=$?
[ "$status" -eq 1 ] && grep -qF "$want" "$tmp/err" || fail "--check-config beyond the orders: $status $(cat "$tmp/err")"
"$bin" --check-config -c "$tmp/top" | grep -qx "$tmp/top: valid" || fail "--check-config of the highest order"
echo "PASS: --check-config refuses compaction_max_order $orders with FILE:LINE, takes $((orders - 1)) ($orders orders in /proc/buddyinfo)"

status=0
STATE_DIRECTORY=$tmp/lib RUNTIME_DIRECTORY=$tmp/run timeout 10 "$bin" --dry-run -c "$tmp/beyond" 2> "$tmp/log" || status=$?
[ "$status" -eq 1 ] || fail "daemon with compaction_max_order $orders: exit status $status (124: it ran)"
grep -qF "$want; not starting" "$tmp/log" || fail "daemon with compaction_max_order $orders: no FILE:LINE"
echo "PASS: the daemon does not start with it (exit 1, FILE:LINE)"

start -c "$tmp/top"
cp "$tmp/beyond" "$tmp/top"
reload "reload refused, old configuration stays: $tmp/top:2: $what"
grep -q 'configuration reloaded' "$tmp/log" && fail "the reload took compaction_max_order $orders"
kill -0 "$pid" || fail "the daemon stopped"
stop
echo "PASS: a reload with it is refused and the daemon goes on"

printf 'compaction_max_order = 31\n' > "$tmp/c31"
status=0
"$bin" replay "$trace" -c "$tmp/c31" > "$tmp/out" 2> "$tmp/err" || status=$?
[ "$status" -eq 1 ] && grep -q "$tmp/c31:1: compaction_max_order 31 is beyond the kernel's orders" "$tmp/err" ||
        fail "replay -c with compaction_max_order 31: $status $(cat "$tmp/err")"
echo "PASS: replay -c refuses it against the trace's orders"

# ---- the default file, in a private mount namespace
if [ "$(id -u)" -ne 0 ]; then
        echo "SKIP: the default file's part needs root (a private mount namespace)"
        exit 77
fi
if ! unshare -m --propagation private true 2> "$tmp/unshare.err"; then
        # e.g. in a chroot whose root is no mount point: never fall back to a
        # shared namespace, where the bind mounts would reach the host
        echo "SKIP: the default file's part needs a private mount namespace: $(cat "$tmp/unshare.err")"
        exit 77
fi
unshare -m --propagation private "$0" "$bin" "$src" --default-file "$tmp"
