"""Checks icount's build files against what Bazel 9 and the module need.

- Every C++ and proto rule (cc_library, cc_binary, cc_test, cc_import,
  cc_shared_library, proto_library, cc_proto_library) is loaded from
  @rules_cc or @rules_proto, never Bazel's native one (Bazel 9 has none).
- MODULE.bazel's version is //timer's (timer/version.h): the library other
  projects depend on.
- MODULE.bazel's use_repo of the system extension lists exactly the
  repositories icount_system_repositories declares (SYSTEM_REPOSITORIES in
  third_party/repositories.bzl).

The source tree is found through the real path of MODULE.bazel (the test
is tagged `external`, so it always runs on the tree as it is).

Usage (bazel/BUILD.bazel runs it): build_files_test.py PATH/TO/MODULE.bazel
"""

import os
import re
import sys
import unittest

# A rule called at the start of a line (BUILD files, macros, BUILD
# templates in .bzl strings): group 1 "native." or empty, group 2 the rule.
_RULE_CALL = re.compile(
    r"^[ \t]*(native\.)?(cc_library|cc_binary|cc_test|cc_import|cc_shared_library|"
    r"proto_library|cc_proto_library)\(", re.M)
# load("@rules_cc//cc:defs.bzl", "cc_binary", ...): group 1 the repository,
# group 2 the names.
_LOAD = re.compile(r'load\(\s*"@(rules_cc|rules_proto)//[^"]*"((?:\s*,\s*"[^"]*")+)\s*,?\s*\)')
_BUILD_FILE_NAMES = ("BUILD", "BUILD.bazel")


def build_files(root):
    """Every BUILD file, .bzl and BUILD template (*.BUILD) under root."""
    for directory, subdirectories, files in os.walk(root):
        subdirectories[:] = sorted(
            d for d in subdirectories
            if not d.startswith((".", "bazel-")) and
            not os.path.islink(os.path.join(directory, d)))
        for name in sorted(files):
            if name in _BUILD_FILE_NAMES or name.endswith((".bzl", ".BUILD")):
                yield os.path.join(directory, name)


def native_rules(path, text):
    """'file:line: rule' for each rule in text not loaded from a rule set."""
    loaded = set()
    for match in _LOAD.finditer(text):
        loaded.update(re.findall(r'"([^"]*)"', match.group(2)))
    found = []
    for match in _RULE_CALL.finditer(text):
        if match.group(1) or match.group(2) not in loaded:
            line = text.count("\n", 0, match.start()) + 1
            found.append("%s:%d: %s%s" % (path, line, match.group(1) or "", match.group(2)))
    return found


class BuildFilesTest(unittest.TestCase):
    root = None

    def read(self, relative):
        with open(os.path.join(self.root, relative)) as f:
            return f.read()

    def test_the_checker_finds_native_rules(self):
        self.assertEqual(native_rules("x", 'cc_library(name = "a")\n'), ["x:1: cc_library"])
        self.assertEqual(native_rules("x", '\n    native.cc_test(\n'), ["x:2: native.cc_test"])
        loaded = 'load("@rules_cc//cc:defs.bzl", "cc_binary", "cc_library")\ncc_library(\n'
        self.assertEqual(native_rules("x", loaded), [])
        self.assertEqual(native_rules("x", loaded + "cc_test(\n"), ["x:3: cc_test"])

    def test_no_native_cc_or_proto_rule(self):
        found = []
        files = list(build_files(self.root))
        self.assertGreater(len(files), 20, "build files not found under %s" % self.root)
        for path in files:
            with open(path) as f:
                found += native_rules(os.path.relpath(path, self.root), f.read())
        self.assertEqual(
            found, [],
            "rules Bazel 9 no longer has natively; load them, e.g. "
            'load("@rules_cc//cc:defs.bzl", "cc_library"):\n  ' + "\n  ".join(found))

    def test_module_version_is_the_timers(self):
        module = re.search(r'module\(\s*name = "icount",\s*version = "([^"]+)"',
                           self.read("MODULE.bazel"))
        timer = re.search(r'kTimerVersion\[\] = "([^"]+)"', self.read("timer/version.h"))
        self.assertIsNotNone(module, "MODULE.bazel: no module(name = \"icount\", version = ...)")
        self.assertEqual(module.group(1), timer.group(1),
                         "MODULE.bazel's version must be timer/version.h's kTimerVersion")

    def test_module_uses_every_system_repository(self):
        used = re.search(r"use_repo\(system,([^)]*)\)", self.read("MODULE.bazel"))
        declared = re.search(r"SYSTEM_REPOSITORIES = \[([^\]]*)\]",
                             self.read("third_party/repositories.bzl"))
        self.assertIsNotNone(used, "MODULE.bazel: no use_repo(system, ...)")
        self.assertIsNotNone(declared, "third_party/repositories.bzl: no SYSTEM_REPOSITORIES")
        self.assertEqual(sorted(re.findall(r'"([^"]+)"', used.group(1))),
                         sorted(re.findall(r'"([^"]+)"', declared.group(1))))
        for name in re.findall(r'"([^"]+)"', declared.group(1)):
            self.assertIn('"%s" not in declared' % name, self.read("third_party/repositories.bzl"),
                          "icount_system_repositories does not declare %s" % name)


if __name__ == "__main__":
    module = sys.argv.pop(1)
    BuildFilesTest.root = os.path.dirname(os.path.realpath(module))
    unittest.main()
