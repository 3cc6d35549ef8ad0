#!/bin/bash
# Replays the traces recorded on a real machine (tests/traces/README.md)
# with the documented default configuration (the drain traces with
# tests/raise.conf, integration-root.sh's) and checks what the daemon does
# on them: behaviour, not output. Each expectation prints PASS or FAIL with
# the figures it saw.
set -euo pipefail
bin=$1 src=$2
traces=$src/tests/traces conf=$src/conf/memoptimizer.conf
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() {       # trace, expectation, condition (shell), figures
        if eval "$3"; then echo "PASS: $1: $2 ($4)"; else echo "FAIL: $1: $2 ($4)"; fail=1; fi
}
replay() {      # trace [config]: writes $tmp/NAME.csv and $tmp/NAME.txt, or fails the test
        local status=0 f=$traces/$1.jsonl
        [ -f "$f" ] || f=$f.gz          # the larger traces are compressed; replay reads them as they are
        "$bin" replay "$f" -c "${2:-$conf}" --score --csv > "$tmp/$1.csv" 2> "$tmp/$1.txt" || status=$?
        [ "$status" -eq 0 ] || { echo "FAIL: $1: replay exited $status:"; cat "$tmp/$1.txt"; exit 1; }
}
# The first time (seconds from the first sample) a CSV row matches an awk
# condition; "none" if no row does. Columns: 1 t, 2 wsf, 3 wsf_recorded,
# 4 decision, 5 compactions, 6 free_pages, 7 low_pages, 8 secs_to_low,
# 9 allocstall, 10 compact_stall.
first() { awk -F, "NR > 1 && ($2) { print \$1; found = 1; exit } END { if (!found) print \"none\" }" "$tmp/$1.csv"; }
last() { awk -F, "NR > 1 && ($2) { t = \$1 } END { print t == \"\" ? \"none\" : t }" "$tmp/$1.csv"; }
count() { awk -F, "NR > 1 && ($2) { n++ } END { print n + 0 }" "$tmp/$1.csv"; }
before() { [ "$1" != none ] && { [ "$2" = none ] || awk "BEGIN { exit !($1 < $2) }"; }; }
no_later() { [ "$1" != none ] && { [ "$2" = none ] || awk "BEGIN { exit !($1 <= $2) }"; }; }
# Crossings the score found: "+15.0 s  node0 Normal fell below low: ..."
first_crossing() { sed -n "s/^ *+\([0-9.]*\) s  node[0-9]* [A-Za-z0-9_]* fell below $2:.*/\1/p" "$tmp/$1.txt" | head -1 | grep . || echo none; }

for t in idle bursts bursts-250ms streaming accumulate fragmented; do replay "$t"; done

# a compressed trace reads as its text does: the same report and CSV
gzip -dc "$traces/bursts-250ms.jsonl.gz" | "$bin" replay - -c "$conf" --score --csv > "$tmp/plain.csv" 2> "$tmp/plain.txt"
check bursts-250ms "replayed compressed, the same CSV and report as decompressed" \
        'cmp -s "$tmp/plain.csv" "$tmp/bursts-250ms.csv" && cmp -s "$tmp/plain.txt" "$tmp/bursts-250ms.txt"' \
        "$(wc -l < "$tmp/bursts-250ms.csv") CSV lines"
# a damaged one is refused with FILE:LINE
head -c 3000 "$traces/bursts-250ms.jsonl.gz" > "$tmp/cut.jsonl.gz"
status=0; "$bin" replay "$tmp/cut.jsonl.gz" -c "$conf" > /dev/null 2> "$tmp/cut.txt" || status=$?
check bursts-250ms "a compressed trace cut short is refused with FILE:LINE, exit 1" \
        '[ "$status" -eq 1 ] && grep -q "^memoptimizer replay: $tmp/cut.jsonl.gz:[0-9]*: corrupt gzip data (at compressed byte 3000): the compressed data is cut short$" "$tmp/cut.txt"' \
        "exit $status: $(cat "$tmp/cut.txt")"

