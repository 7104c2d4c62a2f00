#include "tools/ab_sides.h"

#include <sys/stat.h>

#include <cstdlib>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "base/files.h"
#include "environment/pytorch_install_testutil.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "worker/libtorch_version_line.h"
#include "worker/libtorch_version_line_testutil.h"

namespace icount::tools {
namespace {

using ::testing::ElementsAre;
using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::StartsWith;

expand::SuiteCaseProto Case(const std::string& key, timer::LanguageProto language,
                            const std::string& min_libtorch_version = "") {
  expand::SuiteCaseProto c;
  c.set_key(key);
  c.set_list_line(key);
  c.mutable_task_spec()->set_language(language);
  c.set_min_libtorch_version(min_libtorch_version);
  // As the suite generator reads it.
  if (!min_libtorch_version.empty()) {
    const expand::LibTorchVersion min = *expand::ParseLibTorchVersion(min_libtorch_version);
    c.mutable_min_libtorch()->set_major(min.major);
    c.mutable_min_libtorch()->set_minor(min.minor);
    c.mutable_min_libtorch()->set_patch(min.patch);
  }
  return c;
}

Side SideOn(const std::string& name, const std::string& version) {
  Side side;
  side.name = name;
  side.libtorch.version = version;
  side.libtorch_version = *expand::ParseLibTorchVersion(version, expand::VersionSuffix::kIgnored);
  return side;
}

// An executable shell script in the test's directory.
std::string Script(const std::string& name, const std::string& body) {
  const std::string path = std::string(std::getenv("TEST_TMPDIR")) + "/" + name;
  EXPECT_TRUE(base::WriteFileAtomically(path, "#!/bin/sh\n" + body + "\n").ok());
  chmod(path.c_str(), 0755);
  return path;
}

// A side whose worker is the shell script `worker_body`, run through
// `command`.
Side SideWithWorker(const std::string& name, const std::string& command,
                    const std::string& worker_body) {
  Side side;
  side.name = name;
  side.command = command;
  side.environment.suite.worker_path = Script(name + "_worker", worker_body);
  return side;
}

TEST(AbSidesTest, JournalNames) {
  EXPECT_EQ(JournalPath("out.json", "A", "counts"), "out.json.A.counts.journal");
  EXPECT_EQ(JournalPath("out.json", SideTag(1), TimeRoundPart(2)), "out.json.S2.time-2.journal");
  EXPECT_EQ(*JournalBase("out.json"), "out.json");
}

// Without --json the journals go in a directory of their own, which goes
// once the results are out.
TEST(AbSidesTest, JournalsWithoutJsonLiveInADirectoryTheRunRemoves) {
  absl::StatusOr<std::string> base = JournalBase("");
  ASSERT_TRUE(base.ok()) << base.status();
  ASSERT_TRUE(absl::EndsWith(*base, "/ab")) << *base;
  const std::string directory = base->substr(0, base->size() - 3);
  struct stat info;
  ASSERT_EQ(stat(directory.c_str(), &info), 0) << directory;
  SideRun run;
  run.journals.push_back(JournalPath(*base, "A", "counts"));
  ASSERT_TRUE(base::WriteFileAtomically(run.journals[0], "{}\n").ok());
  RemoveJournals({&run}, "", *base);
  EXPECT_NE(stat(directory.c_str(), &info), 0) << directory << " is still there";
}

TEST(AbSidesTest, CasesNeedingANewerLibTorchStayWithAWarningOrAreSkippedWhenBacktesting) {
  const Side old_side = SideOn("A", "1.13.0");
  const Side new_side = SideOn("B", "2.1.0+cpu");
  const std::vector<expand::SuiteCaseProto> selected = {Case("any", timer::CPP),
                                                        Case("needs 1.9", timer::CPP, "1.9"),
                                                        Case("needs 2.0", timer::PYTHON, "2.0")};
  std::vector<expand::SuiteCaseProto> skipped;
  absl::StatusOr<std::vector<expand::SuiteCaseProto>> kept =
      CasesToRun(selected, {&new_side, &old_side}, /*backtesting=*/false, skipped);
  ASSERT_TRUE(kept.ok()) << kept.status();
  EXPECT_EQ(kept->size(), 3u);
  EXPECT_TRUE(skipped.empty());

  kept = CasesToRun(selected, {&new_side, &old_side}, /*backtesting=*/true, skipped);
  ASSERT_TRUE(kept.ok()) << kept.status();
  ASSERT_EQ(kept->size(), 2u);
  EXPECT_EQ((*kept)[1].key(), "needs 1.9");
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_EQ(skipped[0].key(), "needs 2.0");

  // Nothing left is an error.
  skipped.clear();
  absl::Status none = CasesToRun({selected[2]}, {&old_side}, true, skipped).status();
  EXPECT_THAT(std::string(none.message()), HasSubstr("leaves no case to run"));
}

TEST(AbSidesTest, TheCanaryIsTheFirstCaseOfTheLanguageThatRunsEverywhere) {
  Suite suite;
  *suite.manifest.add_cases() = Case("cpp", timer::CPP);
  *suite.manifest.add_cases() = Case("python, new", timer::PYTHON, "2.0");
  *suite.manifest.add_cases() = Case("python", timer::PYTHON);
  Side a = SideOn("A", "1.13.0"), b = SideOn("B", "2.14.1");
  EXPECT_EQ(ChooseCanary(suite, /*python=*/true, {&a, &b})->key(), "python");
  EXPECT_EQ(ChooseCanary(suite, /*python=*/false, {&a, &b})->key(), "cpp");
  suite.manifest.mutable_cases()->DeleteSubrange(0, 1);
  EXPECT_EQ(ChooseCanary(suite, /*python=*/false, {&a, &b}).status().code(),
            absl::StatusCode::kFailedPrecondition);
}

// A C++ case one side's worker was built without (it does not compile
// there) would stop that side as broken: the canary is the next one.
TEST(AbSidesTest, TheCanaryIsACaseEverySideCompiled) {
  Suite suite;
  expand::SuiteCaseProto first = Case("InferenceMode", timer::CPP);
  first.set_compiled_case("InferenceMode|C++|1");
  expand::SuiteCaseProto second = Case("add", timer::CPP);
  second.set_compiled_case("add|C++|1");
  *suite.manifest.add_cases() = first;
  *suite.manifest.add_cases() = second;
  Side a = SideOn("A", "1.13.0"), b = SideOn("B", "2.14.1");
  b.environment.uncompiled_cases["InferenceMode|C++|1"] = "error: explicit constructor";
  EXPECT_EQ(ChooseCanary(suite, /*python=*/false, {&a})->key(), "InferenceMode");
  EXPECT_EQ(ChooseCanary(suite, /*python=*/false, {&a, &b})->key(), "add");
  b.environment.uncompiled_cases["add|C++|1"] = "error: no add";
  absl::Status none = ChooseCanary(suite, /*python=*/false, {&a, &b}).status();
  EXPECT_THAT(std::string(none.message()), HasSubstr("compiles against every side"));
}

// One side without a torch package: no side runs Python cases.
TEST(AbSidesTest, ASideWithoutTorchTurnsPythonOffEverywhere) {
  Side a = SideOn("A", "1.13.0"), b = SideOn("B", "1.13.0");
  EXPECT_TRUE(*PythonCases({&a, &b}, /*no_python=*/false, /*no_cpp=*/false));
  EXPECT_FALSE(*PythonCases({&a, &b}, /*no_python=*/true, /*no_cpp=*/false));
  b.environment.install.python_problem = "a LibTorch directory has no torch package";
  EXPECT_FALSE(*PythonCases({&a, &b}, /*no_python=*/false, /*no_cpp=*/false));
  // With --no_cpp nothing is left: said of the side, not of --no_python.
  absl::StatusOr<bool> none = PythonCases({&a, &b}, /*no_python=*/false, /*no_cpp=*/true);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().message(),
            "--no_cpp leaves the Python cases only, and B has none: a LibTorch directory has no "
            "torch package; drop --no_cpp to compare the C++ cases");
}

// --no_cpp with a LibTorch-directory side (a flag's or a --sides line's)
// is refused before any side is set up: such a side has no Python cases.
TEST(AbSidesTest, NoCppRefusesALibTorchDirectorySide) {
  const std::string dir = std::string(std::getenv("TEST_TMPDIR")) + "/libtorch";
  environment::MakeFakeLibTorch(dir);
  Side b;
  b.name = "B";
  b.command = "true";
  const SideSource flag = {dir, "B_libtorch", "", "B_root", ""};
  EXPECT_TRUE(CheckSide(flag, b, /*no_cpp=*/false).ok());
  EXPECT_EQ(CheckSide(flag, b, /*no_cpp=*/true).message(),
            "--no_cpp leaves the Python cases only, and --B_libtorch=" + dir +
                " has none (a LibTorch directory has no torch Python package): drop --no_cpp to "
                "measure the C++ cases");
  const SideSource line = {dir, "sides", "", "sides", ""};
  EXPECT_THAT(std::string(CheckSide(line, b, /*no_cpp=*/true).message()),
              HasSubstr("and B's libtorch=" + dir + " has none"));
  // A side whose environment's torch has Python cases passes.
  EXPECT_TRUE(CheckSide({"", "B_libtorch", "", "B_root", ""}, b, /*no_cpp=*/true).ok());
}

// An environment whose torch is for another Python than the worker embeds
// has no Python cases either: with --no_cpp it is refused before anything
// is built for it, unless the side's worker is given (--B_worker).
TEST(AbSidesTest, NoCppRefusesASideWhoseTorchIsForAnotherPython) {
  const std::string site = std::string(std::getenv("TEST_TMPDIR")) + "/site-packages";
  environment::MakeFakeLibTorch(site + "/torch");
  Side b;
  b.name = "B";
  b.command =
      environment::FakePythonEnvironment(environment::ProbeLine(site + "/torch", "1", "2.7"));
  const SideSource command = {"", "B_libtorch", "", "B_root", ""};
  EXPECT_TRUE(CheckSide(command, b, /*no_cpp=*/false).ok());
  EXPECT_THAT(std::string(CheckSide(command, b, /*no_cpp=*/true).message()),
              StartsWith("--no_cpp leaves the Python cases only, and B has none (its torch is for "
                         "Python 2.7, and icount's worker embeds Python "));
  EXPECT_THAT(std::string(CheckSide(command, b, /*no_cpp=*/true).message()),
              EndsWith("): drop --no_cpp to measure the C++ cases"));
  EXPECT_TRUE(CheckSide({"", "B_libtorch", "", "B_root", "/opt/worker"}, b, /*no_cpp=*/true).ok());
}

// A stand-in worker's body: it writes a report of `version` from
// `source` to the descriptor --libtorch_report_fd names, as the worker does.
std::string ReportingWorker(const std::string& name, const std::string& version,
                            const std::string& source) {
  return worker::AnswerOnReportFd(name, worker::SerializeLibTorchReport({version, source, ""}));
}

// The worker is asked through the side's command; what the command prints
// does not matter, nor a line that looks like an answer.
TEST(AbSidesTest, ProbeReadsTheVersionTheWorkerReports) {
  Side side = SideWithWorker(
      "B", "echo setting up; echo 'icount-libtorch-version: 9.9 from a line'",
      ReportingWorker("B", "2.1.0+cpu", "torch.__version__"));
  ASSERT_TRUE(ProbeLibTorch(side).ok());
  EXPECT_EQ(side.libtorch.version, "2.1.0+cpu");
  EXPECT_EQ(side.libtorch.source, "torch.__version__");
  EXPECT_FALSE(side.libtorch_version < *expand::ParseLibTorchVersion("2.1"));
}

TEST(AbSidesTest, ABrokenEnvironmentIsNamedWithWhatItPrinted) {
  Side side =
      SideWithWorker("A", "export LD_LIBRARY_PATH=/nowhere",
                     "echo 'libtorch_cpu.so: cannot open shared object file' >&2; exit 127");
  const absl::Status status = ProbeLibTorch(side);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("environment A (export LD_LIBRARY_PATH=/nowhere) is broken"));
  EXPECT_THAT(std::string(status.message()), HasSubstr("cannot open shared object file"));

