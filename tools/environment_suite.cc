#include "tools/environment_suite.h"

#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "base/files.h"
#include "base/fnv.h"
#include "base/program_place.h"
#include "base/status.h"
#include "compare/node_check.h"
#include "environment/build_sources.h"
#include "environment/nested_build_sources.h"
#include "environment/root.h"
#include "environment/suite_build.h"
#include "expand/case_sources.h"
#include "worker/runner.h"

namespace icount::tools {

namespace {

// The environment's PyTorch, said on stderr, and, when it is not Debian's,
// `target` built against it (BuiltSuite::bin_directory; empty for Debian's),
// with the prelude of run-time C++ snippets when `snippet_prelude`.
struct FoundAndBuilt {
  environment::PyTorchInstall install;
  environment::BuiltSuite built;
  // The suite's C++ cases left out of the build, with the compiler's first
  // error of each (CompileLeavingOut).
  std::map<std::string, std::string> uncompiled_cases;
  std::vector<std::string> launcher;  // a root's
  std::string valgrind_version;       // a root's
  std::shared_ptr<base::FileLock> root_in_use;  // a suite's root (UseRoot)
};

void Say(const std::string& tool, const std::string& side, const std::string& line) {
  std::fprintf(stderr, "%s: %s: %s\n", tool.c_str(), side.c_str(), line.c_str());
}

// The root the spec names, made when it is not yet, checked, and its
// PyTorch; `options` then builds inside it.
absl::Status FindInRoot(const environment::EnvironmentSpec& spec, const std::string& tool,
                        environment::SuiteBuildOptions& options, FoundAndBuilt& out) {
  // The caller puts the side's name before every error; for a tool of one
  // side that name is the flag itself ("--root"), which WithContext then
  // says once.
  ICOUNT_ASSIGN_OR_RETURN(environment::Root root,
                          environment::ResolveRoot(spec.root, "--" + spec.root_flag));
  environment::RootMakeOptions make;
  make.on_line = [&](const std::string& line) { Say(tool, spec.name, "root: " + line); };
  ICOUNT_ASSIGN_OR_RETURN(std::optional<base::FileLock> in_use, environment::UseRoot(root, make));
  if (in_use.has_value()) out.root_in_use = std::make_shared<base::FileLock>(*std::move(in_use));
  const std::string cache = base::CacheDirectory();
  ICOUNT_RETURN_IF_ERROR(base::MakeDirectories(cache));
  ICOUNT_ASSIGN_OR_RETURN(const environment::RootContents contents,
                          environment::InspectRoot(root));
  ICOUNT_RETURN_IF_ERROR(environment::CheckRootContents(root, contents));
  // The source tree the build reads, the cache its outputs and the
  // workers' scratch directories go to, where the workers start: the same
  // paths inside as out.
  std::vector<std::string> binds = {base::kProgramPlaceParent, options.workspace, cache,
                                    base::TemporaryParentDirectory()};
  binds.insert(binds.end(), spec.root_binds.begin(), spec.root_binds.end());
  ICOUNT_ASSIGN_OR_RETURN(out.launcher, environment::RootLauncher(root, binds));
  ICOUNT_ASSIGN_OR_RETURN(out.install, environment::FindPyTorchInRoot(spec, out.launcher,
                                                                      root.directory, root.name));
  out.install.toolchain = environment::RootToolchain(contents);
  out.valgrind_version = contents.valgrind;
  Say(tool, spec.name, absl::StrCat("root ", root.name, " at ", root.directory, ": ",
                                    environment::DescribeToolchain(contents)));
  options.launcher = out.launcher;
  options.builds_directory = environment::RootBuildsDirectory(root);
  return absl::OkStatus();
}

// What the last build of a suite for an install left out: for the
// install's files (fingerprint) and the suite's generated sources as they
// were, so that a second run compiles nothing, and a changed LibTorch or
// suite tries every case again. Lines: "fingerprint F", "sources S", then
// "<key>\t<first error>" per case.
struct UncompiledMemory {
  std::string fingerprint;
  std::string sources;
  std::map<std::string, std::string> cases;
};

std::string MemoryPath(const environment::PyTorchInstall& install,
                       const environment::SuiteBuildOptions& options) {
  return environment::SuiteOutputBase(install, options) + "-uncompiled-cases";
}

UncompiledMemory ReadMemory(const std::string& path) {
  UncompiledMemory memory;
  absl::StatusOr<std::string> text = base::ReadFileToString(path);
  if (!text.ok()) return memory;
  for (absl::string_view line : absl::StrSplit(*text, '\n', absl::SkipEmpty())) {
    if (absl::ConsumePrefix(&line, "fingerprint ")) {
      memory.fingerprint = std::string(line);
    } else if (absl::ConsumePrefix(&line, "sources ")) {
      memory.sources = std::string(line);
    } else if (const size_t tab = line.find('\t'); tab != absl::string_view::npos) {
      memory.cases[std::string(line.substr(0, tab))] = std::string(line.substr(tab + 1));
    } else {
      return {};  // not ours: remember nothing
    }
  }
  return memory;
}

absl::Status WriteMemory(const std::string& path, const UncompiledMemory& memory) {
  std::string text = absl::StrCat("fingerprint ", memory.fingerprint, "\nsources ",
                                  memory.sources, "\n");
  for (const auto& [key, error] : memory.cases) absl::StrAppend(&text, key, "\t", error, "\n");
  return base::WriteFileAtomically(path, text);
}

// A hash of the generated case sources of `target` in `bin_directory`.
std::string GeneratedSourcesHash(const std::string& bin_directory, const std::string& target) {
  const std::string prefix =
      absl::StrCat(bin_directory, "/", environment::SuiteTargetPath(target), "_sources_shard_");
  base::Fnv1a64 hash;
  for (int k = 0;; ++k) {
    absl::StatusOr<std::string> text = base::ReadFileToString(absl::StrCat(prefix, k, ".cc"));
    if (!text.ok()) break;
    hash.Add(*text);
  }
  return hash.Hex();
}

// The cases a failed build's compiler `lines` name that are not in
// `uncompiled` yet, added there and said on stderr; how many.
int AddUncompiledCases(const environment::PyTorchInstall& install,
                       const environment::SuiteBuildOptions& options,
                       const std::vector<std::string>& lines, const std::string& tool,
                       const std::string& side, std::map<std::string, std::string>& uncompiled) {
  absl::StatusOr<std::string> bin = environment::SuiteBinDirectory(install, options);
  if (!bin.ok()) return 0;
  // No manifest: the generator itself failed, not a case.
  absl::StatusOr<expand::SuiteManifestProto> manifest = ReadSuiteManifest(absl::StrCat(
      *bin, "/", environment::SuiteTargetPath(options.target), "_sources_manifest.pb"));
  if (!manifest.ok()) return 0;
  int added = 0;
  for (auto& [key, error] : expand::CaseCompileErrors(*manifest, lines)) {
    if (!uncompiled.emplace(key, error).second) continue;
    Say(tool, side, absl::StrCat("does not compile against it: ", key, ": ", error));
    ++added;
  }
  return added;
}

// Builds the suite (options.target) for the install; when the build fails
// on C++ cases that do not compile against this LibTorch, builds again
// without them (expand/case_sources.h), saying which on stderr.
absl::StatusOr<environment::BuiltSuite> CompileLeavingOut(
    const environment::PyTorchInstall& install, environment::SuiteBuildOptions options,
    const std::string& tool, const std::string& side,
    std::map<std::string, std::string>& uncompiled) {
  // Rounds of leaving out: GCC reports every case's errors at once, so a
  // second round is rare and a third rarer.
  constexpr int kMaxRounds = 4;
  const std::string memory_path = MemoryPath(install, options);
  const UncompiledMemory memory = ReadMemory(memory_path);
  ICOUNT_ASSIGN_OR_RETURN(const std::string fingerprint, environment::Fingerprint(install));
  if (memory.fingerprint == fingerprint) uncompiled = memory.cases;
  bool from_memory = !uncompiled.empty();
  std::vector<std::string> lines;
  const auto on_progress = options.on_progress;
  options.on_progress = [&](const std::string& line) {
    lines.push_back(line);
    if (on_progress) on_progress(line);
  };
  for (int round = 1;; ++round) {
    options.case_source_defines.clear();
    for (const auto& [key, error] : uncompiled) {
      options.case_source_defines.push_back(expand::LeaveOutMacro(key));
    }
    lines.clear();
    absl::StatusOr<environment::BuiltSuite> built = environment::BuildSuiteFor(install, options);
    if (built.ok()) {
      const std::string sources = GeneratedSourcesHash(built->bin_directory, options.target);
      if (from_memory && sources != memory.sources) {
        // The suite changed since: its cases may compile now.
        Say(tool, side, "the suite changed since its last build here: building every case again");
        uncompiled.clear();
        from_memory = false;
        continue;
      }
      if (absl::Status saved = WriteMemory(memory_path, {fingerprint, sources, uncompiled});
          !saved.ok()) {
        Say(tool, side, absl::StrCat("warning: ", saved.message()));
      }
      if (!uncompiled.empty()) {
        Say(tool, side,
            absl::StrCat(uncompiled.size(), " C++ case", uncompiled.size() == 1 ? "" : "s",
                         " left out: they do not compile against it (each fails on this side "
                         "with its compiler error; every other case runs)"));
      }
      return built;
    }
    if (round == kMaxRounds) return built.status();
    const int added = AddUncompiledCases(install, options, lines, tool, side, uncompiled);
    // Errors outside the cases (a broken LibTorch header, icount's own
    // code): the build's own error says what.
    if (added == 0) return built.status();
    Say(tool, side, absl::StrCat("building again without ", added, " C++ case",
                                 added == 1 ? "" : "s", " that do not compile against it"));
  }
}

}  // namespace

absl::Status CheckRootWithoutLibTorch(const std::string& libtorch, const std::string& libtorch_flag,
                                      const std::string& root, const std::string& root_flag) {
  if (libtorch.empty() || root.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "--", libtorch_flag, "=", libtorch, " and --", root_flag, "=", root,
      " do not combine: a side in a root measures the root's own torch and LibTorch; drop --",
      root_flag, " to measure ", libtorch, " on this machine, or drop --", libtorch_flag));
}

