#!/usr/bin/env python3
"""Tests of bench/compare on synthetic sittings: the drift is taken off,
an effect is recovered, too few rounds or no effect give no verdict, and
bad input is refused with a status."""
import contextlib
import importlib.machinery
import importlib.util
import io
import json
import math
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
_loader = importlib.machinery.SourceFileLoader("compare", os.path.join(HERE, "compare"))
_spec = importlib.util.spec_from_loader("compare", _loader)
compare = importlib.util.module_from_spec(_spec)
_loader.exec_module(compare)


def sitting(rows, rounds, level, drift=0.0, noise=None):
    """Runs as bench/run orders them: round k runs the rows rotated by k.
    level: row -> reader MiB/s; drift: the log change per place;
    noise(place) -> a log offset."""
    runs, place = [], 0
    for k in range(rounds):
        for i in range(len(rows)):
            c = rows[(i + k) % len(rows)]
            y = math.log(level[c]) + drift * place + (noise(place) if noise else 0.0)
            runs.append({"config": c, "run": k + 1, "reader_mib_s": math.exp(y)})
            place += 1
    return runs


def placed(runs):
    return [dict(r, place=i) for i, r in enumerate(runs)]


class Verdicts(unittest.TestCase):
    def test_drift_is_taken_off(self):
        # three rows in rotation, a sitting that slows by 3 % a run: B is
        # 10 % slower than A, and nothing else varies
        runs = placed(sitting(["defaults", "A", "B"], 6, {"defaults": 9000, "A": 8000, "B": 7200}, drift=-0.03))
        r = compare.compare([runs], "reader_mib_s", "A", "B")
        self.assertAlmostEqual(r["mean"], math.log(0.9), places=9)
        self.assertEqual(r["verdict"], "B lower")
        self.assertAlmostEqual(r["p"], 2 / 64)
        for d in r["diffs"]:
            self.assertAlmostEqual(d, math.log(0.9), places=9)
        # B runs one place after A in two rounds of three and two before it
        # in the third: without the drift's slope the rounds would differ
        # by 9 %, and the interval would take in 0
        _, _, _, raw, _ = compare.paired(runs, "reader_mib_s", "A", "B")
        self.assertGreater(max(raw) - min(raw), 0.08)

    def test_no_effect_no_verdict(self):
        wobble = [0.05, -0.04, 0.02, -0.06, 0.03, 0.01, -0.02, 0.04, -0.05, 0.02, 0.0, -0.03, 0.05, -0.01, 0.02, -0.04]
        runs = placed(sitting(["A", "B"], 8, {"A": 8000, "B": 8000}, drift=-0.02, noise=lambda p: wobble[p]))
        r = compare.compare([runs], "reader_mib_s", "A", "B")
        self.assertTrue(r["lo"] < 0 < r["hi"])
        self.assertTrue(r["verdict"].startswith("no difference shown"))

    def test_four_rounds_cannot_show(self):
        runs = placed(sitting(["A", "B"], 4, {"A": 8000, "B": 6000}))
        r = compare.compare([runs], "reader_mib_s", "A", "B")
        self.assertLess(r["hi"], 0)
        self.assertIn("4 rounds", r["verdict"])
        self.assertTrue(r["verdict"].startswith("no difference shown"))

    def test_higher(self):
        runs = placed(sitting(["A", "B"], 6, {"A": 8000, "B": 8800}, noise=lambda p: 0.01 * (p % 3)))
        self.assertEqual(compare.compare([runs], "reader_mib_s", "A", "B")["verdict"], "B higher")

    def test_sittings_pool_with_their_own_drifts(self):
        # two sittings of 4 rounds, B 10 % slower: each alone cannot show it
        # (4 rounds), and one slows by 3 % a run, the other speeds up by 2 %;
        # pooled, each drift is taken off on its own and the 8 rounds show it
        one = placed(sitting(["A", "B"], 4, {"A": 8000, "B": 7200}, drift=-0.03))
        two = placed(sitting(["B", "A"], 4, {"A": 6000, "B": 5400}, drift=0.02))
        for runs in (one, two):
            self.assertTrue(compare.compare([runs], "reader_mib_s", "A", "B")["verdict"].startswith(
                "no difference shown (4 rounds"))
        r = compare.compare([one, two], "reader_mib_s", "A", "B")
        self.assertEqual(len(r["diffs"]), 8)
        for d in r["diffs"]:
            self.assertAlmostEqual(d, math.log(0.9), places=9)
        self.assertEqual(r["verdict"], "B lower")
        self.assertAlmostEqual(r["drifts"][0], -0.03 * 7, places=9)
        self.assertAlmostEqual(r["drifts"][1], 0.02 * 7, places=9)
        text = compare.report(r, "A", "B")
        self.assertIn("the sittings' drifts -18.9 %, +15.0 %", text)
        # one drift fitted over both would not do: the second sitting's
        # places continue the first's, and the levels differ by a quarter
        joined = one + [dict(x, place=x["place"] + len(one), run=x["run"] + 4) for x in two]
        self.assertNotAlmostEqual(compare.compare([joined], "reader_mib_s", "A", "B")["diffs"][4],
                                  math.log(0.9), places=3)

    def test_sign_flip(self):
        self.assertAlmostEqual(compare.sign_flip_p([1.0] * 6), 2 / 64)
        self.assertAlmostEqual(compare.sign_flip_p([1.0, -1.0]), 1.0)
        # 3, 1, -1 and 2 sum to 5; +-(3+1+1+2), +-(3+1-1+2), +-(3-1+1+2) are as far
        self.assertAlmostEqual(compare.sign_flip_p([3.0, 1.0, -1.0, 2.0]), 6 / 16)

    def test_scales(self):
        self.assertAlmostEqual(compare.scale("stalls", 0), 0.0)
        self.assertAlmostEqual(compare.scale("lost_pct", -3.5), -3.5)
        self.assertIsNone(compare.scale("reader_mib_s", 0))
        self.assertIsNone(compare.scale("reader_mib_s", True))
        self.assertIsNone(compare.scale("reader_mib_s", float("nan")))

    def test_power(self):
        # A runs at places 0 3 4 7 8 11, B at 1 2 5 6 9 10: offsets of +-e
        # that are symmetric about each row's middle place leave no slope,
        # so the residuals are the offsets: 8 of e, 4 of 0, 12 - 2 - 1 dof
        e = 0.1
        off = {0: e, 3: -e, 8: -e, 11: e, 1: e, 10: e, 2: -e, 9: -e}
        runs = placed(sitting(["A", "B"], 6, {"A": 8000, "B": 7000}, noise=lambda p: off.get(p, 0.0)))
        sd, dof, need = compare.power([runs], "reader_mib_s")
        self.assertEqual(dof, 9)
        self.assertAlmostEqual(sd, e * math.sqrt(8 / 9))
        # 2.8 sd sqrt(2) / log(1.10), squared
        self.assertEqual(need[10], math.ceil((2.8016 * math.sqrt(2) * sd / math.log(1.1)) ** 2))
        self.assertGreater(need[5], need[10])
        self.assertGreater(need[10], need[20])

    def test_below_counts_modes(self):
        # two modes: A low in 4 runs of 10, B in 10 of 10. Fisher's one-sided
        # p: C(10,10) C(10,4) / C(20,14) = 210 / 38760
        a = [3, 1400, 1500, 0, 1300, 1450, 5, 1420, 363, 1350]
        b = [3, 1, 0, 6, 3, 3, 5, 1, 6, 3]
        runs = [{"config": c, "run": i + 1, "stalls": v} for c, vs in (("A", a), ("B", b)) for i, v in enumerate(vs)]
        line = compare.below([placed(runs)], "stalls", "A", "B", 500)
        self.assertIn("A 4 of 10 runs, B 10 of 10", line)
        self.assertIn(f"p {210 / 38760:.4f} (B more often)", line)
        self.assertIn("B below more often", line)
        # the other way round: A is below less often, and nothing shows more
        self.assertIn("B below less often", compare.below([placed(runs)], "stalls", "B", "A", 500))
        self.assertIn("no difference shown", compare.below([placed(runs)], "stalls", "A", "A", 500))

    def test_fisher_tail(self):
        # P(X >= 3), X hypergeometric: 3 of 6 drawn from 12 holding 6 of B's
        p = sum(math.comb(6, x) * math.comb(6, 6 - x) for x in range(3, 7)) / math.comb(12, 6)
        self.assertAlmostEqual(compare.hypergeom_tail(3, 6, 6, 12), p)
        self.assertAlmostEqual(compare.hypergeom_tail(0, 6, 6, 12), 1.0)


