#!/bin/bash
# Record the traces in this folder (see README.md): an idle one with
# `memoptimizer record`, and one per bench/ workload with the daemon in
# --dry-run recording samples and the decisions it would take. Nothing is
# written to a sysctl; caches are dropped before each workload.
#
#   usage: tests/traces/make-traces.sh [NAME,...]   (as root; default: all;
#          names: idle bursts bursts-250ms streaming accumulate fragmented
#          drain-1g; drain-1g also derives growing-zone from its trace)
#
# Needs root (frag reads physical addresses from /proc/self/pagemap, and
# caches are dropped) and a build without sanitizers in build/ (BUILD=dir to
# change). Takes the machine lock; every workload is stopped and the work
# folder removed on any exit.
set -euo pipefail
[ -n "${MEMOPT_LOCKED:-}" ] ||
        exec env MEMOPT_LOCKED=1 flock /run/lock/memoptimizer-machine.lock "$0" "$@"
[ "$(id -u)" -eq 0 ] || { echo "make-traces: needs root" >&2; exit 1; }
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$src/build}
out=${OUT:-$src/tests/traces}
bin=$build/src/memoptimizer thp=$build/bench/thp-alloc frag=$build/bench/frag
work=/var/tmp/memoptimizer-traces
names=${1:-idle,bursts,bursts-250ms,streaming,accumulate,fragmented,drain-1g}
pids=()

cleanup() {
        for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
        wait 2>/dev/null || true
        rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

ram=$(awk '/^MemTotal:/ {print $2 * 1024}' /proc/meminfo)
size() { awk -v r="$ram" -v f="$1" 'BEGIN { printf "%d", r * f / 1048576 }'; }   # MiB
bg() { "$@" & pids+=($!); }
settle() { sync; echo 3 > /proc/sys/vm/drop_caches; }
cache() { dd if="$work/cache" of=/dev/null bs=4M count=$(($(size "$1") / 4)) status=none; }

# Start the dry-run daemon recording to $out/$1.jsonl (more daemon options
# after the name), give it a full window.
start() {
        local name=$1
        shift
        mkdir -p "$work/run"
        STATE_DIRECTORY=$work/lib RUNTIME_DIRECTORY=$work/run "$bin" --dry-run --config "$src/conf/memoptimizer.conf" \
                --record "$out/$name.jsonl" "$@" 2> "$work/$name.log" &
        daemon=$!
        pids+=("$daemon")
        sleep 10
}
stop() {        # name [seconds to go on recording]
        sleep "${2:-12}"
        kill -TERM "$daemon"
        wait "$daemon"
        echo "== $1: $(grep -c '"type":"sample"' "$out/$1.jsonl") samples, $(grep -c '"type":"decision"' "$out/$1.jsonl") decisions"
        grep -E 'would|compact' "$work/$1.log" || true
}

mkdir -p "$work"
if [[ ,$names, =~ ,(bursts|bursts-250ms|streaming|accumulate), ]]; then      # the page-cache file
        dd if=/dev/zero of="$work/cache" bs=4M count=$(($(size 0.55) / 4)) conv=fdatasync status=none
fi
for name in ${names//,/ }; do
        case $name in
        idle)
                "$bin" record -o "$out/idle.jsonl" --duration 30s
                ;;
        bursts|bursts-250ms)    # bench/run --quick's bursts: 2 bursts of 2 x 0.25 RAM THP against a 0.55 RAM cache
                settle; cache 0.55; sleep 3
                if [[ $name == bursts ]]; then start bursts; else start "$name" --interval 250ms; fi
                for i in 1 2; do
                        bg "$thp" --size "$(size 0.25)M" --hold 300ms; a=$!
                        bg "$thp" --size "$(size 0.25)M" --hold 300ms; b=$!
                        wait "$a" "$b"
                        [ "$i" -eq 2 ] || cache 0.55
                done
                # at 250 ms, go on until the calm period (30 s) has passed
                if [[ $name == bursts ]]; then stop bursts; else stop "$name" 40; gzip -9 -nf "$out/$name.jsonl"; fi
                ;;
        streaming)      # 3 writers of 0.06 RAM and 0.30 RAM of 4 KiB anonymous memory over 3 s
                settle; cache 0.55; sleep 3
                start streaming
                w=()
                for i in 1 2 3; do
                        bg dd if=/dev/zero of="$work/stream$i" bs=1M count="$(size 0.06)" status=none; w+=($!)
                done
                bg "$thp" --size "$(size 0.30)M" --no-thp --rate "$(($(size 0.30) / 3))M" --hold 300ms; w+=($!)
                wait "${w[@]}"
                rm -f "$work"/stream*
                stop streaming
                ;;
        accumulate)     # grow THP memory to 0.70 RAM over 2 s twice, 0.03 RAM churning meanwhile
                settle; cache 0.40; sleep 3
                start accumulate
                bg "$thp" --size "$(size 0.03)M" --hold 100ms --pause 100ms --repeat 1000000; small=$!
                for i in 1 2; do
                        [ "$i" -eq 1 ] || cache 0.40
                        bg "$thp" --size "$(size 0.70)M" --rate "$(($(size 0.70) / 2))M" --hold 300ms
                        wait $!
                done
                kill -TERM "$small"; wait "$small" || true
                stop accumulate
                ;;
        fragmented)     # one 4 KiB page kept per 2 MiB block of 0.85 RAM, then 0.50 RAM of THP demand
                settle; sleep 3
                start fragmented
                coproc HOLDER { exec "$frag" fragment "$(size 0.85)M"; }
                pids+=("$HOLDER_PID")
                read -r line <&"${HOLDER[0]}"
                echo "frag: $line"
                sleep 1
                "$frag" demand "$(size 0.50)M"
                kill -TERM "$HOLDER_PID"; wait "$HOLDER_PID" || true
                stop fragmented
                ;;
        drain-1g)       # 4 KiB pages asked at 1 GiB/s on an emptied page cache, recorded every
                        # 200 ms: as many as take node 0's Normal zone from its managed pages
                        # down to 1.1 M of them (what a freshly booted machine of this kind
                        # starts with); then growing-zone derived from it (tests/traces/grow-zone).
                        # Not THP: once Normal's free memory has no order-9 block left, THP
                        # falls back to DMA32, a drain that is not the one to show.
                settle; sleep 3
                read -r free managed < <(awk '$1 == "Node" { z = ($2 == "0," && $4 == "Normal") }
                        z && $1 == "pages" && $2 == "free" { f = $3 } z && $1 == "managed" { print f, $2 }' /proc/zoneinfo)
                take=$((managed - 1100000))
                [ "$((free - take))" -ge 262144 ] ||
                        { echo "make-traces: Normal has $free free pages, not 1 GiB more than the $take to take" >&2; exit 1; }
                bg "$bin" record -o "$out/drain-1g.jsonl" --interval 200ms; rec=$!
                sleep 3
                "$thp" --size "$((take * $(getconf PAGESIZE) / 1024))K" --no-thp --rate 1G --hold 2s
                sleep 5
                kill -INT "$rec"; wait "$rec"
                echo "== drain-1g: $(grep -c '"type":"sample"' "$out/drain-1g.jsonl") samples; took $take pages"
                "$src/tests/traces/grow-zone" "$out/drain-1g.jsonl" > "$out/growing-zone.jsonl"
                gzip -9 -nf "$out/drain-1g.jsonl" "$out/growing-zone.jsonl"
                ;;
        *)
                echo "make-traces: unknown trace '$name'" >&2; exit 1
                ;;
        esac
done
uname -r; date -u +%FT%TZ