absl::Status CheckEnvironmentSpec(const environment::EnvironmentSpec& spec) {
  ICOUNT_RETURN_IF_ERROR(CheckRootWithoutLibTorch(spec.libtorch_directory, spec.libtorch_flag,
                                                 spec.root, spec.root_flag));
  // Reading a LibTorch directory takes a few file checks: a bad one is said
  // before any side's worker is built.
  if (!spec.libtorch_directory.empty()) return environment::FindPyTorch(spec).status();
  if (spec.root.empty()) return absl::OkStatus();
  return base::WithContext(
      environment::ResolveRoot(spec.root, "--" + spec.root_flag).status(), spec.name);
}

absl::Status CheckCppLeftOut(const environment::EnvironmentSpec& spec, bool no_cpp) {
  if (!no_cpp || !spec.root.empty()) return absl::OkStatus();  // a root's Python is its torch's
  std::string given;
  std::string why;
  if (!spec.libtorch_directory.empty()) {
    given = spec.libtorch_flag == "sides"
                ? absl::StrCat(spec.name, "'s libtorch=", spec.libtorch_directory)
                : absl::StrCat("--", spec.libtorch_flag, "=", spec.libtorch_directory);
    why = "a LibTorch directory has no torch Python package";
  } else {
    if (spec.command.empty()) return absl::OkStatus();  // Debian's
    // Asking the environment's python3 takes a second, so only here: a
    // torch for another Python than the worker's cannot run Python cases,
    // which would be found only once the side's worker was built.
    ICOUNT_ASSIGN_OR_RETURN(const environment::PyTorchInstall install,
                            environment::FindPyTorch(spec));
    if (install.python_problem.empty()) return absl::OkStatus();
    given = spec.name;
    why = install.python_problem;
  }
  return absl::InvalidArgumentError(absl::StrCat("--no_cpp leaves the Python cases only, and ",
                                                 given, " has none (", why,
                                                 "): drop --no_cpp to measure the C++ cases"));
}

