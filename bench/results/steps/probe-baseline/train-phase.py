#!/usr/bin/env python3
"""Per row of a mixed.json: each run's train phase (stalls alloc+compact, refaults M, reader MiB/s),
the train + calm after it refaults, and medians."""
import json, statistics, sys
d = json.load(open(sys.argv[1]))
rows = {}
for r in d["runs"]:
    ph = r["phases"]
    i = next(i for i, p in enumerate(ph) if p["kind"] == "train")
    t, c = ph[i], ph[i + 1]
    rows.setdefault(r["config"], []).append((r["run"], t["allocstall"], t["compact_stall"], t["refaults"] / 1e6,
                                             t["reader_mib_s"], (t["refaults"] + c["refaults"]) / 1e6, t["wsf_max"]))
for k, v in rows.items():
    v.sort()
    print(f"== {k}: run alloc+compact stalls, refaults M, reader MiB/s, train+calm refaults M, wsf max")
    for x in v:
        print(f"  run {x[0]}: {x[1]}+{x[2]}  {x[3]:.2f}  {x[4]:.0f}  {x[5]:.2f}  {x[6]}")
    med = lambda j: statistics.median(x[j] for x in v)
    print(f"  median: stalls {statistics.median(x[1] + x[2] for x in v):.0f}  refaults {med(3):.2f}  reader {med(4):.0f}  train+calm {med(5):.2f}")
    w = [x for x in v if x[0] > 1]
    if len(w) < len(v):
        print(f"  median of runs 2-: stalls {statistics.median(x[1] + x[2] for x in w):.0f}  refaults {statistics.median(x[3] for x in w):.2f}  reader {statistics.median(x[4] for x in w):.0f}  train+calm {statistics.median(x[5] for x in w):.2f}")
