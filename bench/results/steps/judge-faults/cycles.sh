#!/bin/bash
# Recurring fragmenting fills and huge-page demands, as bench fragmented's
# one, CYCLES times in a row, with one daemon running through all of them
# (or none): do its compactions keep coming in time?
# usage: cycles.sh LABEL DAEMON|none CYCLES OUTDIR   (root; the machine lock held by the caller)
# Each cycle: drop caches; frag fragment 20G (one page kept per 2 MiB block,
# held); 1 s; frag demand 7100M (MADV_HUGEPAGE, timed); the holder killed; 2 s.
# Prints per cycle the compaction stalls of the demand and its run time and p99.
set -u
label=$1 daemon=$2 cycles=$3 out=$4
src=$(cd "$(dirname "$0")/../../../.." && pwd)
F=${FRAG:-$src/build/bench/frag}
run=$(mktemp -d /var/tmp/cycles.XXXXXX)
hp= dp=
cleanup() {
        [ -n "$hp" ] && kill "$hp" 2>/dev/null && wait "$hp" 2>/dev/null
        [ -n "$dp" ] && kill "$dp" 2>/dev/null && wait "$dp" 2>/dev/null
        rm -rf "$run"
        echo "# after: wsf $(cat /proc/sys/vm/watermark_scale_factor)"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
"$src/scripts/revive-kswapd" >/dev/null 2>&1
echo "# $label: $daemon, $cycles cycles, $(date -u +%H:%M:%S) UTC, wsf $(cat /proc/sys/vm/watermark_scale_factor)"
if [ "$daemon" != none ]; then
        mkdir -p "$run/rt" "$run/state"
        RUNTIME_DIRECTORY=$run/rt STATE_DIRECTORY=$run/state "$daemon" --config "$src/conf/memoptimizer.conf" \
                --record "$run/trace" 2> "$run/log" &
        dp=$!
        sleep 3
fi
cs() { awk '$1=="compact_stall"{print $2}' /proc/vmstat; }
for c in $(seq 1 "$cycles"); do
        sync; echo 3 > /proc/sys/vm/drop_caches
        coproc H { exec "$F" fragment 20G; }
        hp=$H_PID
        read -r _ <&"${H[0]}"
        sleep 1
        s0=$(cs)
        r=$("$F" demand 7100M)
        s1=$(cs)
        kill "$hp"; wait "$hp" 2>/dev/null; hp=
        echo "$label cycle $c: stalls $((s1 - s0)) $(echo "$r" | tr ' ' '\n' | grep -E '^(p99_us|seconds|thp_share)=' | tr '\n' ' ')"
        sleep 2
done
if [ -n "$dp" ]; then
        kill "$dp"; wait "$dp" 2>/dev/null; dp=
        cp "$run/log" "$out/$label.log"
        gzip -c "$run/trace" > "$out/$label.jsonl.gz"
fi
