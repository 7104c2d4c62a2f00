#include "timer/internal/callgrind_parser.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace icount::timer::internal {
namespace {

using ::testing::HasSubstr;
using ::testing::Pair;
using ::testing::UnorderedElementsAre;

// ---------------------------------------------------------------------------
// Hand-written profiles, one or more format features each. Every one of them
// is also fed to callgrind_annotate by CallgrindAnnotateAgrees below, so they
// pin down annotate's behaviour as well as ours.
// ---------------------------------------------------------------------------

// The "Extended Example" of the format spec: main calls func1 once and func2
// three times; func1 calls func2 twice. No positions:, no summary:/totals:.
constexpr char kSpecExample[] = R"(# callgrind format
events: Instructions

fl=file1.c
fn=main
16 20
cfn=func1
calls=1 50
16 400
cfi=file2.c
cfn=func2
calls=3 20
16 400

fn=func1
51 100
cfi=file2.c
cfn=func2
calls=2 20
51 300

fl=file2.c
fn=func2
20 700
)";

// The same profile with name compression, in the spec's form that defines
// every name up front. Those defining fl=/fn= lines also switch the current
// function, so annotate lists "file2.c:main" and "file2.c:func1" with no
// cost; so do we.
constexpr char kSpecExampleCompressed[] = R"(# callgrind format
events: Instructions

# define file ID mapping
fl=(1) file1.c
fl=(2) file2.c
# define function ID mapping
fn=(1) main
fn=(2) func1
fn=(3) func2

fl=(1)
fn=(1)
16 20
cfn=(2)
calls=1 50
16 400
cfi=(2)
cfn=(3)
calls=3 20
16 400

fn=(2)
51 100
cfi=(2)
cfn=(3)
calls=2 20
51 300

fl=(2)
fn=(3)
20 700
)";

// A complete callgrind-style header, objects, inlined code (fi=/fe=), a call
// made from inlined code without cfi= (the target takes the inlined file),
// and fn= after fi= without fl= (the new function takes the inlined file
// too). Self costs: app.cc:main 9, inl.h:main 11, app.cc:tail 10,
// inl.h:tail 2, inl.h:next 1, inl.h:helper 20; 53 in all.
constexpr char kInlined[] = R"(# callgrind format
version: 1
creator: callgrind-3.19.0
pid: 4242
cmd:  ./app --flag
part: 1


desc: I1 cache: 
desc: D1 cache: 
desc: LL cache: 

desc: Timerange: Basic block 0 - 1234
desc: Trigger: Program termination

positions: line
events: Ir
summary: 53


ob=(1) /usr/bin/app
fl=(1) app.cc
fn=(1) main
10 5
fi=(2) inl.h
20 7
fe=(1)
11 3
fi=(2)
+2 4
cfn=(2) helper
calls=2 30
* 20
fe=(1)
12 1

fn=(3) tail
40 10
fi=(2)
41 2
fn=(4) next
50 1

fl=(2)
fn=(2)
30 20

totals: 53
)";

// Direct recursion: f calls itself, and annotate (like us) credits f with
// every call into it, so f's inclusive count, 60, exceeds the total, 41.
constexpr char kRecursion[] = R"(events: Ir
fl=a.c
fn=main
1 1
cfn=f
calls=1 10
2 40
fn=f
10 40
cfn=f
calls=1 10
11 20
totals: 41
)";

// positions: instr line with subposition compression (+N, -N, *) and hex
// addresses, several events (counts are of the first), cost lines with
// fewer costs than events, and a call with an instr+line target.
constexpr char kInstrLine[] = R"(positions: instr line
events: Ir Dr Dw
summary: 32 7 2
fl=x.c
fn=func
0x80001234 90 1 1
+3 * 5
+1 +1 6 2 1
-4 -1 2
cfn=g
calls=1 0x80002000 5
* * 7 1 1
fn=g
0x80002000 5 7 1 1
* * 11 3
totals: 32 7 2
)";

// Jump records (jump=, jcnd= in callgrind's "exe/jumped" spelling) with
// their cost-less source position lines, and jfi=/jfn= defining compressed
// names that later fl=/fn= lines use.
constexpr char kJumps[] = R"(events: Ir
fl=(1) j.c
fn=(1) loop
1 5
jcnd=3/5 +2
*
jump=2 -1
+1
jfi=(2) k.c
jfn=(2) other
jump=1 7
*
fl=(2)
fn=(2)
7 3
)";

// The object of a function's key is the ob= in effect at its last fn= line
// (f ends up in libB.so); cob= only defines a compressed name; cfl= is
// cfi='s old spelling, and cfi= applies to the next cfn= only. A call target
// never seen on a fn= line (ext) is listed only inclusively, without object.
// Comments and blank lines may sit between calls= and its cost line.
constexpr char kObjectsAndCalls[] = R"(events: Ir
ob=(1) libA.so
fl=(1) a.c
fn=(1) f
1 10
cob=(2) libB.so
cfl=(2) b.c
cfn=(2) g
calls=1 1
# a comment between calls= and its cost line

1 7
cfn=(3) h
calls=1 1
1 2
cob=(1)
cfi=(3) ext.c
cfn=(4) ext
calls=1 1
1 4
ob=(2)
fn=(1)
2 5
fl=(2)
fn=(2)
1 7
fl=(1)
fn=(3)
1 2
)";

struct Sample {
  const char* name;
  const char* text;
};

void PrintTo(const Sample& sample, std::ostream* os) { *os << sample.name; }

