"""Reading the traces memoptimizer records (`record = FILE`, bench/run's
results/**/traces/): one place for the bench/ scripts that read them
(dma32-asleep, stall-zones, train-lead, after-demand, and the steps'
scripts that read the wake pulses a replay starts)."""
import gzip
import json
import os
import re
import subprocess


def records(path):
    """Every record of a trace, header included, gzipped or not."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        for line in f:
            yield json.loads(line)


def samples(path):
    return (r for r in records(path) if r.get("type") == "sample")


def header_and_samples(path):
    """A trace's header ({} if it has none) and its samples, in a list."""
    header, ss = {}, []
    for r in records(path):
        if r.get("type") == "header":
            header = r
        elif r.get("type") == "sample":
            ss.append(r)
    return header, ss


def page_size(header):
    """The page size in bytes that a trace's header gives. A trace without
    one, or with one outside what replay takes (512 B..1 GiB), is not one
    memoptimizer wrote: ValueError, as replay refuses it."""
    p = header.get("page_size")
    if type(p) is not int or not 512 <= p <= 1 << 30:
        raise ValueError("the trace's header gives no page_size of 512..1073741824 bytes: not a trace memoptimizer wrote")
    return p


def zone_free(z, order=0):
    """Free pages of a zone's record in blocks of `order` or larger."""
    return sum(c << o for o, c in enumerate(z["nr_free"]) if o >= order)


def zones(r):
    """Node 0's Normal and DMA32 zones of a sample."""
    z = {x["zone"]: x for x in r["zones"] if x["node"] == 0}
    if "Normal" not in z or "DMA32" not in z:
        raise ValueError("no Normal and DMA32 zone on node 0")
    return z["Normal"], z["DMA32"]


def onsets(ss, huge_pages):
    """Indexes into the samples ss at which a burst of huge pages began:
    AnonHugePages grew by at least huge_pages since the sample before,
    after one at which it did not."""
    out, growing = [], False
    for i in range(1, len(ss)):
        grew = ss[i]["meminfo"]["anon_huge"] - ss[i - 1]["meminfo"]["anon_huge"] >= huge_pages
        if grew and not growing:
            out.append(i)
        growing = grew
    return out


def replay_output(exe, path, conf=None):
    """What `exe replay` prints for a trace, with the learned state a warm
    run left beside it (PATH minus .jsonl.gz, plus .state), and
    configuration file conf if given."""
    args = [exe, "replay", path]
    state = re.sub(r"\.jsonl(\.gz)?$", "", path) + ".state"
    if os.path.isdir(state):
        args += ["--learned", state]
    if conf:
        args += ["-c", conf]
    return subprocess.run(args, capture_output=True, text=True, check=True).stdout


def replayed_wakes(exe, path, conf=None):
    """The seconds from a trace's start at which `exe replay` starts a wake
    pulse (memoptimizer's "would wake kswapd" lines; replay_output())."""
    out = replay_output(exe, path, conf)
    return [float(m) for m in re.findall(r"^\s*\+([0-9.]+) s\s+would wake kswapd", out, re.M)]
