"""Repositories icount needs, all served from Debian packages (no network).

A WORKSPACE that depends on icount calls this too:

    local_repository(name = "icount", path = "/path/to/icount")
    load("@icount//third_party:repositories.bzl", "icount_repositories")
    icount_repositories()

A MODULE.bazel gets the same repositories through the module extension
in //third_party:extensions.bzl, which icount's own MODULE.bazel uses.
"""

load("//bazel:bazel_versions.bzl", "check_bazel_version")

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

def _system_python_impl(repository_ctx):
    # The CPython that icount's worker and Timer embed: the system's
    # /usr/bin/python3 (3.11 on bookworm, 3.13 on trixie, 3.14 on sid), its
    # headers and its libpython, as that python3 reports them.
    python = repository_ctx.attr.python
    if not repository_ctx.path(python).exists:
        fail("%s not found: install Debian's python3-dev (./bazelw does)" % python)
    answer = repository_ctx.execute([python, "-c", "\n".join([
        "import sysconfig",
        "print(sysconfig.get_paths()['include'])",
        "print(sysconfig.get_config_var('LDVERSION'))",
    ])])
    lines = answer.stdout.splitlines()
    if answer.return_code != 0 or len(lines) != 2:
        fail("%s cannot say where its headers are: %s" % (python, answer.stderr))
    include, ldversion = lines
    headers = repository_ctx.path(include)
    if not headers.get_child("Python.h").exists:
        fail("%s/Python.h not found: install Debian's python3-dev (./bazelw does)" % include)
    for child in headers.readdir():
        repository_ctx.symlink(child, child.basename)
    repository_ctx.file("BUILD.bazel", repository_ctx.read(repository_ctx.attr.build_file).replace(
        "{LIBPYTHON}",
        "python" + ldversion,
    ).replace("{INCLUDE}", include))

system_python = repository_rule(
    implementation = _system_python_impl,
    attrs = {
        "python": attr.string(default = "/usr/bin/python3"),
        "build_file": attr.label(default = Label("//third_party/python:python3_include.BUILD"), allow_single_file = True),
    },
    local = True,
)

def _system_absl_impl(repository_ctx):
    # Which of abseil's shared libraries this system has: Debian's releases
    # split them differently (20240722 has libabsl_string_view, 20220623
    # has not), and //third_party/absl links those of its groups that exist.
    directory = repository_ctx.path(repository_ctx.attr.directory)
    names = []
    if directory.exists:
        for child in directory.readdir():
            name = child.basename
            if name.startswith("libabsl_") and name.endswith(".so"):
                names.append(name[len("libabsl_"):-len(".so")])
    if not names:
        fail("no libabsl_*.so in %s: install Debian's libabsl-dev (./bazelw does)" % directory)
    repository_ctx.file("BUILD.bazel", "")
    repository_ctx.file("libraries.bzl", "SYSTEM_ABSL_LIBRARIES = %s\n" % sorted(names))

system_absl = repository_rule(
    implementation = _system_absl_impl,
    attrs = {"directory": attr.string(default = "/usr/lib/x86_64-linux-gnu")},
    local = True,
)

# The LibTorch the build compiles and links against. By default Debian's
# system install (/usr/include, libraries on the linker's default path).
# A side of ab_test (or main --libtorch/--env) with another LibTorch builds
# icount's worker in a Bazel output base of its own with these set
# (environment/suite_build.cc):
#   ICOUNT_BUILD_LIBTORCH_INCLUDE  the install's include/ (torch/, ATen/, c10/)
#   ICOUNT_BUILD_LIBTORCH_LIB      its lib/ (libtorch_cpu.so, libc10.so)
#   ICOUNT_BUILD_TORCH_PYTHONPATH  the directory holding its torch Python
#                                  package, or empty when it has none
#   ICOUNT_BUILD_LIBTORCH_FINGERPRINT  changes when its files change, so that
#                                  the repository is read again
# `:headers` declares the install's headers, `:link` the library directory
# (-L and an rpath), `:install_paths` the same facts for code that compiles
# or imports at run time (timer/internal/cpp_snippet.cc,
# timer/internal/python_snippet.cc, timer/snippet_abi.cc, the worker).
_LIBTORCH_ENVIRONMENT = [
    "ICOUNT_BUILD_LIBTORCH_INCLUDE",
    "ICOUNT_BUILD_LIBTORCH_LIB",
    "ICOUNT_BUILD_TORCH_PYTHONPATH",
    "ICOUNT_BUILD_LIBTORCH_FINGERPRINT",
]

