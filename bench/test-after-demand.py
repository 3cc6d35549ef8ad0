#!/usr/bin/env python3
"""Tests of bench/after-demand on a synthetic trace: a burst ends at the
last sample whose interval saw anonymous memory grow; kswapd's reclaim is
summed over the second after it only, with the value read at the sample
after; a burst still growing when the trace ends has no end; with
--covered, a raised burst end counts as covered only when a sample before
it, with a raise in force after it, had the rest of the burst fit above the
first value's low; bad options and unreadable traces are refused."""
import unittest

from tracetest import ToolCase, write_trace

MB = 256    # pages


def trace(path, grow, steal, wsf):
    """Samples every second from t=0 to 29: anonymous memory grows by
    grow[t] MB in the interval that ends at t, kswapd reclaims steal[t] MB
    in it, wsf(t) is read at t."""
    anon, stolen, rows = 0, 0, []
    for t in range(30):
        anon += grow.get(t, 0) * MB
        stolen += steal.get(t, 0) * MB
        rows.append({"t": 1000.0 + t, "wsf": wsf(t), "meminfo": {"anon_pages": anon},
                     "vmstat": {"pgsteal_kswapd": stolen}})
    write_trace(path, rows)


def zoned(free_mb):
    """Node 0's DMA32 and Normal with free_mb free in Normal: at a scale
    factor of 10 their summed low is 1250 + 11250 pages (48.8 MB)."""
    return [{"node": 0, "zone": "DMA32", "managed_pages": 100000, "wmark_min": 1000, "nr_free": [0]},
            {"node": 0, "zone": "Normal", "managed_pages": 900000, "wmark_min": 9000,
             "nr_free": [int(free_mb * MB)]}]


def covered_trace(path, free_mb, first_raise=10):
    """Three bursts of 2 x 500 MB over (9, 11], (19, 21] and (25, 26]
    (the last 500 MB only); a raise to 300 read at first_raise-12 and
    20-22; kswapd reclaims 300 MB in (11, 12] and 200 MB in (21, 22]; free
    memory free_mb(t)."""
    grow = {10: 500, 11: 500, 20: 500, 21: 500, 26: 500}
    steal = {12: 300, 22: 200}
    anon, stolen, rows = 0, 0, []
    for t in range(30):
        anon += grow.get(t, 0) * MB
        stolen += steal.get(t, 0) * MB
        rows.append({"t": 1000.0 + t, "wsf": 300 if first_raise <= t <= 12 or 20 <= t <= 22 else 10,
                     "zones": zoned(free_mb(t)), "meminfo": {"anon_pages": anon},
                     "vmstat": {"pgsteal_kswapd": stolen}})
    write_trace(path, rows)


class AfterDemand(ToolCase):
    TOOL = "after-demand"

    def test_the_second_after_each_end(self):
        # a burst grows over (9, 11] and stops; kswapd reclaims 50 MB while
        # it grows, 300 MB in the second after, 100 MB in the one after that;
        # a second burst over (19, 20] is followed by no reclaim; one still
        # growing at the trace's end (28, 29] has no end
        trace(self.path, {10: 500, 11: 500, 20: 200, 29: 300}, {11: 50, 12: 300, 13: 100},
              lambda t: 300 if 10 <= t <= 12 else 10)
        r = self.run_tool(self.path)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("2 burst ends, kswapd reclaimed 300 MB in the second after them of 450 MB: "
                      "+11.0 s wsf 300 300 MB, +20.0 s wsf 10 0 MB", r.stdout)
        self.assertIn("1 traces, 2 burst ends: kswapd reclaimed 300 MB in the second after them "
                      "(300 MB a trace, 150 MB a burst end; 67 % of its 450 MB)", r.stdout)

    def test_growth_below_the_threshold_is_no_burst(self):
        trace(self.path, {10: 50, 11: 50}, {12: 300}, lambda t: 10)
        r = self.run_tool(self.path)
        self.assertIn("0 burst ends", r.stdout)
        r = self.run_tool("--grow-mb", "32", self.path)
        self.assertIn("1 burst ends, kswapd reclaimed 300 MB", r.stdout)

    def test_covered(self):
        # at 10 the first burst has 500 MB to go and 600 MB free (551 above
        # low at 10): covered; the second has 500 MB to go at 20 with 540 MB
        # free (491 above low), and all of it at 19 with 100: not; the third
        # had no raise in force
        covered_trace(self.path, lambda t: {9: 100, 10: 600, 19: 100, 20: 540}.get(t, 2000))
        r = self.run_tool("--covered", self.path)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("3 burst ends", r.stdout)
        self.assertIn("  2 of them with a raise in force after them, 1 of those with the rest of the burst "
                      "covered at a sample before: 300 MB reclaimed after those", r.stdout)
        self.assertIn("with a raise in force after them: 2; the rest of the burst covered at a sample "
                      "before: 1, 300 MB reclaimed in the second after those", r.stdout)
        # the whole burst covered at its first sample counts when the raise
        # was in force after it (read at 10), not when it came later (read
        # at 11): there was nothing to give back yet
        covered_trace(self.path, lambda t: {9: 5000, 10: 100, 19: 100, 20: 100}.get(t, 2000))
        r = self.run_tool("--covered", self.path)
        self.assertIn("1 of those with the rest", r.stdout)
        covered_trace(self.path, lambda t: {9: 5000, 10: 100, 19: 100, 20: 100}.get(t, 2000), first_raise=11)
        r = self.run_tool("--covered", self.path)
        self.assertIn("0 of those with the rest", r.stdout)

    def test_covered_on_a_trace_without_samples(self):
        write_trace(self.path, [])
        r = self.run_tool("--covered", self.path)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("0 burst ends", r.stdout)
        self.assertIn("with a raise in force after them: 0;", r.stdout)

    def test_refused(self):
        trace(self.path, {}, {}, lambda t: 10)
        self.assert_refused([["--grow-mb", "0"], ["--grow-mb", "-1"]], "--grow-mb must be above 0")


if __name__ == "__main__":
    unittest.main()
