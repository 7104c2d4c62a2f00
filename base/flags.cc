#include "base/flags.h"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "absl/flags/internal/program_name.h"
#include "absl/flags/internal/usage.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/flags/usage_config.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace icount::base {

std::string DescribeVersions(const VersionList& versions) {
  std::string text = "icount libraries:";
  for (size_t i = 0; i < versions.size(); ++i) {
    absl::StrAppend(&text, i == 0 ? " " : ", ", versions[i].first, " ", versions[i].second);
  }
  return text;
}

std::vector<char*> ParseFlags(int argc, char** argv, const char* usage, VersionList versions) {
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
      absl::flags_internal::SetFlagsHelpMode(absl::flags_internal::HelpMode::kImportant);
      absl::flags_internal::HandleUsageFlags(std::cout, absl::ProgramUsageMessage());
      std::exit(0);
    }
  }
  return absl::ParseCommandLine(argc, argv);
}

absl::Status CheckFlagAtLeast(absl::string_view name, double value, double minimum) {
  if (value >= minimum) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("--", name, "=", value, ": must be at least ", minimum));
}

absl::Status CheckFlagPositive(absl::string_view name, double value) {
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
