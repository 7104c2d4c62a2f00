#ifndef ICOUNT_EXPAND_MATERIALIZE_H_
#define ICOUNT_EXPAND_MATERIALIZE_H_

// Materialize: from a tree of benchmark definitions (definition.h) to the
// flat list of concrete cases the runner executes.
//
//   absl::StatusOr<std::vector<MaterializedBenchmark>> cases = Materialize(suite);
//   for (const MaterializedBenchmark& c : *cases) std::cout << ListLine(c) << "\n";
//   // Empty / no allocation | Eager | Forward | Python | 1 thread
//   // Empty / no allocation | Eager | Forward | C++ | 1 thread
//   // ...
//   // training / simple | TorchScript | Forward + Backward | C++ | 2 threads
//
// Each grouped definition expands to the product of runtime (Eager, then
// TorchScript if requested), autograd (Forward, then Forward + Backward if
// requested), language (Python, then C++, for the languages it has code
// for) and its thread counts, in that nesting order (upstream's order).
// The generated code follows upstream's core/expand.py:
//
//   GroupedStmts{"y = x * w", "auto y = x * w;", setup, "f(x, w) -> y",
//                /*torchscript=*/true, /*autograd=*/true}
//
//   Eager, Forward, Python        stmt  y = x * w
//   Eager, Forward + Backward, C++ stmt  auto y = x * w;
//                                        y.backward();
//   TorchScript, Forward, Python   stmt  y = jit_model(x, w)
//                                  setup <py_setup>
//                                        jit_model = torch.jit.load(ICOUNT_ARTIFACT_PATH)
//                                        <three warm-up runs of stmt>
//   TorchScript, Forward + Backward, C++
//                                  stmt  std::vector<torch::jit::IValue> ivalue_inputs(
//                                            {torch::jit::IValue(x), torch::jit::IValue(w)});
//                                        auto y = jit_model.forward(ivalue_inputs);
//                                        y.toTensor().backward();
//                                  setup <cpp_setup>
//                                        auto jit_model = torch::jit::load(ICOUNT_ARTIFACT_PATH);
//                                        <three warm-up runs of stmt>
//                                  global_setup  #include <string>, <vector>,
//                                        <torch/script.h>, then the definition's
//
// The ICOUNT_ARTIFACT_PATH convention: TorchScript setups load the scripted
// model from an identifier named ICOUNT_ARTIFACT_PATH (kArtifactPathName)
// that the runner defines before the setup runs: a Python str global, or a
// C++ `const std::string ICOUNT_ARTIFACT_PATH` in the scope of the setup,
// holding the path of <timer_args.torchscript_artifact>.pt, which the build
// makes by importing timer_args.torchscript_model_source as a module (after
// `import torch`; see TimerArgs) and saving torch.jit.script(model).
//
// Differences from upstream, all deliberate:
//  - the definition's global_setup reaches its C++ cases (upstream drops it);
//  - TorchScript cases exist only for the languages the definition has code
//    for (upstream also generates them for a language whose setup may not
//    define the inputs);
//  - the Python eager setup of a GroupedStmts does not define the unused
//    scripted `model` function (upstream's HEAD does; its earlier version
//    did not);
//  - a GroupedModules model is scripted after its Python setup (upstream
//    scripts the model setup alone);
//  - artifacts have stable keys derived from the label (upstream: a uuid);
//  - definitions are validated up front, with errors naming the label.

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "expand/definition.h"
#include "expand/suite.pb.h"
#include "timer/snippet_abi.h"
#include "timer/task_spec.h"

namespace icount::expand {

// The identifier TorchScript setups read the artifact's path from.
using ::icount::timer::kArtifactPathName;

// The labels Materialize infers for each case; upstream's AutoLabels.
// Explicit TimerArgs leaves get kExplicit runtime and autograd.
struct AutoLabels {
  Runtime runtime = RUNTIME_EAGER;
  Autograd autograd = AUTOGRAD_FORWARD;
  timer::Language language = timer::Language::kPython;

  friend bool operator==(const AutoLabels& a, const AutoLabels& b) {
    return a.runtime == b.runtime && a.autograd == b.autograd && a.language == b.language;
  }
  friend bool operator!=(const AutoLabels& a, const AutoLabels& b) { return !(a == b); }
};

// One concrete case: upstream's (label, AutoLabels, TimerArgs) triple.
struct MaterializedBenchmark {
  std::vector<std::string> label;  // {"Pointwise", "Math", "add", "Case:  0"}
  AutoLabels auto_labels;
  int num_threads = 1;  // == timer_args.num_threads
  TimerArgs timer_args;
  // The tree entry the case came from (for #line directives and messages).
  SourceLocation where;
};

// Flattens `tree` into cases, in tree order. Fails with InvalidArgument,
// naming the label and the definition's file:line, when a definition is
// invalid: a malformed signature or GroupedVariants block; torchscript or
// autograd without a signature; autograd with "-> None"; torchscript
// without Python code to script; a GroupedModules without a signature, or
// whose model setup never defines `model` (see GroupedModules); no code in
// either language; a thread count below 1; Python global setup; a
// min_libtorch_version that is not "major.minor[.patch]"; an empty label
// or label part; or two benchmarks with the same label.
absl::StatusOr<std::vector<MaterializedBenchmark>> Materialize(const BenchmarkTree& tree);

// "Pointwise / Math / add / Case:  0": a label for people.
std::string LabelText(const std::vector<std::string>& label);

// A stable key, unique among the cases of a materialized suite: the label
// parts joined by "/" (with "\", "/" and "|" escaped by "\"), then runtime,
// autograd, language and threads, "|"-separated:
//   "Pointwise/Math/add/Case:  0|Eager|Forward|Python|1"
//   "training/simple|TorchScript|ForwardBackward|C++|2"
std::string CaseKey(const MaterializedBenchmark& benchmark);

// Upstream's CI key, the JSON that benchmarks/instruction_counts/
// applications/ci.py uses as the key of each result (str(WorkOrder)),
// byte for byte as Python's json.dumps writes it:
//   {"label": ["Empty", "no allocation"], "autolabels": {"runtime": "Eager",
//    "autograd": "Forward", "language": "Python"}, "num_threads": 1}
// (on one line). Explicit modes are "" as upstream.
std::string CiKey(const MaterializedBenchmark& benchmark);

// One line for --list: label, runtime, autograd, language, threads.
//   "training / simple | TorchScript | Forward + Backward | C++ | 2 threads"
std::string ListLine(const MaterializedBenchmark& benchmark);

// A TorchScript model the build must produce: torch.jit.script() the
// `model` defined by `model_source` and save it as <key>.pt.
struct TorchScriptArtifact {
  std::string key;
  std::string model_source;
};

// The distinct artifacts `benchmarks` load, in order of first use.
std::vector<TorchScriptArtifact> TorchScriptArtifacts(
    const std::vector<MaterializedBenchmark>& benchmarks);

}  // namespace icount::expand

#endif  // ICOUNT_EXPAND_MATERIALIZE_H_
