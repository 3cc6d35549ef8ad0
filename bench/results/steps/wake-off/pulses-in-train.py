#!/usr/bin/env python3
"""The mixed train's stalls by burst beside the wake pulses replayed in its phase.

  pulses-in-train.py MEMOPTIMIZER RESULT_DIR [CONF_FOR_memoptimizer-other]

For each daemon run of RESULT_DIR/mixed.json: the train phase's stalls per burst,
the pulses `memoptimizer replay` finds in the train phase (from a second before it
began), and the reader's throughput in the train phase as a share of its lead-in;
then the same share for the defaults' runs."""
import json, os, re, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../.."))
from tracefile import replay_output

exe, top = sys.argv[1], sys.argv[2]
other_conf = sys.argv[3] if len(sys.argv) > 3 else None
d = json.load(open(os.path.join(top, "mixed.json")))
for r in d["runs"]:
    tr = next(p for p in r["phases"] if p["kind"] == "train")
    share = r["reader_train"] / r["lead_mib_s"]
    if not r["config"].startswith("memoptimizer"):
        print(f'{r["config"]} {r["run"]}: burst stalls {tr.get("burst_stalls")}; train reader share {share:.2f}')
        continue
    name = f'mixed-{r["config"]}-{r["run"]}'
    conf = other_conf if r["config"].startswith("memoptimizer-other") else None
    out = replay_output(exe, os.path.join(top, "traces", name + ".jsonl.gz"), conf)
    wakes = [float(m.group(1)) for m in re.finditer(r"^\s*\+([0-9.]+) s\s+would wake kswapd", out, re.M)]
    inside = [w for w in wakes if tr["t0"] - 1 <= w <= tr["t1"]]
    same = "replayed scale factor equals" in out
    print(f'{r["config"]} {r["run"]}: burst stalls {tr.get("burst_stalls")}; pulses in the train at {inside} '
          f'(train {tr["t0"]:.1f}-{tr["t1"]:.1f} s); train reader share {share:.2f}'
          + ("" if same else "; REPLAY DIFFERS"))
