#include "timer/measurement_io.h"

#include <unistd.h>

#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "timer/version.h"

namespace icount::timer {
namespace {

Measurement Sample() {
  TaskSpec spec;
  spec.stmt = "torch::add(x, y);";
  spec.setup = "auto x = torch::ones({4, 4});";
  spec.label = "add";
  spec.env = "";  // set but empty: distinct from unset
  spec.num_threads = 2;
  spec.language = Language::kCpp;
  return Measurement(100, {1.5e-4, 1.25e-4}, spec, {{"machine", "ci"}});
}

TEST(MeasurementIoTest, ProtoRoundTripKeepsEverything) {
  Measurement original = Sample();
  absl::StatusOr<Measurement> back = MeasurementFromProto(MeasurementToProto(original));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->task_spec(), original.task_spec());
  EXPECT_FALSE(back->task_spec().sub_label.has_value());
  EXPECT_EQ(back->number_per_run(), 100);
  EXPECT_EQ(back->raw_times(), original.raw_times());
  EXPECT_EQ(back->metadata(), original.metadata());
}

TEST(MeasurementIoTest, HeapAllocationsRoundTripAndStayAbsentWhenNotCounted) {
  InstructionCounts counts;
  counts.number_per_run = 10;
  counts.counts = {1000};
  counts.counts_per_run = 100;
  absl::StatusOr<InstructionCounts> back =
      InstructionCountsFromProto(InstructionCountsToProto(counts));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_FALSE(back->allocations_per_run.has_value());
  EXPECT_FALSE(back->frees_per_run.has_value());
  counts.allocations_per_run = 4;
  counts.frees_per_run = 0;  // present although zero
  back = InstructionCountsFromProto(InstructionCountsToProto(counts));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->allocations_per_run, 4.0);
  EXPECT_EQ(back->frees_per_run, 0.0);
  absl::StatusOr<ResultsFile> parsed = ParseResultsJson(
      R"({"instruction_counts": [{"number_per_run": 10, "counts": ["5"], "allocations_per_run": "NaN"}]})",
      "nan.json");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().message(),
            "nan.json: instruction_counts 1: allocations_per_run must be a finite number, got nan");
}

TEST(MeasurementIoTest, JsonRoundTripThroughAFile) {
  ResultsFile results;
  results.measurements = {Sample(), Sample()};
  results.start_time = "2026-11-21T10:00:00Z";
  const std::string path = std::string(std::getenv("TEST_TMPDIR")) + "/results.json";
  ASSERT_TRUE(WriteResultsFile(path, results).ok());
  absl::StatusOr<ResultsFile> back = ReadResultsFile(path);
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_EQ(back->measurements.size(), 2u);
  EXPECT_EQ(back->measurements[1].task_spec(), results.measurements[1].task_spec());
  EXPECT_EQ(back->versions.at("timer"), kTimerVersion);
  EXPECT_EQ(back->start_time, "2026-11-21T10:00:00Z");
}

TEST(MeasurementIoTest, JsonUsesProtoFieldNames) {
  ResultsFile results;
  results.measurements = {Sample()};
  const std::string json = ResultsToJson(results);
  for (const char* field : {"\"schema_version\":1", "\"label\":\"add\"", "\"num_threads\":2",
                            "\"number_per_run\":\"100\"", "\"raw_times\":[0.00015,0.000125]"}) {
    EXPECT_NE(json.find(field), std::string::npos) << field << " not in " << json;
  }
}

TEST(MeasurementIoTest, HandWrittenMinimalFileIsAccepted) {
  absl::StatusOr<ResultsFile> results = ParseResultsJson(
      R"({"measurements": [{"stmt": "x", "number_per_run": 10, "raw_times": [1e-3]}]})", "mini");
  ASSERT_TRUE(results.ok()) << results.status();
  const Measurement& m = results->measurements[0];
  EXPECT_EQ(m.task_spec().num_threads, 1);
  EXPECT_FALSE(m.task_spec().label.has_value());
  EXPECT_DOUBLE_EQ(m.Median(), 1e-4);
}

TEST(MeasurementIoTest, TheMachineRoundTripsTyped) {
  ResultsFile results;
  results.machine = "bench-7, 2 CPUs, AMD EPYC (family 25, model 17, stepping 1)";
  results.machine_node.set_host("bench-7");
  results.machine_node.set_cpus(2);
  results.machine_node.set_cpu_model("AMD EPYC");
  results.machine_node.set_cpuid("family 25, model 17, stepping 1");
  absl::StatusOr<ResultsFile> parsed = ParseResultsJson(ResultsToJson(results), "r.json");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->machine, results.machine);
  EXPECT_EQ(parsed->machine_node.SerializeAsString(), results.machine_node.SerializeAsString());
}