_SYSTEM_API_INCLUDE = "/usr/include/torch/csrc/api/include"

def _c_string(text):
    return '"%s"' % text.replace("\\", "\\\\").replace('"', '\\"')

# What code compiled against LibTorch sees is the same in every build: this
# header (declarations only) and the headers below, laid out alike for
# Debian's install and any other. So a build for another LibTorch with the
# same headers (a rebuild of its libraries, as a PyTorch developer makes)
# takes every compile action from the disk cache; the facts that differ
# live in libtorch_install.cc, which only its own compile and the links see.
_INSTALL_HEADER = """// Generated by libtorch_install (third_party/repositories.bzl): the LibTorch
// install this build compiles and links against. The values are defined in
// libtorch_install.cc, the only file that differs between such builds.
#ifndef ICOUNT_THIRD_PARTY_LIBTORCH_LIBTORCH_INSTALL_H_
#define ICOUNT_THIRD_PARTY_LIBTORCH_LIBTORCH_INSTALL_H_
namespace icount::libtorch_install {
// -isystem directories for C++ compiled at run time, in order; a null
// pointer ends them.
extern const char* const kIncludeDirectories[];
// -L and rpath for C++ compiled at run time; empty: the linker's default.
extern const char kLibraryDirectory[];
// Put first on the embedded Python's sys.path so that `import torch`
// loads the package of this LibTorch; empty: Debian's python3-torch.
extern const char kTorchPythonPath[];
// False for a LibTorch without a torch Python package: Python cases
// cannot run beside it (another torch would load a second LibTorch).
extern const bool kTorchPythonAvailable;
// Of the install's headers and libraries; empty for Debian's.
extern const char kFingerprint[];
}  // namespace icount::libtorch_install
#endif  // ICOUNT_THIRD_PARTY_LIBTORCH_LIBTORCH_INSTALL_H_
"""

def _install_source(include_directories, library_directory, python_path, python_available, fingerprint):
    return "\n".join([
        "// Generated by libtorch_install (third_party/repositories.bzl).",
        '#include "third_party/libtorch/libtorch_install.h"',
        "namespace icount::libtorch_install {",
        "const char* const kIncludeDirectories[] = {%s, nullptr};" % ", ".join([_c_string(d) for d in include_directories]),
        "const char kLibraryDirectory[] = %s;" % _c_string(library_directory),
        "const char kTorchPythonPath[] = %s;" % _c_string(python_path),
        "const bool kTorchPythonAvailable = %s;" % ("true" if python_available else "false"),
        "const char kFingerprint[] = %s;" % _c_string(fingerprint),
        "}  // namespace icount::libtorch_install",
        "",
    ])

# include/ holds torch/, ATen/, c10/ and caffe2/; it and the C++ frontend's
# directory come before the compiler's default search path (-isystem), so
# an install's headers win over Debian's in /usr/include.
_BUILD_FILE = """load("@rules_cc//cc:defs.bzl", "cc_library")

# %s
cc_library(
    name = "headers",
    hdrs = glob(["include/**/*.h", "include/**/*.hpp", "include/**/*.cuh", "include/**/*.inc"]),
    includes = ["include", "include/torch/csrc/api/include"],
    visibility = ["//visibility:public"],
)

cc_library(
    name = "link",
    linkopts = %s,
    visibility = ["//visibility:public"],
)

cc_library(
    name = "install_paths",
    srcs = ["icount_install/libtorch_install.cc"],
    hdrs = ["icount_install/libtorch_install.h"],
    include_prefix = "third_party/libtorch",
    strip_include_prefix = "icount_install",
    visibility = ["//visibility:public"],
)
"""