  side.environment.suite.worker_path =
      Script("odd_worker", ReportingWorker("odd", "main", "torch.__version__"));
  EXPECT_THAT(std::string(ProbeLibTorch(side).message()),
              HasSubstr("ICOUNT_LIBTORCH_VERSION=<version>"));
}

// A's first wall-time round fixes each case's block size for every later
// order of that case, on both sides.
TEST(AbSidesTest, LaterRoundsTimeInTheBlocksOfAsFirstRound) {
  SideRun a_run;
  for (const auto& [key, round, number] :
       std::vector<std::tuple<std::string, int, int64_t>>{{"add", 0, 1000}, {"mul", 1, 10}}) {
    worker::WorkOrderProto order;
    order.set_case_key(key);
    worker::WorkerResultProto result;
    result.mutable_output()->mutable_wall_time()->set_number_per_run(number);
    a_run.orders.push_back(order);
    a_run.results.push_back(result);
    a_run.rounds.push_back(round);
  }
  std::vector<worker::WorkOrderProto> later(2);
  later[0].set_case_key("add");
  later[1].set_case_key("mul");
  FixBlockSizes(a_run, later);
  EXPECT_EQ(later[0].wall_time_number(), 1000);
  EXPECT_EQ(later[1].wall_time_number(), 0);  // not timed in round 0: picks its own
}