# idle: nothing happens, so the daemon does nothing
n=$(count idle '$4 != "" || $5 > 0')
check idle "no action: no raise, lower or compaction" '[ "$n" -eq 0 ]' "$n decisions"
check idle "no crossing and no false alarm in the score" \
        'grep -q "crossings: 0 of low, 0 of min, 0 order" "$tmp/idle.txt" && grep -q "false alarms: 0 of 0" "$tmp/idle.txt"' \
        "$(grep -E 'crossings|false alarms' "$tmp/idle.txt" | tr -s ' ' | tr '\n' ';')"

# bursts at 1 s: the bursts fill memory within two samples; the daemon
# raises no later than the sample that shows the first stall
r=$(first bursts '$4 ~ /^raise/') s=$(first bursts '$9 > 0 || $10 > 0')
check bursts "raises no later than the first allocation or compaction stall" 'no_later "$r" "$s"' "raise at $r s, stall at $s s"
check bursts "the raise is to at least 1.5 times the baseline" \
        '[ "$(awk -F, -v t="$r" "NR > 1 && \$1 == t { print \$2 }" "$tmp/bursts.csv")" -ge 15 ]' \
        "wsf $(awk -F, -v t="$r" 'NR > 1 && $1 == t { print $2 }' "$tmp/bursts.csv") at $r s"

# bursts at 250 ms: the same workload sampled finer: the forecast sees the
# fall and raises before the first stall; the scale factor comes back down
# once the calm period has passed
r=$(first bursts-250ms '$4 ~ /^raise/') s=$(first bursts-250ms '$9 > 0 || $10 > 0')
ls=$(last bursts-250ms '$9 > 0 || $10 > 0')
lo=$(first bursts-250ms "\$4 ~ /^lower/ && \$1 > ${ls/none/0}")
check bursts-250ms "raises before the first stall" 'before "$r" "$s"' "raise at $r s, stall at $s s"
check bursts-250ms "lowers the scale factor after the last stall" '[ "$lo" != none ]' "last stall at $ls s, then first lower at $lo s"

# streaming: anonymous memory grows steadily into a full page cache; the
# forecast sees the fall and raises before free pages cross low and before
# any stall
r=$(first streaming '$4 == "raise"') c=$(first_crossing streaming low) s=$(first streaming '$9 > 0 || $10 > 0')
check streaming "a forecast raise before free pages cross low" 'before "$r" "$c"' "raise at $r s, crossing at $c s"
check streaming "a forecast raise before the first stall" 'before "$r" "$s"' "raise at $r s, stall at $s s"

# accumulate: memory grows to 70 % of RAM in 2 s rounds; raise before the
# first stall
r=$(first accumulate '$4 ~ /^raise/') s=$(first accumulate '$9 > 0 || $10 > 0')
check accumulate "raises before the first stall" 'before "$r" "$s"' "raise at $r s, stall at $s s"

# fragmented: a page kept in every 2 MiB block, then THP demand. At +17 s
# the fragmenter lets go of its memory in single pages (an episode until
# +18 s), and in the interval before +18 s the program starts faulting
# huge pages (AnonHugePages grew by 1.1 % of memory). A compaction goes
# before the faults, at the release (0.4.10), never into them (0.4.6
# compacted at +18 s; it did not help, 761856 -> 302080 pages in blocks,
# and 2618 compaction stalls followed; 0.4.7 and 0.4.8 compacted at none),
# and none after the stalls, when the program's release had left free
# memory in huge blocks (nothing to compact)
k=$(first fragmented '$5 > 0') s=$(first fragmented '$10 > 0')
# seconds from the first sample to the first whose interval saw huge pages
# faulted in (AnonHugePages grew by 1 % of memory or more)
faults=$(awk '/"type":"sample"/ {
        match($0, /"t":[0-9.]+/); t = substr($0, RSTART + 4, RLENGTH - 4)
        match($0, /"anon_huge":[0-9]+/); h = substr($0, RSTART + 12, RLENGTH - 12)
        match($0, /"mem_total":[0-9]+/); m = substr($0, RSTART + 12, RLENGTH - 12)
        if (t0 == "") t0 = t
        if (h0 != "" && h - h0 >= m / 100) { printf "%.3f\n", t - t0; found = 1; exit }
        h0 = h }
        END { if (!found) print "none" }' "$traces/fragmented.jsonl")
