// //tools:fuzz: prints samples of an op fuzzer, one JSON object per line,
// exactly as fuzzer/testdata/make_reference.py prints them for
// torch.utils.benchmark's op fuzzers (see fuzzer/sample_json.h).
//
//   bazel run //tools:fuzz -- --fuzzer=binary --seed=3 --n=2 --dtype=float64
#include <ATen/Parallel.h>

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_join.h"
#include "cli/tool_flags.h"
#include "fuzzer/fuzzer.h"
#include "fuzzer/op_fuzzers.h"
#include "fuzzer/sample_json.h"
#include "fuzzer/tensor.h"

ABSL_FLAG(std::string, fuzzer, "",
          "Op fuzzer: unary, binary, spectral, sparse_unary or sparse_binary.");
ABSL_FLAG(int64_t, seed, 0, "Seed, in [0, 2**32 - 1], as torch.utils.benchmark takes it.");
ABSL_FLAG(int64_t, n, 1, "Number of samples to print.");
ABSL_FLAG(std::string, dtype, "",
          "Tensor dtype (float16/32/64, bfloat16, complex64/128, int8/16/32/64, uint8; the "
          "sparse fuzzers take floating dtypes only); default: the fuzzer's own.");

namespace {

constexpr char kUsage[] =
    "Prints samples of torch.utils.benchmark's op fuzzers, one JSON object per line\n"
    "({\"params\": ..., \"tensors\": ...}), the same for a seed as the Python reference.\n\n"
    "Usage: bazel run //tools:fuzz -- --fuzzer=unary|binary|spectral|sparse_unary|"
    "sparse_binary --seed=S --n=N [--dtype=float32|float64|...]";

int UsageError(const std::string& message) {
  std::fprintf(stderr, "fuzz: %s\n\n%s\n(--help for all flags)\n", message.c_str(), kUsage);
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<char*> positional = icount::cli::ParseToolFlags(argc, argv, kUsage);
  if (positional.size() > 1) {
    return UsageError(std::string("unexpected argument '") + positional[1] + "'");
  }
  const std::string name = absl::GetFlag(FLAGS_fuzzer);
  if (name.empty()) {
    return UsageError("--fuzzer is required; one of " +
                      absl::StrJoin(icount::fuzzer::OpFuzzerNames(), ", "));
  }
  const int64_t n = absl::GetFlag(FLAGS_n);
  if (n < 0) return UsageError("--n must be >= 0, got " + std::to_string(n));

  std::optional<at::ScalarType> dtype;
  if (const std::string flag = absl::GetFlag(FLAGS_dtype); !flag.empty()) {
    absl::StatusOr<at::ScalarType> parsed = icount::fuzzer::ParseDtype(flag);
    if (!parsed.ok()) return UsageError("--dtype: " + std::string(parsed.status().message()));
    // The library takes bool with a tensor_constructor of the caller's; the
    // op fuzzers have none.
    if (*parsed == at::kBool) {
      return UsageError(
          "--dtype=bool: the op fuzzers fill tensors with torch.randint(1, 127), which bool cannot "
          "hold; a fuzzer of your own with a tensor_constructor (fuzzer/fuzzer.h) makes bool "
          "tensors");
    }
    dtype = *parsed;
  }
  absl::StatusOr<icount::fuzzer::Fuzzer> fuzzer =
      icount::fuzzer::MakeOpFuzzer(name, absl::GetFlag(FLAGS_seed), dtype);
  if (!fuzzer.ok()) return UsageError(std::string(fuzzer.status().message()));

  // Sums must not depend on how LibTorch splits them across threads.
  at::set_num_threads(1);
  icount::fuzzer::FuzzerStream stream = fuzzer->Stream();
  for (int64_t i = 0; i < n; ++i) {
    absl::StatusOr<icount::fuzzer::FuzzedSample> sample = stream.Next();
    absl::StatusOr<std::string> line = sample.ok() ? icount::fuzzer::SampleToJson(*sample)
                                                   : absl::StatusOr<std::string>(sample.status());
    if (!line.ok()) {
      std::fprintf(stderr, "fuzz: sample %lld of --fuzzer=%s --seed=%lld: %s\n",
                   static_cast<long long>(i), name.c_str(),
                   static_cast<long long>(absl::GetFlag(FLAGS_seed)),
                   std::string(line.status().message()).c_str());
      return 1;
    }
    std::printf("%s\n", line->c_str());
    std::fflush(stdout);
  }
  return 0;
}
