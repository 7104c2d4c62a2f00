#!/usr/bin/env python3
"""bench/phase_gaps.py: phases and gaps from a run's progress lines."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import phase_gaps  # noqa: E402

# What a run of 4 orders prints: a first line before any result, repeated
# lines (once a second) without a new result, then results by phase.
FAKE_RUN = r"""
import sys, time
lines = [(0, "instruction counts", 0), (0, "instruction counts", 0.05),
         (1, "instruction counts", 0), (2, "instruction counts", 0.2),
         (2, "wall time, 1 thread", 0), (4, "wall time, 1 thread", 0)]
for done, phase, sleep in lines:
    sys.stderr.write(f"\ricount: {done}/4 done, {phase}, 1s elapsed, ETA 1s")
    sys.stderr.flush()
    time.sleep(sleep)
sys.stderr.write("\nicount: results written to /dev/null\n")
"""


class PhaseGapsTest(unittest.TestCase):
    def test_phases_count_results_and_their_times(self):
        events = [(1.0, 0, "instruction counts"), (9.0, 1, "instruction counts"),
                  (12.0, 3, "instruction counts"), (13.5, 5, "wall time, 1 thread"),
                  (15.0, 6, "wall time, 1 thread"), (16.0, 7, "wall time, 2 threads")]
        self.assertEqual(phase_gaps.phases(events), [
            ["instruction counts", 3, 9.0, 12.0],
            ["wall time, 1 thread", 3, 13.5, 15.0],
            ["wall time, 2 threads", 1, 16.0, 16.0],
        ])

    def test_a_real_command_is_timed_by_its_progress_lines(self):
        events, total, code = phase_gaps.timeline([sys.executable, "-c", FAKE_RUN])
        self.assertEqual(code, 0)
        self.assertEqual([(done, phase) for _, done, phase in events],
                         [(0, "instruction counts"), (1, "instruction counts"),
                          (2, "instruction counts"), (4, "wall time, 1 thread")])
        rows = phase_gaps.phases(events)
        self.assertEqual([(phase, results) for phase, results, _, _ in rows],
                         [("instruction counts", 2), ("wall time, 1 thread", 2)])
        # The wall-time phase's first result came after the counts' last.
        self.assertGreater(rows[1][2], rows[0][3])
        self.assertGreaterEqual(total, rows[1][3])


if __name__ == "__main__":
    unittest.main()
