#include "expand/generate.h"

#include <Python.h>
#include <sys/stat.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "base/files.h"
#include "base/fnv.h"
#include "expand/version.h"
#include "timer/callgrind_stats.h"
#include "timer/measurement_io.h"
#include "timer/snippet_abi.h"
#include "timer/version.h"

namespace icount::expand {
namespace {

constexpr int kManifestSchemaVersion = 1;

// A C string literal for `text`.
std::string Quote(const std::string& text) {
  return absl::StrCat(
      "\"", absl::StrReplaceAll(text, {{"\\", "\\\\"}, {"\"", "\\\""}, {"\n", "\\n"}}), "\"");
}

// "#line N "file (label, C++ TorchScript Forward)"": the compiler then
// reports errors against the definition's file and line and names the
// benchmark.
std::string LineDirective(const MaterializedBenchmark& benchmark) {
  const std::string where = absl::StrFormat(
      "%s (%s, %s %s %s)", benchmark.where.file ? benchmark.where.file : "<definitions>",
      LabelText(benchmark.label), LanguageName(benchmark.auto_labels.language),
      RuntimeModeName(benchmark.auto_labels.runtime),
      AutogradModeName(benchmark.auto_labels.autograd));
  return absl::StrCat("#line ", benchmark.where.line > 0 ? benchmark.where.line : 1, " ",
                      Quote(where));
}

std::string ArtifactPathPython(const std::string& path) {
  return absl::StrCat("r'''", path, "'''");
}

}  // namespace

SuiteManifestProto MakeManifest(const std::string& suite_name,
                                const std::vector<MaterializedBenchmark>& cases) {
  SuiteManifestProto manifest;
  manifest.set_schema_version(kManifestSchemaVersion);
  (*manifest.mutable_versions())["expand"] = kExpandVersion;
  (*manifest.mutable_versions())["timer"] = kTimerVersion;
  manifest.set_suite_name(suite_name);
  base::Fnv1a64 hash;
  for (const MaterializedBenchmark& benchmark : cases) {
    SuiteCaseProto* c = manifest.add_cases();
    c->set_key(CaseKey(benchmark));
    for (const std::string& part : benchmark.label) c->add_label(part);
    c->set_runtime(RuntimeModeName(benchmark.auto_labels.runtime));
    c->set_autograd(AutogradModeName(benchmark.auto_labels.autograd));
    TaskSpec spec;
    spec.stmt = benchmark.timer_args.stmt;
    spec.setup = benchmark.timer_args.setup;
    spec.global_setup = benchmark.timer_args.global_setup;
    spec.label = LabelText(benchmark.label);
    spec.num_threads = benchmark.num_threads;
    spec.language = benchmark.auto_labels.language;
    *c->mutable_task_spec() = TaskSpecToProto(spec);
    if (benchmark.auto_labels.language == Language::kCpp) c->set_compiled_case(c->key());
    c->set_torchscript_artifact(benchmark.timer_args.torchscript_artifact);
    c->set_min_libtorch_version(benchmark.timer_args.min_libtorch_version);
    c->set_ci_key(CiKey(benchmark));
    c->set_list_line(ListLine(benchmark));
    if (benchmark.where.file != nullptr) c->set_definition_file(benchmark.where.file);
    c->set_definition_line(benchmark.where.line);
    hash.Add(c->key());
  }
  manifest.set_checksum(hash.Hex());
  return manifest;
}

std::vector<std::string> GenerateTranslationUnits(const std::vector<MaterializedBenchmark>& cases,
                                                  int shards) {
  struct Shard {
    std::set<std::string> global_setups;
    std::string global_text;
    std::string functions;
  };
  std::vector<Shard> units(std::max(1, shards));
  int next = 0;
  for (size_t i = 0; i < cases.size(); ++i) {
    const MaterializedBenchmark& benchmark = cases[i];
    if (benchmark.auto_labels.language != Language::kCpp) continue;
    Shard& shard = units[next++ % units.size()];
    const std::string line = LineDirective(benchmark);
    const std::string& global_setup = benchmark.timer_args.global_setup;
    if (!global_setup.empty() && shard.global_setups.insert(global_setup).second) {
      absl::StrAppend(&shard.global_text, line, "\n", global_setup, "\n");
    }
    std::string setup = benchmark.timer_args.setup;
    if (!benchmark.timer_args.torchscript_artifact.empty()) {
      setup = absl::StrCat("const std::string ", kArtifactPathName,
                           " = icount::icount_artifact_path();\n", line, "\n", setup);
    }
    const std::string function = absl::StrCat("icount_case_", i);
    absl::StrAppend(&shard.functions, "\n// ", LabelText(benchmark.label), "\n",
                    SnippetFunctionSource(function, setup, benchmark.timer_args.stmt, line, line),
                    "#line 1 \"<icount generated>\"\n",
                    "const icount::CompiledCaseRegistrar icount_registrar_", i, "(",
                    Quote(CaseKey(benchmark)), ", &", function, ");\n");
  }
  std::vector<std::string> sources;
  for (size_t k = 0; k < units.size(); ++k) {
    sources.push_back(absl::StrCat(
        "// Generated by icount's suite generator (shard ", k, " of ", units.size(),
        "). Do not edit: change the definitions.\n"
        "#include <torch/script.h>\n"
        "#include <cstddef>\n#include <cstdint>\n#include <cstring>\n#include <exception>\n"
        "#include <string>\n"
        "#include \"worker/compiled_cases.h\"\n",
        units[k].global_text, "#line 1 \"<icount generated>\"\nnamespace {\n", units[k].functions,
        "}  // namespace\n"));
  }
  return sources;
}

absl::Status WriteTorchScriptArtifacts(const std::vector<TorchScriptArtifact>& artifacts,
                                       const std::string& directory) {
  if (mkdir(directory.c_str(), 0755) != 0 && errno != EEXIST) {
    return absl::PermissionDeniedError(absl::StrCat("cannot create ", directory));
  }
  if (artifacts.empty()) return absl::OkStatus();
  // torch.jit.script reads a function's source with `inspect`, so each
  // model's code is imported from a real file rather than exec()'d.
  std::string script =
      "import importlib.util, sys, torch\n"
      "def _icount_build(key, source, py_path, pt_path):\n"
      "    with open(py_path, 'w') as f:\n"
      "        f.write('import torch\\n' + source + '\\n')\n"
      "    spec = importlib.util.spec_from_file_location('icount_model_' + key, py_path)\n"
      "    module = importlib.util.module_from_spec(spec)\n"
      "    spec.loader.exec_module(module)\n"
      "    if not hasattr(module, 'model'):\n"
      "        raise RuntimeError(f'TorchScript model {key}: its source never defines `model`')\n"
      "    torch.jit.script(module.model).save(pt_path)\n";
  for (const TorchScriptArtifact& artifact : artifacts) {
    absl::StrAppend(&script, "_icount_build(", ArtifactPathPython(artifact.key), ", ",
                    ArtifactPathPython(artifact.model_source), ", ",
                    ArtifactPathPython(absl::StrCat(directory, "/", artifact.key, ".py")), ", ",
                    ArtifactPathPython(absl::StrCat(directory, "/", artifact.key, ".pt")), ")\n");
  }
  Py_InitializeEx(0);
  const int failed = PyRun_SimpleString(script.c_str());  // prints the traceback
  Py_FinalizeEx();
  for (const TorchScriptArtifact& artifact : artifacts) {
    std::remove(absl::StrCat(directory, "/", artifact.key, ".py").c_str());
  }
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