constexpr Sample kSamples[] = {
    {"SpecExample", kSpecExample},
    {"SpecExampleCompressed", kSpecExampleCompressed},
    {"Inlined", kInlined},
    {"Recursion", kRecursion},
    {"InstrLine", kInstrLine},
    {"Jumps", kJumps},
    {"ObjectsAndCalls", kObjectsAndCalls},
};

// ---------------------------------------------------------------------------
// Test-time helpers: temporary files, running programs, reading annotate.
// ---------------------------------------------------------------------------

std::string TempDir() {
  const char* dir = std::getenv("TEST_TMPDIR");
  return dir != nullptr && *dir != '\0' ? dir : "/tmp";
}

// A path under TempDir() unique to this test and `suffix`.
std::string TempPath(absl::string_view suffix) {
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = absl::StrCat(info->test_suite_name(), ".", info->name(), ".", suffix);
  absl::StrReplaceAll({{"/", "_"}}, &name);
  return absl::StrCat(TempDir(), "/callgrind_parser_test.", getpid(), ".", name);
}

void WriteFile(const std::string& path, absl::string_view contents) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
  ASSERT_TRUE(out.good()) << "cannot write " << path;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::string ShellQuote(absl::string_view text) {
  return absl::StrCat("'", absl::StrReplaceAll(text, {{"'", "'\\''"}}), "'");
}

