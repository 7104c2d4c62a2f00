"""icount_cc_proto_library: C++ code for .proto files, from the system protoc.

Example (timer/BUILD.bazel):

    load("//third_party/protobuf:protobuf.bzl", "icount_cc_proto_library")

    icount_cc_proto_library(
        name = "measurement_cc_proto",
        srcs = ["measurement.proto"],
        deps = [":timer_args_cc_proto"],   # for `import "timer/timer_args.proto";`
    )

Imports are written relative to the workspace root ("timer/x.proto"), and
google/protobuf/*.proto come from /usr/include. Works from other workspaces
(e.g. @icount) too.
"""

load("@rules_cc//cc:defs.bzl", "cc_library")

_PROTOC = "/usr/bin/protoc"

def icount_cc_proto_library(name, srcs, deps = [], visibility = None, testonly = None):
    """One cc_library holding the generated code of `srcs`.

    Args:
      name: the cc_library's name; `<name>_srcs` is a filegroup of the .proto
        files, used by dependants' protoc runs.
      srcs: .proto files in this package.
      deps: other icount_cc_proto_library targets whose protos these import.
      visibility: as usual.
      testonly: as usual.
    """
    repo = native.repository_name()
    root = "." if repo == "@" else "external/" + repo[1:]
    package = native.package_name()
    outs = []
    for src in srcs:
        if not src.endswith(".proto"):
            fail("icount_cc_proto_library(%s): %s is not a .proto file" % (name, src))
        base = src[:-len(".proto")]
        outs += [base + ".pb.h", base + ".pb.cc"]
    paths = " ".join(["%s/%s" % (package, src) if package else src for src in srcs])
    native.filegroup(
        name = name + "_srcs",
        srcs = srcs + [dep + "_srcs" for dep in deps],
        visibility = visibility,
        testonly = testonly,
    )
    native.genrule(
        name = name + "_generate",
        srcs = [name + "_srcs"],
        outs = outs,
        cmd = ("test -x {protoc} || {{ echo 'protoc missing: install protobuf-compiler (./bazelw does)' >&2; exit 1; }}; " +
               "{protoc} -I{root} -I/usr/include --cpp_out=$(GENDIR)/{root} {paths}").format(
            protoc = _PROTOC,
            root = root,
            paths = paths if root == "." else " ".join(["%s/%s" % (root, p) for p in paths.split(" ")]),
        ),
        visibility = ["//visibility:private"],
        testonly = testonly,
    )
    cc_library(
        name = name,
        # The generating rule rather than its .pb.cc files: what follows a
        # library's dependencies to the sources it is made of (an aspect,
        # as environment/build_sources.bzl's) reaches a rule, never the
        # rule behind an output file, and through it the .proto files.
        srcs = [":" + name + "_generate"],
        hdrs = [o for o in outs if o.endswith(".h")],
        deps = deps + [Label("//third_party/protobuf:protobuf")],
        visibility = visibility,
        testonly = testonly,
    )
