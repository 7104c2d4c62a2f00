#include "report/testing/fake_suite.h"

#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "expand/materialize.h"
#include "timer/call_tree.h"
#include "timer/node.h"
#include "timer/node_testutil.h"

namespace icount::report::testing {
namespace {

constexpr int64_t kNumber = 100;
constexpr const char* kGroups[] = {"Pointwise", "Indexing", "nn Modules", "Reduction", "training"};
struct Variant {
  const char* column;
  const char* runtime;
  timer::Language language;
};
constexpr Variant kVariants[] = {{"Python Eager", "Eager", timer::Language::kPython},
                                 {"C++ Eager", "Eager", timer::Language::kCpp},
                                 {"Python TorchScript", "TorchScript", timer::Language::kPython},
                                 {"C++ TorchScript", "TorchScript", timer::Language::kCpp}};

struct Place {
  std::string group;
  std::string row;
  const Variant* variant;
  bool backward;
  int threads;
};

// Case k: four variants of each benchmark, every third benchmark also with
// backward, every fifth with 2 threads.
Place PlaceOf(int k) {
  const int benchmark = k / 4;
  Place place;
  place.group = kGroups[benchmark % 5];
  place.backward = benchmark % 3 == 2;
  place.row = absl::StrCat("op ", benchmark, place.backward ? " (fwd+bwd)" : "");
  place.variant = &kVariants[k % 4];
  place.threads = benchmark % 5 == 4 ? 2 : 1;
  return place;
}

// The measured region: the block loop calls the operator, which computes
// (half of it in functions without a symbol, which counts merge into one
// per object) and allocates; with a tax, malloc calls
// icount_test_allocation_tax.
timer::CallTree FakeTree(const timer::FunctionKey& block, int64_t op, int64_t kernel,
                         int64_t alloc, int64_t tax) {
  constexpr char kTorch[] = "/usr/lib/libtorch_cpu.so";
  timer::CallTree tree;
  tree.functions = {
      block,
      timer::FunctionKey("???", "at::add(at::Tensor const&, at::Tensor const&)", kTorch),
      timer::FunctionKey("???", "at::native::add_kernel(at::TensorIteratorBase&)", kTorch),
      timer::FunctionKey("???", "malloc", "/usr/lib/x86_64-linux-gnu/libc.so.6"),
      timer::FunctionKey("???", "icount_test_allocation_tax", "/tmp/libslow_malloc.so"),
      timer::FunctionKey("???", "(unknown in libtorch_cpu.so)", kTorch)};
  const int64_t malloc_total = alloc + tax;
  const int64_t op_total = op + kernel + malloc_total;
  const int64_t unnamed = kernel / 2;
  tree.nodes.push_back({-1, 0, op_total + 50 * kNumber, 50 * kNumber});
  tree.nodes.push_back({0, 1, op_total, op});
  tree.nodes.push_back({1, 2, kernel, kernel - unnamed});
  tree.nodes.push_back({2, 5, unnamed, unnamed});
  tree.nodes.push_back({1, 3, malloc_total, alloc});
  if (tax > 0) tree.nodes.push_back({3, 4, tax, tax});
  tree.total = tree.nodes[0].inclusive;
  tree.threshold = 1;
  return tree;
}

}  // namespace

std::string FakeCaseKey(int k) {
  const Place place = PlaceOf(k);
  expand::MaterializedBenchmark benchmark;
  benchmark.label = {place.group, place.row};
  benchmark.auto_labels.runtime = absl::string_view(place.variant->runtime) == "TorchScript"
                                      ? expand::RUNTIME_TORCHSCRIPT
                                      : expand::RUNTIME_EAGER;
  benchmark.auto_labels.autograd =
      place.backward ? expand::AUTOGRAD_FORWARD_BACKWARD : expand::AUTOGRAD_FORWARD;
  benchmark.auto_labels.language = place.variant->language;
  benchmark.num_threads = place.threads;
  return expand::CaseKey(benchmark);
}

timer::ResultsFile FakeSuiteResults(const FakeSuite& suite) {
  timer::ResultsFile results;
  results.start_time = suite.start_time;
  results.end_time = suite.start_time;
  results.machine_node = timer::TestMachine("testhost", 2, "Test CPU @ 1 GHz");
  results.machine = timer::DescribeMachine(results.machine_node);
  results.versions = {{"timer", "0.0.0-test"}};
  results.settings = {{"valgrind", "valgrind-3.19.0"}, {"valgrind_options", "--test"}};
  for (int k = 0; k < suite.cases; ++k) {
    const std::string key = FakeCaseKey(k);
    if (auto failure = suite.failures.find(key); failure != suite.failures.end()) {
      results.failures[key] = failure->second;
      continue;
    }
    const Place place = PlaceOf(k);
    timer::TaskSpec spec;
    spec.stmt = absl::StrCat("op_", k / 4, "(x)");
    spec.label = place.group;
    spec.sub_label = place.row;
    spec.description = place.variant->column;
    spec.language = place.variant->language;
    spec.num_threads = place.threads;
    const std::map<std::string, std::string> metadata = {
        {timer::kCaseMetadataKey, key},
        {timer::kRuntimeMetadataKey, place.variant->runtime},
        {timer::kAutogradMetadataKey, place.backward ? "Forward + Backward" : "Forward"}};
    // Per run: the operator's own work, its kernel and its allocations.
    const int64_t op = (200 + 37 * (k % 11)) * kNumber;
    const int64_t kernel = (1000 * (1 + k % 7) + k) * kNumber;
    const int64_t alloc = 150 * kNumber;
    const int64_t tax = suite.tax_per_run * kNumber;
    if (suite.instruction_counts) {
      timer::InstructionCounts counts;
      counts.task_spec = spec;
      counts.number_per_run = kNumber;
      counts.baseline = 40 * kNumber;
      const int64_t total = 50 * kNumber + op + kernel + alloc + tax + counts.baseline;
      counts.counts = {total, total, total};
      counts.counts_per_run = static_cast<double>(total - counts.baseline) / kNumber;
      counts.allocations_per_run = tax > 0 ? 4 : 3;
      counts.frees_per_run = counts.allocations_per_run;
      timer::CallTree tree = FakeTree(
          timer::FunctionKey("???", absl::StrCat("icount_case_", k, "(IcountBlockControl const*)"),
                             ""),
          op, kernel, alloc, tax);
      // Each function's own instructions, as the profile the tree comes
      // from has them.
      std::vector<timer::FunctionCount> rows;
      for (const timer::CallTree::Node& node : tree.nodes) {
        rows.push_back({node.self, tree.functions[node.function]});
      }
      counts.exclusive = timer::FunctionCounts(std::move(rows), /*inclusive=*/false);
      if (suite.call_trees) counts.call_tree = std::move(tree);
      counts.metadata = metadata;
      results.instruction_counts.push_back(std::move(counts));
    }
    if (suite.wall_time) {
      const double per_run = 1e-6 * (1 + k % 7) *
                             (place.variant->language == timer::Language::kPython ? 3 : 1) *
                             suite.time_factor;
      for (int round = 0; round < suite.time_rounds; ++round) {
        std::vector<double> raw;
        for (int b = 0; b < 5; ++b) {
          // +-1% between blocks and rounds, the same in every file.
          raw.push_back(per_run * kNumber * (1 + 0.004 * (b - 2) + 0.003 * ((round + k) % 3 - 1)));
        }
        std::map<std::string, std::string> round_metadata = metadata;
        if (suite.time_rounds > 1) round_metadata["round"] = absl::StrCat(round);
        results.measurements.emplace_back(kNumber, std::move(raw), spec, round_metadata);
      }
    }
  }
  return results;
}

}  // namespace icount::report::testing
