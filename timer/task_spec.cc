#include "timer/task_spec.h"

#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/text.h"

namespace icount::timer {

const char* LanguageName(Language language) {
  return language == Language::kCpp ? "C++" : "Python";
}

std::string TaskSpec::Title() const {
  const std::string sub = sub_label.has_value() && !sub_label->empty() ? *sub_label : "";
  if (label.has_value()) return sub.empty() ? *label : absl::StrCat(*label, ": ", sub);
  if (!absl::StrContains(stmt, '\n')) return sub.empty() ? stmt : absl::StrCat(stmt, ": ", sub);
  return absl::StrCat("stmt:", sub.empty() ? "" : absl::StrCat(" (", sub, ")"), "\n",
                      base::Indent(stmt, "  "));
}

std::string TaskSpec::SetupText() const {
  if (setup.empty() || setup == "pass") return "";
  if (absl::StrContains(setup, '\n')) {
    return absl::StrCat("setup:\n", base::Indent(setup, "  "));
  }
  return absl::StrCat("setup: ", setup);
}

std::string TaskSpec::Summarize() const {
  std::vector<std::string> sections;
  for (std::string section : {Title(), description.value_or(""), SetupText()}) {
    if (section.empty()) continue;
    // A multi-line section is followed by a blank line, as in the reference.
    if (absl::StrContains(section, '\n')) section += "\n";
    sections.push_back(std::move(section));
  }
  return absl::StrJoin(sections, "\n");
}

bool operator==(const TaskSpec& a, const TaskSpec& b) {
  auto key = [](const TaskSpec& s) {
    return std::tie(s.stmt, s.setup, s.global_setup, s.label, s.sub_label, s.description, s.env,
                    s.num_threads, s.language);
  };
  return key(a) == key(b);
}

}  // namespace icount::timer
