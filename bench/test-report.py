#!/usr/bin/env python3
"""Tests of bench/run's report on synthetic runs: a sitting without a
defaults row has a cost to plot, and a report that fails after its tables
has still written every run to its JSON; of where a warm row's state
directory starts; and of the page-cache room read again before round 1."""
import argparse
import contextlib
import importlib.machinery
import importlib.util
import json
import os
import sys
import tempfile
import types
import unittest
from pathlib import Path

HERE = os.path.dirname(os.path.abspath(__file__))
_loader = importlib.machinery.SourceFileLoader("benchrun", os.path.join(HERE, "run"))
_spec = importlib.util.spec_from_loader("benchrun", _loader)
benchrun = importlib.util.module_from_spec(_spec)
_loader.exec_module(benchrun)


def config(key, daemon=False):
    return types.SimpleNamespace(key=key, name=key, oracle=False, group="static", daemon=daemon)


def refuse_plot(png):
    raise RuntimeError("no plot")


def sitting(out, rows, rounds=3, warm_from=None):
    runs = [{"config": c, "run": k + 1, "stalls": 10 * (k + 1), "refaults": 1000 + k,
             "reader_mib_s": 5000.0 + k, "lead_mib_s": 6000.0}
            for k in range(rounds) for c in rows]
    args = types.SimpleNamespace(scenarios=["mixed"], configs=rows, runs=rounds, seed=1, warm=False,
                                 settling_runs=benchrun.SETTLING_RUNS, pretouch=False, reader_fit=None, compact=False,
                                 other_daemon=None, other_config=None, warm_from=warm_from)
    bench = types.SimpleNamespace(results={"mixed": runs}, args=args, out=out, mode_name="quick",
                                  mode={"mixed": {}}, reader_plan={}, outside_plan=None, skipped={},
                                  keeps_state=None, configs=[config(c, c.startswith("memoptimizer")) for c in rows],
                                  configs_for=lambda sc: [], runs_for=lambda sc: rounds)
    scenario = types.SimpleNamespace(name="mixed", describe=lambda: "synthetic", skip=[], lead=5.0,
                                     settling_recs=[{"stalls": 7}])
    return benchrun.Report(bench, scenario, 1.0), runs


class Report(unittest.TestCase):
    def test_cost_without_defaults_row(self):
        with tempfile.TemporaryDirectory() as d:
            r, _ = sitting(Path(d), ["memoptimizer", "memoptimizer-other", "wsf=100"])
            self.assertEqual(r.cost_key(), "refaults")
            self.assertEqual(r.best_static(), "wsf=100")
            r, _ = sitting(Path(d), ["defaults", "memoptimizer", "wsf=100"])
            self.assertEqual(r.cost_key(), "lost_pct")

    def test_time_plot_rows_in_a_sitting_of_warm_daemons_only(self):
        # a sitting of two warm rows had no row to draw and failed after its tables
        with tempfile.TemporaryDirectory() as d:
            r, _ = sitting(Path(d), ["memoptimizer-warm", "memoptimizer-other-warm"])
            self.assertEqual(r.time_rows(), ["memoptimizer-warm", "memoptimizer-other-warm"])
            r, _ = sitting(Path(d), ["defaults", "wsf=100", "memoptimizer", "memoptimizer-warm"])
            self.assertEqual(r.time_rows(), ["defaults", "wsf=100", "memoptimizer"])

    def test_runs_written_before_a_failing_plot(self):
        with tempfile.TemporaryDirectory() as d:
            r, runs = sitting(Path(d), ["memoptimizer", "memoptimizer-other"])

            def broken(png):
                raise RuntimeError("gnuplot failed")
            r.plot = broken
            with self.assertRaises(RuntimeError):
                r.write()
            with open(Path(d) / "mixed.json", encoding="utf-8") as f:
                written = json.load(f)
            self.assertEqual([(x["config"], x["run"]) for x in written["runs"]],
                             [(x["config"], x["run"]) for x in runs])
            self.assertIn("--configs memoptimizer,memoptimizer-other", written["command"])
            self.assertNotIn("--warm-from", written["command"])
            self.assertNotIn("settling", written["command"])        # the default count
            self.assertEqual(written["settling"], [{"stalls": 7}])

    def test_the_command_says_where_warm_rows_started(self):
        with tempfile.TemporaryDirectory() as d:
            r, _ = sitting(Path(d), ["memoptimizer-warm"], warm_from=Path("/var/tmp/seed"))
            r.plot = refuse_plot        # the runs are written before it
            with self.assertRaises(RuntimeError):
                r.write()
            with open(Path(d) / "mixed.json", encoding="utf-8") as f:
                self.assertIn(" --warm-from /var/tmp/seed", json.load(f)["command"])


