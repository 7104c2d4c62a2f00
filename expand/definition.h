#ifndef ICOUNT_EXPAND_DEFINITION_H_
#define ICOUNT_EXPAND_DEFINITION_H_

// The benchmark definition API: how a suite says what to measure.
//
// A suite is a tree of labels whose leaves are benchmark definitions; the
// same structure as upstream's nested dicts (a tuple key is several label
// parts at once, a None key adds none):
//
//   BenchmarkTree suite = {
//       {"Empty", BenchmarkTree{
//           {"no allocation", GroupedStmts{"torch.empty(())", "torch::empty({0});"}},
//       }},
//       {{"Pointwise", "Math"}, GroupedVariants::FromTable(R"(
//           Python                   | C++
//           ------------------------ | ------------------------
//           # @setup                 | // @setup
//           x = torch.ones((4, 4))   | auto x = torch::ones({4, 4});
//           # @add                   | // @add
//           x + x                    | x + x;
//           x += 1                   | x += 1;
//       )")},
//       {"training", GroupedStmts{
//           "y = torch.relu(x * w)",                // py_stmt
//           "auto y = torch::relu(x * w);",         // cpp_stmt
//           GroupedSetup{
//               "x = torch.ones((4,))\n"
//               "w = torch.ones((4,), requires_grad=True)",
//               "auto x = torch::ones({4});\n"
//               "auto w = torch::ones({4}).requires_grad_();"},
//           "f(x, w) -> y",                         // signature
//           /*torchscript=*/true, /*autograd=*/true, /*num_threads=*/{1, 2}}},
//   };
//
// Materialize() (materialize.h) flattens the tree into concrete cases, one
// per label, runtime, autograd mode, language and thread count; the labels
// above become ("Empty", "no allocation"), ("Pointwise", "Math", "add",
// "Case:  0"), ..., ("training"). Definitions are plain aggregates: they are
// checked (signature syntax, a `model` being defined, ...) by Materialize,
// whose errors name the label and the file:line of the definition.
//
// Snippets are written as (usually indented) string literals; they are
// dedented and trimmed before use, as upstream's textwrap.dedent does.

#include <initializer_list>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "timer/task_spec.h"

namespace icount::expand {

// Where a definition was written, for error messages and #line directives.
// Its default member initializers use GCC's and Clang's __builtin_FILE and
// __builtin_LINE, which evaluate where the object is created: as the
// trailing member of an aggregate (GroupedStmts{...}) it records the line
// of that initializer (its last line, for a multi-line one); as a default
// argument, the caller's. Authors never set it.
struct SourceLocation {
  const char* file = __builtin_FILE();
  int line = __builtin_LINE();
};

// One concrete benchmark, as the worker will run it: upstream's TimerArgs
// (torch.utils.benchmark.Timer's arguments). As a leaf of a BenchmarkTree it
// is run exactly as written (AutoLabels are "Explicit").
struct TimerArgs {
  std::string stmt = "";
  std::string setup = "";
  // C++ only: code at namespace scope before the benchmark (#includes,
  // helper functions). Python has no equivalent; put imports in setup.
  std::string global_setup = "";
  int num_threads = 1;
  timer::Language language = timer::Language::kPython;
  // TorchScript cases only. The artifact's key (e.g. "training_simple"),
  // unique in a materialized suite and shared by every case of one
  // benchmark; the build saves the scripted model as <key>.pt.
  std::string torchscript_artifact = "";
  // Python source that, run with `torch` imported, defines `model` (an
  // nn.Module or a function) to be torch.jit.script()ed into the artifact.
  // Run it as a module file (write "import torch\n" + source to a .py file
  // and import it), not with exec() of a string: torch.jit.script reads a
  // function's source code with `inspect`, which needs a file.
  std::string torchscript_model_source = "";
  // The oldest LibTorch release this case works on, "major.minor" or
  // "major.minor.patch" (e.g. "1.9" for c10::InferenceMode); empty: any.
  // `ab_test --backtesting` skips it in an environment that reports
  // an older LibTorch (libtorch_version.h).
  std::string min_libtorch_version = "";