// The absolute path of `program` in $PATH or the usual system directories
// (Bazel runs tests with a minimal PATH), or nullopt.
std::optional<std::string> FindProgram(absl::string_view program) {
  const char* path = std::getenv("PATH");
  std::vector<std::string> dirs =
      absl::StrSplit(absl::StrCat(path != nullptr ? path : "", ":/usr/bin:/bin:/usr/local/bin"),
                     ':', absl::SkipEmpty());
  for (const std::string& dir : dirs) {
    std::string candidate = absl::StrCat(dir, "/", program);
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return std::nullopt;
}

struct ShellResult {
  int exit_code = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

// Runs `command` with /bin/sh, capturing stdout and (via a file) stderr.
ShellResult RunShell(const std::string& command) {
  ShellResult result;
  const std::string err_path = TempPath("stderr");
  FILE* pipe = popen(absl::StrCat("(", command, ") 2>", ShellQuote(err_path)).c_str(), "r");
  if (pipe == nullptr) {
    result.err = "popen failed";
    return result;
  }
  char buffer[1 << 16];
  size_t read;
  while ((read = fread(buffer, 1, sizeof(buffer), pipe)) > 0) {
    result.out.append(buffer, read);
  }
  const int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.err = ReadFile(err_path);
  std::remove(err_path.c_str());
  return result;
}

// What callgrind_annotate printed: PROGRAM TOTALS and the function listing.
struct AnnotateListing {
  int64_t total = 0;
  absl::flat_hash_map<std::string, int64_t> functions;
};

// "1,234" -> 1234; "." (no cost recorded) -> 0.
absl::StatusOr<int64_t> ParseAnnotateCount(absl::string_view text) {
  if (text == ".") return 0;
  int64_t value;
  if (!absl::SimpleAtoi(absl::StrReplaceAll(text, {{",", ""}}), &value)) {
    return absl::InvalidArgumentError(absl::StrCat("bad count '", text, "'"));
  }
  return value;
}

// Reads the output of `callgrind_annotate --show=<one event>
// --show-percs=no`: each listing line is the right-aligned count, a space,
// then " <file:function>[ [object]]" (print_CC and the listing loop of
// callgrind_annotate).
absl::StatusOr<AnnotateListing> ParseAnnotateOutput(absl::string_view output) {
  AnnotateListing listing;
  std::vector<absl::string_view> lines = absl::StrSplit(output, '\n');
  size_t i = 0;
  for (; i < lines.size(); ++i) {
    if (absl::StrContains(lines[i], " PROGRAM TOTALS")) break;
  }
  if (i == lines.size()) {
    return absl::InvalidArgumentError("no PROGRAM TOTALS line");
  }
  absl::string_view total = absl::StripLeadingAsciiWhitespace(lines[i]);
  absl::StatusOr<int64_t> total_value = ParseAnnotateCount(total.substr(0, total.find(' ')));
  if (!total_value.ok()) return total_value.status();
  listing.total = *total_value;

  for (; i < lines.size(); ++i) {
    if (absl::EndsWith(lines[i], " file:function")) break;
  }
  if (i + 1 >= lines.size()) {
    return absl::InvalidArgumentError("no file:function header");
  }
  for (i += 2; i < lines.size() && !lines[i].empty(); ++i) {
    absl::string_view line = absl::StripLeadingAsciiWhitespace(lines[i]);
    const size_t space = line.find(' ');
    if (space == absl::string_view::npos || line.substr(space, 2) != "  ") {
      return absl::InvalidArgumentError(absl::StrCat("bad listing line '", lines[i], "'"));
    }
    absl::StatusOr<int64_t> count = ParseAnnotateCount(line.substr(0, space));
    if (!count.ok()) return count.status();
    std::string key(line.substr(space + 2));
    if (!listing.functions.emplace(key, *count).second) {
      return absl::InvalidArgumentError(absl::StrCat("function listed twice: '", key, "'"));
    }
  }
  return listing;
}

// Runs callgrind_annotate on `path` from "/" (annotate strips its working
// directory from file names; no profiled file name starts with "//").
absl::StatusOr<AnnotateListing> RunAnnotate(const std::string& annotate, const std::string& path,
                                            bool inclusive, absl::string_view event) {
  ShellResult result = RunShell(absl::StrCat(
      "cd / && ", ShellQuote(annotate), " --inclusive=", inclusive ? "yes" : "no",
      " --threshold=100 --auto=no --show-percs=no --show=", event, " ", ShellQuote(path)));
  if (result.exit_code != 0) {
    return absl::InternalError(
        absl::StrCat("callgrind_annotate failed (exit ", result.exit_code, "): ", result.err));
  }
  return ParseAnnotateOutput(result.out);
}

// Empty if `ours` has exactly annotate's functions and counts; otherwise a
// readable list of (at most 20) differences.
std::string DiffFunctions(const absl::flat_hash_map<std::string, int64_t>& ours,
                          const absl::flat_hash_map<std::string, int64_t>& annotate) {
  std::vector<std::string> diffs;
  for (const auto& [key, count] : annotate) {
    auto it = ours.find(key);
    if (it == ours.end()) {
      diffs.push_back(absl::StrCat("missing '", key, "' (annotate: ", count, ")"));
    } else if (it->second != count) {
      diffs.push_back(absl::StrCat("'", key, "': ours ", it->second, ", annotate ", count));
    }
  }
  for (const auto& [key, count] : ours) {
    if (!annotate.contains(key)) {
      diffs.push_back(absl::StrCat("extra '", key, "' (ours: ", count, ")"));
    }
  }
  if (diffs.empty()) return "";
  const size_t total = diffs.size();
  if (diffs.size() > 20) diffs.resize(20);
  return absl::StrCat(total, " difference(s), ", ours.size(), " vs ", annotate.size(),
                      " functions:\n  ", absl::StrJoin(diffs, "\n  "));
}

// The counts keyed by text, as callgrind_annotate prints them.
absl::flat_hash_map<std::string, int64_t> ByText(
    const absl::flat_hash_map<FunctionKey, int64_t>& counts) {
  absl::flat_hash_map<std::string, int64_t> texts;
  for (const auto& [key, count] : counts) texts[key.text()] = count;
  return texts;
}

// Checks both listings (and, if `compare_total`, PROGRAM TOTALS) of
// callgrind_annotate on `path` against `profile`.
void ExpectAnnotateAgrees(const std::string& annotate, const std::string& path,
                          const CallgrindProfile& profile, bool compare_total = true) {
  for (bool inclusive : {false, true}) {
    SCOPED_TRACE(absl::StrCat("--inclusive=", inclusive ? "yes" : "no"));
    absl::StatusOr<AnnotateListing> listing =
        RunAnnotate(annotate, path, inclusive, profile.events[0]);
    ASSERT_TRUE(listing.ok()) << listing.status();
    // Without summary:/totals:, annotate sums the listed counts, which with
    // --inclusive=yes counts every call again; our total stays the self sum.
    if (compare_total && !(inclusive && profile.total_is_calculated)) {
      EXPECT_EQ(profile.total, listing->total);
    }
    EXPECT_EQ(DiffFunctions(ByText(inclusive ? profile.inclusive : profile.exclusive), listing->functions),
              "");
  }
}

CallgrindProfile ParseOrDie(absl::string_view text) {
  absl::StatusOr<CallgrindProfile> profile =
      ParseCallgrindOutput(std::string_view(text.data(), text.size()), "test");
  EXPECT_TRUE(profile.ok()) << profile.status();
  return profile.ok() ? *std::move(profile) : CallgrindProfile();
}

// Parses `text` as "t.out" and expects an error of `code` whose message
// starts with "t.out:<line>: " and contains `fragment`.
void ExpectError(absl::string_view text, absl::StatusCode code, int line,
                 absl::string_view fragment) {
  absl::StatusOr<CallgrindProfile> profile =
      ParseCallgrindOutput(std::string_view(text.data(), text.size()), "t.out");
  ASSERT_FALSE(profile.ok()) << "parsed:\n" << text;
  EXPECT_EQ(profile.status().code(), code) << profile.status();
  const std::string message(profile.status().message());
  EXPECT_THAT(message, ::testing::StartsWith(absl::StrCat("t.out:", line, ": ")));
  EXPECT_THAT(message, HasSubstr(std::string(fragment)));
}

// ---------------------------------------------------------------------------
// Format features.
// ---------------------------------------------------------------------------

TEST(CallgrindParserTest, SpecExample) {
  CallgrindProfile profile = ParseOrDie(kSpecExample);
  EXPECT_THAT(profile.events, testing::ElementsAre("Instructions"));
  EXPECT_EQ(profile.num_parts, 1);
  EXPECT_THAT(ByText(profile.exclusive),
              UnorderedElementsAre(Pair("file1.c:main", 20), Pair("file1.c:func1", 100),
                                   Pair("file2.c:func2", 700)));
  // main: 20 self + 400 + 400 in calls; func1 and func2: all calls into them.
  EXPECT_THAT(ByText(profile.inclusive),
              UnorderedElementsAre(Pair("file1.c:main", 820), Pair("file1.c:func1", 400),
                                   Pair("file2.c:func2", 700)));
  // No summary:/totals: line: the sum of the self costs.
  EXPECT_EQ(profile.total, 820);
  EXPECT_TRUE(profile.total_is_calculated);
}

// The call graph: one arc per caller and callee, counts and costs summed
// over call sites, sorted by caller then callee.
TEST(CallgrindParserTest, CallArcs) {
  CallgrindProfile profile = ParseOrDie(kSpecExample);
  ASSERT_EQ(profile.calls.size(), 3u);
  auto arc = [&](size_t i) {
    const CallgrindProfile::CallArc& a = profile.calls[i];
    return std::make_tuple(a.caller.text(), a.callee.text(), a.calls, a.inclusive);
  };
  EXPECT_EQ(arc(0), std::make_tuple("file1.c:func1", "file2.c:func2", 2, 300));
  EXPECT_EQ(arc(1), std::make_tuple("file1.c:main", "file1.c:func1", 1, 400));
  EXPECT_EQ(arc(2), std::make_tuple("file1.c:main", "file2.c:func2", 3, 400));
}

TEST(CallgrindParserTest, NameCompressionDefinedUpFront) {
  CallgrindProfile profile = ParseOrDie(kSpecExampleCompressed);
  EXPECT_THAT(ByText(profile.exclusive),
              UnorderedElementsAre(Pair("file1.c:main", 20), Pair("file1.c:func1", 100),
                                   Pair("file2.c:func2", 700),
                                   // Listed by the defining lines, as annotate does.
                                   Pair("file2.c:main", 0), Pair("file2.c:func1", 0)));
  EXPECT_EQ(ByText(profile.inclusive).at("file1.c:main"), 820);
  EXPECT_EQ(ByText(profile.inclusive).at("file1.c:func1"), 400);
  EXPECT_EQ(ByText(profile.inclusive).at("file2.c:func2"), 700);
  EXPECT_EQ(profile.total, 820);
}

TEST(CallgrindParserTest, HeaderInlinedCodeAndObjects) {
  CallgrindProfile profile = ParseOrDie(kInlined);
  EXPECT_EQ(profile.creator, "callgrind-3.19.0");
  EXPECT_EQ(profile.command, "./app --flag");
  EXPECT_THAT(profile.events, testing::ElementsAre("Ir"));
  EXPECT_EQ(profile.total, 53);
  EXPECT_FALSE(profile.total_is_calculated);
  EXPECT_THAT(
      ByText(profile.exclusive),
      UnorderedElementsAre(
          Pair("app.cc:main [/usr/bin/app]", 9),
          // Inlined code is booked under the inlined file, without object.
          Pair("inl.h:main", 11), Pair("app.cc:tail [/usr/bin/app]", 10), Pair("inl.h:tail", 2),
          // fn= after fi= without fl=: the function takes the inlined file.
          Pair("inl.h:next [/usr/bin/app]", 1), Pair("inl.h:helper [/usr/bin/app]", 20)));
  EXPECT_THAT(ByText(profile.inclusive),
              UnorderedElementsAre(Pair("app.cc:main [/usr/bin/app]", 9),
                                   // The call was made from the inlined code.
                                   Pair("inl.h:main", 31), Pair("app.cc:tail [/usr/bin/app]", 10),
                                   Pair("inl.h:tail", 2), Pair("inl.h:next [/usr/bin/app]", 1),
                                   Pair("inl.h:helper [/usr/bin/app]", 20)));
}

// Each key holds the file, the function without callgrind's recursion
// suffix, the level, and the object.
TEST(CallgrindParserTest, KeysAreTyped) {
  CallgrindProfile profile = ParseOrDie(
      "events: Ir\nob=/usr/lib/libd.so\nfl=d.c\nfn=d\n1 5\ncfn=d'2\ncalls=1 1\n2 7\n"
      "fn=d'2\n1 7\n");
  const FunctionKey top("d.c", "d", "/usr/lib/libd.so");
  const FunctionKey nested("d.c", "d", "/usr/lib/libd.so", 2);
  EXPECT_EQ(nested.text(), "d.c:d'2 [/usr/lib/libd.so]");
  EXPECT_THAT(profile.exclusive, UnorderedElementsAre(Pair(top, 5), Pair(nested, 7)));
  ASSERT_EQ(profile.calls.size(), 1u);
  EXPECT_EQ(profile.calls[0].callee.function(), "d");
  EXPECT_EQ(profile.calls[0].callee.recursion(), 2);
  EXPECT_EQ(profile.calls[0].callee.object(), "/usr/lib/libd.so");
}

// A function callgrind found no symbol for is named by its address, with
// the recursion suffix at a deeper level. Every level joins its object's
// unknown code: an A/B whose library lies elsewhere on one side (another
// build of it) then compares what that code costs in all, rather than
// listing +N at one address and -N at the other.
TEST(CallgrindParserTest, UnnamedFunctionsJoinTheirObjectsUnknownCodeAtEveryLevel) {
  CallgrindProfile profile = ParseOrDie(
      "events: Ir\nob=/usr/lib/libx.so\nfl=???\nfn=0x1f0970\n1 5\ncfn=0x1f0970'2\ncalls=1 1\n"
      "2 7\nfn=0x1f0970'2\n1 7\n");
  const FunctionKey unknown("???", "(unknown in libx.so)", "/usr/lib/libx.so");
  EXPECT_THAT(profile.unnamed_groups,
              UnorderedElementsAre(Pair(FunctionKey("???", "0x1f0970", "/usr/lib/libx.so"), unknown),
                                   Pair(FunctionKey("???", "0x1f0970", "/usr/lib/libx.so", 2),
                                        unknown)));
}

TEST(CallgrindParserTest, RecursionCountsEveryLevel) {
  CallgrindProfile profile = ParseOrDie(kRecursion);
  EXPECT_THAT(ByText(profile.exclusive), UnorderedElementsAre(Pair("a.c:main", 1), Pair("a.c:f", 40)));
  EXPECT_THAT(ByText(profile.inclusive), UnorderedElementsAre(Pair("a.c:main", 41), Pair("a.c:f", 60)));
  EXPECT_EQ(profile.total, 41);
  EXPECT_FALSE(profile.total_is_calculated);
}

TEST(CallgrindParserTest, InstrLinePositionsAndSeveralEvents) {
  CallgrindProfile profile = ParseOrDie(kInstrLine);
  EXPECT_THAT(profile.events, testing::ElementsAre("Ir", "Dr", "Dw"));
  EXPECT_THAT(ByText(profile.exclusive), UnorderedElementsAre(Pair("x.c:func", 14), Pair("x.c:g", 18)));
  EXPECT_THAT(ByText(profile.inclusive), UnorderedElementsAre(Pair("x.c:func", 21), Pair("x.c:g", 7)));
  EXPECT_EQ(profile.total, 32);
}

TEST(CallgrindParserTest, JumpsAndJumpNames) {
  CallgrindProfile profile = ParseOrDie(kJumps);
  EXPECT_THAT(ByText(profile.exclusive), UnorderedElementsAre(Pair("j.c:loop", 5), Pair("k.c:other", 3)));
  EXPECT_EQ(profile.total, 8);
}

TEST(CallgrindParserTest, ObjectsAndCallTargets) {
  CallgrindProfile profile = ParseOrDie(kObjectsAndCalls);
  EXPECT_THAT(ByText(profile.exclusive),
              UnorderedElementsAre(Pair("a.c:f [libB.so]", 15), Pair("b.c:g [libB.so]", 7),
                                   Pair("a.c:h [libB.so]", 2)));
  // cfl= applied to g only; h is in the caller's file.
  EXPECT_THAT(ByText(profile.inclusive),
              UnorderedElementsAre(Pair("a.c:f [libB.so]", 28), Pair("b.c:g [libB.so]", 7),
                                   Pair("a.c:h [libB.so]", 2), Pair("ext.c:ext", 4)));
}

TEST(CallgrindParserTest, SummaryThenTotalsThenCalculatedTotal) {
  constexpr char kBody[] = "fl=a\nfn=b\n1 10\n";
  // summary: wins over totals: (callgrind's cache simulation can make them
  // differ in later events)...
  EXPECT_EQ(ParseOrDie(absl::StrCat("events: Ir\nsummary: 12\n", kBody, "totals: 10\n")).total, 12);
  // ...unless it is all zero.
  EXPECT_EQ(ParseOrDie(absl::StrCat("events: Ir\nsummary: 0\n", kBody, "totals: 10\n")).total, 10);
  // Cachegrind puts summary: at the end.
  EXPECT_EQ(ParseOrDie(absl::StrCat("events: Ir\n", kBody, "summary: 11\n")).total, 11);
  CallgrindProfile calculated = ParseOrDie(absl::StrCat("events: Ir\n", kBody, "1 5\n"));
  EXPECT_EQ(calculated.total, 15);
  EXPECT_TRUE(calculated.total_is_calculated);
}

TEST(CallgrindParserTest, HexNumbersAndDotCosts) {
  CallgrindProfile profile = ParseOrDie(
      "positions: instr line\nevents: Ir Dr\nfl=a\nfn=b\n"
      "0x10 0x20 0x1f 3\n+0x4 -0x2 . 4\n");
  EXPECT_THAT(ByText(profile.exclusive), UnorderedElementsAre(Pair("a:b", 31)));
}

TEST(CallgrindParserTest, CallsZeroIsACall) {
  // Written by callgrind for a call that began before the previous dump.
  // callgrind_annotate would add the 50 to main's self cost.
  CallgrindProfile profile = ParseOrDie(
      "events: Ir\nfl=a.c\nfn=main\n1 1\ncfn=f\ncalls=0 10\n2 50\n"
      "fn=f\n10 50\ntotals: 51\n");
  EXPECT_THAT(ByText(profile.exclusive), UnorderedElementsAre(Pair("a.c:main", 1), Pair("a.c:f", 50)));
  EXPECT_THAT(ByText(profile.inclusive), UnorderedElementsAre(Pair("a.c:main", 51), Pair("a.c:f", 50)));
}

TEST(CallgrindParserTest, FunctionWithoutFile) {
  // annotate keys it ":main" too, but drops the last function's costs when
  // no fl= was ever seen; we keep them.
  CallgrindProfile profile = ParseOrDie("events: Ir\nfn=main\n1 3\nfn=other\n2 4\n");
  EXPECT_THAT(ByText(profile.exclusive), UnorderedElementsAre(Pair(":main", 3), Pair(":other", 4)));
}

// Two parts as --combine-dumps=yes writes them: each part has its own header
// (callgrind_annotate ignores the later ones, so they repeat positions:),
// compressed names carry over, costs and totals add up.
constexpr char kTwoParts[] = R"(# callgrind format
version: 1
creator: callgrind-3.19.0
pid: 7
cmd:  ./app
part: 1

desc: Trigger: --dump-every-bb=1000

positions: instr line
events: Ir
summary: 30

ob=(1) app
fl=(1) a.c
fn=(1) main
0x10 1 10
cfn=(2) f
calls=1 0x50 5
+4 2 20
fn=(2)
0x50 5 20

totals: 30

part: 2

desc: Trigger: Program termination

positions: instr line
events: Ir
summary: 7

fl=(1)
fn=(1)
0x100 3 1
cfn=(2)
calls=0 0x200 5
+4 * 6
fn=(2)
0x200 5 6

totals: 7
)";

TEST(CallgrindParserTest, SeveralParts) {
  CallgrindProfile profile = ParseOrDie(kTwoParts);
  EXPECT_EQ(profile.num_parts, 2);
  EXPECT_EQ(profile.total, 37);
  EXPECT_EQ(profile.command, "./app");
  EXPECT_THAT(ByText(profile.exclusive),
              UnorderedElementsAre(Pair("a.c:main [app]", 11), Pair("a.c:f [app]", 26)));
  EXPECT_THAT(ByText(profile.inclusive),
              UnorderedElementsAre(Pair("a.c:main [app]", 37), Pair("a.c:f [app]", 26)));
}

TEST(CallgrindParserTest, PositionsResetPerPart) {
  // Without its own positions: line, a part's cost lines start with a line
  // number only (the spec's default), whatever the earlier part used.
  CallgrindProfile profile = ParseOrDie(
      "positions: instr line\nevents: Ir\nfl=a\nfn=b\n0x10 1 5\ntotals: 5\n"
      "part: 2\nevents: Ir\nfn=b\n3 4\n");
  EXPECT_EQ(profile.num_parts, 2);
  EXPECT_THAT(ByText(profile.exclusive), UnorderedElementsAre(Pair("a:b", 9)));
}

TEST(CallgrindParserTest, ParseCallgrindFile) {
  const std::string path = TempPath("profile.out");
  WriteFile(path, kRecursion);
  absl::StatusOr<CallgrindProfile> profile = ParseCallgrindFile(path);
  ASSERT_TRUE(profile.ok()) << profile.status();
  EXPECT_EQ(profile->total, 41);
  std::remove(path.c_str());

  absl::StatusOr<CallgrindProfile> missing = ParseCallgrindFile(path);
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(missing.status().message()), HasSubstr(path));
}

