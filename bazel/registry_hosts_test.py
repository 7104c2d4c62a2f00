"""Checks that no file of icount's tree names a package registry's host.

icount reaches Debian's archive only through the mirror the machine's apt
sources name (environment/root.cc's DebianMirror(), bench/c10_rebuild.sh
through `apt-get indextargets`), with $ICOUNT_DEBIAN_MIRROR to choose
another. A host written into a script, a build file or a page would send
a machine with its own mirror (a company's, a dated snapshot) somewhere
else, or nowhere.

The source tree is found through the real path of MODULE.bazel (the test
is tagged `external`, so it always runs on the tree as it is).

Usage (bazel/BUILD.bazel runs it): registry_hosts_test.py PATH/TO/MODULE.bazel
"""

import os
import re
import sys
import unittest

from bazel.source_tree import tree_files

# A host of Debian's archive (deb., security., snapshot., ftp.XX. ...) or of
# npm's registry, in a URL or alone.
REGISTRY_HOST = re.compile(r"\b(?:[\w-]+\.)+(?:debian\.org|npmjs\.(?:org|com)|yarnpkg\.com)\b",
                           re.I)


# This file, whose pattern test needs lines that name hosts.
_THIS_FILE = "bazel/registry_hosts_test.py"


def named_hosts(root):
    """'path:line: host' for each registry host a text file of the tree names."""
    problems = []
    for path in tree_files(root):
        if path == _THIS_FILE:
            continue
        try:
            with open(os.path.join(root, path), encoding="utf-8") as f:
                lines = f.readlines()
        except (UnicodeDecodeError, OSError):
            continue  # not text
        for number, line in enumerate(lines, 1):
            for match in REGISTRY_HOST.finditer(line):
                problems.append(f"{path}:{number}: {match.group(0)}")
    return problems


class RegistryHostPatternTest(unittest.TestCase):
    """The pattern itself, on lines whose answer is known."""

    def test_finds_archive_and_registry_hosts(self):
        for line in ["URIs: http://deb.debian.org/debian",
                     "deb http://ftp.de.debian.org/debian bookworm main",
                     "(Debian's archive, security.debian.org, must be reachable)",
                     "npm install --registry https://registry.npmjs.org/ chart.js"]:
            self.assertTrue(REGISTRY_HOST.search(line), line)

    def test_leaves_other_text_alone(self):
        for line in ["mirror=$ICOUNT_DEBIAN_MIRROR", "the Debian mirror http://... could not be reached",
                     "/usr/share/keyrings/debian-archive-keyring.gpg", "debian.orgasm"]:
            self.assertFalse(REGISTRY_HOST.search(line), line)


class RegistryHostsTest(unittest.TestCase):
    root = None

    def test_no_file_names_a_registry_host(self):
        problems = named_hosts(self.root)
        self.assertEqual(problems, [],
                         "take the mirror from the machine's apt sources (as DebianMirror() and "
                         "bench/c10_rebuild.sh do, $ICOUNT_DEBIAN_MIRROR winning), and write "
                         "'the Debian mirror' in prose:\n  " + "\n  ".join(problems))


if __name__ == "__main__":
    RegistryHostsTest.root = os.path.dirname(os.path.realpath(sys.argv.pop(1)))
    unittest.main()
