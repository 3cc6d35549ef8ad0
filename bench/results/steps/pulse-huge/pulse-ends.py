#!/usr/bin/env python3
"""Per daemon run of a sitting (results/steps/pulse-huge, 2026-12-06): its wake pulses (replayed starts, which both
builds share), each pulse's end as the daemon logged it, and the stalls in
the 1.5 s after the pulse's sample (the trace's counters).

  pulse-ends.py MEMOPTIMIZER RESULT_DIR SCENARIO

e.g. from this directory: ./pulse-ends.py ../../../../build/src/memoptimizer . outside
(pulse-ends-mixed.txt and pulse-ends-outside.txt were made so, with 0.4.11's
release build: the starts are its replay's, which B shares)."""
import json, os, re, sys, collections
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../.."))
from tracefile import records, replayed_wakes

exe, top, scen = sys.argv[1], sys.argv[2], sys.argv[3]
md = open(os.path.join(top, scen + ".md")).read()
ends = {}
for m in re.finditer(r"^(\S+(?: \(warm\))?), run (\d+):\n```\n(.*?)```", md, re.M | re.S):
    ends[(m.group(1).replace(" (warm)", "-warm"), int(m.group(2)))] = re.findall(r"open again after (\d+) ms: ([^(\n]+)", m.group(3))
d = json.load(open(os.path.join(top, scen + ".json")))
tot = collections.defaultdict(lambda: [0, 0, 0, collections.Counter()])
for r in sorted(d["runs"], key=lambda r: (r["config"], r["run"])):
    if not r["config"].startswith("memoptimizer"):
        continue
    name = f'{scen}-{r["config"]}-{r["run"]}'
    tp = os.path.join(top, "traces", name + ".jsonl.gz")
    wakes = replayed_wakes(exe, tp)
    recs = list(records(tp)); start = recs[0]["started_mono"]
    ss = [x for x in recs if x.get("type") == "sample"]
    stl = lambda x: x["vmstat"]["allocstall"] + x["vmstat"]["compact_stall"]
    after = []
    for w in wakes:
        i = min(range(len(ss)), key=lambda j: abs(ss[j]["t"] - start - w))
        j = i
        while j + 1 < len(ss) and ss[j]["t"] - ss[i]["t"] < 1.5:
            j += 1
        after.append(stl(ss[j]) - stl(ss[i]))
    e = ends.get((r["config"], r["run"]), [])
    t = tot[r["config"]]
    t[0] += len(wakes); t[1] += sum(a >= 20 for a in after); t[2] += sum(after)
    for ms, why in e:
        t[3][why.strip()] += 1
    print(f'{r["config"]:20s} run {r["run"]}: pulses at {[round(w, 1) for w in wakes]}, stalls in 1.5 s after {after}; ends {[(int(ms), why.strip()) for ms, why in e]}')
for c, t in tot.items():
    print(f"{c}: {t[0]} pulses, {t[1]} followed by 20+ stalls, {t[2]} stalls in the 1.5 s after them; ends {dict(t[3])}")
