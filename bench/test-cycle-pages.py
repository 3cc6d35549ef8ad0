#!/usr/bin/env python3
"""Tests of bench/cycle-pages on synthetic text: /proc/PID/maps lines are
read into ranges with their file's name; a lackey trace is cut into cycles
at each entry of the given address, the pages before the first entry are
not a cycle's, and code and data on the same page count apart; bad options
are refused."""
import importlib.machinery
import importlib.util
import os
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(HERE, "cycle-pages")
loader = importlib.machinery.SourceFileLoader("cycle_pages", TOOL)
spec = importlib.util.spec_from_loader("cycle_pages", loader)
cp = importlib.util.module_from_spec(spec)
loader.exec_module(cp)

MAPS = """\
55d0a0000000-55d0a0002000 r--p 00000000 fe:01 1234 /usr/sbin/memoptimizer
55d0a0002000-55d0a0010000 r-xp 00002000 fe:01 1234 /usr/sbin/memoptimizer
7f0000000000-7f0000100000 r-xp 00000000 fe:01 99 /usr/lib/x86_64-linux-gnu/libc.so.6
7f0000200000-7f0000210000 rw-p 00000000 00:00 0
7ffc00000000-7ffc00021000 rw-p 00000000 00:00 0 [stack]
"""


class Maps(unittest.TestCase):
    def test_ranges_and_names(self):
        m = cp.mappings(MAPS)
        self.assertEqual(len(m), 5)
        self.assertEqual(m[0], (0x55d0a0000000, 0x55d0a0002000, "memoptimizer"))
        self.assertEqual(cp.name_of(m, 0x7f0000000fff), "libc.so.6")
        self.assertEqual(cp.name_of(m, 0x7f0000200010), "[anon]")
        self.assertEqual(cp.name_of(m, 0x7ffc00000010), "[stack]")
        self.assertEqual(cp.name_of(m, 0x10), "?")


class Cycles(unittest.TestCase):
    def test_cut_at_each_entry(self):
        entry = 0x55d0a0003000
        trace = [
            "==1== Lackey, an example Valgrind tool",
            "I  55d0a0002000,4",          # before the first entry: no cycle's
            " L 7ffc00000008,8",
            "I  55d0a0003000,4",          # cycle 1
            " S 7ffc00000010,8",
            " L 7ffc00000ff0,8",          # the same stack page
            "I  7f0000000010,3",
            " M 55d0a0003008,8",          # data on the code's page: counted apart
            "I  55d0a0003000,4",          # cycle 2
            " L 7f0000200000,8",
            "I  55d0a0003000,4",          # cycle 3, cut by the end
        ]
        got = list(cp.cycles(iter(trace), entry))
        self.assertEqual(len(got), 2)
        self.assertEqual(got[0], {("I", 0x55d0a0003), ("D", 0x7ffc00000), ("I", 0x7f0000000), ("D", 0x55d0a0003)})
        self.assertEqual(got[1], {("I", 0x55d0a0003), ("D", 0x7f0000200)})


class Options(unittest.TestCase):
    def refused(self, *args):
        r = subprocess.run([sys.executable, TOOL, *args], capture_output=True, text=True)
        self.assertEqual(r.returncode, 2, r.stderr)
        return r.stderr

    def test_bad_seconds(self):
        self.assertIn("usage", self.refused("build", "soon"))
        self.assertIn("usage", self.refused("build", "0"))
        self.assertIn("usage", self.refused("build", "5", "extra"))

    def test_no_daemon_there(self):
        self.assertIn("no ", self.refused("/nonexistent", "5"))


if __name__ == "__main__":
    unittest.main()
