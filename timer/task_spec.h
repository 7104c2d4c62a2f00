#ifndef ICOUNT_TIMER_TASK_SPEC_H_
#define ICOUNT_TIMER_TASK_SPEC_H_

#include <optional>
#include <string>

namespace icount::timer {

// The language a statement is written in.
enum class Language { kPython, kCpp };

// "Python" or "C++", as printed in tables.
const char* LanguageName(Language language);

// What was measured, independent of the numbers: the statement, its setup,
// and the labels used to arrange results in tables. Mirrors
// torch.utils.benchmark's TaskSpec; unset optional fields play the role of
// Python's None.
//
//   TaskSpec spec;
//   spec.stmt = "torch::add(x, y);";
//   spec.setup = "auto x = torch::ones({4, 4}); auto y = torch::ones({4, 4});";
//   spec.label = "add";
//   spec.description = "4x4";
//   spec.Title();  // "add"
struct TaskSpec {
  std::string stmt;
  std::string setup;
  std::string global_setup;
  std::optional<std::string> label;
  std::optional<std::string> sub_label;
  std::optional<std::string> description;
  std::optional<std::string> env;
  int num_threads = 1;
  Language language = Language::kPython;

  // The best available one-line (or indented multi-line) name: the label
  // (with ": sub_label"), else the statement.
  std::string Title() const;
  // "setup: x" or "setup:\n  line\n  line", empty when setup is empty/"pass".
  std::string SetupText() const;
  // Title, description and setup, as the first lines of a summary.
  std::string Summarize() const;

  // Field-wise equality (language included), the grouping key of merges.
  friend bool operator==(const TaskSpec& a, const TaskSpec& b);
  friend bool operator!=(const TaskSpec& a, const TaskSpec& b) { return !(a == b); }
};

}  // namespace icount::timer

#endif  // ICOUNT_TIMER_TASK_SPEC_H_
