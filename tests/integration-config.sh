#!/bin/bash
# The configuration file as the daemon, --check-config and replay -c see it,
# beyond what test-config.c checks of the parser: a file that is not a
# regular file. The daemons run in --dry-run: nothing here writes a sysctl.
set -euo pipefail
bin=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() {
        echo "FAIL: $*"
        exit 1
}

# ---- only a regular file is a configuration file
mkdir "$tmp/dir"
mkfifo "$tmp/fifo"
ln -s dir "$tmp/link"
trace=$src/tests/traces/idle.jsonl
for f in "$tmp/dir" "$tmp/link" "$tmp/fifo" /dev/zero; do
        for cmd in "--check-config -c" "--dry-run -c" "replay $trace -c"; do
                status=0
                # shellcheck disable=SC2086
                RUNTIME_DIRECTORY=$tmp/run timeout 10 "$bin" $cmd "$f" > "$tmp/out" 2> "$tmp/err" || status=$?
                [ "$status" -eq 1 ] || fail "$cmd $f: exit status $status (124: still reading after 10 s)"
                grep -q "$f: .*, not a regular file" "$tmp/err" || fail "$cmd $f: $(cat "$tmp/err")"
        done
done
echo "PASS: a directory, a link to one, a FIFO and /dev/zero are refused at once by the daemon, --check-config and replay -c"
