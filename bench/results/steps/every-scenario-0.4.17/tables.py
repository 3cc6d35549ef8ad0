#!/usr/bin/env python3
"""tables.py RESULTS_DIR: the tables of "Every scenario with 0.4.17" from
bench/run's JSON files (no figure typed by hand)."""
import json
import os
import statistics as st
import sys

SHORT = ["bursts", "streaming", "accumulate", "fragmented"]
NAMES = {"memoptimizer-warm": "memoptimizer (warm)"}


def runs(d, scen):
    p = os.path.join(d, scen + ".json")
    return json.load(open(p))["runs"] if os.path.exists(p) else []


def short(d):
    rs = {s: {r["config"]: r for r in runs(d, s)} for s in SHORT}
    cfgs = list(next(iter(v for v in rs.values() if v)).keys())
    print("| scenario | " + " | ".join(NAMES.get(c, c) for c in cfgs) + " |")
    print("|---" * (len(cfgs) + 1) + "|")
    for s in SHORT:
        if not rs[s]:
            continue
        cells = []
        for c in cfgs:
            r = rs[s][c]
            cells.append(f"{r['stalls']} / {r['refaults'] / 1e6:.2f} / {r['free_mean']:.2f} / "
                         f"{r['lat_p99_ms']:.1f} / {r['app_s']:.1f}")
        print(f"| {s} | " + " | ".join(cells) + " |")
    print("\n(stalls / refaults M / mean free GiB / p99 fault ms / run s)")
    b = rs["bursts"]
    print("bursts first-burst stalls: " + ", ".join(f"{c} {b[c]['first_burst_stalls']}" for c in cfgs))


def mixed(d):
    rs = runs(d, "mixed")
    if not rs:
        return
    by = {}
    for r in rs:
        by.setdefault(r["config"], {})[r["run"]] = r
    dfl = by["defaults"]
    print("\n| config | stalls by round | paired % of the defaults' | reader lost % by round (median) "
          "| refaults M | p99 ms | run s | train / streaming / accumulate / irregular (medians) |")
    print("|---|---|---|---|---|---|---|---|")
    for c, rr in by.items():
        ks = sorted(rr)
        sh = [rr[k]["stalls"] / max(1, dfl[k]["stalls"]) * 100 for k in ks]
        lost = [rr[k]["lost_pct"] for k in ks]
        med = lambda f: st.median(rr[k][f] for k in ks)
        ph = " / ".join(f"{med('stalls_' + p):.0f}" for p in ("train", "streaming", "accumulate", "irregular"))
        print(f"| {NAMES.get(c, c)} | {', '.join(str(rr[k]['stalls']) for k in ks)} | "
              f"{', '.join(f'{x:.0f}' for x in sh)} (median {st.median(sh):.0f}) | "
              f"{', '.join(f'{x:.1f}' for x in lost)} ({st.median(lost):.1f}) | {med('refaults') / 1e6:.2f} | "
              f"{med('lat_p99_ms'):.2f} | {med('app_s'):.2f} | {ph} |")


if __name__ == "__main__":
    short(sys.argv[1])
    mixed(sys.argv[1])
