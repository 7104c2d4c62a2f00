"""The Bazel versions icount is tested with, and what it says of others.

icount has two front doors, each tested with one Bazel: WORKSPACE with
Debian bookworm's 4.2.3, MODULE.bazel with Debian sid's 7.7.1. Both call
check_bazel_version() (WORKSPACE through icount_repositories(),
MODULE.bazel through the module extension), so a project that depends on
icount from a Bazel it cannot work with hears so from icount, with what to
do, before an error deep in a rule set; a Bazel icount was not tested with
gets a note and is tried. ./bazelw reads MINIMUM_BAZEL_VERSION and
TESTED_BAZEL_VERSIONS from this file for icount's own build.

    bazel_version_problem("3.5.1- (@non-git)", "WORKSPACE")
    # struct(fatal = True, message = "icount needs Bazel 4.2 or later ...")
    bazel_version_problem("4.2.3", "WORKSPACE")  # None
"""

MINIMUM_BAZEL_VERSION = "4.2"

# The version each front door is tested with; the first Bazel the second
# serves (MODULE.bazel: Bazel 7 turns bzlmod on by default).
TESTED_BAZEL_VERSIONS = {
    "WORKSPACE": "4.2.3",
    "MODULE.bazel": "7.7.1",
}
FIRST_MODULE_BAZEL_MAJOR = 7

def parse_bazel_version(text):
    """The leading numbers of a Bazel version, or None.

    Args:
      text: what native.bazel_version says: "7.7.1", "8.0.0rc2",
        "3.5.1- (@non-git)" (Debian bullseye's), "" (Debian's 4.2.3 and
        7.7.1, development builds).

    Returns:
      A list of ints, e.g. [3, 5, 1]; None where the text starts with no
      number.
    """
    numbers = []
    digits = ""
    for i in range(len(text)):
        c = text[i]
        if c.isdigit():
            digits += c
        elif c == "." and digits:
            numbers.append(int(digits))
            digits = ""
        else:
            break
    if digits:
        numbers.append(int(digits))
    return numbers or None

def _at_least(numbers, minimum):
    for i in range(len(minimum)):
        have = numbers[i] if i < len(numbers) else 0
        if have != minimum[i]:
            return have > minimum[i]
    return True

def bazel_version_problem(version, front_door):
    """What icount says of a Bazel version at a front door, or None.

    Args:
      version: the Bazel's version, as native.bazel_version says it.
      front_door: "WORKSPACE" or "MODULE.bazel".

    Returns:
      None where the version is tested or says nothing (Debian's own
      builds say ""); otherwise struct(fatal, message): fatal where icount
      cannot work with that Bazel, a note where it was not tested with it.
    """
    if front_door not in TESTED_BAZEL_VERSIONS:
        fail("front_door must be one of %s, not %r" % (TESTED_BAZEL_VERSIONS.keys(), front_door))
    numbers = parse_bazel_version(version)
    if not numbers:
        return None
    shown = ".".join([str(n) for n in numbers])
    tested = TESTED_BAZEL_VERSIONS[front_door]
    if not _at_least(numbers, parse_bazel_version(MINIMUM_BAZEL_VERSION)):
        return struct(fatal = True, message = (
            "icount needs Bazel %s or later, and this is Bazel %s. Use Bazel %s " +
            "(Debian bookworm's bazel-bootstrap) or %s (Debian sid's), or another " +
            "Bazel of at least %s."
        ) % (
            MINIMUM_BAZEL_VERSION,
            shown,
            TESTED_BAZEL_VERSIONS["WORKSPACE"],
            TESTED_BAZEL_VERSIONS["MODULE.bazel"],
            MINIMUM_BAZEL_VERSION,
        ))
    major = numbers[0]
    if front_door == "MODULE.bazel" and major < FIRST_MODULE_BAZEL_MAJOR:
        return struct(fatal = True, message = (
            "icount's MODULE.bazel is for Bazel %d and later, and this is Bazel %s. " +
            "With Bazel 4.2 to 6, depend on icount through WORKSPACE: " +
            "local_repository(name = \"icount\", ...) and icount_repositories() " +
            "(docs/library.md, \"From another Bazel project\")."
        ) % (FIRST_MODULE_BAZEL_MAJOR, shown))
    if front_door == "WORKSPACE" and major >= FIRST_MODULE_BAZEL_MAJOR:
        return struct(fatal = False, message = (
            "note from icount: its WORKSPACE is tested with Bazel %s, and this is Bazel %s. " +
            "From Bazel %d on, depend on icount through MODULE.bazel " +
            "(bazel_dep(name = \"icount\", ...), docs/library.md), tested with Bazel %s."
        ) % (tested, shown, FIRST_MODULE_BAZEL_MAJOR, TESTED_BAZEL_VERSIONS["MODULE.bazel"]))
    if major != parse_bazel_version(tested)[0]:
        return struct(fatal = False, message = (
            "note from icount: its %s is tested with Bazel %s, not Bazel %s; trying it. " +
            "If the build fails, use Debian's bazel-bootstrap %s."
        ) % (front_door, tested, shown, tested))
    return None

def check_bazel_version(front_door, version = None):
    """Fails on a Bazel icount cannot work with; notes an untested one.

    Args:
      front_door: "WORKSPACE" or "MODULE.bazel".
      version: the Bazel's version; native.bazel_version where None.
    """
    problem = bazel_version_problem(
        native.bazel_version if version == None else version,
        front_door,
    )
    if not problem:
        return
    if problem.fatal:
        fail(problem.message)

    # Starlark has no warning of its own: Bazel shows this as a DEBUG line.
    print(problem.message)