// ---------------------------------------------------------------------------
// Errors name the source, the line and what was expected.
// ---------------------------------------------------------------------------

TEST(CallgrindParserErrorTest, Truncation) {
  ExpectError("", absl::StatusCode::kDataLoss, 1, "empty input");
  ExpectError("events: Ir\nfl=a\nfn=b\n1 2", absl::StatusCode::kDataLoss, 4, "has no newline");
  ExpectError("events: Ir\nfl=a\nfn=b\ncfn=c\ncalls=1 1\n\n", absl::StatusCode::kDataLoss, 6,
              "ends after the \"calls=\" on line 5");
  ExpectError("# callgrind format\nversion: 1\n", absl::StatusCode::kDataLoss, 2,
              "without an \"events:\" header line");
  ExpectError(
      "creator: callgrind-3.19.0\nevents: Ir\nsummary: 2\nfl=a\nfn=b\n"
      "1 2\n",
      absl::StatusCode::kDataLoss, 6, "part 1 (from line 1) ends without a \"totals:\" line");
  // Part 1 lost its end, and part 2 began: reported where part 2 begins.
  ExpectError(
      "creator: callgrind-3.19.0\nevents: Ir\nfl=a\nfn=b\n1 2\n"
      "part: 2\nevents: Ir\nfn=b\n1 1\ntotals: 1\n",
      absl::StatusCode::kDataLoss, 6, "part 1 (from line 1)");
}

