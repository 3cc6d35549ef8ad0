#!/usr/bin/env python3
"""pulses.py RESULT.md...: the pulses that woke kswapd in each daemon run,
from the daemon logs bench/run puts in its report: how many started, with
scant room (Normal under 150 MB free: the baseline's low) or with room,
how many were watched for Normal's huge blocks, and how each ended."""
import collections
import re
import sys

for path in sys.argv[1:]:
    cur = None
    c = collections.OrderedDict()
    for line in open(path):
        m = re.match(r'^(memoptimizer(?:-other)?), run (\d+):$', line.strip())
        if m:
            cur = (m.group(1), int(m.group(2)))
            c.setdefault(cur, collections.Counter())
            continue
        if cur is None:
            continue
        if 'wake kswapd:' in line:
            nf = int(re.search(r'Normal sits at its low \((\d+) MB free', line).group(1))
            c[cur]['starts'] += 1
            c[cur]['scant' if nf < 150 else 'room'] += 1
            if 'huge blocks' in line:
                c[cur]['watched'] += 1
        m = re.search(r'open again after (\d+) ms: ([^(]*)', line)
        if m:
            c[cur]['end: ' + m.group(2).strip()] += 1
    for k, v in c.items():
        print(path, k, dict(v))
