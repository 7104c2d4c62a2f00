"""Checks that icount's sources stay readable in pieces a reader can hold.

- No C++ function outside tests is longer than 60 lines, from the line of
  its opening brace to that of its closing one: a longer one is split into
  named steps.
- No source file outside tests is longer than 600 lines: a longer one is
  split by concern.

Tests are the `*_test.*` files and everything under a `testing/` or
`testdata/` directory; a test reads best as one story, however long.

The source tree is found through the real path of MODULE.bazel (the test
is tagged `external`, so it always runs on the tree as it is).

Usage (bazel/BUILD.bazel runs it): source_lengths_test.py PATH/TO/MODULE.bazel
       source_lengths_test.py --list ROOT   (every function over the limit)
"""

import os
import re
import sys
import unittest

from bazel.source_tree import tree_files

MAX_FUNCTION_LINES = 60
MAX_FILE_LINES = 600
_CPP = (".cc", ".h")
_SOURCES = _CPP + (".js", ".py", ".sh", ".bzl", ".proto", ".css")
_SKIPPED_DIRECTORIES = ("testing", "testdata", "examples")

# What a function's head ends with before its body's "{": the parameter
# list's ")", then qualifiers, a trailing return type or a constructor's
# member initialisers.
_FUNCTION_HEAD = re.compile(
    r"\)\s*(const\s*)?(noexcept\s*)?(override\s*)?(final\s*)?(->\s*[\w:<>,\s*&]+)?$")
_INITIALISER_HEAD = re.compile(r"\)\s*:\s*[\w:]+[({].*[)}]\s*$", re.S)
_CONTROL = re.compile(r"\b(if|for|while|switch|catch)\s*\(")
_LAMBDA = re.compile(r"\]\s*\([^()]*\)\s*(mutable\s*)?(->\s*[\w:<>]+\s*)?$")


def _blank_comments_and_strings(text):
    """text with comments, string and character literals emptied, newlines kept."""
    keep_lines = lambda m: "\n" * m.group(0).count("\n")
    text = re.sub(r'R"([^(\s]*)\((.*?)\)\1"', lambda m: '""' + keep_lines(m), text, flags=re.S)
    text = re.sub(r"/\*.*?\*/", keep_lines, text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r'"(\\.|[^"\\\n])*"', '""', text)
    return re.sub(r"'(\\.|[^'\\\n])+'", "''", text)


def _is_function_head(head):
    head = head.strip()
    if not (_FUNCTION_HEAD.search(head) or _INITIALISER_HEAD.search(head)):
        return False
    last_statement = head.split("\n")[-1]
    return not _CONTROL.search(last_statement) and not _LAMBDA.search(head)


def function_lengths(text):
    """(first line, lines, head) of each outermost function body in C++ text."""
    lines = _blank_comments_and_strings(text).split("\n")
    found = []
    stack = []  # per open brace: (is a function body, its line, the head before it)
    head = ""
    for number, line in enumerate(lines, 1):
        for ch in line:
            if ch == "{":
                inside_function = any(entry[0] for entry in stack)
                stack.append((not inside_function and _is_function_head(head), number, head))
                head = ""
            elif ch == "}":
                if stack:
                    is_function, start, start_head = stack.pop()
                    if is_function:
                        name = " ".join(start_head.split())[-90:]
                        found.append((start, number - start + 1, name))
                head = ""
            elif ch == ";":
                head = ""
            else:
                head += ch
        head += "\n"
    return found


def sources(root):
    """Paths (relative to root) of the sources outside tests, sorted."""
    paths = []
    for path in tree_files(root, lambda d: d.startswith(".") or d in _SKIPPED_DIRECTORIES):
        stem = os.path.splitext(os.path.basename(path))[0]
        if path.endswith(_SOURCES) and not stem.endswith(("_test", "_testutil")):
            paths.append(path)
    return paths


def long_functions(root):
    problems = []
    for path in sources(root):
        if not path.endswith(_CPP):
            continue
        with open(os.path.join(root, path), encoding="utf-8") as f:
            text = f.read()
        for start, length, head in function_lengths(text):
            if length > MAX_FUNCTION_LINES:
                problems.append(f"{path}:{start}: {length} lines: {head}")
    return problems


def long_files(root):
    problems = []
    for path in sources(root):
        with open(os.path.join(root, path), encoding="utf-8") as f:
            length = sum(1 for _ in f)
        if length > MAX_FILE_LINES:
            problems.append(f"{path}: {length} lines")
    return problems


class FunctionLengthsTest(unittest.TestCase):
    """The scanner itself, on code whose lengths are known."""

    def test_counts_outermost_functions_only(self):
        text = ("namespace a {\n"               # 1
                "int F(int x) {\n"              # 2
                "  if (x) {\n"                  # 3
                "    auto g = [](int y) {\n"    # 4
                "      return y;\n"             # 5
                "    };\n"                      # 6
                "  }\n"                         # 7
                "  return \"}\" [0];\n"         # 8
                "}\n"                           # 9
                "struct S {\n"                  # 10
                "  S() : x_(1) {}\n"            # 11
                "  int Get() const {\n"         # 12
                "    return x_;  // }\n"        # 13
                "  }\n"                         # 14
                "  int x_;\n"                   # 15
                "};\n"                          # 16
                "}  // namespace a\n")
        self.assertEqual([(start, length) for start, length, _ in function_lengths(text)],
                         [(2, 8), (11, 1), (12, 3)])

    def test_raw_strings_and_comments_do_not_open_bodies(self):
        text = 'const char* k = R"({ "a": {)";\n/* { */\nvoid F() {\n}\n'
        self.assertEqual([(start, length) for start, length, _ in function_lengths(text)], [(3, 2)])


class SourceLengthsTest(unittest.TestCase):
    root = None

    def test_no_function_is_longer_than_60_lines(self):
        problems = long_functions(self.root)
        self.assertEqual(problems, [], f"split these functions into named steps of at most "
                                       f"{MAX_FUNCTION_LINES} lines:\n  " + "\n  ".join(problems))

    def test_no_file_is_longer_than_600_lines(self):
        problems = long_files(self.root)
        self.assertEqual(problems, [], f"split these files by concern, each at most "
                                       f"{MAX_FILE_LINES} lines:\n  " + "\n  ".join(problems))


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--list":
        for problem in long_functions(sys.argv[2]) + long_files(sys.argv[2]):
            print(problem)
        sys.exit(0)
    SourceLengthsTest.root = os.path.dirname(os.path.realpath(sys.argv.pop(1)))
    unittest.main()
