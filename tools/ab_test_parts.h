#ifndef ICOUNT_TOOLS_AB_TEST_PARTS_H_
#define ICOUNT_TOOLS_AB_TEST_PARTS_H_

// //tools:ab_test's two runs, A against B (ab_test_main.cc, its tables and
// --json in ab_test_comparison.cc) and the sides of --sides
// (ab_test_listed_sides.cc): the flags and steps they share.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "compare/comparison_file.pb.h"
#include "compare/time_comparison.h"
#include "expand/suite.pb.h"
#include "history/store.h"
#include "timer/measurement_io.h"
#include "tools/ab_sides.h"
#include "tools/sides.h"
#include "tools/suite.h"

ABSL_DECLARE_FLAG(bool, backtesting);
ABSL_DECLARE_FLAG(bool, cache_sim);
ABSL_DECLARE_FLAG(bool, colorize);
ABSL_DECLARE_FLAG(std::string, json);
ABSL_DECLARE_FLAG(bool, markdown);
ABSL_DECLARE_FLAG(bool, no_cpp);
ABSL_DECLARE_FLAG(bool, no_python);
ABSL_DECLARE_FLAG(bool, rehearse_torchscript);
ABSL_DECLARE_FLAG(bool, resume);
ABSL_DECLARE_FLAG(std::string, sides);
ABSL_DECLARE_FLAG(int, top);

namespace icount::tools {

// What makes two sides' counts differ besides their LibTorch (which differs
// on purpose): the nodes that counted them, and the toolchains that built
// and ran their workers.
std::vector<std::string> CountWarnings(const timer::ResultsFile& before,
                                       const timer::ResultsFile& after,
                                       absl::string_view before_name,
                                       absl::string_view after_name);

// The cases --filter and --no_cpp select (Python ones when `python`).
absl::StatusOr<std::vector<expand::SuiteCaseProto>> SelectedCases(const Suite& suite, bool python);

// A side's LibTorch in --json.
compare::AbTestLibTorchProto LibTorchProto(const Side& side);

// The delta table, the allocation changes and the suite-level summary,
// then the per-function changes of the `--top` cases whose counts changed
// most; titles and summary name only what `measure` measured.
std::string RenderComparison(const std::vector<expand::SuiteCaseProto>& cases, const Side& a,
                             const Side& b, const SuiteResults& a_results,
                             const SuiteResults& b_results,
                             const std::map<std::string, compare::TimeComparison>& times,
                             const MeasureOptions& measure);

// What --json holds (compare/comparison_file.proto): both sides' results,
// their LibTorch, and one comparison per case measured on both sides, in
// suite order.
compare::AbTestFileProto AbTestFile(const std::vector<expand::SuiteCaseProto>& cases, const Side& a,
                                    const Side& b, const SuiteResults& a_results,
                                    const SuiteResults& b_results,
                                    const std::map<std::string, compare::TimeComparison>& times,
                                    const std::vector<expand::SuiteCaseProto>& skipped,
                                    const std::vector<std::string>& node_warnings);

// The sides of --sides, read and checked.
absl::StatusOr<std::vector<SideSpec>> ReadSidesFlag();

// --sides: every side's counts, then a table of counts per case across the
// sides, each side recorded in `history` (OpenHistoryFlags); the exit code.
int RunSides(const Suite& own_suite, std::optional<history::Store> history);

}  // namespace icount::tools

#endif  // ICOUNT_TOOLS_AB_TEST_PARTS_H_