TEST(CallgrindParserErrorTest, TotalsDisagreeWithCostLines) {
  ExpectError("events: Ir Dr\nfl=a\nfn=b\n1 2 1\n2 3 1\ntotals: 5 3\n", absl::StatusCode::kDataLoss,
              6, "\"totals:\" gives 3 Dr but the cost lines of part 1 sum to 2");
}

TEST(CallgrindParserErrorTest, EveryPrefixOfACallgrindFileIsAnError) {
  const std::string text = kInlined;
  ASSERT_TRUE(ParseCallgrindOutput(text, "full").ok());
  for (size_t size = 0; size < text.size(); ++size) {
    EXPECT_FALSE(ParseCallgrindOutput(text.substr(0, size), "prefix").ok())
        << "prefix of " << size << " bytes parsed:\n"
        << text.substr(0, size);
  }
}

TEST(CallgrindParserErrorTest, MalformedLines) {
  using absl::StatusCode;
  constexpr StatusCode kInvalid = StatusCode::kInvalidArgument;
  ExpectError("events: Ir\nfl=a\nfn=b\ncfn=c\ncalls=1 1\nfn=d\n1 1\n", kInvalid, 6,
              "expected the cost line of the call on line 5");
  ExpectError("events: Ir\nfl=a\nfn=(3)\n", kInvalid, 3,
              "compressed name (3) in 'fn=(3)' is used before it is defined");
  // Each table is separate: fl=(1) does not define fn=(1).
  ExpectError("events: Ir\nfl=(1) a\nfn=(1)\n", kInvalid, 3, "used before it is defined");
  ExpectError("events: Ir\nfl=(1 a\n", kInvalid, 2, "malformed compressed name");
  ExpectError("events: Ir\nfl=a\nfn=b\n1 2x\n", kInvalid, 4,
              "malformed cost '2x' for event Ir in '1 2x'");
  ExpectError("events: Ir\nfl=a\nfn=b\n1 99999999999999999999\n", kInvalid, 4,
              "expected a number below 2^63");
  ExpectError("events: Ir Dr\nfl=a\nfn=b\n1 2 3 4\n", kInvalid, 4,
              "too many costs in '1 2 3 4'; expected at most 2");
  ExpectError("positions: instr line\nevents: Ir\nfl=a\nfn=b\n0x10\n", kInvalid, 5,
              "expected 2 subposition(s)");
  ExpectError("events: Ir\nfl=a\nfn=b\n+x 1\n", kInvalid, 4, "malformed cost line '+x 1'");
  ExpectError("events: Ir\nfl=a\n1 2\n", kInvalid, 3, "cost line '1 2' before any \"fn=\" line");
  ExpectError("# callgrind format\nfl=a\n", kInvalid, 2, "before any \"events:\" header line");
  ExpectError("version: 2\nevents: Ir\n", kInvalid, 1, "unsupported format version 2");
  ExpectError("events: Ir\nfl=a\nfn=b\nxx=1\n", kInvalid, 4, "unknown specification 'xx=1'");
  ExpectError("events: Ir\nfl=a\nfi=b\n", kInvalid, 3, "'fi=b' before any \"fn=\" line");
  ExpectError("events: Ir\nfl=a\nfn=b\ncalls=1 1\n", kInvalid, 4,
              "without a preceding \"cfn=\" line");
  ExpectError("events: Ir\nfl=a\nfn=b\ncfn=c\ncalls=1\n", kInvalid, 5, "missing target position");
  ExpectError("events: Ir\nfl=a\nfn=b\ncfn=c\ncalls=x 1\n", kInvalid, 5,
              "expected \"calls=<count> <target position>\"");
  ExpectError("events: Ir\nfl=a\nfn=b\njcnd=1/ 2\n", kInvalid, 4,
              "expected \"jcnd=<executed>/<jumped> <target position>\"");
  ExpectError("events: Ir\nfl=a\nfn=b\n1 1\npart: 2\nevents: Dr\n", kInvalid, 6,
              "part 2 has events \"Dr\"; expected the events of the earlier "
              "parts, \"Ir\"");
  ExpectError("events: Ir\nevents: Ir\n", kInvalid, 2, "second \"events:\" line in part 1");
  ExpectError("events: Ir\nfl=a\nfn=b\nhello world\n", kInvalid, 4,
              "unrecognized line 'hello world'");
  ExpectError("events: Ir\nfl=a\nfn=b\n 1 2\n", kInvalid, 4, "unrecognized line ' 1 2'");
  ExpectError("events: Ir\nfl=a\nfn=b\nfoo: bar\n", kInvalid, 4,
              "unknown header line 'foo: bar' inside a body");
  ExpectError("pid: abc\nevents: Ir\n", kInvalid, 1, "expected \"pid: <number>\"");
  ExpectError("positions: column\nevents: Ir\n", kInvalid, 1, "unknown position type");
  ExpectError("summary: 1\nevents: Ir\n", kInvalid, 1, "comes before the \"events:\" line");
  ExpectError(std::string("events: Ir\nfl=a\nfn=b\x00x\n", 23), StatusCode::kDataLoss, 3,
              "NUL byte");
}

