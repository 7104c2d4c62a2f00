"""icount's module extension: the system's libraries for a MODULE.bazel build.

The same repository rules as WORKSPACE's icount_repositories()
(third_party/repositories.bzl), so both front doors wire LibTorch, Python,
abseil and Chart.js alike. icount's MODULE.bazel uses it; a module that
depends on icount does not need to:

    system = use_extension("//third_party:extensions.bzl", "system_libraries")
    use_repo(system, "chart_js", "libtorch_api", "python3_include", "system_absl")
"""

load("//bazel:bazel_versions.bzl", "check_bazel_version")
load(":repositories.bzl", "icount_system_repositories")

def _system_libraries_impl(_module_ctx):
    check_bazel_version("MODULE.bazel")
    icount_system_repositories()

system_libraries = module_extension(
    implementation = _system_libraries_impl,
    doc = "Repositories of the system's LibTorch, Python, abseil and Chart.js.",
)
