#!/usr/bin/env python3
# usage (from the top of the tree): python3 bench/results/false-alarms-0.4.15-room.py 2 SITTING... (steps/SITTING/mixed.json and traces)
# For each THP episode phase of mixed (train bursts, irregular, accumulate),
# the counterfactual room at the baseline (room at the sample before the
# episode's first raise, less the net held growth since) and the demand
# rate (held growth per second, peak so far): when would "runway < L"
# have fired, and did the room run out (counterfactually)?
import sys, json, gzip, os
def low_at(z, wsf):
    gap = z['managed_pages'] * wsf // 10000
    return z['wmark_min'] + max(gap, z['wmark_min'] // 4)
def room(zs, wsf=10, ratio=256):
    r = 0; above = 0
    for z in reversed(zs):
        fl = low_at(z, wsf) + (above // ratio if above else 0)
        fr = sum(n << o for o, n in enumerate(z['nr_free']))
        r += max(0, fr - fl); above += z['managed_pages']
    return r
def samples(path):
    t0 = None; out = []
    for l in gzip.open(path, 'rt'):
        j = json.loads(l)
        if j['type'] == 'header': t0 = j['started_mono']; continue
        if j['type'] != 'sample': continue
        m = j['meminfo']
        out.append((j['t'] - t0, room(j['zones']), m['anon_pages'] + m['shmem'] + m['dirty'] + m['writeback'], j['wsf']))
    return out
L = [float(x) for x in sys.argv[1].split(',')]
for sit in sys.argv[2:]:
    mj = json.load(open('bench/results/steps/%s/mixed.json' % sit))
    for r in mj['runs']:
        if not r['config'].startswith('memoptimizer'): continue
        p = 'bench/results/steps/%s/traces/mixed-%s-%d.jsonl.gz' % (sit, r['config'], r['run'])
        if not os.path.exists(p): continue
        S = samples(p)
        for ph in r['phases']:
            if ph['kind'] not in ('train', 'irregular', 'accumulate'): continue
            seg = [s for s in S if ph['t0'] - 0.5 <= s[0] <= ph['t1'] + 0.5]
            if len(seg) < 2: continue
            # episodes inside the phase: runs of held growth; simple: treat whole phase, restart when held falls back
            base = seg[0]; peak = 0; fired = {l: None for l in L}; least = base[1]; prev = seg[0]
            for s in seg[1:]:
                dt = s[0] - prev[0]
                if s[2] < base[2] + 20000 and s[2] < prev[2]:   # given back: a new burst starts from here
                    base = s; peak = 0; prev = s; continue
                rate = max(0, (s[2] - prev[2]) / dt) if dt > 0 else 0
                peak = max(peak, rate)
                cf = base[1] - (s[2] - base[2])
                least = min(least, cf)
                for l in L:
                    if fired[l] is None and peak > 0 and cf / peak < l:
                        fired[l] = round(s[0] - ph['t0'], 1)
                prev = s
            print('%-20s %-22s %d %-10s stalls %4d  least cf room %5dk  fired %s' % (sit, r['config'], r['run'], ph['kind'], ph['stalls'], least / 1000, fired))
