"""Checks that README.md and docs/ describe the tools that exist.

Every command in them that runs a tool (`./bazelw run //tools:main -- ...`,
`bazel-bin/tools/ci ...`, `//tools:compare -- ...` in a table) may name
only flags that the tool's --help lists; every target label (//pkg:name)
and every output path (bazel-bin/pkg/name) must be defined in its
package's BUILD.bazel; every relative link must
resolve, with its #anchor if it has one. A renamed flag, target, file or
heading fails this test until the docs follow.

Links may point at any file of the source tree, which is found through the
real path of the first markdown file (the test is tagged `external`, so it
always runs on the tree as it is).

Usage (docs/BUILD.bazel runs it):
  docs_test.py --tool=NAME=PATH ... --build_file=PKG/BUILD.bazel ... FILE.md ...
"""

import argparse
import functools
import os
import re
import subprocess
import sys
import unittest

# A tool invocation: group 1 is the tool's name. `//tools:NAME` counts as a
# command only when " -- " follows it (flags after Bazel's separator).
_INVOCATION = re.compile(
    r"(?:(?<![\w/.-])(?:\./)?bazel-bin/tools/(\w+)(?=[\s`]|$)"
    r"|(?:bazel|\./bazelw) run //tools:(\w+)(?=\s)"
    r"|(?<![\w@])//tools:(\w+)\s+--\s)")
_FLAG = re.compile(r"(?<![\w-])--([A-Za-z_]\w*)")
_LABEL = re.compile(r"(?<![\w/.@:-])(@icount)?//([\w/.-]*)(?::([\w.+-]+))?")
# bazel-bin/PKG/NAME: what target NAME of PKG builds.
_OUTPUT = re.compile(r"(?<![\w/.-])(?:\./)?bazel-bin/([\w/.+-]*\w)")
# `./bazelw build TARGETS` or `bazel run //PKG:NAME`: group 2, the targets.
_BUILD_COMMAND = re.compile(r"(?:\./bazelw|bazel) (build|run|test)((?:\s+(?:--\S+|//\S+))+)")
# bazel-bin/PKG/NAME as a command uses it, also as $PWD/bazel-bin/...
_USED_OUTPUT = re.compile(r"(?<![\w/.$-])(?:\$PWD/|\./)?bazel-bin/([\w/.+-]*\w)")
_LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)|!\[[^\]]*\]\(([^)\s]+)\)")
_HELP_FLAG = re.compile(r"^  --(\w+)=", re.M)
_ISSUE_NUMBER = re.compile(r"\bissues? #\d+|\(#\d+\)", re.I)
# Flags every tool takes whatever its --help lists.
_COMMON_FLAGS = {"help", "helpfull", "version"}


def _end_of_command(text):
    """Where the command that starts `text` ends: an unquoted `|`, `;`,
    `&&`, `>`, backquote or newline not escaped by a backslash."""
    quote = None
    i = 0
    while i < len(text):
        c = text[i]
        if quote:
            if c == quote:
                quote = None
        elif c in "'\"":
            quote = c
        elif c == "\\" and text[i + 1:i + 2] == "\n":
            i += 2
            continue
        elif c == "\\" and text[i + 1:i + 2] == "|":  # `a\|b` in a table cell
            i += 2
            continue
        elif c in "|;>`\n" or text.startswith("&&", i):
            return i
        i += 1
    return len(text)


def _code_spans(markdown):
    """(line number, text) of every code block and inline code span."""
    spans = []
    in_block = False
    block = []
    block_start = 0
    for number, line in enumerate(markdown.splitlines(), 1):
        if line.lstrip().startswith("```"):
            if in_block:
                spans.append((block_start, "\n".join(block) + "\n"))
                block = []
            else:
                block_start = number + 1
            in_block = not in_block
            continue
        if in_block:
            block.append(line)
        else:
            for match in re.finditer(r"`([^`]+)`", line):
                spans.append((number, match.group(1)))
    return spans


