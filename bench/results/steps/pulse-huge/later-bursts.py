#!/usr/bin/env python3
"""The mixed train's later bursts (4th and 5th), with and without a wake
pulse during them: how many stalled 20 times or more (2026-12-06).

  later-bursts.py MEMOPTIMIZER RESULT_DIR...

For each daemon run of each RESULT_DIR/mixed.json (the default
configuration's rows, cold or warm): the train phase's stalls per burst
(phases[].burst_stalls) and the pulses `memoptimizer replay` starts in the
trace (with the run's learned state, if any). A pulse is in burst k when it
starts within [t0 + 4(k-1) - 0.5, t0 + 4k - 0.5) s of the train's start t0
(bursts every 4 s). Made with 0.4.11's build on probe-baseline,
probe-baseline-v2 and neighbour-halved (later-bursts.txt)."""
import json, os, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../.."))
from tracefile import replayed_wakes  # noqa: E402

exe, tops = sys.argv[1], sys.argv[2:]
count = {True: [0, 0], False: [0, 0]}
for top in tops:
    d = json.load(open(os.path.join(top, "mixed.json")))
    for r in d["runs"]:
        if r["config"] not in ("memoptimizer", "memoptimizer-warm"):
            continue
        tr = next(p for p in r["phases"] if p["kind"] == "train")
        name = f'mixed-{r["config"]}-{r["run"]}'
        wakes = replayed_wakes(exe, os.path.join(top, "traces", name + ".jsonl.gz"))
        for k in (4, 5):
            lo, hi = tr["t0"] + 4 * (k - 1) - 0.5, tr["t0"] + 4 * k - 0.5
            pulsed = any(lo <= w < hi for w in wakes)
            stalls = tr["burst_stalls"][k - 1]
            count[pulsed][0] += 1
            count[pulsed][1] += stalls >= 20
            print(f'{top} {name} burst {k}: {stalls} stalls{", a pulse" if pulsed else ""}')
for pulsed in (True, False):
    n, big = count[pulsed]
    print(f'later bursts {"with" if pulsed else "without"} a pulse: {n}, of them with 20 or more stalls: {big}')
