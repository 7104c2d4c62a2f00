"""bench/pytorch_versions.py on a made-up ab_test --sides file."""
import contextlib
import io
import json
import os
import tempfile
import sys
import unittest

# Beside this file, whatever the runner puts on sys.path (Bazel 7's
# Python stub leaves the script's directory off).
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pytorch_versions  # noqa: E402


def count(label, sub_label, mode, per_run, rows):
    return {"label": label, "sub_label": sub_label, "description": mode,
            "number_per_run": "100", "counts_per_run": per_run,
            "metadata": {"case": f"{label}/{sub_label}|{mode}"},
            "exclusive": {"rows": [{"function": f, "count": str(c)} for f, c in rows]}}


def side(name, scale, malloc):
    return {"name": name, "results": {"instruction_counts": [
        count("Pointwise", "add", "C++ Eager", 1000 * scale,
              [(f"./malloc/./malloc/malloc.c:malloc [/lib/libc.so.6]", malloc),
               ("???:0x00000000deadbeef [/usr/lib/libtorch_cpu.so.%s]" % name, 5000)]),
        count("Pointwise", "mul", "C++ Eager", 2000 * scale, []),
        count("nn Modules", "Linear", "Python Eager", 9000, []),
    ]}}


class PyTorchVersionsTest(unittest.TestCase):

    def test_function_names_match_across_releases(self):
        name = pytorch_versions.function_name
        self.assertEqual(name({"function": "./malloc/malloc.c:free [/usr/lib/libc.so.6]"}), "free")
        self.assertEqual(name({"function": "/build/glibc-2.41/malloc/malloc.c:free [/l/libc.so.6]"}),
                         "free")
        self.assertEqual(name({"function": "???:at::add(at::Tensor const&) [/x/libtorch_cpu.so.2.6.0]"}),
                         "at::add(at::Tensor const&)")
        self.assertEqual(name({"function": "???:0x000000000238e600 [/x/libtorch_cpu.so.2.6.0]"}),
                         "unnamed code in libtorch_cpu.so")
        self.assertEqual(name({"function": "???:_PyEval_EvalFrameDefault'2 [/x/libpython3.13.so.1.0]"}),
                         "_PyEval_EvalFrameDefault")
        self.assertEqual(name({"function": "???:0x0000000000284aa0 [/x/libpython3.13.so.1.0]"}),
                         "unnamed code in libpython3.so")
        # Rows with the key's fields, as icount writes them.
        self.assertEqual(name({"key": {"file": "./malloc/malloc.c", "function": "free",
                                       "object": "/usr/lib/libc.so.6"}}), "free")
        self.assertEqual(name({"key": {"file": "???", "function": "0x000000000238e600",
                                       "object": "/x/libtorch_cpu.so.2.6.0"}}),
                         "unnamed code in libtorch_cpu.so")
        self.assertEqual(name({"key": {"file": "a.cc", "function": "f(int (&) [3])",
                                       "object": "/x/liba.so", "recursion": 2}}), "f(int (&) [3])")

    def test_tables_groups_and_the_largest_changes(self):
        sides = {"sides": [side("1.13", 1.0, 300), side("2.6", 1.1, 900), side("2.14", 1.21, 900)]}
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump(sides, f)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            pytorch_versions.main(f.name)
        os.unlink(f.name)
        text = out.getvalue()
        self.assertIn("Cases counted on every side: 3 of 3.", text)
        # Both C++ cases grew 10% a release: the interval is the point.
        self.assertIn("| Pointwise | C++ Eager | 2 | +10.0% [+10.0%, +10.0%] | +10.0% [+10.0%, +10.0%] |",
                      text)
        self.assertIn("| nn Modules | Python Eager | 1 | +0.0% | +0.0% |", text)
        self.assertIn("| all groups | C++ Eager | 2 | +10.0% [+10.0%, +10.0%] |", text)
        self.assertLess(text.index("| nn Modules |"), text.index("| all groups |"))
        self.assertIn("- **Pointwise / add [C++ Eager]**: 1,000 → 1,100 → 1,210 (+21.0%)", text)
        self.assertIn("  - `malloc` +6", text)
        self.assertNotIn("unnamed code in libtorch_cpu.so` +", text)  # the same in both


if __name__ == "__main__":
    unittest.main()
