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

    def test_cpu_use_between_the_samples_around_a_span(self):
        # 2 CPUs: from 0 to 1 s both busy, from 1 to 2 s one idle.
        samples = [(0.0, 100.0, 10.0), (0.5, 101.0, 10.0), (1.0, 102.0, 10.0),
                   (1.5, 103.0, 10.5), (2.0, 104.0, 11.0)]
        self.assertEqual(phase_gaps.cpu_use(samples, 0.0, 1.0), (1.0, 0.0))
        self.assertEqual(phase_gaps.cpu_use(samples, 1.0, 2.0), (0.5, 1.0))
        self.assertEqual(phase_gaps.cpu_use(samples, 0.0, 2.0), (0.75, 1.0))
        # A span between samples widens to the samples around it.
        self.assertEqual(phase_gaps.cpu_use(samples, 1.2, 1.7), (0.5, 1.0))
        # Past the last sample: up to the last.
        self.assertEqual(phase_gaps.cpu_use(samples, 1.0, 9.0), (0.5, 1.0))

    def test_the_machine_counts_idle_time_below_all_time(self):
        all_seconds, idle = phase_gaps.cpu_seconds()
        self.assertGreater(all_seconds, 0)
        self.assertGreaterEqual(idle, 0)
        self.assertLess(idle, all_seconds)

    def test_a_real_command_is_timed_by_its_progress_lines(self):
        samples = []
        events, total, code = phase_gaps.timeline([sys.executable, "-c", FAKE_RUN], samples)
        # Sampled from the start to the end, in order.
        self.assertGreaterEqual(len(samples), 2)
        self.assertEqual(samples, sorted(samples))
        self.assertGreaterEqual(samples[-1][0], total)
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
