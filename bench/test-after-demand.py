#!/usr/bin/env python3
"""Tests of bench/after-demand on a synthetic trace: a burst ends at the
last sample whose interval saw anonymous memory grow; kswapd's reclaim is
summed over the second after it only, with the value read at the sample
after; a burst still growing when the trace ends has no end; bad options
and unreadable traces are refused."""
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

    def test_refused(self):
        trace(self.path, {}, {}, lambda t: 10)
        self.assert_refused([["--grow-mb", "0"], ["--grow-mb", "-1"]], "--grow-mb must be above 0")


if __name__ == "__main__":
    unittest.main()
