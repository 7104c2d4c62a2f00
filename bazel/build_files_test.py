"""Checks icount's build files against what Bazel 9 and the module need.

- Every C++ and proto rule (cc_library, cc_binary, cc_test, cc_import,
  cc_shared_library, proto_library, cc_proto_library) is loaded from
  @rules_cc or @rules_proto, never Bazel's native one (Bazel 9 has none).
- MODULE.bazel's version is //timer's (timer/version.h): the library other
  projects depend on.
- MODULE.bazel's use_repo of the system extension lists exactly the
  repositories icount_system_repositories declares (SYSTEM_REPOSITORIES in
  third_party/repositories.bzl).
- Every library and binary of an icount package (but the tools', which may
  use everything) is named by a dependency rule in bazel/BUILD.bazel, so a
  target added to a package cannot take an edge the rules never check.
  Private targets and those under a package's internal/ are visible to
  that package alone and are checked through it; testonly targets are the
  tests' own.

The source tree is found through the real path of MODULE.bazel (the test
is tagged `external`, so it always runs on the tree as it is).

Usage (bazel/BUILD.bazel runs it): build_files_test.py PATH/TO/MODULE.bazel
"""

import os
import re
import sys
import unittest

from bazel.source_tree import tree_files

# A rule called at the start of a line (BUILD files, macros, BUILD
# templates in .bzl strings): group 1 "native." or empty, group 2 the rule.
_RULE_CALL = re.compile(
    r"^[ \t]*(native\.)?(cc_library|cc_binary|cc_test|cc_import|cc_shared_library|"
    r"proto_library|cc_proto_library)\(", re.M)
# load("@rules_cc//cc:defs.bzl", "cc_binary", ...): group 1 the repository,
# group 2 the names.
_LOAD = re.compile(r'load\(\s*"@(rules_cc|rules_proto)//[^"]*"((?:\s*,\s*"[^"]*")+)\s*,?\s*\)')
_BUILD_FILE_NAMES = ("BUILD", "BUILD.bazel")
# A library or binary target of a BUILD file: group 1 the rule, group 2
# its attributes.
_TARGET = re.compile(
    r"^(icount_cc_library|icount_cc_proto_library|icount_cc_binary|cc_library|cc_binary|"
    r"cc_proto_library)\(\n(.*?)^\)", re.M | re.S)
# Packages that may depend on every other: no rule names their targets.
_UNCHECKED_PACKAGES = ("tools",)


def build_files(root):
    """Every BUILD file, .bzl and BUILD template (*.BUILD) under root."""
    for path in tree_files(root, lambda d: d.startswith(".")):
        name = os.path.basename(path)
        if name in _BUILD_FILE_NAMES or name.endswith((".bzl", ".BUILD")):
            yield os.path.join(root, path)


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


def rule_targets(rules_text):
    """Every label named in the targets of an allow_dependencies rule."""
    named = set()
    for rule in re.finditer(r"allow_dependencies\((.*?)\n\)", rules_text, re.S):
        targets = re.search(r"targets = \[(.*?)\]", rule.group(1), re.S)
        if targets:
            named.update(re.findall(r'"(//[^"]+)"', targets.group(1)))
    return named


def unchecked_targets(package, build_text, named):
    """Labels of package's libraries and binaries that no rule names."""
    missing = []
    for target in _TARGET.finditer(build_text):
        attributes = target.group(2)
        name = re.search(r'name = "([^"]+)"', attributes).group(1)
        if "testonly = True" in attributes or '"//visibility:private"' in attributes:
            continue
        label = "//%s:%s" % (package, name)
        short = "//%s" % package if name == package.rsplit("/", 1)[-1] else label
        if label not in named and short not in named:
            missing.append("%s (%s)" % (label, target.group(1)))
    return missing


def unlisted_example_files(root, build_text):
    """Files of the example projects under root that build_text does not
    list; Bazel's convenience links and lock files are not the project's."""
    listed = set(re.findall(r'"([^"/]+/[^"]+)"', build_text))
    unlisted = []
    examples = os.path.join(root, "examples")
    for project in sorted(os.listdir(examples)):
        if not os.path.isdir(os.path.join(examples, project)):
            continue
        for path in tree_files(os.path.join(examples, project)):
            path = os.path.join(project, path)
            name = os.path.basename(path)
            if not name.startswith("bazel-") and name != "MODULE.bazel.lock" and \
                    path not in listed:
                unlisted.append(path)
    return unlisted


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

    def test_the_rule_check_finds_unnamed_targets(self):
        build = ('icount_cc_library(\n    name = "orders",\n    hdrs = ["orders.h"],\n)\n\n'
                 'icount_cc_library(\n    name = "worker",\n)\n\n'
                 'icount_cc_library(\n    name = "fakes",\n    testonly = True,\n)\n')
        rules = ('allow_dependencies(\n    name = "w",\n    allowed = ["base"],\n'
                 '    targets = ["//worker"],\n)\n')
        self.assertEqual(unchecked_targets("worker", build, rule_targets(rules)),
                         ["//worker:orders (icount_cc_library)"])

    def test_every_target_of_a_package_is_under_a_dependency_rule(self):
        packages = re.findall(r'"([^"]+)"', re.search(
            r"ICOUNT_PACKAGES = \[([^\]]*)\]", self.read("bazel/dependency_rules.bzl")).group(1))
        named = rule_targets(self.read("bazel/BUILD.bazel"))
        missing = []
        for package in packages:
            if package in _UNCHECKED_PACKAGES:
                continue
            missing += unchecked_targets(package, self.read(package + "/BUILD.bazel"), named)
        self.assertEqual(missing, [], "name them in a rule of bazel/BUILD.bazel (allow_dependencies)")

    def test_examples_build_file_lists_every_example_file(self):
        unlisted = unlisted_example_files(self.root, self.read("examples/BUILD.bazel"))
        self.assertEqual(unlisted, [], "list them in a filegroup of examples/BUILD.bazel")

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
