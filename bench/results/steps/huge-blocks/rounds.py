#!/usr/bin/env python3
"""rounds.py RESULT.json...: per configuration, each round's stalls, their
share of the same round's defaults, the reader's loss, the train's stalls,
p99 and run time; medians of the shares and losses. Several files (one
scenario, several sittings) are read as consecutive rounds (load(), which
steps/fit-room/rounds.py uses too)."""
import json
import statistics as st
import sys


def load(paths):
    """Per configuration, its runs by round; each file's rounds numbered
    after the last file's."""
    by = {}
    n = 0
    for path in paths:
        runs = json.load(open(path))["runs"]
        for r in runs:
            by.setdefault(r["config"], {})[n + r["run"]] = r
        n += max(r["run"] for r in runs)
    return by


def main(paths):
    by = load(paths)
    dfl = by["defaults"]
    for c, rs in by.items():
        ks = sorted(k for k in rs if k in dfl)
        sh = [rs[k]["stalls"] / max(1, dfl[k]["stalls"]) * 100 for k in ks]
        lost = [rs[k]["lost_pct"] for k in ks]
        print(f"{c}: stalls {[rs[k]['stalls'] for k in ks]} share {[round(x) for x in sh]} "
              f"(median {st.median(sh):.0f} %), reader lost {[round(x, 1) for x in lost]} (median {st.median(lost):.1f} %), "
              f"train {[rs[k]['stalls_train'] for k in ks]}, p99 {st.median(rs[k]['lat_p99_ms'] for k in ks):.2f} ms, "
              f"run {st.median(rs[k]['app_s'] for k in ks):.2f} s")


if __name__ == "__main__":
    main(sys.argv[1:])