class Refusals(unittest.TestCase):
    def run_main(self, args):
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            status = compare.main(args)
        return status, err.getvalue()

    def write(self, text):
        f = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
        self.addCleanup(os.unlink, f.name)
        f.write(text)
        f.close()
        return f.name

    def test_missing_row(self):
        path = self.write(json.dumps({"runs": sitting(["A", "B"], 3, {"A": 1, "B": 2})}))
        status, err = self.run_main([path, "A", "C"])
        self.assertEqual(status, 2)
        self.assertIn("no row 'C'", err)

    def test_missing_row_in_a_pooled_sitting(self):
        one = self.write(json.dumps({"runs": sitting(["A", "B"], 3, {"A": 1, "B": 2})}))
        two = self.write(json.dumps({"runs": sitting(["A", "C"], 3, {"A": 1, "C": 2})}))
        status, err = self.run_main([one, two, "A", "B"])
        self.assertEqual(status, 2)
        self.assertIn(f"{two}: no row 'B'", err)

    def test_one_sitting_given_twice(self):
        path = self.write(json.dumps({"runs": sitting(["A", "B"], 3, {"A": 1, "B": 2})}))
        status, err = self.run_main([path, path, "A", "B"])
        self.assertEqual(status, 1)
        self.assertIn("given twice", err)

    def test_not_json(self):
        status, err = self.run_main([self.write("{runs: ["), "A", "B"])
        self.assertEqual(status, 1)
        self.assertIn(".json", err)

    def test_not_a_result(self):
        status, err = self.run_main([self.write('{"runs": 3}'), "A", "B"])
        self.assertEqual(status, 1)
        self.assertIn("not a bench/run result", err)

    def test_one_round(self):
        path = self.write(json.dumps({"runs": sitting(["A", "B"], 1, {"A": 1, "B": 2})}))
        status, err = self.run_main([path, "A", "B", "--metric", "reader_mib_s"])
        self.assertEqual(status, 2)
        self.assertIn("1 round(s)", err)

    def test_below_refusals(self):
        path = self.write(json.dumps({"runs": sitting(["A", "B"], 3, {"A": 1, "B": 2})}))
        with self.assertRaises(SystemExit):
            self.run_main(["--below", "nan", path, "A", "B"])
        with self.assertRaises(SystemExit):
            self.run_main(["--below", "5", "--power", path])
        status, err = self.run_main(["--below", "5", path, "A", "B"])
        self.assertEqual(status, 2)
        self.assertIn("stalls: no runs of A", err)


if __name__ == "__main__":
    sys.dont_write_bytecode = True
    unittest.main(verbosity=2)
