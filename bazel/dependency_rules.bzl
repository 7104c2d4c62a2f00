"""A build-time check that a set of targets does not depend on some packages.

    forbid_dependencies(
        name = "timer_depends_on_base_only",
        targets = ["//timer"],
        forbidden = "compare|tools",   # package names, a regex alternation
    )

`bazel build //...` fails, naming every forbidden target in the transitive
dependencies of `targets` and the rule, when one appears. Visibility says who
may use a target; this says what a target may use, which visibility cannot
say for targets that are public (other workspaces use //timer).
"""

def forbid_dependencies(name, targets, forbidden, exempt = []):
    """See the file comment. `exempt`: targets of forbidden packages that
    `targets` may use all the same, with what they are made of."""
    found = name + "_found"
    expression = "filter('^//(%s)[:/]', deps(%s))" % (forbidden, " + ".join(targets))
    if exempt:
        expression += " except deps(%s)" % " + ".join(exempt)
    native.genquery(
        name = found,
        expression = expression,
        scope = targets + exempt,
    )
    native.genrule(
        name = name,
        srcs = [":" + found],
        outs = [name + ".checked"],
        cmd = ("if [ -s $< ]; then " +
               "echo 'dependency rule //{pkg}:{name} is broken: {targets} must not depend on " +
               "//({forbidden}), but depend on:' >&2; sed 's/^/  /' $< >&2; " +
               "echo '  (bazel query \"somepath(<one of those targets>, <one of these>)\" shows how)' >&2; " +
               "exit 1; fi; touch $@").format(
            pkg = native.package_name(),
            name = name,
            targets = " ".join(targets),
            forbidden = forbidden,
        ),
    )

# icount's packages. allow_dependencies forbids every one that it does not
# allow, so a package added here is forbidden everywhere until allowed.
ICOUNT_PACKAGES = [
    "base",
    "cli",
    "compare",
    "definitions",
    "environment",
    "expand",
    "fuzzer",
    "history",
    "report",
    "slurm",
    "timer",
    "tools",
    "worker",
]

def allow_dependencies(name, targets, allowed, exempt = []):
    """forbid_dependencies on every package of ICOUNT_PACKAGES not in `allowed`.

        allow_dependencies(
            name = "timer_depends_on_base_only",
            targets = ["//timer", "//timer:node"],
            allowed = ["base", "timer"],
        )

    `exempt` names single targets of other packages that `targets` may use
    (e.g. a file format's schema), with what generates them.
    """
    unknown = [p for p in allowed if p not in ICOUNT_PACKAGES]
    if unknown:
        fail("allow_dependencies(%s): unknown packages %s" % (name, unknown))
    forbid_dependencies(
        name = name,
        targets = targets,
        forbidden = "|".join([p for p in ICOUNT_PACKAGES if p not in allowed]),
        exempt = exempt,
    )