def _slug(heading):
    """GitHub's anchor for a heading."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def _anchors(markdown):
    """The #anchors of a page: its headings' and its HTML ids'."""
    anchors = set(re.findall(r'<a id="([^"]+)"', markdown))
    in_block = False
    for line in markdown.splitlines():
        if line.lstrip().startswith("```"):
            in_block = not in_block
        elif not in_block and re.match(r"#{1,6} ", line):
            slug = _slug(line.lstrip("#"))
            suffix = 1
            unique = slug
            while unique in anchors:
                unique = f"{slug}-{suffix}"
                suffix += 1
            anchors.add(unique)
    return anchors


class DocsTest(unittest.TestCase):
    tools = {}  # name -> path of the binary
    build_files = {}  # package ("" for the root) -> its BUILD.bazel's text
    files = []  # markdown files, relative to the workspace root
    source_root = ""
    _flags = {}

    def flags_of(self, tool):
        if tool not in self._flags:
            help_text = subprocess.run([self.tools[tool], "--help"], capture_output=True, text=True,
                                       check=True).stdout
            self._flags[tool] = set(_HELP_FLAG.findall(help_text)) | _COMMON_FLAGS
        return self._flags[tool]

    @staticmethod
    @functools.lru_cache(maxsize=None)
    def read(path):
        """The text of a markdown file, read once (links read pages again)."""
        with open(path, encoding="utf-8") as f:
            return f.read()

    def lines(self):
        """(path, line number, line) of every docs file."""
        for path in self.files:
            for line_number, line in enumerate(self.read(path).splitlines(), 1):
                yield path, line_number, line

    def fail_on(self, problems):
        if problems:
            self.fail("\n".join(problems))

    def test_commands_name_tools_and_flags_that_exist(self):
        problems = []
        commands = 0
        for path in self.files:
            for line, span in _code_spans(self.read(path)):
                for match in _INVOCATION.finditer(span):
                    tool = next(group for group in match.groups() if group)
                    where = f"{path}:{line + span.count(chr(10), 0, match.start())}"
                    if tool not in self.tools:
                        problems.append(f"{where}: //tools:{tool} is not a tool this test knows "
                                        "(a tool docs/BUILD.bazel passes with --tool)")
                        continue
                    commands += 1
                    rest = span[match.end():]
                    arguments = rest[:_end_of_command(rest)]
                    # A flag's quoted value may hold another command's flags.
                    arguments = re.sub(r"""=(["'])[^"']*\1""", "=", arguments)
                    for flag in _FLAG.findall(arguments):
                        if flag not in self.flags_of(tool):
                            problems.append(f"{where}: {tool} has no flag --{flag} (see "
                                            f"bazel-bin/tools/{tool} --help)")
        self.fail_on(problems)
        self.assertGreater(commands, 20, "expected the docs to show tool commands")

    def target_problem(self, package, name):
        """Why //package:name is not a target, or None when it is."""
        if package not in self.build_files:
            return (f"package //{package} is not one whose BUILD.bazel docs/BUILD.bazel gives "
                    "this test (add it to _PACKAGES)")
        if not re.search(rf'\bname\s*=\s*"{re.escape(name)}"', self.build_files[package]):
            return f'{package}/BUILD.bazel defines no target "{name}"'
        return None

    def test_labels_name_targets_that_exist(self):
        problems = []
        for path, line_number, line in self.lines():
            targets = []
            for match in _LABEL.finditer(line):
                package, name = match.group(2), match.group(3)
                if package.endswith("...") or package == "" and not name:
                    continue  # //..., a pattern
                if name and os.path.isfile(os.path.join(self.source_root, package, name)):
                    continue  # a file, e.g. @icount//third_party:repositories.bzl
                if not name and package in self.build_files:
                    continue  # a package: //tools, @icount//timer
                targets.append((match.group(0), package, name))
            for match in _OUTPUT.finditer(line):
                output = re.sub(r"\.runfiles(/.*)?$", "", match.group(1))
                package, _, name = output.rpartition("/")
                targets.append((match.group(0), package, name))
            for text, package, name in targets:
                problem = self.target_problem(package, name)
                if problem:
                    problems.append(f"{path}:{line_number}: {text}: {problem}")
        self.fail_on(problems)

    def test_relative_links_resolve(self):
        problems = []
        for path, line_number, line in self.lines():
            for match in _LINK.finditer(line):
                link = match.group(1) or match.group(2)
                if re.match(r"[a-z]+:", link):
                    continue  # https:, mailto:
                target, _, anchor = link.partition("#")
                where = f"{path}:{line_number}: link {link}"
                resolved = os.path.normpath(os.path.join(os.path.dirname(path), target)) \
                    if target else path
                if resolved.startswith(".."):
                    problems.append(f"{where}: points outside the repository")
                    continue
                resolved = os.path.join(self.source_root, resolved)
                if not os.path.exists(resolved):
                    problems.append(f"{where}: {resolved} does not exist")
                elif anchor and resolved.endswith(".md") and \
                        anchor not in _anchors(self.read(resolved)):
                    problems.append(f"{where}: {resolved} has no heading #{anchor}")
        self.fail_on(problems)

    def test_pages_build_what_they_use_first(self):
        """Every bazel-bin/PKG/NAME a page's commands use comes after a
        command on that page that builds it (`./bazelw build` of //PKG:NAME,
        //PKG:all, //PKG/... or //...; `./bazelw run //PKG:NAME` builds it
        too): a newcomer who copies a command from one page must not meet
        "No such file or directory"."""
        problems = []
        for path in self.files:
            text = self.read(path)
            builds = [(match.start(), [target.rstrip("`'\").,:;") for target in match.group(2).split()])
                      for match in _BUILD_COMMAND.finditer(text)]
            offset = 0
            for line, span in _code_spans(text):
                at = text.find(span, offset)
                offset = max(offset, at)
                for match in _USED_OUTPUT.finditer(span):
                    output = re.sub(r"\.runfiles(/.*)?$", "", match.group(1))
                    package, _, name = output.rpartition("/")
                    covered = {f"//{package}:{name}", f"//{package}:all", f"//{package}/...", "//..."}
                    parts = package.split("/")
                    covered |= {"//" + "/".join(parts[:k]) + "/..." for k in range(1, len(parts))}
                    if not any(start < at + match.start() and covered & set(targets)
                               for start, targets in builds):
                        problems.append(f"{path}:{line + span.count(chr(10), 0, match.start())}: "
                                        f"uses bazel-bin/{match.group(1)}, which no command before it "
                                        f"on the page builds (show `./bazelw build //{package}:{name}` first)")
        self.fail_on(problems)

    def test_no_issue_numbers(self):
        problems = []
        for path, line_number, line in self.lines():
            if _ISSUE_NUMBER.search(line):
                problems.append(f"{path}:{line_number}: an issue number in user docs: {line}")
        self.fail_on(problems)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tool", action="append", default=[])
    parser.add_argument("--build_file", action="append", default=[])
    parser.add_argument("files", nargs="+")
    args, rest = parser.parse_known_args()
    DocsTest.tools = dict(tool.split("=", 1) for tool in args.tool)
    for build_file in args.build_file:
        with open(build_file, encoding="utf-8") as f:
            package = os.path.dirname(os.path.normpath(build_file))
            DocsTest.build_files[package] = f.read()
    DocsTest.files = [os.path.normpath(path) for path in args.files]
    first = DocsTest.files[0]
    DocsTest.source_root = os.path.realpath(first)[:-len(first)].rstrip("/") or "/"
    unittest.main(argv=[sys.argv[0]] + rest)


if __name__ == "__main__":
    main()