class WarmState(unittest.TestCase):
    """A warm row's first run starts empty, even where a killed sitting left
    its state directory, or from --warm-from's file; its later runs keep
    what the daemon wrote."""

    def state(self, warm_from):
        with tempfile.TemporaryDirectory() as d:
            work, saved = Path(d, "work"), benchrun.WORK
            benchrun.WORK = work
            try:
                bench = types.SimpleNamespace(args=types.SimpleNamespace(warm_from=warm_from),
                                              warm_started=set())
                row, scenario = config("memoptimizer-warm", "warm"), types.SimpleNamespace(name="bursts")
                left = work / "state-memoptimizer-warm-bursts"
                left.mkdir(parents=True)
                (left / "learned").write_text("left by a killed sitting")
                first = benchrun.Bench.state_dir(bench, row, scenario)
                seen = [sorted((p.name, p.read_text()) for p in first.iterdir())]
                (first / "learned").write_text("written by run 1")
                later = benchrun.Bench.state_dir(bench, row, scenario)
                seen.append((later / "learned").read_text())
                return seen
            finally:
                benchrun.WORK = saved

    def test_first_run_empty(self):
        self.assertEqual(self.state(None), [[], "written by run 1"])

    def test_first_run_from_warm_from(self):
        with tempfile.TemporaryDirectory() as d:
            Path(d, "learned").write_text("version 1\n")
            self.assertEqual(self.state(Path(d)), [[("learned", "version 1\n")], "written by run 1"])


class FailingPlot(unittest.TestCase):
    """A plot gnuplot cannot draw (a fragmented sitting of the daemon alone:
    "x range is invalid") is left out with its reason; the report is
    written and the sitting goes on to its next scenario."""

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.bin = Path(self.dir.name, "bin")
        self.bin.mkdir()
        self.path = os.environ["PATH"]
        os.environ["PATH"] = f"{self.bin}:{self.path}"

    def tearDown(self):
        os.environ["PATH"] = self.path
        self.dir.cleanup()

    def gnuplot(self, status):
        g = self.bin / "gnuplot"
        g.write_text(f"#!/bin/sh\ncat > /dev/null\necho 'line 0: x range is invalid' >&2\nexit {status}\n")
        g.chmod(0o755)

    def test_a_plot_not_drawn_says_why(self):
        self.gnuplot(1)
        png = Path(self.dir.name, "x.png")
        got = benchrun.gnuplot("plot 1", png)
        self.assertEqual(got, "not drawn: gnuplot exited 1: line 0: x range is invalid")
        self.assertEqual(benchrun.figure("stalls against cost", got),
                         "(stalls against cost: not drawn: gnuplot exited 1: line 0: x range is invalid)")
        self.gnuplot(0)
        self.assertEqual(benchrun.gnuplot("plot 1", png), png)
        self.assertEqual(benchrun.figure("stalls against cost", png), "![stalls against cost](x.png)")


class Steal(unittest.TestCase):
    """The host's stolen CPU time is /proc/stat's cpu line, eighth value."""

    STAT = ("cpu  217847 0 2118731 3687405 68996 0 1670 11839 0 0\n"
            "cpu0 100 0 1000 2000 30 0 800 5900 0 0\n")

    def test_steal_is_the_eighth_value_of_the_cpu_line(self):
        tick = os.sysconf("SC_CLK_TCK")
        self.assertAlmostEqual(benchrun.cpu_steal_seconds(self.STAT), 11839 / tick)

    def test_a_stat_without_the_column_is_refused(self):
        with self.assertRaises(ValueError):
            benchrun.cpu_steal_seconds("cpu  1 2 3 4 5 6 7\n")
        with self.assertRaises(ValueError):
            benchrun.cpu_steal_seconds("intr 1 2 3\n")


