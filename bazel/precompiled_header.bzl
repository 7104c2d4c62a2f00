"""A precompiled header that every icount translation unit loads first.

    icount_precompiled_header(
        name = "library_pch",
        hdrs = ["library_pch.h"],  # the standard, abseil and protobuf headers
        copts = ICOUNT_COPTS,      # what icount_cc_library adds to .bazelrc's
    )

gives bazel-bin/bazel/library_pch/icount_library_pch.h (`hdrs` one after
the other) and its `.gch`, compiled with the C++ toolchain's command line
for a translation unit of the same configuration (.bazelrc's --copt and
--cxxopt included), and a CcInfo that puts the directory on the quote
include path. A target then compiles with
`-include icount_library_pch.h`, precompiled_header_copts("library_pch")
(icount.bzl does that): gcc
finds the `.gch` beside the header and loads it instead of parsing the
headers again, which is most of the work of compiling most of icount's
files. Where the flags differ from the header's (a target's own -f
option), gcc parses the header as usual and warns (-Winvalid-pch).
"""

load("@bazel_tools//tools/build_defs/cc:action_names.bzl", "CPP_COMPILE_ACTION_NAME")
load("@bazel_tools//tools/cpp:toolchain_utils.bzl", "find_cpp_toolchain")

def _header_name(name):
    return "icount_%s.h" % name

def precompiled_header_copts(name):
    """What a translation unit adds to load the precompiled header `name`
    first; a warning, not an error, where its flags do not fit."""
    return ["-include", _header_name(name), "-Winvalid-pch", "-Wno-error=invalid-pch"]

def _precompiled_header_impl(ctx):
    cc_toolchain = find_cpp_toolchain(ctx)
    features = cc_common.configure_features(
        ctx = ctx,
        cc_toolchain = cc_toolchain,
        requested_features = ctx.features,
        unsupported_features = ctx.disabled_features,
    )
    header = ctx.actions.declare_file("%s/%s" % (ctx.label.name, _header_name(ctx.label.name)))
    compiled = ctx.actions.declare_file(header.basename + ".gch", sibling = header)
    ctx.actions.run_shell(
        inputs = ctx.files.hdrs,
        outputs = [header],
        command = 'cat "$@" > %s' % header.path,
        arguments = [f.path for f in ctx.files.hdrs],
        mnemonic = "ConcatenateHeaders",
    )
    variables = cc_common.create_compile_variables(
        cc_toolchain = cc_toolchain,
        feature_configuration = features,
        source_file = header.path,
        output_file = compiled.path,
        user_compile_flags = ctx.fragments.cpp.copts + ctx.fragments.cpp.cxxopts + ctx.attr.copts,
        use_pic = True,
    )
    command_line = cc_common.get_memory_inefficient_command_line(
        feature_configuration = features,
        action_name = CPP_COMPILE_ACTION_NAME,
        variables = variables,
    )
    ctx.actions.run(
        executable = cc_common.get_tool_for_action(
            feature_configuration = features,
            action_name = CPP_COMPILE_ACTION_NAME,
        ),
        # A header to precompile, not a source to compile: -x before it.
        arguments = ["-x", "c++-header"] + command_line,
        env = cc_common.get_environment_variables(
            feature_configuration = features,
            action_name = CPP_COMPILE_ACTION_NAME,
            variables = variables,
        ),
        inputs = depset([header], transitive = [cc_toolchain.all_files]),
        outputs = [compiled],
        mnemonic = "CppPrecompileHeader",
        progress_message = "Precompiling %s" % header.short_path,
    )
    files = depset([header, compiled])
    return [
        DefaultInfo(files = files),
        CcInfo(compilation_context = cc_common.create_compilation_context(
            headers = files,
            quote_includes = depset([header.dirname]),
        )),
    ]

icount_precompiled_header = rule(
    implementation = _precompiled_header_impl,
    attrs = {
        "hdrs": attr.label_list(allow_files = [".h"], mandatory = True),
        "copts": attr.string_list(),
        "_cc_toolchain": attr.label(default = "@bazel_tools//tools/cpp:current_cc_toolchain"),
    },
    fragments = ["cpp"],
    toolchains = ["@bazel_tools//tools/cpp:toolchain_type"],
    incompatible_use_toolchain_transition = True,
)