namespace {

// What FindAndBuild builds, and what the PyTorch found must offer.
struct BuildRequest {
  std::string target;  // "//definitions:full_suite"
  std::string what;    // for progress: "icount's worker and C++ cases"
  bool snippet_prelude = false;
  bool leave_out_uncompiled = false;
  // A Python statement is to run (timeit --language=python): a PyTorch
  // without Python cases is refused before anything is built.
  bool python_statement = false;
};

// A side's suite: its worker with the C++ cases that compile against it.
BuildRequest WorkerAndCases() {
  BuildRequest request;
  request.target = "//definitions:full_suite";
  request.what = "icount's worker and C++ cases";
  request.leave_out_uncompiled = true;
  return request;
}

// icount's source tree, to build a side's worker from: refused when it no
// longer holds the sources this tool was built from (build_sources.h).
absl::StatusOr<std::string> SourceTreeToBuild() {
  ICOUNT_ASSIGN_OR_RETURN(std::string tree, environment::IcountWorkspace());
  const absl::Status same = environment::CheckSourceTree(tree, environment::NestedBuildSources());
  if (same.ok()) return tree;
  // The tools are //tools:<executable's name> (main, ab_test, ci, timeit).
  absl::StatusOr<std::string> self = base::RealPath("/proc/self/exe");
  const std::string target =
      absl::StrCat("//tools:", self.ok() ? self->substr(self->rfind('/') + 1) : "...");
  const std::string rebuild = absl::StrCat("Build ", target, " again (./bazelw build ", target,
                                           ") and rerun, or run it as ./bazelw run ", target,
                                           " -- ..., which builds it first");
  return absl::FailedPreconditionError(absl::StrCat(
      same.message(), ": a worker built from it would not be the one this program expects. ",
      rebuild));
}

absl::StatusOr<FoundAndBuilt> FindAndBuild(const environment::EnvironmentSpec& spec,
                                           const BuildRequest& request, const std::string& tool) {
  FoundAndBuilt out;
  environment::SuiteBuildOptions options;
  ICOUNT_RETURN_IF_ERROR(CheckEnvironmentSpec(spec));
  if (spec.root.empty()) {
    ICOUNT_ASSIGN_OR_RETURN(out.install, environment::FindPyTorch(spec));
  } else {
    ICOUNT_ASSIGN_OR_RETURN(options.workspace, SourceTreeToBuild(),
                            base::WithContext(_, spec.name));
    ICOUNT_RETURN_IF_ERROR(FindInRoot(spec, tool, options, out),
                           base::WithContext(_, spec.name));
  }
  Say(tool, spec.name, environment::DescribeMeasured(out.install));
  if (request.python_statement && !out.install.python_problem.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        spec.name, ": --language=python cannot run there: ", out.install.python_problem,
        "; time a C++ statement there (--language=cpp)"));
  }
  if (out.install.kind == environment::InstallKind::kSystem) return out;
  if (options.workspace.empty()) {
    ICOUNT_ASSIGN_OR_RETURN(options.workspace, SourceTreeToBuild(),
                            base::WithContext(_, spec.name));
  }
  options.target = request.target;
  options.snippet_prelude = request.snippet_prelude;
  options.on_progress = [&](const std::string& line) {
    std::fprintf(stderr, "%s: %s: bazel: %s\n", tool.c_str(), spec.name.c_str(), line.c_str());
  };
  std::fprintf(stderr,
               "%s: %s: building %s against it (minutes the first time; Bazel reuses what is "
               "built after that)...\n",
               tool.c_str(), spec.name.c_str(), request.what.c_str());
  absl::StatusOr<environment::BuiltSuite> built =
      request.leave_out_uncompiled
          ? CompileLeavingOut(out.install, options, tool, spec.name, out.uncompiled_cases)
          : environment::BuildSuiteFor(out.install, options);
  ICOUNT_ASSIGN_OR_RETURN(out.built, std::move(built),
                          base::WithContext(_, spec.name));
  return out;
}

}  // namespace