// Wall times pair by round: a round one side did not finish is left out.
TEST(AbSidesTest, RoundsPairOnlyWhereBothSidesFinished) {
  auto run = [](const std::vector<std::pair<int, double>>& rounds) {
    SideRun side;
    for (const auto& [round, seconds] : rounds) {
      worker::WorkOrderProto order;
      order.set_case_key("add");
      worker::WorkerResultProto result;
      timer::MeasurementProto& m = *result.mutable_output()->mutable_wall_time();
      m.set_stmt("x");
      m.set_number_per_run(10);
      m.add_raw_times(seconds * 10);
      side.orders.push_back(order);
      side.results.push_back(result);
      side.rounds.push_back(round);
    }
    side.orders.push_back(worker::WorkOrderProto());  // counts: not a round
    side.orders.back().set_case_key("add");
    side.results.emplace_back();
    side.rounds.push_back(-1);
    return side;
  };
  const std::map<std::string, compare::PairedRounds> paired =
      PairRounds(run({{0, 1.0}, {1, 2.0}, {2, 3.0}}), run({{0, 1.5}, {2, 3.5}}));
  ASSERT_EQ(paired.size(), 1u);
  EXPECT_THAT(paired.at("add").a, ElementsAre(1.0, 3.0));
  EXPECT_THAT(paired.at("add").b, ElementsAre(1.5, 3.5));
}

}  // namespace
}  // namespace icount::tools
