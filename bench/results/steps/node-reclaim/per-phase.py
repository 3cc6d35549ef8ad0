#!/usr/bin/env python3
"""What the prototype reclaimed in each phase of each of its mixed runs
(its log's times are from its own start, which is the lead-in's)."""
import collections, json, sys
d = json.load(open(sys.argv[1]))
for x in d["runs"]:
    if x["config"] != "memoptimizer-other":
        continue
    got = collections.Counter()
    total = 0
    for line in x["daemon_log"].splitlines():
        if not line.startswith("+"):
            continue
        t = float(line.split()[0][1:])
        mib = int(line.split("free +")[1].split()[0])
        total += mib
        kind = next((p["kind"] for p in x["phases"] if p["t0"] <= t < p["t1"]), "after")
        got[kind] += mib
    print(f"run {x['run']}: {total} MiB freed; " +
          ", ".join(f"{k} {v}" for k, v in sorted(got.items())))
