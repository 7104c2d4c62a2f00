#include "history/testing/fake_results.h"

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "timer/node.h"

namespace icount::history::testing {

timer::ResultsFile FakeResults(const FakeRun& run) {
  constexpr int64_t kNumber = 100;
  timer::ResultsFile results;
  results.start_time = run.start_time;
  results.end_time = run.start_time;
  results.machine_node = run.machine;
  results.machine = timer::DescribeMachine(run.machine);
  results.versions = {{"timer", "0.0.0-test"}};
  results.settings = {{"valgrind", "valgrind-3.19.0"}, {"valgrind_options", "--test"}};
  for (int k = 0; k < run.cases; ++k) {
    timer::TaskSpec spec;
    spec.stmt = absl::StrCat("case_", k, "();");
    spec.label = "Group";
    spec.sub_label = absl::StrCat("case ", k);
    spec.description = "C++ Eager";
    spec.language = timer::Language::kCpp;
    const std::string key = absl::StrCat("Group/case ", k, "|Eager|Forward|C++|1");
    if (run.count) {
      timer::InstructionCounts counts;
      counts.task_spec = spec;
      counts.number_per_run = kNumber;
      counts.counts_per_run = run.count(k);
      if (run.allocations) counts.allocations_per_run = run.allocations(k);
      const auto total = static_cast<int64_t>(std::llround(counts.counts_per_run * kNumber));
      counts.counts = {total, total};
      std::vector<timer::FunctionCount> rows;
      for (int j = 0; j < run.functions; ++j) {
        rows.push_back(timer::FunctionCount{
            (j + 1) * 100 * kNumber,
            timer::FunctionKey("fake.c", absl::StrCat("fn_", j), "/usr/lib/libfake.so")});
      }
      const auto grows =
          static_cast<int64_t>(std::llround((counts.counts_per_run - 1000) * kNumber));
      if (grows > 0) {
        rows.push_back(
            timer::FunctionCount{grows, timer::FunctionKey("fake.c", "grows", "/usr/lib/libfake.so")});
      }
      counts.exclusive = timer::FunctionCounts(std::move(rows), /*inclusive=*/false);
      counts.metadata["case"] = key;
      results.instruction_counts.push_back(std::move(counts));
    }
    if (run.time) {
      std::vector<double> raw;
      for (int b = 0; b < run.blocks; ++b) {
        raw.push_back(run.time(k) * kNumber * (1 + 0.01 * (b - run.blocks / 2) / run.blocks));
      }
      results.measurements.emplace_back(kNumber, raw, spec,
                                        std::map<std::string, std::string>{{"case", key}});
    }
  }
  return results;
}

}  // namespace icount::history::testing
