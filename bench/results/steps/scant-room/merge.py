#!/usr/bin/env python3
"""merge.py OUT A.json B.json: one result of both sittings' runs of one
scenario, B's rounds numbered after A's, for bench/compare over all rounds."""
import json, sys
out, a, b = sys.argv[1], json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
n = max(x["run"] for x in a["runs"])
for x in b["runs"]:
    x["run"] += n
a["runs"] += b["runs"]
json.dump(a, open(out, "w"))
