#ifndef ICOUNT_TIMER_INTERNAL_PYTHON_SNIPPET_H_
#define ICOUNT_TIMER_INTERNAL_PYTHON_SNIPPET_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "timer/snippet_abi.h"

namespace icount::timer::internal {

// A Python statement with setup, run in CPython 3.11 embedded in this
// process (initialised on first use, with Debian's python3-torch importable
// as `torch`). The generated function has the shape of timeit's template:
//
//   def inner(_next, _begin, _end):
//       <setup>
//       while (n := _next()) >= 0:
//           _begin()
//           for _ in itertools.repeat(None, n):
//               <stmt>
//           _end()
//
// Syntax errors are reported at Compile() time; exceptions raised at run
// time come back from Run() with their traceback.
class PythonSnippet {
 public:
  static absl::StatusOr<std::shared_ptr<PythonSnippet>> Compile(const std::string& stmt,
                                                                const std::string& setup);
  absl::Status Run(const IcountBlockControl& control) const;
  ~PythonSnippet();

 private:
  PythonSnippet() = default;
  void* function_ = nullptr;  // PyObject*, owned
  // Each traceback location in the generated function that is a line of the
  // user's setup or stmt, and how to name it ('File "stmt", line 2').
  std::vector<std::pair<std::string, std::string>> user_lines_;
};

// Initialises the embedded interpreter and imports torch, once per process.
absl::Status EnsurePythonInitialized();

}  // namespace icount::timer::internal

#endif  // ICOUNT_TIMER_INTERNAL_PYTHON_SNIPPET_H_
