"""Tests of the trace windowing and the sweep points of scripts/results.py."""

import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import results  # noqa: E402


class Windows(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self.tmp.name)

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, name, data):
        p = self.dir / name
        p.write_bytes(data)
        return p

    def test_short_trace_is_one_window(self):
        p = self.write("t.trace", b"".join(b"%d 0 0 4096 1\n" % i for i in range(5)))
        self.assertEqual(results.cut_windows(p, 5, self.dir), [("all", p)])

    def test_disjoint_windows_keep_header_and_line_endings(self):
        rows = [b"%d,0,R,0,0,4096\r\n" % i for i in range(7)]
        p = self.write("t.csv", b"Timestamp,Response,IOType,LUN,Offset,Size\r\n" + b"".join(rows))
        wins = results.cut_windows(p, 3, self.dir)
        self.assertEqual([label for label, _ in wins], ["records 1–3", "records 4–6"])  # the 7th is left over
        first, second = (f.read_bytes().splitlines(keepends=True) for _, f in wins)
        self.assertEqual(first[0], b"Timestamp,Response,IOType,LUN,Offset,Size\r\n")
        self.assertEqual(first[1:], rows[0:3])
        self.assertEqual(second[1:], rows[3:6])

    def test_last_line_without_newline(self):
        p = self.write("t.trace", b"1 0 0 8 1\n2 0 0 8 1\n3 0 0 8 1\n4 0 0 8 1")
        wins = results.cut_windows(p, 2, self.dir)
        self.assertEqual(wins[1][1].read_bytes(), b"3 0 0 8 1\n4 0 0 8 1\n")


class SweepPoints(unittest.TestCase):
    def test_a_job_is_its_command_line_as_sweep_keys(self):
        trace = results.Workload("t.csv", "trace", [("all", Path("/x/t.csv"))], 1000, "msr")
        sets = results.variant_sets("precondition.layout", "packed")
        self.assertEqual(
            results.sweep_point("p", "baseline", trace, 0, 3, sets),
            {"config": "p", "scheme": "baseline", "trace": "/x/t.csv", "format": "msr", "seed": 3,
             "trace.repeat": "2", "precondition.layout": "packed",
             "precondition.target_moves_per_gc": "default", "precondition.hot_utilization": "default"},
        )
        profile = results.Workload("rep-raid-wdev_0", "profile", [("synthetic", None)], None)
        self.assertEqual(
            results.sweep_point("p", "bpu", profile, 0, 1, []),
            {"config": "p", "scheme": "bpu", "workload": "rep-raid-wdev_0", "seed": 1, "trace.repeat": "2"},
        )


if __name__ == "__main__":
    unittest.main()
