#include "tools/sides.h"

#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "base/text.h"
#include "compare/text_table.h"

namespace icount::tools {
namespace {

// The counted side before `side`, if any.
std::optional<int> PreviousCounted(const CaseAcrossSides& c, int side) {
  for (int s = side - 1; s >= 0; --s) {
    if (c.counts[s].has_value()) return s;
  }
  return std::nullopt;
}

// The change at `side` against the previous counted side, in percent.
double ChangePct(const CaseAcrossSides& c, int side) {
  const double before = *c.counts[*PreviousCounted(c, side)];
  const double after = *c.counts[side];
  return before != 0 ? 100 * (after - before) / std::fabs(before) : 100;
}

// A line that begins with "[NAME, option=...]": the side's name and options
// from the brackets, and `line` left as the command after them ("true" for
// a side with a LibTorch directory or a root and no command). `where` is
// "FILE:LINE: ".
absl::Status ParseNamedSide(absl::string_view where, absl::string_view& line, SideSpec& side) {
  const size_t close = line.find(']');
  if (close == absl::string_view::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, "\"[\" without \"]\": name a side as \"[NAME] command\""));
  }
  std::vector<absl::string_view> parts = absl::StrSplit(line.substr(1, close - 1), ',');
  side.name = std::string(absl::StripAsciiWhitespace(parts[0]));
  line = absl::StripAsciiWhitespace(line.substr(close + 1));
  if (side.name.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, "an empty name \"[]\": write \"[NAME] command\""));
  }
  for (size_t i = 1; i < parts.size(); ++i) {
    const absl::string_view option = absl::StripAsciiWhitespace(parts[i]);
    absl::string_view value = option;
    std::string* destination = nullptr;
    if (absl::ConsumePrefix(&value, "libtorch=")) {
      destination = &side.libtorch_directory;
    } else if (absl::ConsumePrefix(&value, "root=")) {
      destination = &side.root;
    }
    if (destination != nullptr && value.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, "side \"", side.name, "\": \"", option, "\" has no value; write ", option,
          destination == &side.root ? "ROOT (a Debian suite such as trixie, or a directory)"
                                    : "DIR (a LibTorch directory)"));
    }
    if (destination == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, "side \"", side.name, "\": \"", option,
          "\" is not an option a side takes; write \"[NAME, libtorch=DIR]\" to measure the "
          "LibTorch directory DIR, or \"[NAME, root=ROOT]\" to measure in a root filesystem "
          "(a Debian suite such as trixie, or a directory)"));
    }
    if (!destination->empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, "side \"", side.name, "\": \"", option.substr(0, option.find('=')),
          "=\" is given twice; give each option once"));
    }
    *destination = std::string(value);
  }
  if (!side.libtorch_directory.empty() && !side.root.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, "side \"", side.name, "\": libtorch= and root= do not combine: a side in a root ",
        "measures the root's own torch and LibTorch; give one of them"));
  }
  if (line.empty() && (!side.libtorch_directory.empty() || !side.root.empty())) line = "true";
  if (line.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, "side \"", side.name,
        "\" has no command: write the shell command that sets up its environment after "
        "the name (\"true\" for this shell's own)"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<SideSpec>> ParseSidesFile(absl::string_view text,
                                                     absl::string_view source) {
  std::vector<SideSpec> sides;
  std::map<std::string, int> names;  // name -> line
  std::set<int> unnamed_lines;
  int line_number = 0;
  for (absl::string_view raw : absl::StrSplit(text, '\n')) {
    ++line_number;
    absl::string_view line = absl::StripAsciiWhitespace(raw);
    if (line.empty() || absl::StartsWith(line, "#")) continue;
    SideSpec side;
    side.line = line_number;
    auto where = [&] { return absl::StrCat(source, ":", line_number, ": "); };
    const bool named = absl::StartsWith(line, "[");
    if (named) {
      if (absl::Status s = ParseNamedSide(where(), line, side); !s.ok()) return s;
    } else {
      side.name = absl::StrCat(sides.size() + 1);
    }
    side.command = std::string(line);
    auto [it, inserted] = names.try_emplace(side.name, line_number);
    if (!inserted) {
      const bool numbered = unnamed_lines.count(it->second) > 0;
      return absl::InvalidArgumentError(absl::StrCat(
          where(), "side name \"", side.name, "\" is already used on line ", it->second,
          numbered ? " (a side without [NAME] is named by its place among the sides)" : "",
          ": give each side its own name"));
    }
    if (!named) unnamed_lines.insert(line_number);
    sides.push_back(std::move(side));
  }
  if (sides.size() < 2) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": ", base::CountOf(sides.size(), "side"),
                     "; --sides needs at least two lines, one shell command per environment"));
  }
  return sides;
}

