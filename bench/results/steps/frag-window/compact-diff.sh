#!/bin/bash
# Used as: find bench/results <short-0.4.13> -name "*.jsonl.gz" | sort | xargs -P2 -n1 compact-diff.sh <A> <B>
# (A: 72bd404 release build, B: the patch, debug build) > replay-compactions-before.txt
# usage: compact_diff.sh A B trace  -> prints trace and compaction counts + times if they differ
t=$3
a=$($1 replay "$t" 2>/dev/null | grep -E "compact node|replayed decisions" | sed 's/^ *//' | grep -v "recorded" )
b=$($2 replay "$t" 2>/dev/null | grep -E "compact node|replayed decisions" | sed 's/^ *//' | grep -v "recorded")
if [ "$a" != "$b" ]; then echo "== $t"; diff <(echo "$a") <(echo "$b") | grep "^[<>]" | cut -c1-200; fi
