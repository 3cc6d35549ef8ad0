#!/usr/bin/env python3
"""Tests of bench/train-lead on synthetic traces: a burst counts as raised
for only when the value in force while it began (read at its onset sample)
was at least the floor, not when it was lowered just before; a raise made
at or before the burst before's onset and held is in force but not "for
it"; a run of gaps that is not steady is no train, and its onsets are
listed; what kswapd reclaimed around a burst is counted up to the next
burst (the last: one period), and said only where the trace carries it;
pages are counted at the trace's own page size, and a trace without one
is refused; bad options are refused."""
import unittest

from tracetest import ToolCase, write_trace

def trace(path, onsets, wsf_at, reclaim_at=None, page=4096):
    """Samples every second from t=0 to 40, of a machine with pages of
    `page` bytes; a burst of 700 MB of huge pages grows in the sample at
    each onset time and is let go 2 s later; wsf_at(t) is the value read at
    the sample at t; reclaim_at(t), when given, the MB kswapd reclaimed in
    the second up to the sample at t (pgsteal_kswapd; without it the
    samples carry no vmstat)."""
    MB = 2**20 // page
    held, rows, stolen = 0, [], 0
    for t in range(41):
        if t in onsets:
            held += 700 * MB
        if t - 2 in onsets:
            held -= 700 * MB
        row = {"t": 1000.0 + t, "wsf": wsf_at(t), "meminfo": {"anon_huge": held}}
        if reclaim_at:
            stolen += int(reclaim_at(t) * MB)
            row["vmstat"] = {"pgsteal_kswapd": stolen}
        rows.append(row)
    write_trace(path, rows, {"page_size": page})


TRAIN = (10, 14, 18, 22, 26)


class TrainLead(ToolCase):
    TOOL = "train-lead"

    def lead(self, onsets, wsf_at, reclaim_at=None, page=4096):
        """train-lead's output on a trace of these bursts, which it must read."""
        trace(self.path, onsets, wsf_at, reclaim_at, page)
        r = self.run_tool(self.path)
        self.assertEqual(r.returncode, 0, r.stderr)
        return r.stdout

    def test_raised_before_the_later_bursts(self):
        # raised at the sample two before bursts 4 and 5, back at 10 two
        # seconds after the last
        out = self.lead(TRAIN, lambda t: 100 if 21 <= t <= 27 else 10)
        self.assertIn("4: +22.0 s wsf 100 raised 2.0 s before, for it\n", out)
        self.assertIn("5: +26.0 s wsf 100 raised 6.0 s before\n", out)      # held since burst 4
        self.assertIn("back at 10 after the last burst: 2.0 s", out)
        self.assertIn("in force when they began: 2 of 2; raised for them (after the burst before began): 1", out)

    def test_raised_for_each_burst(self):
        # read from a second before each of bursts 3-5 to a second after it
        # (17-19, 21-23, 25-27): bursts 4 and 5 were raised for, each
        out = self.lead(TRAIN, lambda t: 100 if t % 4 in (1, 2, 3) and 17 <= t <= 27 else 10)
        self.assertIn("4: +22.0 s wsf 100 raised 2.0 s before, for it\n", out)
        self.assertIn("in force when they began: 2 of 2; raised for them (after the burst before began): 2", out)

    def test_raised_at_the_burst_before_is_not_for_it(self):
        # raised at burst 3's onset sample (the value read from 19 on) and
        # held: burst 4 had it in force, but not raised for it
        out = self.lead(TRAIN, lambda t: 100 if 19 <= t <= 27 else 10)
        self.assertIn("4: +22.0 s wsf 100 raised 4.0 s before\n", out)
        self.assertIn("in force when they began: 2 of 2; raised for them (after the burst before began): 0", out)

    def test_lowered_just_before_is_not_raised_for(self):
        # the value read 100 up to the sample before each later burst, and
        # was lowered there: while the burst began, 10 was in force
        out = self.lead(TRAIN, lambda t: 100 if t in (19, 20, 21, 23, 24, 25) else 10)
        self.assertIn("4: +22.0 s wsf 10\n", out)
        self.assertIn("in force when they began: 0 of 2", out)

    def test_raised_from_the_start_counts(self):
        # a value in force since before the trace began (a static row, say)
        out = self.lead(TRAIN, lambda t: 100)
        self.assertIn("4: +22.0 s wsf 100 raised before the trace began", out)
        self.assertIn("in force when they began: 2 of 2", out)
        self.assertIn("back at 100 after the last burst: 0.0 s", out)

    def test_what_kswapd_reclaimed_around_each_burst(self):
        # 1 GiB in the second after each onset of bursts 4 and 5, 0.25 GiB
        # after the others, and 0.5 GiB at t=35, past the last burst's
        # period (4 s): not counted for it
        # The same on a machine with 64 KiB pages: the header's page size
        # counts, for the bursts' onsets (700 MB is 11,200 pages there,
        # under the 64 MB threshold counted in 4 KiB pages) and the GiB.
        gib = 1024

        def reclaim(t):
            if t == 35:
                return gib // 2
            if t - 1 in TRAIN:
                return gib if t - 1 >= 22 else gib // 4
            return 0
        for page in (4096, 65536):
            out = self.lead(TRAIN, lambda t: 100 if 21 <= t <= 27 else 10, reclaim, page)
            self.assertIn("1: +10.0 s wsf 10; kswapd reclaimed 0.25 GiB\n", out)
            self.assertIn("4: +22.0 s wsf 100 raised 2.0 s before, for it; kswapd reclaimed 1.00 GiB\n", out)
            self.assertIn("5: +26.0 s wsf 100 raised 6.0 s before; kswapd reclaimed 1.00 GiB\n", out)
            self.assertIn("kswapd reclaimed around each of them: median 1.00 GiB (1.00-1.00)", out)

    def test_a_trace_without_a_page_size_is_refused(self):
        write_trace(self.path, [{"t": 1000.0 + t, "wsf": 10, "meminfo": {"anon_huge": 0}} for t in range(3)])
        r = self.run_tool(self.path)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("no page_size", r.stderr)

    def test_no_counter_no_reclaim(self):
        out = self.lead(TRAIN, lambda t: 10)
        self.assertNotIn("kswapd", out)

    def test_unsteady_gaps_are_no_train(self):
        out = self.lead((10, 14, 18, 27, 31), lambda t: 100 if t >= 30 else 10)
        self.assertIn("no train of 4 or more bursts", out)
        self.assertIn("0 of 0", out)
        # the onsets that came are listed with the value read at each
        self.assertIn("onsets: +10.0 s wsf 10, +14.0 s wsf 10, +18.0 s wsf 10, +27.0 s wsf 10, +31.0 s wsf 100", out)

    def test_bad_options_refused(self):
        trace(self.path, TRAIN, lambda t: 10)
        self.assert_refused([["--floor", "0"], ["--huge-mb", "-1"]], "--floor must be at least 1")


if __name__ == "__main__":
    unittest.main()
