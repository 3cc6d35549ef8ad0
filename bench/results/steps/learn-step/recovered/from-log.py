#!/usr/bin/env python3
"""The per-run members bench/run prints to its log, as a bench/run result.

bench/run wrote no mixed.json for this sitting: its plot needed the
defaults' row (lost %), which the sitting did not have, and failed
before the JSON was written (fixed after it). Its log keeps, per run, in
the order they ran: stalls, refaults, the reader's MiB/s (and in calm
phases) and the stalls per phase; not the allocating program's p99 or
run time (the log has their medians only).

usage: from-log.py RUN.LOG > mixed-from-log.json
"""
import json
import re
import sys

LINE = re.compile(r"^\[\s*\d+/\d+\] (\S+)\s+(\S+)\s+run (\d+): stalls\s+(\d+)\s+free mean\s+(\S+) min\s+(\S+) GiB"
                  r"\s+refaults\s+(\d+)\s+reader\s+(\d+) MiB/s \(calm\s+(\d+)\)\s+train (\d+)\s+streaming (\d+)"
                  r"\s+accumulate (\d+)\s+irregular (\d+)")
runs = []
with open(sys.argv[1], encoding="utf-8") as f:
    for line in f:
        m = LINE.match(line)
        if not m:
            continue
        g = m.groups()
        runs.append(dict(scenario=g[0], config=g[1], run=int(g[2]), stalls=int(g[3]), free_mean=float(g[4]),
                         free_min=float(g[5]), refaults=int(g[6]), reader_mib_s=float(g[7]),
                         reader_calm_mib_s=float(g[8]), stalls_train=int(g[9]), stalls_streaming=int(g[10]),
                         stalls_accumulate=int(g[11]), stalls_irregular=int(g[12])))
json.dump(dict(scenario="mixed", source=sys.argv[1], runs=runs), sys.stdout, indent=1)
