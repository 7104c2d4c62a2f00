#ifndef ICOUNT_COMPARE_NODE_CHECK_H_
#define ICOUNT_COMPARE_NODE_CHECK_H_

// Before two results files are compared case by case: were the cases
// measured on nodes that make the comparison meaningless? Instruction
// counts of the same code differ between CPUs, ATen capabilities and
// valgrind versions (timer/node.h); wall times between any two hosts.
//
//   for (const std::string& w : CountNodeWarnings(baseline, current, "the baseline", "this run"))
//     std::fprintf(stderr, "ci: warning: %s\n", w.c_str());
//   // "counts of 14 cases were taken on nodes that differ (CPU AMD EPYC vs
//   //  Intel Xeon): the baseline on n1 (...), this run on n2 (...); their
//   //  differences may come from the nodes, not the code"

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "timer/measurement_io.h"

namespace icount::compare {

// One warning per pair of nodes that count differently, for the cases
// whose counts both files have (by case key); empty when every compared
// case was counted on alike nodes.
std::vector<std::string> CountNodeWarnings(const timer::ResultsFile& before,
                                           const timer::ResultsFile& after,
                                           absl::string_view before_name,
                                           absl::string_view after_name);

// The results files' setting (ResultsFile::settings) that main, ci and
// ab_test write when TorchScript cases were counted after icount's
// TorchScript rehearsal (--rehearse_torchscript, worker 0.16): those cases'
// counts differ from an unrehearsed run's by up to ~1.5% (another history).
// A file without it counted them unrehearsed.
inline constexpr char kTorchScriptCasesSetting[] = "torchscript_cases";

// The results' settings that say which LibTorch was measured (main and ci
// write them, tools/environment_suite.h): its description for people
// ("torch 1.13.0 (Debian's system install) at /usr (...)", with how it was
// found), the install alone ("torch 1.13.0 (Debian's system install) at
// /usr": the same whether --env or --libtorch found it) and, for one that
// is not Debian's, a fingerprint of its files.
inline constexpr char kLibTorchSetting[] = "libtorch";
inline constexpr char kLibTorchInstallSetting[] = "libtorch_install";
inline constexpr char kLibTorchFingerprintSetting[] = "libtorch_fingerprint";

// The results' setting that says what built and ran the worker: the
// Python it embeds, the compiler and the C++ standard ("Python 3.11.2, g++
// 12.2.0, c++17"); a root side's are the root's. The valgrind that counted
// is in each count's node.
inline constexpr char kToolchainSetting[] = "toolchain";

// The warning CountSettingWarnings gives when the files' kToolchainSetting
// differ; nullopt when they are alike or a file does not say. ab_test
// gives it between sides, whose LibTorches differ on purpose.
std::optional<std::string> ToolchainWarning(const timer::ResultsFile& before,
                                            const timer::ResultsFile& after,
                                            absl::string_view before_name,
                                            absl::string_view after_name);

// One warning per count-relevant setting (kTorchScriptCasesSetting; and,
// where both files have them, kCacheModelSetting, timer/cache_model.h, the
// LibTorch measured, kLibTorchInstallSetting with its fingerprint,
// kToolchainSetting, and the version of icount's worker that counted) whose value differs between two
// files that both have instruction counts; empty when they were counted
// alike.
//
//   "the baseline counted TorchScript cases after the rehearsal and this
//    run did not (--rehearse_torchscript): their counts differ by up to
//    ~1.5% from that alone; measure both alike"
std::vector<std::string> CountSettingWarnings(const timer::ResultsFile& before,
                                              const timer::ResultsFile& after,
                                              absl::string_view before_name,
                                              absl::string_view after_name);

// The case keys whose wall times the two files took on hosts known to
// differ (any of a case's measurements), with one line per pair of hosts
// in `why`.
std::set<std::string> CasesTimedOnDifferentHosts(const timer::ResultsFile& before,
                                                 const timer::ResultsFile& after,
                                                 absl::string_view before_name,
                                                 absl::string_view after_name,
                                                 std::vector<std::string>* why = nullptr);

}  // namespace icount::compare

#endif  // ICOUNT_COMPARE_NODE_CHECK_H_