// ---------------------------------------------------------------------------
// Cross-checks against callgrind_annotate itself.
// ---------------------------------------------------------------------------

class CallgrindAnnotateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    annotate_ = FindProgram("callgrind_annotate");
    if (!annotate_.has_value() || !FindProgram("perl").has_value()) {
      GTEST_SKIP() << "callgrind_annotate (with perl) is not installed";
    }
  }

  std::optional<std::string> annotate_;
};

class CallgrindAnnotateAgrees : public CallgrindAnnotateTest,
                                public ::testing::WithParamInterface<Sample> {};

TEST_P(CallgrindAnnotateAgrees, OnHandWrittenProfile) {
  const Sample& sample = GetParam();
  const std::string path = TempPath("sample.out");
  WriteFile(path, sample.text);
  CallgrindProfile profile = ParseOrDie(sample.text);
  ExpectAnnotateAgrees(*annotate_, path, profile);
  std::remove(path.c_str());
}

INSTANTIATE_TEST_SUITE_P(Samples, CallgrindAnnotateAgrees, ::testing::ValuesIn(kSamples),
                         [](const ::testing::TestParamInfo<Sample>& info) {
                           return std::string(info.param.name);
                         });

TEST_F(CallgrindAnnotateTest, OnSeveralPartsWithCallsZeroRewritten) {
  // annotate reads calls=0 as "no call" and PROGRAM TOTALS from the last
  // part. With calls=0 rewritten (annotate ignores the count otherwise), its
  // function listing must match ours.
  const std::string path = TempPath("parts.out");
  WriteFile(path, absl::StrReplaceAll(kTwoParts, {{"calls=0 ", "calls=1 "}}));
  CallgrindProfile profile = ParseOrDie(kTwoParts);
  ExpectAnnotateAgrees(*annotate_, path, profile, /*compare_total=*/false);
  std::remove(path.c_str());
}