absl::StatusOr<EnvironmentSuite> SuiteForEnvironment(const environment::EnvironmentSpec& spec,
                                                     const Suite& own_suite,
                                                     const std::string& tool) {
  ICOUNT_ASSIGN_OR_RETURN(FoundAndBuilt found, FindAndBuild(spec, WorkerAndCases(), tool));
  EnvironmentSuite out;
  out.install = std::move(found.install);
  out.launcher = std::move(found.launcher);
  out.valgrind_version = std::move(found.valgrind_version);
  out.root_in_use = std::move(found.root_in_use);
  if (found.built.bin_directory.empty()) {
    out.suite = own_suite;
    return out;
  }
  out.fingerprint = found.built.fingerprint;
  out.uncompiled_cases = std::move(found.uncompiled_cases);
  ICOUNT_ASSIGN_OR_RETURN(
      out.suite, LoadSuiteFromDirectory(found.built.bin_directory, "definitions", "full_suite"));
  std::fprintf(stderr, "%s: %s: worker %s (fingerprint %s)\n", tool.c_str(), spec.name.c_str(),
               out.suite.worker_path.c_str(), out.fingerprint.c_str());
  return out;
}

absl::StatusOr<EnvironmentTool> ToolForEnvironment(const environment::EnvironmentSpec& spec,
                                                   const std::string& own_path,
                                                   const std::string& package,
                                                   const std::string& name, const std::string& tool,
                                                   bool python_statement) {
  BuildRequest request;
  request.target = request.what = absl::StrCat("//", package, ":", name);
  request.snippet_prelude = true;  // the tool compiles C++ statements
  request.python_statement = python_statement;
  ICOUNT_ASSIGN_OR_RETURN(FoundAndBuilt found, FindAndBuild(spec, request, tool));
  EnvironmentTool out;
  out.launcher = std::move(found.launcher);
  out.root_in_use = std::move(found.root_in_use);
  const bool own = found.built.bin_directory.empty();
  out.path = own ? own_path : absl::StrCat(found.built.bin_directory, "/", package, "/", name);
  out.settings = LibTorchSettings(found.install, own ? "" : found.built.fingerprint);
  return out;
}

