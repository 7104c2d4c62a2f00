"""Repositories icount needs, all served from Debian packages (no network).

A workspace that depends on icount calls this too:

    local_repository(name = "icount", path = "/path/to/icount")
    load("@icount//third_party:repositories.bzl", "icount_repositories")
    icount_repositories()
"""

# Debian's rules_cc 0.0.4 calls use_cpp_toolchain(), which Bazel 4.2.3's
# @bazel_tools lacks. These are the only two files that call it.
_RULES_CC_PATCHED_FILES = [
    "cc/private/rules_impl/cc_flags_supplier.bzl",
    "cc/private/rules_impl/compiler_flag.bzl",
]

def _debian_rules_cc_impl(repository_ctx):
    root = repository_ctx.path(repository_ctx.attr.path)
    if not root.exists:
        fail("rules_cc not found at %s: install Debian's bazel-rules-cc (./bazelw does)" % root)
    listing = repository_ctx.execute(["find", ".", "-type", "f"], working_directory = str(root))
    if listing.return_code != 0:
        fail("cannot list %s: %s" % (root, listing.stderr))
    for rel in listing.stdout.splitlines():
        rel = rel[2:] if rel.startswith("./") else rel
        if rel in _RULES_CC_PATCHED_FILES:
            text = repository_ctx.read(repository_ctx.path("%s/%s" % (root, rel)))
            text = text.replace(', "use_cpp_toolchain")', ")")
            text = text.replace("use_cpp_toolchain()", '["@bazel_tools//tools/cpp:toolchain_type"]')
            if "use_cpp_toolchain" in text:
                fail("rules_cc: %s still uses use_cpp_toolchain after rewriting; the Debian package changed" % rel)
            repository_ctx.file(rel, text, executable = False)
        else:
            repository_ctx.symlink(repository_ctx.path("%s/%s" % (root, rel)), rel)

debian_rules_cc = repository_rule(
    implementation = _debian_rules_cc_impl,
    attrs = {"path": attr.string(default = "/usr/share/bazel/rules/cc")},
    local = True,
)

def _coverage_stand_in_impl(repository_ctx):
    # `bazel test` depends on @remote_coverage_tools even without --coverage;
    # the real one is a download. These targets fail loudly if ever run.
    repository_ctx.file("fail.sh", """#!/bin/sh
echo "icount: coverage is not available offline (no @remote_coverage_tools); run bazel test without --collect_code_coverage / coverage" >&2
exit 1
""", executable = True)
    repository_ctx.file("BUILD.bazel", """
package(default_visibility = ["//visibility:public"])
sh_binary(name = "lcov_merger", srcs = ["fail.sh"])
sh_binary(name = "coverage_report_generator", srcs = ["fail.sh"])
filegroup(name = "coverage_output_generator", srcs = ["fail.sh"])
""")

remote_coverage_tools_stand_in = repository_rule(implementation = _coverage_stand_in_impl)

def _system_library_impl(repository_ctx):
    # A repository that mirrors one system include directory, so cc_library
    # targets can declare its headers and add it with `includes`.
    path = repository_ctx.path(repository_ctx.attr.path)
    if not path.exists:
        fail("%s not found: install Debian's %s (./bazelw does)" % (path, repository_ctx.attr.package))
    for child in path.readdir():
        repository_ctx.symlink(child, child.basename)
    repository_ctx.file("BUILD.bazel", repository_ctx.read(repository_ctx.attr.build_file))

system_library = repository_rule(
    implementation = _system_library_impl,
    attrs = {
        "path": attr.string(mandatory = True),
        "package": attr.string(mandatory = True),
        "build_file": attr.label(mandatory = True, allow_single_file = True),
    },
    local = True,
)

def icount_repositories():
    """Declares every external repository icount's BUILD files use."""
    existing = native.existing_rules()
    if "rules_cc" not in existing:
        debian_rules_cc(name = "rules_cc")
    if "rules_java" not in existing:
        native.local_repository(name = "rules_java", path = "/usr/share/bazel/rules/java")
    if "platforms" not in existing:
        native.local_repository(name = "platforms", path = "/usr/share/bazel/tools/platforms")
    if "bazel_skylib" not in existing:
        native.local_repository(name = "bazel_skylib", path = "/usr/share/bazel/tools/skylib")
    if "remote_coverage_tools" not in existing:
        remote_coverage_tools_stand_in(name = "remote_coverage_tools")
    if "libtorch_api" not in existing:
        # LibTorch's C++ frontend headers (torch/torch.h) live outside the
        # compiler's default search path.
        system_library(
            name = "libtorch_api",
            path = "/usr/include/torch/csrc/api/include",
            package = "libtorch-dev",
            build_file = Label("//third_party/libtorch:libtorch_api.BUILD"),
        )
    if "python3_include" not in existing:
        system_library(
            name = "python3_include",
            path = "/usr/include/python3.11",
            package = "libpython3.11-dev",
            build_file = Label("//third_party/python:python3_include.BUILD"),
        )
    if "chart_js" not in existing:
        # The charting library of //report's pages (JavaScript, inlined).
        system_library(
            name = "chart_js",
            path = "/usr/share/javascript/chart.js",
            package = "libjs-chart.js",
            build_file = Label("//third_party/chartjs:chart_js.BUILD"),
        )