// callgrind runs of a real program with different output options, each
// compared function by function with annotate.
struct ValgrindVariant {
  const char* name;
  const char* options;
  int min_parts = 1;
};

void PrintTo(const ValgrindVariant& variant, std::ostream* os) {
  *os << variant.name << " (" << variant.options << ")";
}

constexpr ValgrindVariant kVariants[] = {
    {"Default", ""},
    {"InstrAndJumps", "--dump-instr=yes --collect-jumps=yes"},
    {"InstrOnly", "--dump-instr=yes --dump-line=no"},
    {"CacheAndBranchSim", "--cache-sim=yes --branch-sim=yes"},
    {"Uncompressed", "--compress-strings=no --compress-pos=no"},
    {"SeparateRecursionsAndCallers", "--separate-recs=3 --separate-callers=2"},
    // A second dump when ls calls setlocale(): the profile file holds the
    // last dump, the one with calls=0 lines.
    {"DumpBeforeSetlocale", "--dump-before=setlocale"},
    // `ls /` runs about 120,000 basic blocks: three parts in one file.
    {"CombinedDumps", "--combine-dumps=yes --dump-every-bb=40000", 2},
};

class ValgrindTest : public ::testing::Test {
 protected:
  void SetUp() override {
    valgrind_ = FindProgram("valgrind");
    ls_ = FindProgram("ls");
    if (!valgrind_.has_value() || !ls_.has_value()) {
      GTEST_SKIP() << "valgrind or ls is not installed";
    }
  }

  void TearDown() override {
    if (out_.empty()) return;
    // Extra dumps go to <file>.1, <file>.2, ...
    for (const std::string& path : {out_, out_ + ".1", out_ + ".2"}) {
      std::remove(path.c_str());
    }
  }

