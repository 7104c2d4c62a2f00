#ifndef ICOUNT_TOOLS_SIDES_H_
#define ICOUNT_TOOLS_SIDES_H_

// `ab_test --sides=FILE`: the suite's counts in many environments (one per
// nightly build, say), and for each case the sides at which its count
// changed. The file has one environment command per line; blank lines and
// lines starting with '#' are skipped; "[NAME] command" names a side
// (default: its number, "1", "2", ...), "[NAME, libtorch=DIR]" measures
// the LibTorch directory DIR there (as --A_libtorch does), and "[NAME,
// root=ROOT]" runs the side in a root filesystem (as --A_root does); the
// command may then be left out:
//
//   # nightly builds, oldest first
//   [2026-11-01] export LD_LIBRARY_PATH=/opt/torch-20261101/lib
//   [2026-11-02] export LD_LIBRARY_PATH=/opt/torch-20261102/lib
//   [my-build, libtorch=/home/me/pytorch/build/libtorch]
//   [debian-2.14, root=sid]
//
//   absl::StatusOr<std::vector<SideSpec>> sides = ParseSidesFile(text, "sides.txt");
//   ... run each side's counts ...
//   std::vector<CaseAcrossSides> cases = CompareAcrossSides(keys, counts);
//   std::cout << AcrossSidesTable(cases, names);

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "compare/comparison_file.pb.h"

namespace icount::tools {

struct SideSpec {
  std::string name;
  std::string command;
  std::string libtorch_directory;  // "" unless "[NAME, libtorch=DIR]"
  std::string root;                // "" unless "[NAME, root=ROOT]"
  int line = 0;                    // in the file, for messages
};

// The sides of a --sides file; an error naming `source` and the line for a
// line that is only "[NAME]", an unclosed "[", an option other than
// "libtorch=DIR" and "root=ROOT", a name used twice, or fewer than two
// sides.
absl::StatusOr<std::vector<SideSpec>> ParseSidesFile(absl::string_view text,
                                                     absl::string_view source);

// One case across the sides.
struct CaseAcrossSides {
  std::string key;
  std::string title;                          // for people
  std::vector<std::optional<double>> counts;  // per side: instructions per run, if counted
  // Sides (indices >= 1) whose count differs from the previous counted
  // side's; the first is where the case first changed.
  std::vector<int> changes;
};

// `counts[s]` is side s's instructions per run by case key; cases in the
// order of `keys` (with their titles).
std::vector<CaseAcrossSides> CompareAcrossSides(
    const std::vector<std::pair<std::string, std::string>>& keys_and_titles,
    const std::vector<std::map<std::string, double>>& counts);

// A text table: a row per case, a column of counts per side ("failed"
// or "-" when a side has none), then where the count first changed and by
// how much ("2026-11-02 (+3.1%)", or "-"). Markdown when `markdown`.
std::string AcrossSidesTable(const std::vector<CaseAcrossSides>& cases,
                             const std::vector<std::string>& side_names,
                             const std::vector<std::map<std::string, std::string>>& failures,
                             bool markdown);

// A case as --json holds it: {"case", "counts_per_run": [..., null],
// "first_change": {"side", "index", "delta_pct"} (absent without a change),
// "changes": [{"side", "index", "delta_pct"}, ...]}.
compare::AcrossSidesCaseProto AcrossSidesCaseToProto(const CaseAcrossSides& c,
                                                     const std::vector<std::string>& side_names);

}  // namespace icount::tools

#endif  // ICOUNT_TOOLS_SIDES_H_
