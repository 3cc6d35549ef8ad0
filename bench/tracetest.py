"""What the tests of the trace-reading tools (test-train-lead.py,
test-stall-zones.py, test-after-demand.py) share: a temporary trace file
per test, written from rows, and the tool run on it."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
HEADER = {"type": "header", "format": "memoptimizer-trace", "version": 1}


def write_trace(path, samples, header=None):
    """A trace of a header and the sample dicts (type "sample" added)."""
    rows = [dict(HEADER, **(header or {}))] + [dict(s, type="sample") for s in samples]
    with open(path, "w") as f:
        f.write("\n".join(json.dumps(r) for r in rows) + "\n")


class ToolCase(unittest.TestCase):
    """self.path: a trace file name in a directory of its own;
    self.run_tool(): the tool named by the class's TOOL on arguments."""
    TOOL = None

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.dir.name, "t.jsonl")

    def tearDown(self):
        self.dir.cleanup()

    def run_tool(self, *args):
        return subprocess.run([sys.executable, os.path.join(HERE, self.TOOL), *args],
                              capture_output=True, text=True)

    def assert_refused(self, bad_options, message):
        """Each option list in bad_options is a usage error naming message;
        a trace that cannot be read is an error naming it. self.path must
        hold a readable trace."""
        for bad in bad_options:
            r = self.run_tool(*bad, self.path)
            self.assertEqual(r.returncode, 2, bad)
            self.assertIn(message, r.stderr)
        r = self.run_tool(os.path.join(self.dir.name, "missing.jsonl"))
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("missing.jsonl", r.stderr)
