#!/usr/bin/env python3
"""Tests of bench/stall-zones on a synthetic trace: --onset sorts each
stall by the share of the Normal zone's free memory that was in huge
blocks at the sample before the burst it came in began, stalls before any
burst apart; without --onset that table is not printed."""
import unittest

from tracetest import ToolCase, write_trace

MB = 256    # pages


def zone(name, free_small, blocks):
    """A zone with free_small pages free at order 0 and `blocks` order-9
    blocks free."""
    nr_free = [free_small] + [0] * 8 + [blocks, 0]
    return {"node": 0, "zone": name, "managed_pages": 1 << 20,
            "wmark_min": 1000, "wmark_low": 2000, "wmark_high": 3000, "nr_free": nr_free}


def trace(path, states, bursts, stalls):
    """Samples every second from t=0 to 29: Normal's (free_small, blocks)
    from states(t), a burst of 700 MB of huge pages growing at each time in
    bursts (let go 2 s later), and stalls[t] compaction stalls counted in
    the interval that ends at t."""
    held, count, rows = 0, 0, []
    for t in range(30):
        if t in bursts:
            held += 700 * MB
        if t - 2 in bursts:
            held -= 700 * MB
        count += stalls.get(t, 0)
        small, blocks = states(t)
        rows.append({"t": 1000.0 + t, "wsf": 10,
                     "zones": [zone("DMA32", 100, 0), zone("Normal", small, blocks)],
                     "vmstat": {"allocstall": 0, "compact_stall": count},
                     "meminfo": {"anon_huge": held}})
    write_trace(path, rows, {"page_size": 4096, "thp_pmd_size": 2 << 20})


class StallZones(ToolCase):
    TOOL = "stall-zones"

    def setUp(self):
        super().setUp()
        # before the burst at 10: 100 blocks (200 MB), nothing smaller
        # free; before the one at 20: 50 MB free in single pages, no block.
        # The onset samples read the other way round: the state counted is
        # the one before.
        states = lambda t: (50 * MB, 0) if 10 <= t < 20 else (0, 100)
        trace(self.path, states, (10, 20), {4: 3, 11: 4, 12: 6, 21: 5})

    def test_onset_table(self):
        r = self.run_tool("--onset", self.path)
        self.assertEqual(r.returncode, 0, r.stderr)
        out = r.stdout
        self.assertIn("18 stalls in 1 traces", out)
        self.assertRegex(out, r"no burst began before them \|      3 \|   17 % \|              - \| -\n")
        self.assertRegex(out, r"< 50% \|      5 \|   28 % \|              0 \| 50\n")
        self.assertRegex(out, r"50% to 90% \|      0 \|")
        self.assertRegex(out, r">= 90% \|     10 \|   56 % \|            200 \| 0\n")

    def test_no_onset_table_unasked(self):
        r = self.run_tool(self.path)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn("before the burst", r.stdout)

    def test_refused(self):
        self.assert_refused([["--huge-mb", "0"]], "--huge-mb must be > 0")

    def test_a_trace_without_a_page_size_is_refused(self):
        # its page size is not guessed: the bursts and the MB depend on it
        write_trace(self.path, [{"t": 1000.0, "wsf": 10, "meminfo": {"anon_huge": 0}}])
        r = self.run_tool(self.path)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("no page_size", r.stderr)


if __name__ == "__main__":
    unittest.main()
