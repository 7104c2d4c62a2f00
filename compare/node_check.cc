#include "compare/node_check.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/text.h"
#include "timer/cache_model.h"
#include "timer/node.h"

namespace icount::compare {
namespace {

// Each case's node in a file, by case key, for counts or for wall time
// (a case's several rounds: every node that timed it).
std::map<std::string, std::vector<timer::NodeProto>> NodesByCase(const timer::ResultsFile& file,
                                                                 bool counts) {
  std::map<std::string, std::vector<timer::NodeProto>> nodes;
  if (counts) {
    for (const timer::InstructionCounts& c : file.instruction_counts) {
      nodes[timer::ResultCaseKey(c.metadata, c.task_spec)].push_back(
          timer::NodeOfCase(file, c.metadata));
    }
  } else {
    for (const timer::Measurement& m : file.measurements) {
      nodes[timer::ResultCaseKey(m.metadata(), m.task_spec())].push_back(
          timer::NodeOfCase(file, m.metadata()));
    }
  }
  return nodes;
}

}  // namespace

std::vector<std::string> CountNodeWarnings(const timer::ResultsFile& before,
                                           const timer::ResultsFile& after,
                                           absl::string_view before_name,
                                           absl::string_view after_name) {
  const auto before_nodes = NodesByCase(before, true);
  const auto after_nodes = NodesByCase(after, true);
  // (before's node, after's node) -> (differences, cases)
  std::map<std::pair<std::string, std::string>, std::pair<std::vector<std::string>, size_t>> pairs;
  for (const auto& [key, nodes] : after_nodes) {
    auto other = before_nodes.find(key);
    if (other == before_nodes.end()) continue;
    const timer::NodeProto& a = other->second.front();
    const timer::NodeProto& b = nodes.front();
    std::vector<std::string> differences = timer::CountRelevantDifferences(a, b);
    if (differences.empty()) continue;
    auto& entry = pairs[{timer::DescribeNode(a), timer::DescribeNode(b)}];
    entry.first = std::move(differences);
    ++entry.second;
  }
  std::vector<std::string> warnings;
  for (const auto& [nodes, entry] : pairs) {
    warnings.push_back(absl::StrCat(
        "counts of ", base::CountOf(entry.second, "case"), " were taken on nodes that differ (",
        absl::StrJoin(entry.first, ", "), "): ", before_name, " on ", nodes.first, ", ", after_name,
        " on ", nodes.second, "; their differences may come from the nodes, not the code"));
  }
  return warnings;
}

namespace {

// Which LibTorch a file's counts come from: the install and its
// fingerprint ("" for Debian's); nullopt when the file does not say.
std::optional<std::pair<std::string, std::string>> MeasuredLibTorch(
    const timer::ResultsFile& file) {
  auto install = file.settings.find(kLibTorchInstallSetting);
  if (install == file.settings.end()) return std::nullopt;
  auto fingerprint = file.settings.find(kLibTorchFingerprintSetting);
  return std::make_pair(install->second,
                        fingerprint == file.settings.end() ? "" : fingerprint->second);
}

// What a file says of its LibTorch, for people: the description with how
// it was found where the file has one.
const std::string& LibTorchDescription(const timer::ResultsFile& file) {
  auto description = file.settings.find(kLibTorchSetting);
  return description != file.settings.end() ? description->second
                                            : file.settings.at(kLibTorchInstallSetting);
}

std::optional<std::string> LibTorchWarning(const timer::ResultsFile& before,
                                           const timer::ResultsFile& after,
                                           absl::string_view before_name,
                                           absl::string_view after_name) {
  const auto before_libtorch = MeasuredLibTorch(before);
  const auto after_libtorch = MeasuredLibTorch(after);
  if (!before_libtorch || !after_libtorch || *before_libtorch == *after_libtorch) {
    return std::nullopt;
  }
  return absl::StrCat(before_name, " counted ", LibTorchDescription(before), " and ", after_name,
                      " counted ", LibTorchDescription(after), " (settings \"",
                      kLibTorchInstallSetting,
                      "\"): their differences may come from the LibTorch, not the code; "
                      "measure both against the same one, or compare LibTorches with ab_test");
}

}  // namespace

std::optional<std::string> ToolchainWarning(const timer::ResultsFile& before,
                                            const timer::ResultsFile& after,
                                            absl::string_view before_name,
                                            absl::string_view after_name) {
  auto before_toolchain = before.settings.find(kToolchainSetting);
  auto after_toolchain = after.settings.find(kToolchainSetting);
  if (before_toolchain == before.settings.end() || after_toolchain == after.settings.end() ||
      before_toolchain->second == after_toolchain->second) {
    return std::nullopt;
  }
  return absl::StrCat(before_name, " was built and counted with ", before_toolchain->second,
                      " and ", after_name, " with ", after_toolchain->second, " (settings \"",
                      kToolchainSetting,
                      "\"): another compiler or Python moves counts by itself; measure both with "
                      "the same one, or read their differences with that in mind");
}

std::vector<std::string> CountSettingWarnings(const timer::ResultsFile& before,
                                              const timer::ResultsFile& after,
                                              absl::string_view before_name,
                                              absl::string_view after_name) {
  if (before.instruction_counts.empty() || after.instruction_counts.empty()) return {};
  std::vector<std::string> warnings;
  const bool before_rehearsed = before.settings.count(kTorchScriptCasesSetting) > 0;
  const bool after_rehearsed = after.settings.count(kTorchScriptCasesSetting) > 0;
  if (before_rehearsed != after_rehearsed) {
    warnings.push_back(
        absl::StrCat(before_rehearsed ? before_name : after_name,
                     " counted TorchScript cases after icount's TorchScript rehearsal and ",
                     before_rehearsed ? after_name : before_name,
                     " did not (--rehearse_torchscript; settings \"", kTorchScriptCasesSetting,
                     "\"): their counts differ by up to ~1.5% from that alone; measure both "
                     "with or both without it"));
  }
  auto before_model = before.settings.find(timer::kCacheModelSetting);
  auto after_model = after.settings.find(timer::kCacheModelSetting);
  if (before_model != before.settings.end() && after_model != after.settings.end() &&
      before_model->second != after_model->second) {
    warnings.push_back(
        absl::StrCat("estimated cycles of ", before_name, " and ", after_name,
                     " come from different cache models (settings \"", timer::kCacheModelSetting,
                     "\": \"", before_model->second, "\" and \"", after_model->second,
                     "\"): their differences may come from the model, not the code"));
  }
  if (std::optional<std::string> warning =
          LibTorchWarning(before, after, before_name, after_name)) {
    warnings.push_back(*std::move(warning));
  }
  if (std::optional<std::string> warning =
          ToolchainWarning(before, after, before_name, after_name)) {
    warnings.push_back(*std::move(warning));
  }
  // What a worker does before a case forks is part of the case's history
  // (docs/counts.md), so another worker may count the same code a few
  // instructions a run apart.
  auto before_worker = before.versions.find("worker");
  auto after_worker = after.versions.find("worker");
  if (before_worker != before.versions.end() && after_worker != after.versions.end() &&
      before_worker->second != after_worker->second) {
    warnings.push_back(absl::StrCat(
        before_name, " was counted by icount's worker ", before_worker->second, " and ", after_name,
        " by worker ", after_worker->second,
        " (versions \"worker\"): another worker may count the same code a few instructions a "
        "run apart; measure both with the same icount"));
  }
  return warnings;
}

std::set<std::string> CasesTimedOnDifferentHosts(const timer::ResultsFile& before,
                                                 const timer::ResultsFile& after,
                                                 absl::string_view before_name,
                                                 absl::string_view after_name,
                                                 std::vector<std::string>* why) {
  const auto before_nodes = NodesByCase(before, false);
  const auto after_nodes = NodesByCase(after, false);
  std::set<std::string> keys;
  std::map<std::pair<std::string, std::string>, size_t> pairs;  // hosts -> cases
  for (const auto& [key, nodes] : after_nodes) {
    auto other = before_nodes.find(key);
    if (other == before_nodes.end()) continue;
    for (const timer::NodeProto& a : other->second) {
      for (const timer::NodeProto& b : nodes) {
        if (!timer::DifferentHosts(a, b) || keys.count(key)) continue;
        keys.insert(key);
        ++pairs[{a.host(), b.host()}];
      }
    }
  }
  if (why != nullptr) {
    for (const auto& [hosts, n] : pairs) {
      why->push_back(absl::StrCat("wall time of ", base::CountOf(n, "case"),
                                  " was taken on different hosts: ", before_name, " on ",
                                  hosts.first, ", ", after_name, " on ", hosts.second));
    }
  }
  return keys;
}

}  // namespace icount::compare
