"""The files of icount's source tree, for the tests that read it as it is
(bazel/source_tree_test.bzl): what is the project's, in one place.

    for path in tree_files(root, skip_directory=lambda name: name == "testdata"):
        ...  # "base/files.cc", "bazel/BUILD.bazel", ...
"""

import os


def tree_files(root, skip_directory=lambda name: False):
    """Paths, relative to root, of the files under root, sorted.

    Not walked: .git, Bazel's convenience links (bazel-*), and every
    directory whose name skip_directory accepts. Links to directories are
    not followed.
    """
    paths = []
    for directory, subdirectories, files in os.walk(root):
        subdirectories[:] = sorted(
            d for d in subdirectories
            if d != ".git" and not d.startswith("bazel-") and not skip_directory(d))
        for name in files:
            paths.append(os.path.relpath(os.path.join(directory, name), root))
    return sorted(paths)
