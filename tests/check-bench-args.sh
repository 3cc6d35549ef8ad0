#!/bin/bash
# bench/run refuses bad options before it touches anything (and so do the
# cost tools side-by-side, wake-cost and cycle-pages, and slide-check): each bad
# invocation exits 2 (argparse's status) with a message that names the
# option, and leaves the scale factor as it was. No valid invocation runs
# here: a sitting takes half an hour and the machine lock.
set -euo pipefail
src=$1
daemon=$2       # this build's memoptimizer: --warm-from asks it to read a state
run="$src/bench/run"
fail=0
wsf_before=$(cat /proc/sys/vm/watermark_scale_factor)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
touch "$tmp/not-executable"

# each exits 2 with the expected message
check() {       # expected message, command...
        local want=$1 out status
        shift
        set +e
        out=$(timeout 60 "$@" 2>&1)
        status=$?
        set -e
        if [ "$status" -ne 2 ] || ! grep -qF -- "$want" <<<"$out"; then
                echo "FAIL: $*: status $status, wanted 2 and '$want' in:"; echo "$out"; fail=1
        else
                echo "ok: $* -> $want"
        fi
}
refused() { local want=$1; shift; check "$want" python3 "$run" "$@"; }
tool_refused() { local want=$1 tool=$2; shift 2; check "$want" "$src/bench/$tool" "$@"; }

refused "unknown scenario: nosuch" --scenarios mixed,nosuch
refused "unknown configuration: wsf=0" --configs defaults,wsf=0
refused "unknown configuration: wsf=10000" --configs wsf=10000
# the other rows need another daemon or configuration to be another
refused "unknown configuration: memoptimizer-other" --configs memoptimizer,memoptimizer-other
refused "--other-daemon: $tmp/not-executable: not an executable file" --other-daemon "$tmp/not-executable"
refused "--other-daemon: $tmp/none: not an executable file" --other-daemon "$tmp/none"
refused "--other-config: $tmp: not a file" --other-config "$tmp"
refused "--runs: 1 to 100" --runs 0
refused "--runs: 1 to 100" --runs 101
refused "--reader-fit: 0 to 1" --reader-fit 1.5
refused "--reader-fit: 0 to 1" --reader-fit -0.1
refused "--seed: 0 to 2^63-1" --seed -1
refused "not allowed with argument" --quick --full
refused "not allowed with argument" --warm --no-warm
refused "invalid int value" --runs three
refused "'21': give a whole number of runs from 0 to 20" --settling-runs 21
refused "'x': give a whole number of runs from 0 to 20" --settling-runs x
refused "not allowed with argument" --settling-runs 2 --no-settling-run
# --warm-from: a state every daemon of the sitting reads, or nothing runs
refused "--warm-from: $tmp/none/learned: not a regular file" --warm-from "$tmp/none"
mkdir "$tmp/link" "$tmp/junk"
ln -s "$tmp/not-executable" "$tmp/link/learned"
refused "--warm-from: $tmp/link/learned: not a regular file" --warm-from "$tmp/link"
echo junk > "$tmp/junk/learned"
refused "would not read $tmp/junk/learned: $tmp/junk/learned:1: expected the 'version' line" \
        --other-daemon "$daemon" --warm-from "$tmp/junk"

# the cost tools refuse bad options before they start anything
tool_refused() {        # expected message, tool, arguments...
        local want=$1 tool=$2 out status
        shift 2
        set +e
        out=$(timeout 60 "$src/bench/$tool" "$@" 2>&1)
        status=$?
        set -e
        if [ "$status" -ne 2 ] || ! grep -qF -- "$want" <<<"$out"; then
                echo "FAIL: bench/$tool $*: status $status, wanted 2 and '$want' in:"; echo "$out"; fail=1
        else
                echo "ok: bench/$tool $* -> $want"
        fi
}
tool_refused "usage: bench/side-by-side" side-by-side
tool_refused "usage: bench/side-by-side" side-by-side soon "$tmp"
tool_refused "side-by-side: no $tmp/src/memoptimizer" side-by-side 5 "$tmp"
tool_refused "usage: bench/wake-cost" wake-cost "$tmp" 0
tool_refused "usage: bench/wake-cost" wake-cost "$tmp" 5 three
tool_refused "wake-cost: no $tmp/bench/page-touch" wake-cost "$tmp" 5 1
tool_refused "usage: bench/cycle-pages" cycle-pages "$tmp" 0
tool_refused "cycle-pages: no $tmp/src/memoptimizer" cycle-pages "$tmp" 5
tool_refused "ROUNDS must be at least 1" slide-check "$tmp" 0
tool_refused "invalid int value" slide-check "$tmp" three
tool_refused "$tmp/bench/thp-alloc: not an executable file" slide-check "$tmp" 3

help=$(python3 "$run" --help)
for opt in --scenarios --configs --runs --seed --other-daemon --other-config --reader-fit --warm-from --out; do
        grep -qF -- "$opt" <<<"$help" || { echo "FAIL: --help does not name $opt"; fail=1; }
done

wsf_after=$(cat /proc/sys/vm/watermark_scale_factor)
[ "$wsf_after" = "$wsf_before" ] ||
        { echo "FAIL: vm.watermark_scale_factor $wsf_before -> $wsf_after"; fail=1; }
[ "$fail" -eq 0 ] && echo "PASS: bench/run and the cost tools refuse bad options; nothing changed"
exit "$fail"
