#!/usr/bin/env python3
"""The last note's lead, replayed (2026-12-06, after the pulse-huge sittings):
would "no wake pulse while the value in force is a recurrence raise at the
pace floor" act in outside? For each pulse a replay starts, the value in
force then and the kind of decision that set it (onset, recurrence, other;
"base" when none), and the stalls in the 1.5 s after the pulse's sample.

  pulse-at-value.py MEMOPTIMIZER TRACE...

pulse-at-value.txt was made so from bench/results/steps, with 0.4.11's
build (14652e0), over pulse-huge/traces, pulse-huge/second/traces and
wake-off/traces outside-memoptimizer-[0-9]*.jsonl.gz."""
import collections, os, re, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../.."))
from tracefile import records, replay_output

exe = sys.argv[1]
DECISION = re.compile(r"^\s*\+([0-9.]+) s\s+would (raise|lower) vm.watermark_scale_factor \d+ -> (\d+)(.*)$", re.M)
WAKE = re.compile(r"^\s*\+([0-9.]+) s\s+would wake kswapd", re.M)


def kind(verb, why):
    if verb == "lower":
        return "lower"
    if "recurring pressure episode (" in why:
        return "recur"
    return "onset" if " at onset" in why else "other"


tot = collections.defaultdict(lambda: [0, 0, 0])
for tp in sys.argv[2:]:
    out = replay_output(exe, tp)
    decisions = [(float(m[1]), int(m[3]), kind(m[2], m[4])) for m in DECISION.finditer(out)]
    recs = list(records(tp))
    start = recs[0]["started_mono"]
    ss = [x for x in recs if x.get("type") == "sample"]
    stalls = lambda x: x["vmstat"]["allocstall"] + x["vmstat"]["compact_stall"]
    row = []
    for w in (float(m[1]) for m in WAKE.finditer(out)):
        value, why = 10, "base"
        for t, v, k in decisions:
            if t <= w:
                value, why = v, k
        i = min(range(len(ss)), key=lambda j: abs(ss[j]["t"] - start - w))
        j = i
        while j + 1 < len(ss) and ss[j]["t"] - ss[i]["t"] < 1.5:
            j += 1
        after = stalls(ss[j]) - stalls(ss[i])
        t = tot[("<=100" if value <= 100 else ">100") + "/" + why]
        t[0] += 1; t[1] += after >= 20; t[2] += after
        row.append(f"{w:.1f}@{value}{why[0]}:{after}")
    print(tp, " ".join(row))
for k, v in sorted(tot.items()):
    print(f"{k}: {v[0]} pulses, {v[1]} followed by 20+ stalls, {v[2]} stalls after")
