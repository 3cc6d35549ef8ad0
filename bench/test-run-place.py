#!/usr/bin/env python3
"""Tests of bench/run-place on synthetic sittings."""
import importlib.machinery
import importlib.util
import io
import json
import math
import os
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
_loader = importlib.machinery.SourceFileLoader("runplace", os.path.join(HERE, "run-place"))
_spec = importlib.util.spec_from_loader("runplace", _loader)
rp = importlib.util.module_from_spec(_spec)
_loader.exec_module(rp)


def write(d, name, stalls_by_run, settling_line=None):
    """A RESULT.json of rows A and B alternating, its runs in that order."""
    runs = [{"config": "AB"[i % 2], "run": i // 2 + 1, "stalls": s} for i, s in enumerate(stalls_by_run)]
    path = os.path.join(d, name + ".json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"runs": runs}, f)
    with open(path[:-5] + ".md", "w", encoding="utf-8") as f:
        f.write("# mixed\n" + (settling_line + "\n" if settling_line else ""))
    return path


class RunPlace(unittest.TestCase):
    def test_a_first_run_below_its_row(self):
        with tempfile.TemporaryDirectory() as d:
            p = write(d, "s1", [0, 90, 190, 90, 190, 90])
            s = rp.sitting(p)
            by_place, lowest = rp.places([s], pool=10)
            self.assertEqual(lowest, 1)
            # A's median is 190: the first run's ratio is (0 + 10) / (190 + 10)
            self.assertAlmostEqual(math.exp(by_place[0][0]), 10 / 200)
            self.assertAlmostEqual(math.exp(by_place[1][0]), 1.0)

    def test_a_sitting_without_a_drift(self):
        with tempfile.TemporaryDirectory() as d:
            s = rp.sitting(write(d, "s1", [100, 50, 90, 40, 110, 60]))
            self.assertEqual(rp.places([s], pool=10)[1], 0)

    def test_later_places_pooled(self):
        with tempfile.TemporaryDirectory() as d:
            s = rp.sitting(write(d, "s1", [1, 2, 3, 4, 5, 6, 7, 8]))
            by_place, _ = rp.places([s], pool=3)
            self.assertEqual(sorted(by_place), [0, 1, 2, 3])
            self.assertEqual(len(by_place[3]), 5)

    def test_sittings_it_cannot_judge(self):
        with tempfile.TemporaryDirectory() as d:
            self.assertIsNone(rp.sitting(write(d, "short", [1, 2, 3, 4])))     # two runs a row
            bad = os.path.join(d, "bad.json")
            with open(bad, "w", encoding="utf-8") as f:
                f.write("{not json")
            self.assertIsNone(rp.sitting(bad))
            with open(bad, "w", encoding="utf-8") as f:
                json.dump({"runs": [{"config": "A", "stalls": "many"}] * 6}, f)
            self.assertIsNone(rp.sitting(bad))
            self.assertIsNone(rp.sitting(os.path.join(d, "absent.json")))

    def test_split_by_the_settling_line(self):
        with tempfile.TemporaryDirectory() as d:
            old = write(d, "old", [1] * 6)
            one = write(d, "one", [1] * 6, "- settling run: one run at the defaults")
            five = write(d, "five", [1] * 6, "- settling: 5 runs at the defaults")
            self.assertEqual([rp.settled(p) for p in (old, one, five)], [False, True, True])
            out = io.StringIO()
            rp.report("with settling runs", [rp.sitting(one), rp.sitting(five)], 10, out)
            self.assertIn("2 sittings", out.getvalue())


if __name__ == "__main__":
    unittest.main()