check fragmented "compacts when the fill lets go, before the program's huge-page faults" \
        '[ "$faults" != none ] && before "$k" "$faults"' "first compaction at $k s, faults from $faults s"
check fragmented "compacts once: none into the faults, none after the stalls" \
        '[ "$(count fragmented '"'"'$5 > 0'"'"')" -eq 1 ]' "$(count fragmented '$5 > 0') compaction(s)"
check fragmented "the trace has the compaction stalls the faults met" '[ "$s" != none ]' "compact_stall at $s s"

# the score finds what the recorded numbers show (facts of the traces, not
# of the policy): Normal's order-9 blocks ran out in fragmented, its free
# pages fell below low in streaming
o=$(sed -n 's/^ *+\([0-9.]*\) s  node0 Normal ran out of order-9 blocks:.*/\1/p' "$tmp/fragmented.txt" | head -1)
check fragmented "the score finds Normal's order-9 blocks running out" '[ -n "$o" ]' "at ${o:-none} s"
check streaming "the score finds Normal's free pages falling below low" '[ "$c" != none ]' "at $c s"

# drain-1g: THP memory taken at 1 GiB/s from an emptied page cache (95 MB
# left), with tests/raise.conf (integration-root.sh's): kswapd has next to
# nothing to reclaim, so with the OOM headroom (5 %) left aside no raise is
# made, and the daemon says why
cp "$src/tests/raise.conf" "$tmp/raise.conf"
replay drain-1g "$tmp/raise.conf"
r=$(first drain-1g '$4 ~ /^raise/')
check drain-1g "no raise while kswapd has next to nothing to reclaim" '[ "$r" = none ]' "raise at $r s"
check drain-1g "says that a raise is called for and held back for it" \
        'grep -q "holding back raises .*: a raise is called for, but kswapd could reclaim only" "$tmp/drain-1g.txt"' \
        "$(grep -c 'holding back raises' "$tmp/drain-1g.txt") hold lines"
# ...and with no headroom, a raise before the allocation ends (the lowest
# free pages), no higher than those 95 MB allow
printf 'oom_headroom = 0%%\n' >> "$tmp/raise.conf"
replay drain-1g "$tmp/raise.conf"
e=$(awk -F, 'NR > 1 && (min == "" || $6 < min) { min = $6; t = $1 } END { print t }' "$tmp/drain-1g.csv")
r=$(first drain-1g '$4 ~ /^raise/')
check drain-1g "raises while memory is taken, before the allocation ends" 'before "$r" "$e"' "raise at $r s, lowest free at $e s"
check drain-1g "the raise says it went no higher than kswapd could reclaim" \
        'grep -q "raise vm.watermark_scale_factor .*; no higher: kswapd could reclaim only" "$tmp/drain-1g.txt"' \
        "highest $(awk -F, 'NR > 1 && $2 > h { h = $2 } END { print h + 0 }' "$tmp/drain-1g.csv")"
# growing-zone: drain-1g with node 0's Normal zone growing as the memory is
# taken and its free pages flat (tests/traces/grow-zone), as on a freshly
# booted machine: the same consumption, which the daemon must answer as on
# drain-1g, as high before the allocation ends (a raise for a small dip of
# free pages before it does not count)
replay growing-zone "$tmp/raise.conf"
r=$(first growing-zone '$4 ~ /^raise/')
highest() { awk -F, -v e="$e" 'NR > 1 && $1 < e && $2 > h { h = $2 } END { print h + 0 }' "$tmp/$1.csv"; }
hd=$(highest drain-1g) hg=$(highest growing-zone)
check growing-zone "raises while memory is taken from a growing zone, before the allocation ends" 'before "$r" "$e"' "raise at $r s, drain-1g's lowest free at $e s"
check growing-zone "raises as high as on drain-1g before the allocation ends" '[ "$hg" -ge "$hd" ]' "$hg here, $hd on drain-1g"

