#!/bin/bash
# scripts/revive-kswapd --list and tests/lib.sh's kswapd_gave_up (which
# calls it) read the nodes kswapd gave up on from a zoneinfo: none, one,
# two; a node counted once however many of its zones say so. No root, no
# change to the machine.
set -euo pipefail
revive=$1
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
zone() { printf 'Node %s, zone %8s\n  pages free     1\n  node_unreclaimable:  %s\n  start_pfn:           1\n' "$@"; }
fail=0
check() {       # check WHAT WANT GOT
        if [ "$2" != "$3" ]; then echo "FAIL: $1: want '$2', got '$3'"; fail=1; else echo "ok: $1"; fi
}

{ zone 0 DMA32 0; zone 0 Normal 0; zone 1 Normal 0; } > "$tmp/none"
{ zone 0 DMA32 0; zone 0 Normal 0; zone 1 Normal 1; } > "$tmp/one"
{ zone 0 DMA32 2; zone 0 Normal 3; zone 1 Normal 1; } > "$tmp/two"

rc=0; out=$("$revive" --list "$tmp/none") || rc=$?
check "none listed" "" "$out"; check "none: exit 1" 1 "$rc"
rc=0; out=$("$revive" --list "$tmp/one") || rc=$?
check "one listed" "1" "$out"; check "one: exit 0" 0 "$rc"
out=$("$revive" --list "$tmp/two")
check "two listed, each once" "$(printf '0\n1')" "$out"

rc=0; out=$(kswapd_gave_up "$tmp/none") || rc=$?
check "kswapd_gave_up none" "" "$out"; check "kswapd_gave_up none: false" 1 "$rc"
check "kswapd_gave_up two" "node0 node1" "$(kswapd_gave_up "$tmp/two")"
exit $fail
