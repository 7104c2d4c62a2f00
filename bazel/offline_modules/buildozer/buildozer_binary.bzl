"""A stand-in for buildozer's module extension, which Bazel's own tools use.

Bazel evaluates it for `bazel mod graph` and runs its binary for
`bazel mod tidy`; the real one downloads buildozer. This one's binary says
so and fails.
"""

def _buildozer_binary_repository_impl(repository_ctx):
    repository_ctx.file("BUILD.bazel", 'exports_files(["buildozer"])\n')
    repository_ctx.file("buildozer", """#!/bin/sh
echo "buildozer is not available offline (icount's stand-in module); edit MODULE.bazel by hand" >&2
exit 1
""", executable = True)

_buildozer_binary_repository = repository_rule(implementation = _buildozer_binary_repository_impl)

def _buildozer_binary_impl(_module_ctx):
    _buildozer_binary_repository(name = "buildozer_binary")

buildozer_binary = module_extension(implementation = _buildozer_binary_impl)
