#include "timer/node.h"

#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/machine.h"
#include "google/protobuf/util/message_differencer.h"

namespace icount::timer {

timer::NodeProto ThisMachine() {
  timer::NodeProto machine;
  machine.set_host(base::HostName());
  machine.set_cpu_model(base::CpuModel());
  machine.set_cpus(base::OnlineCpus());
  machine.set_cpuid(base::CpuId());
  return machine;
}

std::string DescribeMachine(const timer::NodeProto& machine) {
  return absl::StrCat(machine.host(), ", ", machine.cpus(), " CPUs, ", machine.cpu_model(),
                      machine.cpuid().empty() ? "" : absl::StrCat(" (", machine.cpuid(), ")"));
}

std::string AddNode(ResultsFile& results, const timer::NodeProto& node) {
  const std::string host = node.host().empty() ? "unknown host" : node.host();
  for (int n = 1;; ++n) {
    const std::string id = n == 1 ? host : absl::StrCat(host, "#", n);
    auto [it, inserted] = results.nodes.try_emplace(id, node);
    if (inserted || google::protobuf::util::MessageDifferencer::Equals(it->second, node)) {
      return id;
    }
  }
}

timer::NodeProto NodeOfCase(const ResultsFile& results,
                            const std::map<std::string, std::string>& metadata) {
  if (auto id = metadata.find(kNodeMetadataKey); id != metadata.end()) {
    if (auto node = results.nodes.find(id->second); node != results.nodes.end()) {
      return node->second;
    }
  }
  // The file's machine, unless it names no one host (a merge of several
  // machines' files, or an older file's description of another form).
  timer::NodeProto node;
  if (!results.machine_node.host().empty()) node = results.machine_node;
  if (auto valgrind = results.settings.find("valgrind");
      valgrind != results.settings.end() && absl::StartsWith(valgrind->second, "valgrind-")) {
    node.set_valgrind(valgrind->second);
  }
  return node;
}

std::vector<std::string> CountRelevantDifferences(const timer::NodeProto& a,
                                                  const timer::NodeProto& b) {
  std::vector<std::string> differences;
  auto compare = [&](const char* what, const std::string& x, const std::string& y) {
    if (!x.empty() && !y.empty() && x != y) differences.push_back(absl::StrCat(what, x, " vs ", y));
  };
  compare("CPU ", a.cpu_model(), b.cpu_model());
  compare("CPUID ", a.cpuid(), b.cpuid());
  compare("ATen's CPU capability ", a.aten_cpu_capability(), b.aten_cpu_capability());
  compare("", a.valgrind(), b.valgrind());
  return differences;
}

bool DifferentHosts(const timer::NodeProto& a, const timer::NodeProto& b) {
  return !a.host().empty() && !b.host().empty() && a.host() != b.host();
}

std::string DescribeNode(const timer::NodeProto& node) {
  std::vector<std::string> parts;
  if (!node.cpu_model().empty()) parts.push_back(node.cpu_model());
  if (!node.cpuid().empty()) parts.push_back(node.cpuid());
  if (node.cpus() > 0) parts.push_back(absl::StrCat(node.cpus(), " CPUs"));
  if (!node.aten_cpu_capability().empty()) {
    parts.push_back(absl::StrCat("ATen ", node.aten_cpu_capability()));
  }
  if (!node.valgrind().empty()) parts.push_back(node.valgrind());
  return absl::StrCat(node.host().empty() ? "unknown host" : node.host(),
                      parts.empty() ? "" : absl::StrCat(" (", absl::StrJoin(parts, ", "), ")"));
}

}  // namespace icount::timer
