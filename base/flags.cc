#include "base/flags.h"

#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "absl/algorithm/container.h"
#include "absl/container/flat_hash_map.h"
#include "absl/flags/commandlineflag.h"
#include "absl/flags/internal/program_name.h"
#include "absl/flags/parse.h"
#include "absl/flags/reflection.h"
#include "absl/flags/usage.h"
#include "absl/flags/usage_config.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace icount::base {

std::string DescribeVersions(const VersionList& versions) {
  std::string text = "icount libraries:";
  for (size_t i = 0; i < versions.size(); ++i) {
    absl::StrAppend(&text, i == 0 ? " " : ", ", versions[i].first, " ", versions[i].second);
  }
  return text;
}

namespace {

constexpr size_t kHelpWidth = 80;
constexpr absl::string_view kHelpIndent = "      ";

// `text` wrapped at kHelpWidth, each line indented by kHelpIndent.
std::string WrapHelp(absl::string_view text) {
  std::string wrapped;
  size_t line_length = 0;
  for (absl::string_view word : absl::StrSplit(text, ' ', absl::SkipEmpty())) {
    if (line_length > 0 && line_length + 1 + word.size() > kHelpWidth) {
      wrapped += "\n";
      line_length = 0;
    }
    if (line_length == 0) {
      absl::StrAppend(&wrapped, kHelpIndent, word);
      line_length = kHelpIndent.size() + word.size();
    } else {
      absl::StrAppend(&wrapped, " ", word);
      line_length += 1 + word.size();
    }
  }
  return wrapped + "\n";
}

// "  --repeats=1", "  --filter=\"\"": the flag as a user writes it, with its
// default.
std::string FlagWithDefault(const absl::CommandLineFlag& flag) {
  const std::string value = flag.DefaultValue();
  const bool quote =
      flag.IsOfType<std::string>() && (value.empty() || value.find(' ') != value.npos);
  return absl::StrCat("  --", flag.Name(), "=", quote ? absl::StrCat("\"", value, "\"") : value);
}

// (file, title) of each ICOUNT_FLAG_SECTION, sorted by title when read.
std::vector<std::pair<std::string, std::string>>& FlagSections() {
  static auto* sections = new std::vector<std::pair<std::string, std::string>>();
  return *sections;
}

// Whether the flag `name` (without "--") holds another value than its
// default. False for a flag this program does not define.
bool FlagDiffersFromDefault(absl::string_view name) {
  const absl::CommandLineFlag* flag = absl::FindCommandLineFlag(name);
  return flag != nullptr && flag->CurrentValue() != flag->DefaultValue();
}

}  // namespace

namespace internal {
bool RegisterFlagSection(const char* file, const char* title) {
  FlagSections().emplace_back(file, title);
  return true;
}
}  // namespace internal

std::string HelpText(absl::string_view usage, const HelpLayout& layout) {
  std::vector<std::pair<std::string, std::string>> files = FlagSections();
  absl::c_sort(files, [](const auto& a, const auto& b) { return a.second < b.second; });
  // Section 0: "Flags"; 1..n: the files' sections; n+1: checking icount.
  const size_t checking_section = files.size() + 1;
  std::vector<std::vector<const absl::CommandLineFlag*>> sections(checking_section + 1);
  for (const auto& [name, flag] : absl::GetAllFlags()) {
    const std::string file = flag->Filename();
    if (absl::StrContains(file, "absl/")) continue;
    size_t section = 0;
    if (absl::c_linear_search(layout.checking_icount, name)) {
      section = checking_section;
    } else {
      for (size_t i = 0; i < files.size(); ++i) {
        if (file == files[i].first) section = i + 1;
      }
    }
    sections[section].push_back(flag);
  }
  std::string text = absl::StrCat(usage, "\n");
  for (size_t i = 0; i < sections.size(); ++i) {
    if (sections[i].empty()) continue;
    absl::c_sort(sections[i], [](const absl::CommandLineFlag* a, const absl::CommandLineFlag* b) {
      return a->Name() < b->Name();
    });
    const std::string title = i == 0                  ? "Flags"
                              : i == checking_section ? "For checking icount itself"
                                                      : files[i - 1].second;
    absl::StrAppend(&text, "\n", title, ":\n");
    for (const absl::CommandLineFlag* flag : sections[i]) {
      absl::StrAppend(&text, FlagWithDefault(*flag), "\n", WrapHelp(flag->Help()));
    }
  }
  absl::StrAppend(&text, "\n  --help, --helpfull (abseil's flags too), --version\n");
  return text;
}

