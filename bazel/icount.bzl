"""Project macros: every icount C++ target gets the same options from here.

    load("//bazel:icount.bzl", "icount_cc_library", "icount_cc_test")

    icount_cc_library(
        name = "stats",
        srcs = ["stats.cc"],
        hdrs = ["stats.h"],
        deps = ["//third_party/absl:status"],
    )

    icount_cc_test(
        name = "stats_test",
        srcs = ["stats_test.cc"],
        deps = [":stats"],  # gtest_main is added for you
    )

The C++ standard is set once for the whole tree in .bazelrc (-std=c++17).
"""

load("@rules_cc//cc:defs.bzl", "cc_binary", "cc_library", "cc_test")
load(":precompiled_header.bzl", "precompiled_header_copts")

# Warnings are errors in our code only: system headers (LibTorch, abseil,
# CPython) come in through -isystem or the default search path and are
# exempt.
ICOUNT_COPTS = [
    "-Wall",
    "-Wextra",
    "-Werror",
    "-Wno-unused-parameter",
]

# Tests compare sizes with literals (EXPECT_EQ(v.size(), 3)) all the time;
# the library code is held to -Wsign-compare.
# A test's own translation unit compiles without optimisation (the last -O
# wins over .bazelrc's -O2): no figure measures a test's code, and parsing
# gtest, abseil, protobuf and LibTorch's headers is then most of its
# compile, ~35% less time (12.1 s -> 7.4 s for compare/gate_test.cc). The
# code under test, the Timer's loop and the snippets it runs keep -O2.
ICOUNT_TEST_COPTS = [
    "-Wno-sign-compare",
    "-O0",
]

# Measured code must be readable by valgrind 3.19, which cannot parse some of
# gcc 12's DWARF 5: a debug build (-c dbg) keeps its debug info DWARF 4
# (--config=debuginfo in .bazelrc does the same for an optimised build).
# Only then: gcc's -gdwarf-4 also turns debug info on, which makes a
# translation unit that includes LibTorch compile ~40% longer, and Bazel's
# default build strips it again when linking (--strip=sometimes).
ICOUNT_DEBUG_COPTS = select({
    str(Label("//bazel:debug_build")): ["-gdwarf-4"],
    "//conditions:default": [],
})

# Every translation unit first loads the standard, abseil and protobuf
# headers precompiled (bazel/library_pch.h; a test's own also GoogleTest's,
# bazel/test_pch.h): parsing them was most of the work of compiling most of
# icount's files. A target whose flags differ from the precompiled header's
# gets a warning, not an error, and parses the headers as before.
_LIBRARY_PCH = Label("//bazel:library_pch")
_TEST_PCH = Label("//bazel:test_pch")

def _copts(copts, precompiled_header = "library_pch"):
    pch = precompiled_header_copts(precompiled_header) if precompiled_header else []
    return ICOUNT_COPTS + ICOUNT_DEBUG_COPTS + pch + (copts or [])

def icount_cc_library(name, copts = None, deps = [], **kwargs):
    cc_library(name = name, copts = _copts(copts), deps = deps + [_LIBRARY_PCH], **kwargs)

def icount_cc_binary(name, copts = None, deps = [], precompiled_header = True, **kwargs):
    """precompiled_header=False: the measured code of a suite's worker
    compiles exactly as its author wrote it, with nothing included first."""
    cc_binary(
        name = name,
        copts = _copts(copts, "library_pch" if precompiled_header else None),
        deps = deps + ([_LIBRARY_PCH] if precompiled_header else []),
        **kwargs
    )

def icount_cc_test(name, copts = None, deps = [], main = True, **kwargs):
    """A gtest test. main=False for tests that define their own main()."""
    gtest = Label("//third_party/gtest:gtest_main" if main else "//third_party/gtest:gtest")
    cc_test(
        name = name,
        copts = _copts(ICOUNT_TEST_COPTS + (copts or []), "test_pch"),
        deps = deps + [gtest, _TEST_PCH],
        **kwargs
    )