  friend bool operator==(const TimerArgs& a, const TimerArgs& b);
  friend bool operator!=(const TimerArgs& a, const TimerArgs& b) { return !(a == b); }
};

// Setup shared by the Python and C++ versions of a benchmark.
//
//   GroupedSetup{"x = torch.ones((4, 4))", "auto x = torch::ones({4, 4});"}
struct GroupedSetup {
  std::string py_setup = "";
  std::string cpp_setup = "";
  // C++ namespace-scope code, e.g. "#include <torch/torch.h>" for torch::nn
  // (the C++ timer includes only <torch/script.h>). Unlike upstream, it
  // reaches every C++ case generated from the definition.
  std::string global_setup = "";
};

// Free-form statements, in Python, C++ or both (an empty statement means
// that language has no case). Upstream's GroupedStmts, with the same
// positional order:
//
//   GroupedStmts{"x += y", "x += y;"}                   // Python + C++, eager
//   GroupedStmts{"y = x * w", "auto y = x * w;", setup,
//                "f(x, w) -> y", /*torchscript=*/true, /*autograd=*/true}
//
// With a `signature`, `torchscript` adds cases that call the Python
// statement scripted as `def model(x, w): y = x * w; return y`, and
// `autograd` adds cases that run `y.backward()` after the statement.
struct GroupedStmts {
  std::string py_stmt = "";
  std::string cpp_stmt = "";
  GroupedSetup setup = {};
  // "f(a, b) -> y" (see signature.h); needed by torchscript and autograd.
  std::string signature = "";
  bool torchscript = false;
  bool autograd = false;
  // One set of cases per thread count.
  std::vector<int> num_threads = {1};
  // See TimerArgs::min_libtorch_version; it reaches every generated case.
  std::string min_libtorch_version = "";
  SourceLocation where = {};
};

// A model (torch.nn.Module or function) called as the signature says.
// Upstream's GroupedModules:
//
//   GroupedModules{"model = torch.nn.Linear(4, 2)",
//                  "auto model = torch::nn::Linear(4, 2);",
//                  GroupedSetup{"x = torch.ones((4, 4))", "auto x = torch::ones({4, 4});",
//                               "#include <torch/torch.h>"},
//                  "f(x) -> y", /*torchscript=*/true}
//
// The statement is generated: `y = model(x)` in Python (__call__, with its
// hooks, as users call modules) and `auto y = model->forward(x);` in C++
// (a torch::nn ModuleHolder). The model setup runs after `setup` and must
// define `model` (checked textually by Materialize):
//   Python: a top-level `model = ...`, `model: T = ...` or `def model(...)`.
//   C++:    a declaration of `model` with an initializer, such as
//           `auto model = ...;`, `torch::nn::Linear model(4, 2);` or
//           `Net model{...};`.
// TorchScript cases script the Python model (run after the Python setup,
// so it may use setup variables and sees the same RNG state), so
// torchscript needs py_model_setup.
struct GroupedModules {
  std::string py_model_setup = "";
  std::string cpp_model_setup = "";
  GroupedSetup setup = {};
  // Required: there is no statement without it.
  std::string signature = "";
  bool torchscript = false;
  bool autograd = false;
  std::vector<int> num_threads = {1};
  // See TimerArgs::min_libtorch_version; it reaches every generated case.
  std::string min_libtorch_version = "";
  SourceLocation where = {};
};

// Many one-line benchmarks sharing a setup, one per line, grouped under
// labels. Upstream's GroupedVariants. Each block is split at label lines,
// "# @label" in Python and "// @label" in C++:
//
//   GroupedVariants{
//       R"(
//         # @setup
//         x = torch.ones((4, 4))
//         # @add
//         x + 1
//         x + x
//         # @sum
//         x.sum()
//       )",
//       R"(
//         // @setup
//         auto x = torch::ones({4, 4});
//         // @add
//         x + 1;
//         x + x;
//         // @sum
//         x.sum();
//       )"}
//
// gives the benchmarks ("add", "Case:  0"), ("add", "Case:  1") and ("sum")
// (a label with a single line gets no "Case" part), each with Python and
// C++ cases. Within a label the i-th non-blank Python line is paired with
// the i-th C++ line by position (blank lines count), so the two blocks are
// best written side by side: see FromTable. "@setup" and "@global_setup"
// (any case, spaces for underscores) are not labels but the shared setup
// and the C++ global setup; Python has no global setup. Comment lines are
// skipped (they still hold their position). Code before the first label, a
// label given twice in one block, and a block with no benchmarks are
// errors.
struct GroupedVariants {
  std::string py_block = "";
  std::string cpp_block = "";
  std::vector<int> num_threads = {1};
  // Both blocks as one side-by-side table (columns.h), split when the suite
  // is materialized so that a malformed table is reported with its label.
  // Set by FromTable; py_block and cpp_block must then be empty.
  std::string table = "";
  // See TimerArgs::min_libtorch_version; it reaches every variant.
  std::string min_libtorch_version = "";
  SourceLocation where = {};