  // Profiles `ls /` (about 0.6 M instructions, half a second under
  // callgrind) and returns the profile's path.
  std::string RunCallgrind(absl::string_view options) {
    out_ = TempPath("callgrind.out");
    ShellResult result = RunShell(absl::StrCat(
        ShellQuote(*valgrind_), " --tool=callgrind --vgdb=no ", options,
        " --callgrind-out-file=", ShellQuote(out_), " ", ShellQuote(*ls_), " / >/dev/null"));
    EXPECT_EQ(result.exit_code, 0) << result.err;
    return out_;
  }

  std::optional<std::string> valgrind_;
  std::optional<std::string> ls_;
  std::string out_;
};

class ValgrindCrossCheck : public ValgrindTest,
                           public ::testing::WithParamInterface<ValgrindVariant> {
 protected:
  void SetUp() override {
    ValgrindTest::SetUp();
    if (IsSkipped()) return;
    annotate_ = FindProgram("callgrind_annotate");
    if (!annotate_.has_value() || !FindProgram("perl").has_value()) {
      GTEST_SKIP() << "callgrind_annotate (with perl) is not installed";
    }
  }

  std::optional<std::string> annotate_;
};

TEST_P(ValgrindCrossCheck, MatchesCallgrindAnnotate) {
  const std::string path = RunCallgrind(GetParam().options);
  absl::StatusOr<CallgrindProfile> profile = ParseCallgrindFile(path);
  ASSERT_TRUE(profile.ok()) << profile.status();
  EXPECT_THAT(profile->creator, HasSubstr("callgrind"));
  EXPECT_THAT(profile->command, HasSubstr("ls /"));
  EXPECT_EQ(profile->events[0], "Ir");
  EXPECT_GT(profile->exclusive.size(), 50u);
  EXPECT_FALSE(profile->total_is_calculated);
  EXPECT_GE(profile->num_parts, GetParam().min_parts);

  // Every dump after the first has "calls=0" lines for the calls still
  // running at the previous dump, which annotate misreads (CallsZeroIsACall).
  // It ignores the count otherwise, so with the count rewritten its listing
  // must match ours.
  const std::string text = ReadFile(path);
  const std::string for_annotate = TempPath("for_annotate.out");
  WriteFile(for_annotate, absl::StrReplaceAll(text, {{"\ncalls=0 ", "\ncalls=1 "}}));
  ExpectAnnotateAgrees(*annotate_, for_annotate, *profile,
                       /*compare_total=*/profile->num_parts == 1);

  if (profile->num_parts > 1) {
    // Our total is the sum of the parts' summary: lines; annotate's PROGRAM
    // TOTALS is the last one.
    int64_t sum = 0;
    int64_t last = 0;
    for (absl::string_view line : absl::StrSplit(text, '\n')) {
      if (absl::ConsumePrefix(&line, "summary: ")) {
        ASSERT_TRUE(absl::SimpleAtoi(line, &last)) << line;
        sum += last;
      }
    }
    EXPECT_EQ(profile->total, sum);
    absl::StatusOr<AnnotateListing> listing = RunAnnotate(*annotate_, for_annotate, false, "Ir");
    ASSERT_TRUE(listing.ok()) << listing.status();
    EXPECT_EQ(listing->total, last);
  }
  std::remove(for_annotate.c_str());
}

INSTANTIATE_TEST_SUITE_P(Variants, ValgrindCrossCheck, ::testing::ValuesIn(kVariants),
                         [](const ::testing::TestParamInfo<ValgrindVariant>& info) {
                           return std::string(info.param.name);
                         });

TEST_F(ValgrindTest, DamagedRealProfilesAreErrors) {
  const std::string text = ReadFile(RunCallgrind(""));
  ASSERT_TRUE(ParseCallgrindOutput(text, "real").ok());

  // Cut anywhere (here: at 200 points spread over the file).
  for (size_t i = 0; i < 200; ++i) {
    const size_t size = text.size() * i / 200;
    absl::StatusOr<CallgrindProfile> profile =
        ParseCallgrindOutput(std::string_view(text).substr(0, size), "cut");
    ASSERT_FALSE(profile.ok()) << "cut at byte " << size << " parsed";
    EXPECT_EQ(profile.status().code(), absl::StatusCode::kDataLoss) << profile.status();
  }

  // A self cost line lost or changed in the middle: caught by totals:.
  std::vector<std::string> lines = absl::StrSplit(text, '\n');
  size_t victim = lines.size() / 2;
  while (victim < lines.size() &&
         !(absl::ascii_isdigit(lines[victim][0]) && absl::StrContains(lines[victim], ' ') &&
           !absl::StartsWith(lines[victim - 1], "calls=") &&
           !absl::EndsWith(lines[victim], " 0"))) {
    ++victim;
  }
  ASSERT_LT(victim, lines.size());
  std::vector<std::string> dropped = lines;
  dropped.erase(dropped.begin() + static_cast<std::ptrdiff_t>(victim));
  absl::StatusOr<CallgrindProfile> profile =
      ParseCallgrindOutput(absl::StrJoin(dropped, "\n"), "dropped");
  EXPECT_EQ(profile.status().code(), absl::StatusCode::kDataLoss) << profile.status();
  EXPECT_THAT(std::string(profile.status().message()), HasSubstr("\"totals:\" gives"));

  std::vector<std::string> changed = lines;
  changed[victim] += "1";  // one more digit in the last cost
  profile = ParseCallgrindOutput(absl::StrJoin(changed, "\n"), "changed");
  EXPECT_EQ(profile.status().code(), absl::StatusCode::kDataLoss) << profile.status();
}

}  // namespace
}  // namespace icount::timer::internal
