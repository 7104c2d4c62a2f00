#include "expand/generate.h"

#include <Python.h>
#include <sys/stat.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "base/files.h"
#include "base/fnv.h"
#include "base/text.h"
#include "expand/case_sources.h"
#include "expand/libtorch_version.h"
#include "expand/version.h"
#include "timer/callgrind_stats.h"
#include "timer/measurement_io.h"
#include "timer/snippet_abi.h"
#include "timer/version.h"
#include "worker/compiled_cases.h"

namespace icount::expand {
namespace {

constexpr int kManifestSchemaVersion = 2;

// "#line N "NAME"": the compiler then reports errors against the
// definition's file and line, and names the benchmark (CaseSourceName).
std::string LineDirective(const MaterializedBenchmark& benchmark, const std::string& name) {
  return absl::StrCat("#line ", benchmark.where.line > 0 ? benchmark.where.line : 1, " ",
                      base::CppStringLiteral(name));
}

// The case as the manifest records it.
SuiteCaseProto CaseProto(const MaterializedBenchmark& benchmark) {
  SuiteCaseProto case_proto;
  SuiteCaseProto* c = &case_proto;
  c->set_key(CaseKey(benchmark));
  for (const std::string& part : benchmark.label) c->add_label(part);
  c->set_runtime(benchmark.auto_labels.runtime);
  c->set_autograd(benchmark.auto_labels.autograd);
  timer::TaskSpec spec;
  spec.stmt = benchmark.timer_args.stmt;
  spec.setup = benchmark.timer_args.setup;
  spec.global_setup = benchmark.timer_args.global_setup;
  spec.label = LabelText(benchmark.label);
  spec.num_threads = benchmark.num_threads;
  spec.language = benchmark.auto_labels.language;
  *c->mutable_task_spec() = timer::TaskSpecToProto(spec);
  if (benchmark.auto_labels.language == timer::Language::kCpp) c->set_compiled_case(c->key());
  c->set_torchscript_artifact(benchmark.timer_args.torchscript_artifact);
  c->set_min_libtorch_version(benchmark.timer_args.min_libtorch_version);
  // Materialize checked that it reads.
  if (absl::StatusOr<LibTorchVersion> min = ParseLibTorchVersion(c->min_libtorch_version());
      !c->min_libtorch_version().empty() && min.ok()) {
    c->mutable_min_libtorch()->set_major(min->major);
    c->mutable_min_libtorch()->set_minor(min->minor);
    c->mutable_min_libtorch()->set_patch(min->patch);
  }
  c->set_ci_key(CiKey(benchmark));
  c->set_list_line(ListLine(benchmark));
  if (benchmark.where.file != nullptr) c->set_definition_file(benchmark.where.file);
  c->set_definition_line(benchmark.where.line);
  return case_proto;
}

}  // namespace

SuiteManifestProto MakeManifest(const std::string& suite_name,
                                const std::vector<MaterializedBenchmark>& cases) {
  SuiteManifestProto manifest;
  manifest.set_schema_version(kManifestSchemaVersion);
  (*manifest.mutable_versions())["expand"] = kExpandVersion;
  (*manifest.mutable_versions())["timer"] = timer::kTimerVersion;
  manifest.set_suite_name(suite_name);
  base::Fnv1a64 hash;
  for (const MaterializedBenchmark& benchmark : cases) {
    *manifest.add_cases() = CaseProto(benchmark);
    hash.Add(CaseKey(benchmark));
  }
  manifest.set_checksum(hash.Hex());
  return manifest;
}

namespace {

// A global setup is written once per unit, for every case there that
// shares it, and compiled unless all of them are left out.
struct GlobalSetup {
  std::string line;  // naming its first case's GlobalSetupSourceName
  std::vector<std::string> macros;
};

// One translation unit's global setups (in order of first use) and case
// functions.
struct Shard {
  std::vector<std::string> global_order;
  std::map<std::string, GlobalSetup> global_setups;
  std::string functions;
};

// C++ case `benchmark`, the `i`th case of the suite, added to `shard`: its
// global setup and its function with the registrar that names it.
void AddCase(const MaterializedBenchmark& benchmark, size_t i, Shard& shard) {
  const SuiteCaseProto c = CaseProto(benchmark);
  const std::string macro = LeaveOutMacro(c.key());
  const std::string line = LineDirective(benchmark, CaseSourceName(c));
  const std::string& global_setup = benchmark.timer_args.global_setup;
  if (!global_setup.empty()) {
    auto [it, first] = shard.global_setups.try_emplace(global_setup);
    if (first) {
      shard.global_order.push_back(global_setup);
      it->second.line = LineDirective(benchmark, GlobalSetupSourceName(c));
    }
    it->second.macros.push_back(macro);
  }
  std::string setup = benchmark.timer_args.setup;
  if (!benchmark.timer_args.torchscript_artifact.empty()) {
    setup = absl::StrCat(
        timer::ArtifactPathDefinition(/*cpp=*/true, worker::kArtifactPathCall),
        line, "\n", setup);
  }
  const std::string function = absl::StrCat("icount_case_", i);
  absl::StrAppend(
      &shard.functions, "\n// ", LabelText(benchmark.label), "\n#ifndef ", macro, "\n",
      timer::SnippetFunctionSource(function, setup, benchmark.timer_args.stmt, line, line),
      "#line 1 \"<icount generated>\"\n",
      "const ", worker::kCompiledCaseRegistrar, " icount_registrar_", i, "(",
      base::CppStringLiteral(c.key()), ", &", function, ");\n#endif\n");
}

// The source of `unit`, shard `k` of `shards`.
std::string ShardSource(const Shard& unit, size_t k, size_t shards) {
  std::string global_text;
  for (const std::string& text : unit.global_order) {
    const GlobalSetup& global = unit.global_setups.at(text);
    absl::StrAppend(&global_text, "#if !defined(",
                    absl::StrJoin(global.macros, ") || !defined("), ")\n", global.line, "\n",
                    text, "\n#endif\n");
  }
  return absl::StrCat(
      "// Generated by icount's suite generator (shard ", k, " of ", shards,
      "). Do not edit: change the definitions.\n"
      "// A case whose ICOUNT_LEAVE_OUT_ macro is defined is left out (expand/case_sources.h).\n"
      "#include <torch/script.h>\n"
      "#include <cstddef>\n#include <cstdint>\n#include <cstring>\n#include <exception>\n"
      "#include <string>\n"
      "#include \"",
      worker::kCompiledCasesHeader, "\"\n",
      global_text, "#line 1 \"<icount generated>\"\nnamespace {\n", unit.functions,
      "}  // namespace\n");
}

}  // namespace

std::vector<std::string> GenerateTranslationUnits(const std::vector<MaterializedBenchmark>& cases,
                                                  int shards) {
  std::vector<Shard> units(std::max(1, shards));
  int next = 0;
  for (size_t i = 0; i < cases.size(); ++i) {
    const MaterializedBenchmark& benchmark = cases[i];
    if (benchmark.auto_labels.language != timer::Language::kCpp) continue;
    AddCase(benchmark, i, units[next++ % units.size()]);
  }
  std::vector<std::string> sources;
  for (size_t k = 0; k < units.size(); ++k) {
    sources.push_back(ShardSource(units[k], k, units.size()));
  }
  return sources;
}

absl::Status WriteTorchScriptArtifacts(const std::vector<TorchScriptArtifact>& artifacts,
                                       const std::string& directory) {
  if (mkdir(directory.c_str(), 0755) != 0 && errno != EEXIST) {
    return absl::PermissionDeniedError(absl::StrCat("cannot create ", directory));
  }
  if (artifacts.empty()) return absl::OkStatus();
  // torch.jit.script reads a model's source with `inspect`, which finds it
  // in linecache under a name of the artifact's own: TorchScript keeps that
  // name in the artifact (its debug information), and a file's absolute
  // path (Bazel's sandbox, numbered per action) made every build's
  // artifacts differ. Parameters are drawn from one seed, and the hash seed
  // is fixed (PYTHONHASHSEED below), which orders a module's constants: the
  // same model gives the same bytes in every build.
  // TorchImportPrelude: scripted by the torch of the LibTorch the suite's
  // worker is built against, where it has one.
  std::string script =
      timer::TorchImportPrelude() +
      "import linecache, sys, types, torch\n"
      "def _icount_build(key, source, pt_path):\n"
      "    name = 'icount_models/' + key + '.py'\n"
      "    text = 'import torch\\n' + source + '\\n'\n"
      "    linecache.cache[name] = (len(text), None, text.splitlines(True), name)\n"
      "    module = types.ModuleType('icount_model_' + key)\n"
      "    module.__file__ = name\n"
      "    sys.modules[module.__name__] = module\n"
      "    torch.manual_seed(0)\n"
      "    exec(compile(text, name, 'exec'), module.__dict__)\n"
      "    if not hasattr(module, 'model'):\n"
      "        raise RuntimeError(f'TorchScript model {key}: its source never defines `model`')\n"
      "    torch.jit.script(module.model).save(pt_path)\n";
  for (const TorchScriptArtifact& artifact : artifacts) {
    absl::StrAppend(&script, "_icount_build(", base::PythonRawLiteral(artifact.key), ", ",
                    base::PythonRawLiteral(artifact.model_source), ", ",
                    base::PythonRawLiteral(absl::StrCat(directory, "/", artifact.key, ".pt")),
                    ")\n");
  }
  setenv("PYTHONHASHSEED", "0", 1);
  Py_InitializeEx(0);
  const int failed = PyRun_SimpleString(script.c_str());  // prints the traceback
  Py_FinalizeEx();
  if (failed != 0) {
    return absl::InvalidArgumentError(
        "scripting a TorchScript model failed (Python traceback above)");
  }
  return absl::OkStatus();
}

int GeneratorMain(int argc, char** argv, const std::string& suite_name,
                  const std::function<BenchmarkTree()>& suite) {
  std::string manifest_path;
  std::string artifacts_directory;
  std::vector<std::string> units;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (absl::StartsWith(arg, "--manifest=")) {
      manifest_path = arg.substr(11);
    } else if (absl::StartsWith(arg, "--artifacts=")) {
      artifacts_directory = arg.substr(12);
    } else if (absl::StartsWith(arg, "--tu=")) {
      units.push_back(arg.substr(5));
    } else {
      std::fprintf(stderr, "suite generator: unknown argument %s\n", arg.c_str());
      return 1;
    }
  }
  if (manifest_path.empty() || artifacts_directory.empty() || units.empty()) {
    std::fprintf(stderr, "usage: %s --manifest=FILE --artifacts=DIR --tu=FILE.cc [--tu=...]\n",
                 argv[0]);
    return 1;
  }
  absl::StatusOr<std::vector<MaterializedBenchmark>> cases = Materialize(suite());
  if (!cases.ok()) {
    std::fprintf(stderr, "suite %s: %s\n", suite_name.c_str(),
                 std::string(cases.status().message()).c_str());
    return 1;
  }
  const std::vector<std::string> sources =
      GenerateTranslationUnits(*cases, static_cast<int>(units.size()));
  for (size_t k = 0; k < units.size(); ++k) {
    if (absl::Status status = base::WriteFileAtomically(units[k], sources[k]); !status.ok()) {
      std::fprintf(stderr, "%s\n", std::string(status.message()).c_str());
      return 1;
    }
  }
  if (absl::Status status =
          WriteTorchScriptArtifacts(TorchScriptArtifacts(*cases), artifacts_directory);
      !status.ok()) {
    std::fprintf(stderr, "suite %s: %s\n", suite_name.c_str(),
                 std::string(status.message()).c_str());
    return 1;
  }
  if (absl::Status status = base::WriteFileAtomically(
          manifest_path, MakeManifest(suite_name, *cases).SerializeAsString());
      !status.ok()) {
    std::fprintf(stderr, "%s\n", std::string(status.message()).c_str());
    return 1;
  }
  return 0;
}

}  // namespace icount::expand