_SYSTEM_INCLUDE = "/usr/include"
_SYSTEM_INCLUDE_DIRECTORIES = ["torch", "ATen", "c10", "caffe2"]

def _libtorch_install_impl(repository_ctx):
    environ = repository_ctx.os.environ
    include = environ.get("ICOUNT_BUILD_LIBTORCH_INCLUDE", "")
    repository_ctx.file("icount_install/libtorch_install.h", _INSTALL_HEADER)
    if not include:
        api = repository_ctx.path(_SYSTEM_API_INCLUDE)
        if not api.exists:
            fail("%s not found: install Debian's libtorch-dev (./bazelw does)" % api)
        for name in _SYSTEM_INCLUDE_DIRECTORIES:
            repository_ctx.symlink("%s/%s" % (_SYSTEM_INCLUDE, name), "include/" + name)
        repository_ctx.file("icount_install/libtorch_install.cc", _install_source([_SYSTEM_API_INCLUDE], "", "", True, ""))
        repository_ctx.file("BUILD.bazel", _BUILD_FILE % (
            "Debian's LibTorch (libtorch-dev): its libraries are on the linker's default path.",
            "[]",
        ))
        return
    library = environ.get("ICOUNT_BUILD_LIBTORCH_LIB", "")
    python_path = environ.get("ICOUNT_BUILD_TORCH_PYTHONPATH", "")
    for path, what in [(include, "ICOUNT_BUILD_LIBTORCH_INCLUDE"), (library, "ICOUNT_BUILD_LIBTORCH_LIB")]:
        if not path or not repository_ctx.path(path).exists:
            fail("%s=%s: no such directory (a LibTorch install has include/ and lib/)" % (what, path))
    repository_ctx.symlink(include, "include")
    api = include + "/torch/csrc/api/include"
    repository_ctx.file("icount_install/libtorch_install.cc", _install_source(
        [include, api],
        library,
        python_path,
        python_path != "",
        environ.get("ICOUNT_BUILD_LIBTORCH_FINGERPRINT", ""),
    ))
    repository_ctx.file("BUILD.bazel", _BUILD_FILE % (
        "The LibTorch at %s and %s." % (include, library),
        '["-L%s", "-Wl,-rpath,%s"]' % (library, library),
    ))

libtorch_install = repository_rule(
    implementation = _libtorch_install_impl,
    environ = _LIBTORCH_ENVIRONMENT,
    local = True,
)

def icount_system_repositories(declared = []):
    """Declares the repositories of the system's libraries.

    One description for both front doors: WORKSPACE calls it through
    icount_repositories(), MODULE.bazel through the module extension in
    //third_party:extensions.bzl.

    Args:
      declared: names of repositories already declared (a WORKSPACE that
        brings its own), left alone.
    """
    if "libtorch_api" not in declared:
        libtorch_install(name = "libtorch_api")
    if "system_absl" not in declared:
        system_absl(name = "system_absl")
    if "python3_include" not in declared:
        system_python(name = "python3_include")
    if "chart_js" not in declared:
        # The charting library of //report's pages (JavaScript, inlined).
        system_library(
            name = "chart_js",
            path = "/usr/share/javascript/chart.js",
            package = "libjs-chart.js",
            build_file = Label("//third_party/chartjs:chart_js.BUILD"),
        )

# The repositories icount_system_repositories declares, as MODULE.bazel's
# use_repo lists them (third_party/modules_test.py checks the two agree).
SYSTEM_REPOSITORIES = ["chart_js", "libtorch_api", "python3_include", "system_absl"]

def icount_repositories():
    """Declares every external repository icount's BUILD files use (WORKSPACE)."""
    check_bazel_version("WORKSPACE")
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
    icount_system_repositories(declared = existing.keys())
