#!/usr/bin/env python3
"""Round by round: does a row (A) have both fewer stalls and more reader throughput than B?"""
import json, sys
d = json.load(open(sys.argv[1]))
runs = d["runs"]
by = {}
for r in runs:
    by.setdefault(r["config"], {})[r["run"]] = r
a, rows = sys.argv[2], sys.argv[3:]
for b in rows:
    out = []
    for n in sorted(by[a]):
        if n not in by.get(b, {}):
            continue
        ra, rb = by[a][n], by[b][n]
        dom = ra["stalls"] < rb["stalls"] and ra["reader_mib_s"] > rb["reader_mib_s"]
        out.append(f"r{n}:{ra['stalls']}/{ra['reader_mib_s']:.0f} vs {rb['stalls']}/{rb['reader_mib_s']:.0f}{' DOM' if dom else ''}")
    print(f"{a} over {b}: " + "; ".join(out))
    print(f"  dominated in {sum('DOM' in o for o in out)} of {len(out)} rounds")