TEST(MeasurementIoTest, AnOlderFilesMachineIsReadTyped) {
  absl::StatusOr<ResultsFile> older = ParseResultsJson(
      R"json({"schema_version": 1,
              "machine": "bench-7, 2 CPUs, AMD EPYC (family 25, model 17, stepping 1)"})json",
      "older.json");
  ASSERT_TRUE(older.ok()) << older.status();
  EXPECT_EQ(older->machine_node.host(), "bench-7");
  EXPECT_EQ(older->machine_node.cpus(), 2);
  EXPECT_EQ(older->machine_node.cpu_model(), "AMD EPYC (family 25, model 17, stepping 1)");
  // A merge of several machines' files names no one host.
  absl::StatusOr<ResultsFile> merged = ParseResultsJson(
      R"({"schema_version": 1, "machine": "a, 2 CPUs, AMD EPYC; b, 4 CPUs, Intel Xeon"})",
      "merged.json");
  ASSERT_TRUE(merged.ok()) << merged.status();
  EXPECT_EQ(merged->machine_node.host(), "");
  EXPECT_EQ(merged->machine_node.cpu_model(), "a, 2 CPUs, AMD EPYC; b, 4 CPUs, Intel Xeon");
}

// Functions are written as their keys' fields and read back typed; files
// whose rows and trees carry keys as text alone read too.
TEST(MeasurementIoTest, FunctionKeysRoundTripTypedAndOlderTextsRead) {
  InstructionCounts counts;
  counts.task_spec.stmt = "f()";
  counts.number_per_run = 1;
  counts.counts = {30};
  counts.counts_per_run = 30;
  const FunctionKey block("main.c", "block", "/build/worker");
  const FunctionKey f("a.cc", "f(int (&) [3])", "/lib/liba.so", 2);
  counts.exclusive = FunctionCounts({{20, f}, {10, block}}, /*inclusive=*/false);
  CallTree tree;
  tree.functions = {block, f};
  tree.nodes = {{-1, 0, 30, 10}, {0, 1, 20, 20}};
  tree.total = 30;
  tree.threshold = 1;
  counts.call_tree = tree;
  ResultsFile results;
  results.instruction_counts = {counts};
  const std::string json = ResultsToJson(results);
  EXPECT_EQ(json.find("f(int (&) [3]) [/lib/liba.so]"), std::string::npos) << json;
  absl::StatusOr<ResultsFile> parsed = ParseResultsJson(json, "typed.json");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  const InstructionCounts& back = parsed->instruction_counts[0];
  EXPECT_EQ(back.exclusive[0].function.function(), "f(int (&) [3])");
  EXPECT_EQ(back.exclusive[0].function.recursion(), 2);
  EXPECT_EQ(back.call_tree->functions, tree.functions);

  absl::StatusOr<ResultsFile> older = ParseResultsJson(
      R"json({"schema_version": 1, "instruction_counts": [{"stmt": "f()",
              "number_per_run": "1", "counts": ["30"], "counts_per_run": 30,
              "exclusive": {"rows": [{"count": "20", "function": "a.cc:f(int (&) [3])'2 [/lib/liba.so]"}]},
              "call_tree": {"functions": ["main.c:block [/build/worker]"], "parent": [-1],
                            "function": [0], "inclusive": [30], "self": [30], "total": 30,
                            "threshold": 1}}]})json",
      "older.json");
  ASSERT_TRUE(older.ok()) << older.status();
  EXPECT_EQ(older->instruction_counts[0].exclusive[0].function, f);
  EXPECT_EQ(older->instruction_counts[0].call_tree->functions[0], block);
}

TEST(MeasurementIoTest, CorruptJsonNamesTheSource) {
  absl::StatusOr<ResultsFile> results = ParseResultsJson("{\"measurements\": [", "broken.json");
  ASSERT_FALSE(results.ok());
  EXPECT_NE(results.status().message().find("broken.json"), absl::string_view::npos);
}

TEST(MeasurementIoTest, MisspeltFieldIsAnError) {
  absl::StatusOr<ResultsFile> results =
      ParseResultsJson(R"({"measurements": [{"raw_time": [1]}]})", "typo.json");
  ASSERT_FALSE(results.ok());
  EXPECT_NE(results.status().message().find("raw_time"), absl::string_view::npos)
      << results.status();
}

TEST(MeasurementIoTest, InvalidValuesNameTheMeasurement) {
  absl::StatusOr<ResultsFile> results = ParseResultsJson(
      R"({"measurements": [{"number_per_run": 1, "raw_times": [1]},
                           {"number_per_run": 0, "raw_times": [1]}]})",
      "bad.json");
  ASSERT_FALSE(results.ok());
  EXPECT_EQ(results.status().message(),
            "bad.json: measurement 2: number_per_run must be positive, got 0");
}