std::vector<CaseAcrossSides> CompareAcrossSides(
    const std::vector<std::pair<std::string, std::string>>& keys_and_titles,
    const std::vector<std::map<std::string, double>>& counts) {
  std::vector<CaseAcrossSides> cases;
  for (const auto& [key, title] : keys_and_titles) {
    CaseAcrossSides c;
    c.key = key;
    c.title = title;
    for (const std::map<std::string, double>& side : counts) {
      auto found = side.find(key);
      c.counts.push_back(found == side.end() ? std::nullopt : std::optional<double>(found->second));
    }
    for (int s = 1; s < static_cast<int>(c.counts.size()); ++s) {
      if (!c.counts[s].has_value()) continue;
      const std::optional<int> previous = PreviousCounted(c, s);
      // Counts are exact: any difference is a change.
      if (previous.has_value() && *c.counts[*previous] != *c.counts[s]) c.changes.push_back(s);
    }
    cases.push_back(std::move(c));
  }
  return cases;
}

std::string AcrossSidesTable(const std::vector<CaseAcrossSides>& cases,
                             const std::vector<std::string>& side_names,
                             const std::vector<std::map<std::string, std::string>>& failures,
                             bool markdown) {
  std::vector<compare::TextTable::Column> columns = {{"Instructions per run"}};
  for (const std::string& name : side_names) columns.push_back({name, compare::Align::kRight});
  columns.push_back({"first change"});
  compare::TextTable table(std::move(columns));
  for (const CaseAcrossSides& c : cases) {
    std::vector<std::string> row = {markdown ? compare::MarkdownEscape(c.title) : c.title};
    for (size_t s = 0; s < c.counts.size(); ++s) {
      row.push_back(c.counts[s].has_value() ? absl::StrFormat("%.1f", *c.counts[s])
                    : s < failures.size() && failures[s].count(c.key) > 0 ? "failed"
                                                                          : "-");
    }
    row.push_back(
        c.changes.empty()
            ? "-"
            : absl::StrFormat(
                  "%s (%+.2f%%)%s", side_names[c.changes[0]], ChangePct(c, c.changes[0]),
                  c.changes.size() > 1 ? absl::StrCat(", ", c.changes.size() - 1, " more") : ""));
    if (markdown) row.back() = compare::MarkdownEscape(row.back());
    table.AddRow(row);
  }
  if (markdown) return table.RenderMarkdown();
  compare::TextTable::TextOptions options;
  options.rule_under_header = true;
  return table.RenderText(options);
}

compare::AcrossSidesCaseProto AcrossSidesCaseToProto(const CaseAcrossSides& c,
                                                     const std::vector<std::string>& side_names) {
  compare::AcrossSidesCaseProto proto;
  proto.set_case_(c.key);
  for (const std::optional<double>& n : c.counts) {
    google::protobuf::Value* count = proto.mutable_counts_per_run()->add_values();
    if (n.has_value() && std::isfinite(*n)) {
      count->set_number_value(*n);
    } else {
      count->set_null_value(google::protobuf::NULL_VALUE);
    }
  }
  for (int s : c.changes) {
    compare::SideChangeProto* change = proto.add_changes();
    change->set_side(side_names[s]);
    change->set_index(s);
    change->set_delta_pct(ChangePct(c, s));
  }
  if (!c.changes.empty()) *proto.mutable_first_change() = proto.changes(0);
  return proto;
}

}  // namespace icount::tools
