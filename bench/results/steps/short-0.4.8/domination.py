#!/usr/bin/env python3
"""Issue 14's domination, round by round, for the daemon rows of this sitting.
usage (from this folder): python3 domination.py
A static row dominates a daemon row in a round when it has fewer stalls and
(less idle memory (free mean) or fewer refaults); "as few" counts equal
stalls with less idle memory or fewer refaults (bench/run's tables count
so). Also: the stalls summed over the rounds, and bursts' first burst."""
import json

STATIC = ["defaults", "wsf=100", "wsf=300"]
for s in ["bursts", "streaming", "accumulate", "fragmented"]:
    runs = json.load(open(f"{s}.json"))["runs"]
    by = {(r["config"], r["run"]): r for r in runs}
    rounds = sorted({r["run"] for r in runs})
    total = {c: sum(by[(c, k)]["stalls"] for k in rounds if (c, k) in by) for c in {r["config"] for r in runs}}
    print(f"## {s}: stalls summed over {len(rounds)} rounds: " +
          ", ".join(f"{c} {total[c]}" for c in sorted(total)))
    if s == "bursts":
        first = {c: sum(by[(c, k)]["first_burst_stalls"] for k in rounds if (c, k) in by) for c in total}
        print("   first burst summed: " + ", ".join(f"{c} {first[c]}" for c in sorted(first)))
    for d in ["memoptimizer", "memoptimizer-warm"]:
        for st in STATIC:
            strict = as_few = 0
            for k in rounds:
                a, b = by[(st, k)], by[(d, k)]
                cheaper = a["free_mean"] < b["free_mean"] or a["refaults"] < b["refaults"]
                strict += a["stalls"] < b["stalls"] and cheaper
                as_few += a["stalls"] <= b["stalls"] and cheaper
            print(f"   {st} over {d}: dominates in {strict} of {len(rounds)} rounds; "
                  f"as few stalls and cheaper in {as_few}")
