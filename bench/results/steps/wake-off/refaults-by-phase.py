#!/usr/bin/env python3
"""Median refaults (workingset_refault_file, millions) by phase of each row of a mixed.json.

  refaults-by-phase.py RESULT_DIR/mixed.json"""
import json, statistics, sys

d = json.load(open(sys.argv[1]))
rows = {}
for r in d["runs"]:
    rows.setdefault(r["config"], []).append([p["refaults"] / 1e6 for p in r["phases"]])
print("phases:", ", ".join(p["kind"] for p in d["runs"][0]["phases"]))
for c, vs in rows.items():
    med = [statistics.median(v[i] for v in vs) for i in range(len(vs[0]))]
    print(f"{c:20s}", " ".join(f"{m:.2f}" for m in med), f"sum {sum(med):.2f}")
