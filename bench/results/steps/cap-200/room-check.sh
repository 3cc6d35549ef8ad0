#!/bin/sh
# Does the page-cache room (MemFree + file LRU) read low right after a large free?
room() { awk '/^MemFree:|^Active\(file\):|^Inactive\(file\):/ {s+=$2} END {printf "%.2f", s/1048576}' /proc/meminfo; }
echo "before: $(room) GiB"
"${THP_ALLOC:-build/bench/thp-alloc}" --size 6G --hold 300ms >/dev/null
for i in 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19; do echo "$(date +%s.%N | cut -c1-14) after exit +$((i*250))ms: $(room) GiB"; sleep 0.25; done
