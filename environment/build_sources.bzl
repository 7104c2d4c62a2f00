"""nested_build_sources: the table a tool checks icount's source tree against.

    nested_build_sources(
        name = "nested_build_sources_table",
        of = ["//definitions:full_suite", "//timer"],
        generator = "//environment/internal:source_table",
    )

makes `<name>.cc`, defining NestedBuildSources() (nested_build_sources.h):
every source file of this repository that building `of` reads (sources,
headers, protos, generators' inputs, through every attribute), with its
digest. Output group `sources` holds the files themselves, for a test.
BUILD and .bzl files are not in it.
"""

SourceFilesInfo = provider(
    doc = "Source files a target and what it depends on read.",
    fields = {"files": "depset of File"},
)

def _source_files_aspect_impl(target, ctx):
    direct = []
    transitive = []
    for name in dir(ctx.rule.files):
        files = getattr(ctx.rule.files, name)
        if type(files) == "list":  # not the struct's methods
            direct.extend([f for f in files if f.is_source])
    for name in dir(ctx.rule.attr):
        value = getattr(ctx.rule.attr, name)
        for dependency in (value if type(value) == "list" else [value]):
            if type(dependency) == "Target" and SourceFilesInfo in dependency:
                transitive.append(dependency[SourceFilesInfo].files)
    return [SourceFilesInfo(files = depset(direct, transitive = transitive))]

_source_files_aspect = aspect(
    implementation = _source_files_aspect_impl,
    attr_aspects = ["*"],
)

def _nested_build_sources_impl(ctx):
    repository = ctx.label.workspace_name
    files = {}
    for target in ctx.attr.of:
        for f in target[SourceFilesInfo].files.to_list():
            if f.owner.workspace_name == repository:
                files[f.short_path] = f
    if not files:
        fail("%s: no source files of this repository in %s" % (ctx.label, ctx.attr.of))
    table = ctx.actions.declare_file(ctx.attr.name + ".cc")
    arguments = [table.path]
    for path in sorted(files.keys()):
        arguments += [files[path].path, path]
    ctx.actions.run(
        executable = ctx.attr.generator[DefaultInfo].files_to_run,
        arguments = arguments,
        inputs = files.values(),
        outputs = [table],
        mnemonic = "IcountSourceTable",
        progress_message = "Listing the sources of %s" % ctx.label,
    )
    return [
        DefaultInfo(files = depset([table])),
        OutputGroupInfo(sources = depset(files.values())),
    ]

nested_build_sources = rule(
    implementation = _nested_build_sources_impl,
    attrs = {
        "of": attr.label_list(aspects = [_source_files_aspect], mandatory = True),
        # The target configuration, as the tools that link the table: its
        # few sources compile once, not again for an exec configuration.
        "generator": attr.label(executable = True, cfg = "target", mandatory = True),
    },
)