class EpisodeRefaults(unittest.TestCase):
    """An episode's refaults are its own and the calm phase's after it."""

    PHASES = [dict(kind="lead-in", refaults=5), dict(kind="train", refaults=100),
              dict(kind="calm", refaults=40), dict(kind="streaming", refaults=7),
              dict(kind="accumulate", refaults=3), dict(kind="calm", refaults=1000)]

    def test_the_calm_after_counts(self):
        self.assertEqual(benchrun.episode_refaults(self.PHASES, "train"), 140)

    def test_an_episode_followed_by_another_counts_alone(self):
        self.assertEqual(benchrun.episode_refaults(self.PHASES, "streaming"), 7)
        self.assertEqual(benchrun.episode_refaults(self.PHASES, "accumulate"), 1003)

    def test_the_last_phase(self):
        self.assertEqual(benchrun.episode_refaults(self.PHASES[:2], "train"), 100)


class ThpModes(unittest.TestCase):
    """The report names the THP policy its results depend on."""

    def modes(self, files):
        saved = benchrun.THP_DIR
        with tempfile.TemporaryDirectory() as d:
            for name, text in files.items():
                Path(d, name).write_text(text)
            benchrun.THP_DIR = Path(d)
            try:
                return benchrun.thp_modes()
            finally:
                benchrun.THP_DIR = saved

    def test_the_bracketed_choices(self):
        self.assertEqual(self.modes({"enabled": "always [madvise] never\n",
                                     "defrag": "always defer defer+madvise [madvise] never\n"}),
                         "THP enabled madvise, defrag madvise")
        self.assertEqual(self.modes({"enabled": "[always] madvise never\n",
                                     "defrag": "always [defer+madvise] madvise never\n"}),
                         "THP enabled always, defrag defer+madvise")

    def test_a_kernel_without_thp(self):
        self.assertEqual(self.modes({}), "THP absent")
        self.assertEqual(self.modes({"enabled": "always [madvise] never\n"}), "THP absent")


class RecordedDefaults(unittest.TestCase):
    def test_a_dry_run_daemon_beside_the_boot_values(self):
        # the row records the defaults: it must write no sysctl itself, and
        # its daemon must be configured not to write either
        c = {c.key: c for c in benchrun.make_configs(24 << 30)}["defaults+record"]
        self.assertEqual(c.sysctls, {})
        self.assertEqual(c.daemon, "cold")
        self.assertEqual(c.group, "experiment")    # only when --configs names it
        lines = [ln.split("#")[0].split() for ln in Path(c.conf).read_text().splitlines()]
        self.assertIn(["dry_run", "=", "yes"], lines)


class DaemonOnProactive(unittest.TestCase):
    def test_the_daemon_on_a_standing_proactiveness(self):
        # written before the daemon starts, run only when --configs names it
        c = {c.key: c for c in benchrun.make_configs(24 << 30)}["memoptimizer@proactive=80"]
        self.assertEqual(c.sysctls, {"compaction_proactiveness": 80})
        self.assertEqual(c.daemon, "cold")
        self.assertEqual(c.group, "experiment")


