#!/usr/bin/env python3
"""kswapd's reclaim rate over intervals it was awake for all of (it reclaimed in the
interval before too, and free memory is still below high at the end), binned by the
scale factor in force. usage: kswapd-full-intervals.py TRACE.jsonl.gz..."""
import collections
import gzip
import json
import sys

bins = collections.defaultdict(list)
for trace in sys.argv[1:]:
    prev, prev_rate = None, 0
    for line in gzip.open(trace, "rt"):
        x = json.loads(line)
        if x.get("type") != "sample":
            continue
        if prev:
            dt = x["t"] - prev["t"]
            rate = (x["vmstat"]["pgsteal_kswapd"] - prev["vmstat"]["pgsteal_kswapd"]) * 4096 / 1e6 / dt
            high = sum(z["wmark_high"] for z in x["zones"])
            if prev_rate > 0 and rate > 0 and x["meminfo"]["mem_free"] < high and dt > 0.9:
                w = prev["wsf"]
                b = 10 if w <= 10 else 100 if w <= 100 else 200 if w <= 200 else 400 if w <= 400 else 1000
                bins[b].append(rate)
            prev_rate = rate
        prev = x
for b in sorted(bins):
    v = sorted(bins[b])
    n = len(v)
    print(f"wsf <= {b:4d}: n {n:4d} median {v[n // 2]:6.0f} MB/s p90 {v[int(n * .9)]:6.0f} max {v[-1]:6.0f}")
