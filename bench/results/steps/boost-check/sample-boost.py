#!/usr/bin/python3
# sample per-zone watermark_boost every 50 ms; print nonzero ones with time
import time, sys
out = open(sys.argv[1], "w")
t0 = time.time()
while True:
    zone = None
    rec = []
    with open("/proc/zoneinfo") as f:
        for line in f:
            w = line.split()
            if line.startswith("Node"):
                zone = w[3]
            elif len(w) == 2 and w[0] == "boost":
                if w[1] != "0":
                    rec.append(f"{zone}={w[1]}")
    if rec:
        out.write(f"{time.time():.2f} {' '.join(rec)}\n"); out.flush()
    time.sleep(0.05)