  static GroupedVariants FromTable(std::string table, std::vector<int> num_threads = {1},
                                   SourceLocation where = {});
};

// One level of a label: a single part ("add"), several parts at once
// ({"Pointwise", "Math"}, upstream's tuple keys) or none (LabelKey{},
// upstream's None key, e.g. to splice a whole tree into another).
class LabelKey {
 public:
  LabelKey() = default;
  LabelKey(const char* part) : parts_{part} {}             // NOLINT: implicit by design
  LabelKey(std::string part) : parts_{std::move(part)} {}  // NOLINT
  LabelKey(std::initializer_list<std::string> parts) : parts_(parts) {}
  explicit LabelKey(std::vector<std::string> parts) : parts_(std::move(parts)) {}

  const std::vector<std::string>& parts() const { return parts_; }

 private:
  std::vector<std::string> parts_;
};

// A tree of labels whose leaves are benchmark definitions. Entries keep the
// order they were given in, which is the order of materialized cases.
class BenchmarkTree {
 public:
  struct Entry;

  BenchmarkTree() = default;
  BenchmarkTree(std::initializer_list<Entry> entries);

  // A leaf's definition, or a subtree.
  using Value =
      std::variant<TimerArgs, GroupedStmts, GroupedModules, GroupedVariants, BenchmarkTree>;

  // Appends an entry; returns *this for chaining. `where` defaults to the
  // caller's location (definitions also carry their own; see Entry::where).
  BenchmarkTree& Add(LabelKey key, Value value, SourceLocation where = {});

  const std::vector<Entry>& entries() const { return entries_; }
  bool empty() const { return entries_.empty(); }

 private:
  std::vector<Entry> entries_;
};

struct BenchmarkTree::Entry {
  // Implicit, so that a tree reads like a dict literal: {"label", value}.
  // A subtree has a constructor of its own so that it can be written as a
  // bare braced list, {"label", {{"a", ...}, {"b", ...}}}, which no variant
  // converts from.
  Entry(LabelKey key, Value value, SourceLocation where = {});
  Entry(LabelKey key, BenchmarkTree value, SourceLocation where = {});

  LabelKey key;
  Value value;
  // Where the entry was created. Inside a braced tree compilers may report
  // the end of the whole initializer, so Materialize prefers the location
  // a GroupedStmts/GroupedModules/GroupedVariants carries itself and uses
  // this one for TimerArgs leaves and for errors in the tree's structure.
  SourceLocation where;
};

}  // namespace icount::expand

#endif  // ICOUNT_EXPAND_DEFINITION_H_
