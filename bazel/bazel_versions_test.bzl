"""A test of bazel_versions.bzl: what icount says of each Bazel version.

Starlark runs while Bazel analyses the test, so the rule works out every
case there and writes a script that prints each verdict and exits 1 on any
wrong one: `bazel test //bazel:bazel_versions_test` shows them.
"""

load(":bazel_versions.bzl", "bazel_version_problem", "parse_bazel_version")

# (version as native.bazel_version says it, front door, expected verdict:
# "none", "note" or "fatal", text the message must hold).
_CASES = [
    ("", "WORKSPACE", "none", ""),  # Debian's 4.2.3 says nothing
    ("", "MODULE.bazel", "none", ""),  # and so does Debian's 7.7.1
    ("3.5.1- (@non-git)", "WORKSPACE", "fatal", "icount needs Bazel 4.2 or later, and this is Bazel 3.5.1"),
    ("4.1.0", "WORKSPACE", "fatal", "Use Bazel 4.2.3 (Debian bookworm's bazel-bootstrap)"),
    ("3.7.2", "MODULE.bazel", "fatal", "needs Bazel 4.2 or later"),
    ("4.2", "WORKSPACE", "none", ""),
    ("4.2.3", "WORKSPACE", "none", ""),
    ("4.2.4rc1", "WORKSPACE", "none", ""),
    ("6.5.0", "WORKSPACE", "note", "its WORKSPACE is tested with Bazel 4.2.3, not Bazel 6.5.0; trying it"),
    ("7.7.1", "WORKSPACE", "note", "depend on icount through MODULE.bazel"),
    ("6.5.0", "MODULE.bazel", "fatal", "icount's MODULE.bazel is for Bazel 7 and later, and this is Bazel 6.5.0"),
    ("7.0.0", "MODULE.bazel", "none", ""),
    ("7.7.1", "MODULE.bazel", "none", ""),
    ("8.4.2", "MODULE.bazel", "note", "its MODULE.bazel is tested with Bazel 7.7.1, not Bazel 8.4.2"),
    ("9.0.0", "MODULE.bazel", "note", "use Debian's bazel-bootstrap 7.7.1"),
]

_PARSE_CASES = [
    ("7.7.1", [7, 7, 1]),
    ("8.0.0rc2", [8, 0, 0]),
    ("3.5.1- (@non-git)", [3, 5, 1]),
    ("4.2", [4, 2]),
    ("no_version", None),
    ("", None),
]

def _verdict(problem):
    if not problem:
        return "none"
    return "fatal" if problem.fatal else "note"

def _bazel_versions_test_impl(ctx):
    lines = []
    wrong = 0
    for text, expected in _PARSE_CASES:
        got = parse_bazel_version(text)
        ok = got == expected
        wrong += 0 if ok else 1
        lines.append("%s parse %r: %r%s" % ("ok  " if ok else "FAIL", text, got, "" if ok else " (expected %r)" % (expected,)))
    for version, front_door, expected, text in _CASES:
        problem = bazel_version_problem(version, front_door)
        verdict = _verdict(problem)
        message = problem.message if problem else ""
        ok = verdict == expected and text in message
        wrong += 0 if ok else 1
        lines.append("%s %s at %s: %s %s%s" % (
            "ok  " if ok else "FAIL",
            repr(version),
            front_door,
            verdict,
            message,
            "" if ok else " (expected %s with %r)" % (expected, text),
        ))
    script = ctx.actions.declare_file(ctx.label.name + ".sh")
    ctx.actions.write(
        script,
        "#!/bin/sh\ncat <<'VERDICTS'\n%s\nVERDICTS\nexit %d\n" % ("\n".join(lines), 1 if wrong else 0),
        is_executable = True,
    )
    return [DefaultInfo(executable = script)]

bazel_versions_test = rule(
    implementation = _bazel_versions_test_impl,
    test = True,
    doc = "Checks bazel_version_problem() and parse_bazel_version() case by case.",
)
