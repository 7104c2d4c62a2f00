// GoogleTest's headers, precompiled after library_pch.h's for tests' own
// translation units (compiled at -O0, so a `.gch` of their own;
// precompiled_header.bzl).
#ifndef ICOUNT_BAZEL_TEST_PCH_H_
#define ICOUNT_BAZEL_TEST_PCH_H_

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#endif  // ICOUNT_BAZEL_TEST_PCH_H_