class Settling(unittest.TestCase):
    """Runs at the defaults, not counted, before round 1: as many as asked,
    each kept, and said in the command and the report."""

    def test_the_count_is_checked(self):
        for text, n in (("0", 0), ("5", 5), (str(benchrun.SETTLING_MAX), benchrun.SETTLING_MAX)):
            self.assertEqual(benchrun.settling_count(text), n)
        for text in ("", "-1", "x", "2.5", str(benchrun.SETTLING_MAX + 1), "0x5"):
            with self.assertRaises(argparse.ArgumentTypeError):
                benchrun.settling_count(text)

    def parse(self, *argv):
        old = sys.argv
        sys.argv = ["bench/run", "--scenarios", "mixed", *argv]
        try:
            return benchrun.parse_args()
        finally:
            sys.argv = old

    def test_the_flags(self):
        self.assertEqual(self.parse().settling_runs, benchrun.SETTLING_RUNS)
        self.assertEqual(self.parse("--smoke").settling_runs, benchrun.SETTLING_RUNS_SMOKE)
        self.assertEqual(self.parse("--smoke", "--settling-runs", "5").settling_runs, 5)
        self.assertEqual(self.parse("--settling-runs", "2").settling_runs, 2)
        self.assertEqual(self.parse("--no-settling-run").settling_runs, 0)
        with open(os.devnull, "w") as null, contextlib.redirect_stderr(null):
            with self.assertRaises(SystemExit):
                self.parse("--settling-runs", "2", "--no-settling-run")
            with self.assertRaises(SystemExit):
                self.parse("--settling-runs", "99")

    def settle(self, n, settling):
        calls, logged = [], []
        defaults = config("defaults")

        def run_one(sc, c, index):
            calls.append((c.key, index))
            return {"stalls": 100 * len(calls), "refaults": 1, "start_huge_gib": 1.0, "start_free_gib": 1.5,
                    "reader_mib_s": 5000.0, "secret": "not kept"}
        bench = types.SimpleNamespace(args=types.SimpleNamespace(settling_runs=n), configs=[defaults, config("x")],
                                      run_one=run_one)
        sc = types.SimpleNamespace(name="mixed", settling=settling, progress=lambda rec: "train  0 ")
        orig = benchrun.log
        benchrun.log = logged.append
        try:
            benchrun.Bench.settling_runs(bench, sc)
        finally:
            benchrun.log = orig
        return sc, calls, logged

    def test_runs_at_the_defaults_before_round_1(self):
        sc, calls, logged = self.settle(3, True)
        self.assertEqual(calls, [("defaults", 0)] * 3)
        self.assertEqual([r["stalls"] for r in sc.settling_recs], [100, 200, 300])
        self.assertNotIn("secret", sc.settling_recs[0])
        self.assertIsNone(sc.settling_recs[0]["lat_p99_ms"])     # not in the run: kept as missing
        self.assertIn("3 runs at the defaults", sc.settling_note)
        self.assertIn("stalls 100, 200, 300 (in order)", sc.settling_note)
        self.assertIn("settling run 2 of 3: stalls 200", logged[1])
        report = types.SimpleNamespace(sc=types.SimpleNamespace(settling_note=sc.settling_note, room_note=None))
        self.assertIn("- settling: 3 runs", benchrun.Report.settling(report))

    def test_none_where_the_scenario_has_none_or_none_is_asked(self):
        for n, settling in ((5, False), (0, True)):
            sc, calls, logged = self.settle(n, settling)
            self.assertEqual((calls, logged, sc.settling_recs, sc.settling_note), ([], [], [], None))

    def test_the_command_names_a_count_other_than_the_default(self):
        with tempfile.TemporaryDirectory() as d:
            r, _ = sitting(Path(d), ["defaults", "memoptimizer"])
            r.b.args.settling_runs = 0
            self.assertIn(" --settling-runs 0", r.command())


class RoomDrift(unittest.TestCase):
    """The page-cache room read again before round 1, against the room the
    file set was sized from."""
    GIB = benchrun.GIB

    def bench(self, plan, now):
        logged = []
        b = types.SimpleNamespace(reader_plan=plan, outside_plan={})
        orig_once, orig_log = benchrun.room_once, benchrun.log
        benchrun.room_once = lambda: (now, "")
        benchrun.log = logged.append
        try:
            sc = types.SimpleNamespace(name="mixed", room_note=None)
            benchrun.Bench.check_room(b, sc)
        finally:
            benchrun.room_once, benchrun.log = orig_once, orig_log
        return sc, logged

    def test_a_room_that_held_says_nothing(self):
        self.assertIsNone(benchrun.room_drift_note(23.16 * self.GIB, 23.06 * self.GIB))

    def test_a_room_read_short_is_reported(self):
        note = benchrun.room_drift_note(22.06 * self.GIB, 23.16 * self.GIB)
        self.assertIn("1.10 GiB more than the 22.06 GiB", note)

    def test_a_room_that_shrank_is_reported(self):
        self.assertIn("less headroom", benchrun.room_drift_note(23.0 * self.GIB, 22.3 * self.GIB))

    def test_the_note_goes_to_the_log_the_plan_and_the_header(self):
        plan = dict(size=20.79 * self.GIB, room=22.06 * self.GIB)
        sc, logged = self.bench(plan, 23.16 * self.GIB)
        self.assertEqual(plan["room_before_round_1"], 23.16 * self.GIB)
        self.assertEqual(plan["room_note"], sc.room_note)
        self.assertEqual(logged, ["# mixed: " + sc.room_note])
        report = types.SimpleNamespace(sc=types.SimpleNamespace(settling_note=None, room_note=sc.room_note))
        self.assertIn(sc.room_note, benchrun.Report.settling(report))

    def test_a_smoke_plan_without_a_room_is_left_alone(self):
        plan = dict(size=1, how="smoke")
        sc, logged = self.bench(plan, 23.16 * self.GIB)
        self.assertIsNone(sc.room_note)
        self.assertEqual(logged, [])
        self.assertNotIn("room_before_round_1", plan)


if __name__ == "__main__":
    unittest.main()
