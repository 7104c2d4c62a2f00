"""A test that reads icount's source tree as it is, not its own inputs.

    source_tree_test(
        name = "registry_hosts_test",  # runs registry_hosts_test.py
    )

runs NAME.py with the path of MODULE.bazel as its first argument; the
script finds the tree through that file's real path, and lists its files
with bazel/source_tree.py's tree_files. The files it reads
are no inputs of the test, so it is tagged `external`: Bazel runs it every
time rather than trust a cached pass.
"""

def source_tree_test(name, **kwargs):
    native.py_test(
        name = name,
        size = "small",
        srcs = [name + ".py"],
        args = ["$(rootpath //:MODULE.bazel)"],
        data = ["//:MODULE.bazel"],
        deps = ["//bazel:source_tree"],
        python_version = "PY3",
        tags = ["external"],
        **kwargs
    )
