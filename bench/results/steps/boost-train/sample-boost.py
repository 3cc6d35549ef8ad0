#!/usr/bin/python3
"""Every zone's watermark boost (/proc/zoneinfo "boost") every 50 ms,
written when any is nonzero, with CLOCK_MONOTONIC (the clock of the
daemon's trace) and the wall clock: usage: sample-boost.py OUT"""
import sys
import time

with open(sys.argv[1], "w") as out:
    while True:
        zone, rec = None, []
        with open("/proc/zoneinfo") as f:
            for line in f:
                w = line.split()
                if line.startswith("Node"):
                    zone = w[3]
                elif len(w) == 2 and w[0] == "boost" and w[1] != "0":
                    rec.append(f"{zone}={w[1]}")
        if rec:
            out.write(f"{time.monotonic():.3f} {time.time():.3f} {' '.join(rec)}\n")
            out.flush()
        time.sleep(0.05)
