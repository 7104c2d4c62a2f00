#include "tools/history_run_changes.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "compare/node_check.h"

namespace icount::tools {

std::vector<std::string> SetupChanges(history::Metric metric, const history::RunRow& before,
                                      const history::RunRow& after) {
  std::vector<std::string> changes;
  auto compare = [&](absl::string_view what, const std::string& a, const std::string& b) {
    if (!a.empty() && !b.empty() && a != b) changes.push_back(absl::StrCat(what, a, " -> ", b));
  };
  if (metric == history::Metric::kTime) {
    compare("host ", before.host, after.host);
  } else {
    compare("CPU ", before.cpu_model, after.cpu_model);
    compare("", before.valgrind, after.valgrind);
  }
  compare("LibTorch ", before.libtorch_version, after.libtorch_version);
  compare("toolchain ", before.toolchain, after.toolchain);
  return changes;
}

std::string MeasuredLibTorchVersion(const timer::ResultsFile& results) {
  auto install = results.settings.find(compare::kLibTorchInstallSetting);
  if (install == results.settings.end()) return "";
  absl::string_view description = install->second;
  if (!absl::ConsumePrefix(&description, "torch ")) return "";
  return std::string(description.substr(0, description.find(' ')));
}

}  // namespace icount::tools