absl::Status CheckNoFlagGivenTwice(int argc, char** argv) {
  // Flags of abseil's own whose repeats mean something (--flagfile=a
  // --flagfile=b reads both).
  static constexpr absl::string_view kRepeatable[] = {"flagfile", "fromenv", "tryfromenv",
                                                      "undefok"};
  absl::flat_hash_map<std::string, std::string> first;  // flag name -> its first setting
  for (int i = 1; i < argc; ++i) {
    absl::string_view argument = argv[i];
    if (argument == "--") break;
    absl::string_view body = argument;
    if (!absl::ConsumePrefix(&body, "--") && !absl::ConsumePrefix(&body, "-")) continue;
    std::string name(body.substr(0, body.find('=')));
    const absl::CommandLineFlag* flag = absl::FindCommandLineFlag(name);
    if (flag == nullptr && absl::StartsWith(name, "no")) {
      flag = absl::FindCommandLineFlag(name.substr(2));
      if (flag != nullptr && !flag->IsOfType<bool>()) flag = nullptr;
      if (flag != nullptr) name = name.substr(2);
    }
    if (flag == nullptr) continue;  // abseil reports unknown flags itself
    std::string setting(argument);
    if (!absl::StrContains(body, '=') && !flag->IsOfType<bool>() && i + 1 < argc) {
      absl::StrAppend(&setting, " ", argv[++i]);  // "--name value"
    }
    if (absl::c_linear_search(kRepeatable, name)) continue;
    const auto [earlier, inserted] = first.emplace(name, setting);
    if (!inserted) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--", name, " is given twice (", earlier->second, ", then ", setting,
          "): it takes one value, and the second would replace the first; give it once"));
    }
  }
  return absl::OkStatus();
}

absl::Status RefuseUnusedFlags(std::initializer_list<absl::string_view> names, bool unused,
                               absl::string_view why) {
  if (!unused) return absl::OkStatus();
  for (absl::string_view name : names) {
    if (FlagDiffersFromDefault(name)) {
      return absl::InvalidArgumentError(absl::StrCat("--", name, " ", why));
    }
  }
  return absl::OkStatus();
}

std::vector<char*> ParseFlags(int argc, char** argv, const char* usage, VersionList versions,
                              const HelpLayout& layout) {
  // Past a file-size limit (ulimit -f) a write fails with EFBIG, which the
  // writer reports with the file's name, instead of killing the tool.
  signal(SIGXFSZ, SIG_IGN);
  absl::FlagsUsageConfig config;
  config.version_string = [versions = std::move(versions)] {
    return DescribeVersions(versions) + "\n";
  };
  // Only our own flags in --help; --helpfull shows abseil's too.
  config.contains_help_flags = [](absl::string_view path) {
    return !absl::StrContains(path, "absl/");
  };
  absl::SetFlagsUsageConfig(config);
  absl::SetProgramUsageMessage(usage);
  // Parsing sets the program name too, but --help is answered before that.
  absl::flags_internal::SetProgramInvocationName(argv[0]);
  // abseil exits 1 after --help; asking for help is a success here.
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-help") == 0) {
      std::cout << absl::flags_internal::ShortProgramInvocationName() << ": "
                << HelpText(usage, layout) << std::flush;
      std::exit(0);
    }
  }
  if (absl::Status once = CheckNoFlagGivenTwice(argc, argv); !once.ok()) std::exit(Fail(once));
  return absl::ParseCommandLine(argc, argv);
}

absl::Status CheckFlagAtLeast(absl::string_view name, double value, double minimum) {
  if (value >= minimum) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("--", name, "=", value, ": must be at least ", minimum));
}

absl::Status CheckFlagPositive(absl::string_view name, double value) {
  if (std::isinf(value) && value > 0) {
    // A time without end would run a case until its timeout, or for ever.
    return absl::InvalidArgumentError(
        absl::StrCat("--", name, "=", value, ": must be a finite number"));
  }
  if (value > 0) return absl::OkStatus();  // false for NaN too
  return absl::InvalidArgumentError(
      absl::StrCat("--", name, "=", value, ": must be greater than 0"));
}

absl::Status CheckNoPositionalArguments(const std::vector<char*>& positional) {
  if (positional.size() <= 1) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("unexpected argument \"", positional[1],
                   "\": this program takes only flags (--name=value; see --help)"));
}

int Fail(absl::string_view message) {
  const std::string program = absl::flags_internal::ShortProgramInvocationName();
  std::fprintf(stderr, "%s: %.*s\n", program.c_str(), static_cast<int>(message.size()),
               message.data());
  return 1;
}

int Fail(const absl::Status& status) { return Fail(status.message()); }

}  // namespace icount::base
