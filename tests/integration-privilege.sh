#!/bin/bash
# Least privilege: the running daemon holds no capability (effective,
# permitted, inheritable, ambient, and as root the bounding set too) and has
# no_new_privs set; its state file and lock have tight modes whatever the
# umask. That it can still do its job without a capability is shown by
# root-raise-restore (raise, SIGKILL, takeover, restore on the real
# sysctl): the capabilities are gone before any of that.
set -euo pipefail
bin=$1
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d)
pid=
cleanup() { [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; cat "$tmp/log" 2>/dev/null; exit 1; }

# Not a dry run (the lock is taken only then), but max_wsf below any
# baseline and no compaction: it never writes to the kernel.
printf 'interval = 100ms\nwindow = 3\nmax_wsf = 1\ncompaction = no\nlog_level = debug\n' > "$tmp/conf"
(umask 0; STATE_DIRECTORY=$tmp/lib RUNTIME_DIRECTORY=$tmp/run exec "$bin" --config "$tmp/conf" 2> "$tmp/log") &
pid=$!
wait_samples "$pid" "$tmp/log" 2 || fail "the daemon did not sample"
grep -E '^(Cap|NoNewPrivs)' "/proc/$pid/status" | tee "$tmp/status"
for f in CapInh CapPrm CapEff CapAmb; do
        grep -q "^$f:[[:space:]]*0*\$" "$tmp/status" || fail "$f is not empty"
done
grep -q '^NoNewPrivs:[[:space:]]*1$' "$tmp/status" || fail "no_new_privs is not set"
if [ "$(id -u)" -eq 0 ]; then
        grep -q '^CapBnd:[[:space:]]*0*$' "$tmp/status" || fail "the bounding set is not empty"
        # Started as root with umask 0: the lock is still 0600.
        [ "$(stat -c %a "$tmp/run/lock")" = 600 ] || fail "lock mode $(stat -c %a "$tmp/run/lock")"
fi
kill -TERM "$pid"
status=0
wait "$pid" || status=$?
pid=
[ "$status" -eq 0 ] || fail "exit status $status"
grep -qE ': (raise|lower) vm|: compact (node|all)' "$tmp/log" && fail "it acted on the kernel"
echo "PASS: no capability, no_new_privs (as uid $(id -u))"
