#!/usr/bin/env python3
"""rounds.py RESULT.json...: per configuration and round, what the
pre-registration (prereg.txt) judges: stalls and their share of the same
round's defaults, the reader's loss, refaults (whole run and the train's),
the train's stalls, raises; then the medians, and p99 and run time. Several
files (one scenario, several sittings) are read as consecutive rounds."""
import os
import statistics as st
import sys

sys.dont_write_bytecode = True  # leave no __pycache__ among the results
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "huge-blocks"))
from rounds import load  # noqa: E402  (steps/huge-blocks/rounds.py)

by = load(sys.argv[1:])
dfl = by["defaults"]
for c, rs in by.items():
    ks = sorted(k for k in rs if k in dfl)
    sh = [rs[k]["stalls"] / max(1, dfl[k]["stalls"]) * 100 for k in ks]
    col = lambda key: [rs[k].get(key) for k in ks]
    med = lambda key: st.median(x for x in col(key) if x is not None)
    print(f"{c}:")
    print(f"  stalls {col('stalls')} share {[round(x) for x in sh]} (median {st.median(sh):.0f} %)")
    print(f"  reader lost {[round(x, 1) for x in col('lost_pct')]} (median {med('lost_pct'):.1f} %)")
    print(f"  refaults {[round(x / 1e6, 2) for x in col('refaults')]} M (median {med('refaults') / 1e6:.2f}), "
          f"train {[round(x / 1e3) for x in col('refaults_train')]} k (median {med('refaults_train') / 1e3:.0f})")
    print(f"  train stalls {col('stalls_train')}, accumulate {col('stalls_accumulate')}, "
          f"irregular {col('stalls_irregular')}, streaming {col('stalls_streaming')}")
    if rs[ks[0]].get("raise_n") is not None:
        print(f"  raises {col('raise_n')} (median {med('raise_n')})")
    print(f"  p99 {med('lat_p99_ms'):.2f} ms, run {med('app_s'):.2f} s, free mean {med('free_mean'):.2f} GiB")