environment::EnvironmentSpec EnvironmentFlagsSpec(const std::string& env,
                                                  const std::string& libtorch,
                                                  const std::string& root) {
  const char* name = !root.empty()                       ? "--root"
                     : env.empty() && !libtorch.empty() ? "--libtorch"
                                                        : "--env";
  return {name, env, libtorch, "libtorch", root, "root"};
}

worker::RunnerOptions EnvironmentRunnerOptions(const EnvironmentSuite& environment,
                                               const std::string& env_command) {
  worker::RunnerOptions options;
  options.worker_path = environment.suite.worker_path;
  if (!env_command.empty()) options.command_prefix = environment::EnvironmentPrefix(env_command);
  options.launcher = environment.launcher;
  options.valgrind_version = environment.valgrind_version;
  options.python = environment.python_cases();
  options.uncompiled_cases = environment.uncompiled_cases;
  return options;
}

absl::StatusOr<EnvironmentSuite> SuiteForEnvironmentFlags(const std::string& env,
                                                          const std::string& libtorch,
                                                          const std::string& root,
                                                          const Suite& own_suite,
                                                          const std::string& tool) {
  if (env.empty() && libtorch.empty() && root.empty()) {
    EnvironmentSuite own;
    own.install = environment::SystemInstall();
    own.suite = own_suite;
    return own;
  }
  return SuiteForEnvironment(EnvironmentFlagsSpec(env, libtorch, root), own_suite, tool);
}

absl::StatusOr<std::vector<expand::SuiteCaseProto>> SelectEnvironmentCases(
    const EnvironmentSuite& environment, CaseFilter filter, const std::string& tool) {
  if (!environment.python_cases() && filter.python) {
    const std::string& why = environment.install.python_problem;
    if (!filter.cpp) {
      return absl::FailedPreconditionError(
          absl::StrCat(why, ": Python cases cannot run, and --no_cpp leaves nothing else"));
    }
    std::fprintf(stderr, "%s: %s: Python cases are skipped\n", tool.c_str(), why.c_str());
    filter.python = false;
  }
  return SelectCases(environment.suite, filter);
}

std::string ToolchainSetting(const environment::PyTorchInstall& install) {
  return absl::StrCat(install.toolchain, ", ", install.cxx_standard);
}

std::map<std::string, std::string> LibTorchSettings(const environment::PyTorchInstall& install,
                                                    const std::string& fingerprint) {
  std::map<std::string, std::string> settings;
  settings[compare::kLibTorchSetting] = environment::Describe(install);
  settings[compare::kLibTorchInstallSetting] = environment::DescribeInstall(install);
  if (!fingerprint.empty()) settings[compare::kLibTorchFingerprintSetting] = fingerprint;
  settings[compare::kToolchainSetting] = ToolchainSetting(install);
  return settings;
}

void AddLibTorchSettings(const EnvironmentSuite& environment,
                         std::map<std::string, std::string>& settings) {
  for (auto& [key, value] : LibTorchSettings(environment.install, environment.fingerprint)) {
    settings[key] = std::move(value);
  }
  // A root's valgrind counted, not the one this process finds.
  if (!environment.valgrind_version.empty() && settings.count("valgrind") > 0) {
    settings["valgrind"] = environment.valgrind_version;
  }
}

}  // namespace icount::tools
