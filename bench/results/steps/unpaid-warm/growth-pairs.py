# How the "23 of 32" was counted (2026-11-28): replay each trace with the daemon (./build/src/memoptimizer, 0.4.3 = 0.4.2 decisions),
# read the episode lines, and pair each episode that reclaimed directly with the most recent earlier one of its
# class (log2 of peak demand in permyriad/s) that did too at another height. Run from the repository root:
#   /usr/bin/python3 bench/results/steps/unpaid-warm/growth-pairs.py bench/results/steps/max100-fit0/traces/mixed-memoptimizer-[123].jsonl.gz bench/results/steps/every-scenario-0.4.2/traces/*memoptimizer*.gz bench/results/steps/reader-fit-0/traces/*mixed-memoptimizer*.gz bench/results/steps/oracle100-fit0/traces/*memoptimizer*.gz
import collections
import math
import re
import subprocess
import sys
pat=re.compile(r"pressure episode over after ([\d.]+) s: demand up to ([\d.]+) (GB|MB)/s, (\d+) MB in all.*?; (\d+) stalls, (\d+) MB reclaimed directly(?:; its kind now needs (\d+))?")
wp=re.compile(r"(?:raise|lower) vm.watermark_scale_factor (\d+) -> (\d+)")
MAN = 6171023 * 4096 / 1e6  # MB managed: the steered zones of this VM (the traces' machine)
def cls(mbps): 
    pm=mbps/MAN*1e4
    return int(math.floor(math.log2(pm))) if pm>=1 else -1
tot=collections.Counter()
for f in sys.argv[1:]:
    out=subprocess.run(["sh","-c",f"zcat {f} | ./build/src/memoptimizer replay - -c conf/memoptimizer.conf"],capture_output=True,text=True).stdout
    cur=10; mx=10; eps=[]
    for line in out.splitlines():
        m=wp.search(line)
        if m and "(recorded" not in line:
            cur=int(m.group(2)); mx=max(mx,cur); continue
        m=pat.search(line)
        if m:
            peak=float(m.group(2))*(1000 if m.group(3)=="GB" else 1)
            eps.append(dict(c=cls(peak),W=mx,demand=int(m.group(4)),stalls=int(m.group(5)),direct=int(m.group(6)),need=m.group(7)))
            mx=cur
    for i,e in enumerate(eps):
        if e["direct"]==0: continue
        # last earlier stalled episode same class at different W
        for h in reversed(eps[:i]):
            if h["c"]==e["c"] and h["direct"]>0 and h["W"]!=e["W"]:
                lo,hi=(h,e) if h["W"]<e["W"] else (e,h)
                rl=lo["direct"]/max(1,lo["demand"]); rh=hi["direct"]/max(1,hi["demand"])
                unpaid = rh>=0.5*rl
                tot["pairs"]+=1; tot["unpaid"]+=unpaid; tot["raised"]+=rh>rl
                print(f.split("/")[-1][:40], f"class {e['c']}: W {lo['W']}->{hi['W']} direct/demand {rl:.3f}->{rh:.3f} {'UNPAID' if unpaid else 'paid'}")
                break
print(tot)