// What ReadResultsFile would refuse is not written: no file this library
// writes fails to read back.
TEST(MeasurementIoTest, AMeasurementThatCouldNotBeReadBackIsNotWritten) {
  const std::string path = std::string(std::getenv("TEST_TMPDIR")) + "/unreadable.json";
  TaskSpec spec;
  spec.stmt = "x + y";
  ResultsFile results;
  results.measurements = {Measurement(100, {1e-3}, spec), Measurement(0, {1e-3}, spec)};
  const absl::Status written = WriteResultsFile(path, results);
  EXPECT_EQ(written.message(), "not writing " + path +
                                   ": measurement 2 (x + y) could not be read back: "
                                   "number_per_run must be positive, got 0");
  EXPECT_NE(access(path.c_str(), F_OK), 0);
}

TEST(MeasurementIoTest, ImpossibleCountsAreRejected) {
  for (
      const auto& [json, message] : std::vector<std::pair<std::string, std::string>>{
          {R"({"instruction_counts": [{"number_per_run": 10, "counts": ["-5"]}]})",
           "bad.json: instruction_counts 1: counts are instructions and cannot be negative, got "
           "-5"},
          {R"({"instruction_counts": [{"number_per_run": 10, "counts": ["5"], "baseline": "-1"}]})",
           "bad.json: instruction_counts 1: baseline is instructions and cannot be negative, got "
           "-1"},
          {R"({"instruction_counts": [{"number_per_run": 0, "counts": ["5"]}]})",
           "bad.json: instruction_counts 1: instruction counts need a positive number_per_run and "
           "at least one count"},
          {R"({"measurements": [{"number_per_run": 1, "raw_times": [-1]}]})",
           "bad.json: measurement 1: raw_times must be finite, non-negative seconds, got -1"}}) {
    absl::StatusOr<ResultsFile> results = ParseResultsJson(json, "bad.json");
    ASSERT_FALSE(results.ok()) << json;
    EXPECT_EQ(results.status().message(), message);
  }
}

TEST(MeasurementIoTest, JsonThatIsNotAnObjectSaysSoOnce) {
  absl::StatusOr<ResultsFile> results = ParseResultsJson("[1, 2]", "list.json");
  ASSERT_FALSE(results.ok());
  EXPECT_EQ(results.status().message(),
            "list.json: not a valid icount results file (JSON with a \"measurements\" list): Root "
            "element must be a message.");
}

TEST(MeasurementIoTest, NewerSchemaIsRejectedWithTheWriterVersion) {
  absl::StatusOr<ResultsFile> results = ParseResultsJson(
      R"({"schema_version": 9, "versions": {"timer": "7.0.0"}, "measurements": []})", "new.json");
  ASSERT_FALSE(results.ok());
  EXPECT_EQ(results.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(results.status().message().find("timer 7.0.0"), absl::string_view::npos);
}

// A newer schema adds fields: the file is still called newer, not invalid,
// and its writer's libraries are named in order.
TEST(MeasurementIoTest, NewerSchemaWithFieldsThisBuildLacksIsCalledNewer) {
  absl::StatusOr<ResultsFile> results = ParseResultsJson(
      R"({"schema_version": 9, "versions": {"timer": "7.0.0", "compare": "5.0.0"},
          "field_of_schema_9": {"x": 1}, "measurements": [{"new_in_9": true}]})",
      "new.json");
  ASSERT_FALSE(results.ok());
  EXPECT_EQ(results.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(results.status().message(),
            absl::StrCat("new.json: schema_version 9 (written by compare 5.0.0, timer 7.0.0) is "
                         "newer than this build reads (",
                         kResultsSchemaVersion, ", timer ", kTimerVersion, "); update icount to read it"));
  // The same field in a file of this schema is a mistake.
  results = ParseResultsJson(R"({"schema_version": 1, "field_of_schema_9": {"x": 1}})", "old.json");
  ASSERT_FALSE(results.ok());
  EXPECT_EQ(results.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(results.status().message().find("field_of_schema_9"), absl::string_view::npos);
}

TEST(MeasurementIoTest, ACaseTitleLeavesOutTheLabelsNotGiven) {
  TaskSpec spec;
  spec.stmt = "torch.add(x, x)";
  EXPECT_EQ(ResultCaseTitle(spec), "torch.add(x, x) [1T]");
  spec.label = "Pointwise";
  spec.sub_label = "add";
  spec.num_threads = 2;
  EXPECT_EQ(ResultCaseTitle(spec), "Pointwise / add [2T]");
  spec.description = "C++ Eager";
  EXPECT_EQ(ResultCaseTitle(spec), "Pointwise / add [C++ Eager, 2T]");
  spec.label = "";
  EXPECT_EQ(ResultCaseTitle(spec), "add [C++ Eager, 2T]");
}

TEST(MeasurementIoTest, MissingFileIsNotFound) {
  EXPECT_EQ(ReadResultsFile("/nonexistent/r.json").status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace icount::timer
