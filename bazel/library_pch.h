// The headers most of icount's translation units include, precompiled once
// per configuration (precompiled_header.bzl) and loaded first by every
// icount_cc_* target. Only headers whose libraries every target links
// anyway: the C++ standard library, abseil's status and strings, protobuf's
// message runtime. A header here costs each compile only what loading the
// `.gch` costs; one left out is parsed by the files that include it.
#ifndef ICOUNT_BAZEL_LIBRARY_PCH_H_
#define ICOUNT_BAZEL_LIBRARY_PCH_H_

#include <google/protobuf/arena.h>
#include <google/protobuf/extension_set.h>
#include <google/protobuf/generated_message_reflection.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/message.h>
#include <google/protobuf/repeated_field.h>
#include <google/protobuf/unknown_field_set.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"

#endif  // ICOUNT_BAZEL_LIBRARY_PCH_H_