# a candidate configuration against the recorded decisions: without
# compaction, the recorded compactions are shown as not taken, and counted
printf 'compaction = no\n' > "$tmp/nocompact.conf"
"$bin" replay "$traces/fragmented.jsonl" -c "$tmp/nocompact.conf" > "$tmp/nc.txt"
n=$(grep -c '(recorded: would compact node0' "$tmp/nc.txt" || true)
check fragmented "with compaction = no, the recorded compactions are listed as not taken" '[ "$n" -ge 1 ]' "$n listed"
check fragmented "with compaction = no, the summary counts no replayed compaction" \
        'grep -q "replayed decisions: .* 0 compactions" "$tmp/nc.txt"' "$(grep 'replayed decisions' "$tmp/nc.txt" | tr -s ' ')"

# mixed: the bench's mixed scenario (a reader through the page cache, four
# kinds of episode, calm phases of 20 s), recorded by the daemon it ran
# (bench/run keeps it): the value goes up for episodes and comes back down
# between them, to the baseline; no raise for a shortfall or for stalls
# while free memory is already below low (kswapd is awake then, and a
# higher watermark would only keep it reclaiming after the burst).
replay mixed
n=$(count mixed '($4 == "raise" || $4 == "raise-stall") && $6 < $7')
check mixed "no shortfall or stall raise with free memory below low" '[ "$n" -eq 0 ]' "$n such raises"
base=$(awk -F, 'NR == 2 { print $3 }' "$tmp/mixed.csv")
n=$(count mixed "\$4 == \"lower\" && \$2 != $base")
check mixed "every lower is to the baseline ($base)" '[ "$n" -eq 0 ]' "$n lowers elsewhere"
read -r up longest rows < <(awk -F, -v b="$base" 'NR > 1 { n++; if ($2 > b) { u++; if (!s) s = $1; if ($1 - s > m) m = $1 - s } else s = 0 }
        END { printf "%d %.0f %d\n", u, m, n }' "$tmp/mixed.csv")
lowers=$(count mixed '$4 == "lower"')
check mixed "given back after each of the four episode kinds, never held across a calm phase (20 s) and the next episode" \
        '[ "$lowers" -ge 4 ] && [ "$longest" -le 35 ]' "$lowers lowers; $up of $rows samples above the baseline, longest stretch $longest s"
n=$(count mixed '$4 ~ /^raise/')
check mixed "it raised at all" '[ "$n" -ge 1 ]' "$n raises"

# mixed-thp: the same scenario recorded by a daemon that reads what the
# workload holds (AnonPages, Shmem, Dirty, Writeback): its first episode,
# a burst of huge pages at ~0.6 GB/s with 1.5 GB free and kswapd asleep,
# is raised for at onset, before any stall; the reader refilling its cache
# after each episode is no episode (no raise in calm), and every kind is
# given back to the baseline before the next.
replay mixed-thp
r=$(first mixed-thp '$4 ~ /^raise/') s=$(first mixed-thp '$9 > 0 || $10 > 0')
check mixed-thp "the first raise comes before the first stall" 'before "$r" "$s"' "raise at $r s, stall at $s s"
line=$(grep -m1 'would raise' "$tmp/mixed-thp.txt" | sed 's/^ *//' || true)
check mixed-thp "the first raise is at onset, for huge pages kswapd's reclaim does not make" \
        '[[ $line == *" at onset: "*"of it huge pages"* ]]' "$line"
base=$(awk -F, 'NR == 2 { print $3 }' "$tmp/mixed-thp.csv")
n=$(count mixed-thp "\$4 == \"lower\" && \$2 != $base")
check mixed-thp "every lower is to the baseline ($base)" '[ "$n" -eq 0 ]' "$n lowers elsewhere"
read -r up longest rows < <(awk -F, -v b="$base" 'NR > 1 { n++; if ($2 > b) { u++; if (!s) s = $1; if ($1 - s > m) m = $1 - s } else s = 0 }
        END { printf "%d %.0f %d\n", u, m, n }' "$tmp/mixed-thp.csv")
lowers=$(count mixed-thp '$4 == "lower"')
check mixed-thp "given back after each of the four episode kinds, never held across a calm phase (20 s) and the next episode" \
        '[ "$lowers" -ge 4 ] && [ "$longest" -le 35 ]' "$lowers lowers; $up of $rows samples above the baseline, longest stretch $longest s"
n=$(count mixed-thp '$4 == "raise" && $6 < $7')
check mixed-thp "no shortfall raise with free memory below low" '[ "$n" -eq 0 ]' "$n such raises"

# mixed-recur: the scenario recorded by the 0.3.0 controller (04fba7f):
# the train (5 bursts, every 4 s) is given back between its bursts until
# its pattern is known; then its later bursts are raised for by the
# recurrence they make (a raise, or a give-back kept at what the next burst
# needs when it is due within the lead: since 0.3.7, not lowered to the
# baseline and raised again a sample later); after its last burst the
# value is back at the baseline within one period, and an expected burst
# that does not come costs at most one period raised.
replay mixed-recur
base=$(awk -F, 'NR == 2 { print $3 }' "$tmp/mixed-recur.csv")
# decisions made for the train's pattern (a period within a quarter of 4 s)
train_pattern='^ *+[0-9.]* s  would .*a recurring pressure episode (every [3-4][.][0-9] s'
n=$(grep -c "$train_pattern" "$tmp/mixed-recur.txt" || true)
# Since 0.3.9 a raise is at least the pace floor (policy.h), above what
# this train's pattern needs: the value is then kept in force between its
# later bursts and no decision needs to name the pattern. Either way, where
# the recording daemon raised for the train's recurrence, a raise is in
# force in the replay.
due=$(sed -n 's/^ *+\([0-9.]*\) s  (recorded: raise .*a recurring pressure episode (every [3-4][.][0-9] s.*/\1/p' "$tmp/mixed-recur.txt")
read -r covered of < <(for t in $due; do
        awk -F, -v t="$t" -v b="$base" 'NR > 1 && $1 - t < 0.05 && t - $1 < 0.05 { print ($2 > b) }' "$tmp/mixed-recur.csv"
done | awk '{ c += $1; n++ } END { print c + 0, n + 0 }')
check mixed-recur "the train's recurrence is seen: a decision for a burst before it comes, or a raise kept in force for it" \
        '[ "$n" -ge 1 ] || { [ "$of" -ge 1 ] && [ "$covered" -eq "$of" ]; }' \
        "$n decisions for the train's pattern; raised at $covered of the $of times the recording daemon raised for it"
# the last moment the value was raised or kept for the pattern
pat=$({ grep "$train_pattern" "$tmp/mixed-recur.txt" || true; } | tail -1 | sed 's/^ *+\([0-9.]*\) s.*/\1/')
[ -n "$pat" ] || pat=$(printf '%s\n' $due | tail -1)
back=$(first mixed-recur '$1 > '"${pat:-1e9}"' && $4 == "lower" && $2 == '"$base")
ended=$(sed -n 's/^ *+\([0-9.]*\) s  pressure episode over after.*/\1/p' "$tmp/mixed-recur.txt" |
        awk -v b="$back" '$1 < b + 0 { e = $1 } END { print e + 0 }')
check mixed-recur "after the train's last burst the value is back at the baseline ($base) within one period (4 s)" \
        '[ "$back" != none ] && awk "BEGIN { exit !($back - $ended <= 4.0) }"' \
        "last raise for the pattern (or kept for it) at ${pat:-none} s, last burst over at $ended s, baseline at $back s"
read -r open end < <(awk -F, 'NR > 1 { end = $1 }
        NR > 1 && $4 == "raise-recurrence" && !open { open = $1; next }
        NR > 1 && open && $4 == "lower" && $2 == '"$base"' { open = 0 }
        END { printf "%.1f %.1f\n", open, end }' "$tmp/mixed-recur.csv")
# A raise still in force when the trace ends is for a pattern of its own
# (the run's last episodes, about 25 s apart): it cannot be judged unless
# the trace went on for longer than that pattern's period.
period=$(sed -n 's/^ *+'"$open"' s  would raise .*recurring pressure episode (every \([0-9.]*\) s.*/\1/p' "$tmp/mixed-recur.txt" | head -1)
check mixed-recur "a raise still in force at the end is younger than its pattern's period" \
        '[ "$open" = 0.0 ] || awk "BEGIN { exit !(${period:-0} > 0 && $end - $open <= ${period:-0}) }"' \
        "raised at $open s for a pattern every ${period:-?} s, trace ends at $end s"
gaps=$(awk -F, 'NR > 1 && $4 == "lower" && $2 == '"$base"' { l = $1 } NR > 1 && $4 ~ /^raise/ && l && $1 - l <= 4.0 { n++; l = 0 } END { print n + 0 }' "$tmp/mixed-recur.csv")
check mixed-recur "given back between the train's bursts until its pattern is known: at least 2 lowers to the baseline followed within a period by the next raise" \
        '[ "$gaps" -ge 2 ]' "$gaps such lowers"

# replay tells each episode's end, as the daemon logs it; and the score
# lists each false alarm it counts
ends=$(grep -c "^ *+[0-9.]* s  pressure episode over after" "$tmp/mixed-recur.txt" || true)
check mixed-recur "every episode's end is told: at least the train's 5 and the three other kinds'" \
        '[ "$ends" -ge 8 ]' "$ends episode ends"
read -r fa held < <(sed -n 's/^  false alarms: \([0-9]*\) of [0-9]* raises; \([0-9]*\) more held.*/\1 \2/p' "$tmp/mixed-recur.txt")
listed=$(grep -c ": false alarm (at the baseline its zones kept" "$tmp/mixed-recur.txt" || true)
check mixed-recur "every false alarm counted is listed" \
        '[ "$listed" -eq "${fa:--1}" ] && [ "${fa:-0}" -ge 1 ]' "$fa false alarms, $listed listed"
# ... and tells a raise the recording daemon's own raise held (a burst
# took more than the node had above its lows at the raise, yet kswapd,
# woken by the raise, kept it from running out) from a false alarm
read -r fa held < <(sed -n 's/^  false alarms: \([0-9]*\) of [0-9]* raises; \([0-9]*\) more held.*/\1 \2/p' "$tmp/mixed-thp.txt")
listed=$(grep -c ": false alarm (at the baseline its zones kept" "$tmp/mixed-thp.txt" || true)
check mixed-thp "every false alarm counted is listed, and some raises were held" \
        '[ "$listed" -eq "${fa:--1}" ] && [ "${held:-0}" -ge 1 ]' "$fa false alarms, $listed listed, $held held"

# Debian 12 (6.1) and 13 (6.12), recorded in the package test's VMs under
# a memory consumer, with tests/traces/debian-vm.conf: the decision code
# runs on those kernels' numbers, and raises no later than the sample that
# shows the first allocation stall.
for t in debian12-6.1 debian13-6.12; do
        k=$(gzip -dc "$traces/$t.jsonl.gz" | sed -n '1s/.*"kernel":"\([^"]*\)".*/\1/p')
        check "$t" "recorded on Linux ${t#*-}" '[[ $k == "${t#*-}".* ]]' "kernel $k"
        status=0
        gzip -dc "$traces/$t.jsonl.gz" |
                "$bin" replay - -c "$traces/debian-vm.conf" --csv > "$tmp/$t-vm.csv" 2> "$tmp/$t-vm.txt" || status=$?
        [ "$status" -eq 0 ] || { echo "FAIL: $t: replay exited $status:"; cat "$tmp/$t-vm.txt"; exit 1; }
        r=$(first "$t-vm" '$4 ~ /^raise/') s=$(first "$t-vm" '$9 > 0')
        check "$t" "a raise no later than the first allocation stall" \
                '[ "$s" = none ] || no_later "$r" "$s"' "raise at $r s, stall at $s s"
        replay "$t"
        r=$(first "$t" '$4 ~ /^raise/') s=$(first "$t" '$9 > 0')
        check "$t" "with the defaults too" '[ "$s" = none ] || no_later "$r" "$s"' "raise at $r s, stall at $s s"
done

exit "$fail"
