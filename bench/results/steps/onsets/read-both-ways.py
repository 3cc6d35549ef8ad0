#!/usr/bin/env python3
"""For each trace: the 4th and 5th onsets of huge pages between +28 and +62 s
(AnonHugePages growing by >= 64 MB after a sample where it did not), with the
scale factor read at the sample before the onset (the first sitting's
pre-registered words: before the daemon's decision at that sample) and at the
onset sample (the value in force while the burst began: bench/train-lead).
usage: read-both-ways.py TRACE..."""
import importlib.machinery
import importlib.util
import os
import sys

BENCH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..")
sys.path.insert(0, BENCH)
_loader = importlib.machinery.SourceFileLoader("trainlead", os.path.join(BENCH, "train-lead"))
trainlead = importlib.util.module_from_spec(importlib.util.spec_from_loader("trainlead", _loader))
_loader.exec_module(trainlead)

tot = {}
for path in sys.argv[1:]:
    ss = list(trainlead.samples(path))
    t0 = ss[0]["t"]
    tr = [i for i in trainlead.onsets(ss, 64 * 256) if 28 < ss[i]["t"] - t0 < 62][3:5]
    row = "other" if "-other-" in path else "memoptimizer"
    t = tot.setdefault(row, [0, 0, 0])
    for i in tr:
        t[0] += ss[i - 1]["wsf"] >= 100
        t[1] += ss[i]["wsf"] >= 100
    t[2] += 2
    print(os.path.basename(path), " ".join(f"+{ss[i]['t'] - t0:.1f}s {ss[i - 1]['wsf']}/{ss[i]['wsf']}" for i in tr))
for row, (a, b, n) in tot.items():
    print(f"{row}: >= 100 read at the sample before {a} of {n}; in force while the burst began {b} of {n}")
