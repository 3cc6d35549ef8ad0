#!/bin/bash
# The reclaim cap on the real kernel, with and without swap (root; drops
# the page cache, turns a 4 GiB swap file on for a while: run it under
# flock /run/lock/memoptimizer-machine.lock; skipped where swap is on
# already, which it does not touch). A dry-run daemon with tests/raise.conf
# watches thp-alloc take 4 GiB of anonymous memory at 1 GiB/s right after
# the page cache was dropped:
#   - without swap kswapd could reclaim next to nothing: the daemon holds
#     its raises (nothing-to-reclaim) and would make none;
#   - with the swap file on, kswapd could page the memory out: it would
#     raise, and its trace carries SwapFree as /proc/meminfo has it.
# Usage: squeeze-swap.sh MEMOPTIMIZER THP_ALLOC
set -euo pipefail
bin=$1 hog=$2
. "$(dirname "$0")/lib.sh"
if [ "$(id -u)" -ne 0 ]; then echo "SKIP: needs root to drop the page cache and turn swap on"; exit 77; fi
if [ "$(awk 'NR > 1' /proc/swaps | wc -l)" -ne 0 ]; then echo "SKIP: swap is on already; this test does not touch it"; exit 77; fi
avail_kb=$(awk '/^MemAvailable:/ {print $2}' /proc/meminfo)
[ "$avail_kb" -ge $((8 * 1024 * 1024)) ] || { echo "SKIP: needs 8 GiB available"; exit 77; }
revive_kswapd || true
tmp=$(mktemp -d /var/tmp/squeeze-swap.XXXXXX)
swap=$tmp/swapfile pid= hogpid=
cleanup() {
        [ -n "$hogpid" ] && kill -KILL "$hogpid" 2>/dev/null || true
        [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null || true
        wait "$hogpid" "$pid" 2>/dev/null || true
        swapoff "$swap" 2>/dev/null || true
        notify_stop
        rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
notify_listen "$tmp"
{ cat "$(dirname "$0")/raise.conf"; echo "dry_run = yes"; } > "$tmp/conf"

# watch NAME: the daemon (dry run) beside the allocation, from a dropped
# page cache; its log in $tmp/NAME.log, its trace in $tmp/NAME.jsonl
watch() {
        sync
        echo 3 > /proc/sys/vm/drop_caches
        STATE_DIRECTORY=$tmp/lib-$1 RUNTIME_DIRECTORY=$tmp/run-$1 "$bin" --config "$tmp/conf" \
                --record "$tmp/$1.jsonl" 2> "$tmp/$1.log" &
        pid=$!
        wait_ready "$pid" || { cat "$tmp/$1.log"; exit 1; }
        "$hog" --size 4G --rate 1G --hold 2s --no-thp > /dev/null
        kill -TERM "$pid"
        wait "$pid" || { echo "FAIL: $1: the daemon exited $?"; cat "$tmp/$1.log"; exit 1; }
        pid=
}
fail=0
watch noswap
echo "without swap: $(grep -c 'would raise' "$tmp/noswap.log" || true) raises, $(grep -c 'a raise is called for, but kswapd could reclaim only' "$tmp/noswap.log" || true) holds"
grep -q 'holding back raises of vm.watermark_scale_factor: a raise is called for, but kswapd could reclaim only' "$tmp/noswap.log" ||
        { echo "FAIL: without swap, no nothing-to-reclaim hold"; fail=1; }
grep -q 'would raise' "$tmp/noswap.log" && { echo "FAIL: without swap, a raise:"; grep 'would raise' "$tmp/noswap.log"; fail=1; }

fallocate -l 4G "$swap" && chmod 600 "$swap" && mkswap -q "$swap" && swapon "$swap" ||
        { echo "SKIP: this kernel or filesystem takes no swap file"; exit 77; }
kb=$(awk '/^SwapFree:/ {print $2}' /proc/meminfo)
watch swap
swapoff "$swap"
echo "with $((kb / 1024)) MiB of swap: $(grep -c 'would raise' "$tmp/swap.log" || true) raises"
grep -q 'would raise vm.watermark_scale_factor' "$tmp/swap.log" || { echo "FAIL: with swap, no raise"; grep -v debug "$tmp/swap.log"; fail=1; }
traced=$(sed -n '2s/.*"swap_free":\([0-9]*\).*/\1/p' "$tmp/swap.jsonl")
page_kb=$(($(getconf PAGESIZE) / 1024))
[ -n "$traced" ] && [ $((traced * page_kb)) -le "$kb" ] && [ $((traced * page_kb)) -gt $((kb * 9 / 10)) ] ||
        { echo "FAIL: the trace's swap_free ($traced pages) is not SwapFree ($kb kB)"; fail=1; }
[ "$fail" -eq 0 ] && echo "PASS: held without swap, raised with it; swap_free traced ($traced pages)"
exit "$fail"
