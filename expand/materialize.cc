#include "expand/materialize.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "base/fnv.h"
#include "base/text.h"
#include "expand/case_modes.h"
#include "expand/libtorch_version.h"
#include "expand/signature.h"
#include "expand/text.h"
#include "expand/variants.h"
#include "re2/re2.h"

namespace icount::expand {
namespace {

using Label = std::vector<std::string>;

// A definition with its full label, after GroupedVariants are expanded.
struct FlatEntry {
  Label label;
  std::variant<TimerArgs, GroupedStmts, GroupedModules> definition;
  SourceLocation where;
};

absl::Status EntryError(const Label& label, const SourceLocation& where, absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat(label.empty() ? std::string("(no label)") : LabelText(label), " (", where.file,
                   ":", where.line, "): ", what));
}

absl::Status Flatten(const BenchmarkTree& tree, const Label& prefix,
                     absl::flat_hash_set<Label>& seen, std::vector<FlatEntry>& out) {
  for (const BenchmarkTree::Entry& entry : tree.entries()) {
    Label label = prefix;
    for (const std::string& part : entry.key.parts()) {
      if (part.empty()) {
        return EntryError(label, entry.where,
                          "a label part is the empty string (use LabelKey{} for no part)");
      }
      label.push_back(part);
    }

    auto add = [&](Label full, std::variant<TimerArgs, GroupedStmts, GroupedModules> definition,
                   const SourceLocation& where) -> absl::Status {
      if (full.empty()) {
        return EntryError(full, where, "a benchmark needs a label");
      }
      if (!seen.insert(full).second) {
        return EntryError(full, where, "this label is defined twice");
      }
      out.push_back(FlatEntry{std::move(full), std::move(definition), where});
      return absl::OkStatus();
    };

    absl::Status status = std::visit(
        [&](const auto& value) -> absl::Status {
          using T = std::decay_t<decltype(value)>;
          if constexpr (std::is_same_v<T, BenchmarkTree>) {
            return Flatten(value, label, seen, out);
          } else if constexpr (std::is_same_v<T, GroupedVariants>) {
            absl::StatusOr<std::vector<Variant>> variants = ExpandVariants(value);
            if (!variants.ok()) return EntryError(label, value.where, variants.status().message());
            for (Variant& variant : *variants) {
              Label full = label;
              full.insert(full.end(), variant.label.begin(), variant.label.end());
              absl::Status added = add(std::move(full), std::move(variant.stmts), value.where);
              if (!added.ok()) return added;
            }
            return absl::OkStatus();
          } else if constexpr (std::is_same_v<T, TimerArgs>) {
            return add(label, value, entry.where);
          } else {
            return add(label, value, value.where);
          }
        },
        entry.value);
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

// Python: a top-level `model = ...`, `model: T = ...` or `def model(`.
bool DefinesPythonModel(const std::string& code) {
  static const RE2* const kDefinition =
      new RE2(R"((?m)^(?:model\s*(?::[^=\n]*)?=(?:[^=]|$)|def\s+model\s*\())");
  return RE2::PartialMatch(code, *kDefinition);
}

// C++: a declaration of `model` with an initializer, at the start of a
// statement: `auto model = ...`, `torch::nn::Linear model(4, 2)`,
// `std::shared_ptr<Net> model{...}`, `auto& model = ...`. A textual check:
// it looks at statements split at ';' and line ends, which is enough for
// definitions written one declaration per statement (a declaration after a
// '{' is in a block and would not be visible to the statement anyway).
bool DefinesCppModel(const std::string& code) {
  // [const] Type [&*] model followed by `=`, `(` or `{`.
  static const RE2* const kDeclaration =
      new RE2(R"(^\s*(?:const\s+)?([A-Za-z_][\w:]*(?:<[^{}]*>)?))"
              R"((?:\s+|\s*[&*]+\s*)model\s*(?:=(?:[^=]|$)|\(|\{))");
  static const auto* const kNotTypes = new absl::flat_hash_set<std::string>{
      "return", "else", "do", "case", "throw", "co_return", "co_yield", "goto", "delete", "new"};
  for (absl::string_view line : absl::StrSplit(code, '\n')) {
    for (absl::string_view statement : absl::StrSplit(line, ';')) {
      std::string type;
      if (RE2::PartialMatch(re2::StringPiece(statement.data(), statement.size()), *kDeclaration,
                            &type) &&
          !kNotTypes->contains(type)) {
        return true;
      }
    }
  }
  return false;
}

// A grouped definition reduced to what generation needs, validated.
struct Grouped {
  std::string py_stmt, cpp_stmt;    // eager statements; "" = no case
  std::string py_setup, cpp_setup;  // the definition's setup
  std::string py_model_setup, cpp_model_setup;
  std::string global_setup;
  std::optional<Signature> signature;
  bool torchscript = false;
  bool autograd = false;
  std::vector<int> num_threads;
  std::string min_libtorch_version;
  std::string model_source;  // set when torchscript
};

absl::Status CheckMinLibTorchVersion(const std::string& version) {
  if (version.empty()) return absl::OkStatus();
  absl::StatusOr<LibTorchVersion> parsed = ParseLibTorchVersion(version);
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("min_libtorch_version: ", parsed.status().message()));
  }
  return absl::OkStatus();
}

absl::Status CheckCommon(Grouped& g, absl::string_view signature) {
  if (!signature.empty()) {
    absl::StatusOr<Signature> parsed = ParseSignature(signature);
    if (!parsed.ok()) return parsed.status();
    g.signature = *std::move(parsed);
  }
  if (g.torchscript && !g.signature.has_value()) {
    return absl::InvalidArgumentError(
        "torchscript=true needs a signature (e.g. \"f(x) -> y\"): it says what to pass to the "
        "scripted model and what to call its result");
  }
  if (g.autograd && !g.signature.has_value()) {
    return absl::InvalidArgumentError(
        "autograd=true needs a signature (e.g. \"f(x) -> y\") naming the output to call "
        "backward() on");
  }
  if (g.autograd && !g.signature->output.has_value()) {
    return absl::InvalidArgumentError(
        absl::StrCat("autograd=true needs an output to call backward() on, but the signature \"",
                     g.signature->ToString(), "\" returns None"));
  }
  if (g.num_threads.empty()) {
    return absl::InvalidArgumentError("num_threads is empty; give at least one thread count");
  }
  for (int n : g.num_threads) {
    if (n < 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("num_threads has ", n, "; it must be at least 1"));
    }
  }
  return CheckMinLibTorchVersion(g.min_libtorch_version);
}

// The fields GroupedStmts and GroupedModules share: setup code (normalised),
// variant switches and thread counts.
template <typename Definition>
Grouped WithCommonFields(const Definition& definition) {
  Grouped g;
  g.py_setup = base::NormalizeSnippet(definition.setup.py_setup);
  g.cpp_setup = base::NormalizeSnippet(definition.setup.cpp_setup);
  g.global_setup = base::NormalizeSnippet(definition.setup.global_setup);
  g.torchscript = definition.torchscript;
  g.autograd = definition.autograd;
  g.num_threads = definition.num_threads;
  g.min_libtorch_version = definition.min_libtorch_version;
  return g;
}

absl::StatusOr<Grouped> FromStmts(const GroupedStmts& stmts) {
  Grouped g = WithCommonFields(stmts);
  g.py_stmt = base::NormalizeSnippet(stmts.py_stmt);
  g.cpp_stmt = base::NormalizeSnippet(stmts.cpp_stmt);
  if (g.py_stmt.empty() && g.cpp_stmt.empty()) {
    return absl::InvalidArgumentError("GroupedStmts has neither a py_stmt nor a cpp_stmt");
  }
  absl::Status status = CheckCommon(g, stmts.signature);
  if (!status.ok()) return status;
  if (g.torchscript) {
    if (g.py_stmt.empty()) {
      return absl::InvalidArgumentError(
          "torchscript=true scripts the Python statement into a function, but py_stmt is empty");
    }
    // The statement becomes the body of a function of the signature's
    // arguments, returning its output.
    g.model_source =
        absl::StrCat("def model(", g.signature->ArgList(), "):\n", base::Indent(g.py_stmt, "    "));
    if (g.signature->output.has_value()) {
      absl::StrAppend(&g.model_source, "\n    return ", *g.signature->output);
    }
  }
  return g;
}

absl::StatusOr<Grouped> FromModules(const GroupedModules& modules) {
  Grouped g = WithCommonFields(modules);
  g.py_model_setup = base::NormalizeSnippet(modules.py_model_setup);
  g.cpp_model_setup = base::NormalizeSnippet(modules.cpp_model_setup);
  if (modules.signature.empty()) {
    return absl::InvalidArgumentError(
        "GroupedModules needs a signature (e.g. \"f(x) -> y\") to call the model with");
  }
  absl::Status status = CheckCommon(g, modules.signature);
  if (!status.ok()) return status;
  if (g.py_model_setup.empty() && g.cpp_model_setup.empty()) {
    return absl::InvalidArgumentError(
        "GroupedModules has neither a py_model_setup nor a cpp_model_setup");
  }
  if (!g.py_model_setup.empty() && !DefinesPythonModel(g.py_model_setup)) {
    return absl::InvalidArgumentError(
        "py_model_setup never defines `model` (expected a top-level `model = ...` or "
        "`def model(...)`)");
  }
  if (!g.cpp_model_setup.empty() && !DefinesCppModel(g.cpp_model_setup)) {
    return absl::InvalidArgumentError(
        "cpp_model_setup never defines `model` (expected a declaration such as "
        "`auto model = ...;` or `torch::nn::Linear model(4, 2);`)");
  }
  if (g.torchscript && g.py_model_setup.empty()) {
    return absl::InvalidArgumentError(
        "torchscript=true scripts the Python model, but py_model_setup is empty");
  }

  const Signature& sig = *g.signature;
  const std::string py_prefix = sig.output.has_value() ? absl::StrCat(*sig.output, " = ") : "";
  const std::string cpp_prefix =
      sig.output.has_value() ? absl::StrCat("auto ", *sig.output, " = ") : "";
  // Python calls the module (__call__, hooks included: what users do); C++
  // has no __call__ and calls forward() on the ModuleHolder.
  if (!g.py_model_setup.empty()) {
    g.py_stmt = absl::StrCat(py_prefix, "model(", sig.ArgList(), ")");
  }
  if (!g.cpp_model_setup.empty()) {
    g.cpp_stmt = absl::StrCat(cpp_prefix, "model->forward(", sig.ArgList(), ");");
  }
  if (g.torchscript) {
    // The model is built after the setup, as in the eager case, so it may
    // use setup variables and sees the same RNG state.
    g.model_source = internal::JoinBlocks({g.py_setup, g.py_model_setup});
  }
  return g;
}

std::string JitStmt(const Signature& sig, timer::Language language) {
  if (language == timer::Language::kPython) {
    return absl::StrCat(sig.output.has_value() ? absl::StrCat(*sig.output, " = ") : "",
                        "jit_model(", sig.ArgList(), ")");
  }
  std::string inputs = "std::vector<torch::jit::IValue> ivalue_inputs;";
  if (!sig.args.empty()) {
    std::vector<std::string> ivalues;
    for (const std::string& arg : sig.args) {
      ivalues.push_back(absl::StrCat("torch::jit::IValue(", arg, ")"));
    }
    inputs = absl::StrCat("std::vector<torch::jit::IValue> ivalue_inputs({",
                          absl::StrJoin(ivalues, ", "), "});");
  }
  return absl::StrCat(inputs, "\n",
                      sig.output.has_value() ? absl::StrCat("auto ", *sig.output, " = ") : "",
                      "jit_model.forward(ivalue_inputs);");
}

std::string JitSetup(const std::string& setup, const std::string& stmt, timer::Language language) {
  // The first calls of a TorchScript model profile and optimise its graph;
  // warming up in setup keeps that out of the measurement.
  if (language == timer::Language::kPython) {
    return internal::JoinBlocks(
        {setup, absl::StrCat("jit_model = torch.jit.load(", timer::kArtifactPathName, ")\n",
                             "\n"
                             "# Warm up: the first calls profile and optimise the graph.\n"
                             "for _ in range(3):\n",
                             base::Indent(stmt, "    "))});
  }
  return internal::JoinBlocks(
      {setup, absl::StrCat("auto jit_model = torch::jit::load(", timer::kArtifactPathName, ");\n",
                           "\n"
                           "// Warm up: the first calls profile and optimise the graph.\n"
                           "for (int i = 0; i < 3; i++) {\n",
                           base::Indent(stmt, "    "), "\n}")});
}

constexpr char kJitIncludes[] =
    "#include <string>\n"
    "#include <vector>\n"
    "#include <torch/script.h>";

void Expand(const FlatEntry& entry, const Grouped& g, const std::string& artifact,
            std::vector<MaterializedBenchmark>& out) {
  for (Runtime runtime : {RUNTIME_EAGER, RUNTIME_TORCHSCRIPT}) {
    if (runtime == RUNTIME_TORCHSCRIPT && !g.torchscript) continue;
    for (Autograd autograd : {AUTOGRAD_FORWARD, AUTOGRAD_FORWARD_BACKWARD}) {
      if (autograd == AUTOGRAD_FORWARD_BACKWARD && !g.autograd) continue;
      for (timer::Language language : {timer::Language::kPython, timer::Language::kCpp}) {
        const bool python = language == timer::Language::kPython;
        const std::string& eager_stmt = python ? g.py_stmt : g.cpp_stmt;
        if (eager_stmt.empty()) continue;

        const bool jit = runtime == RUNTIME_TORCHSCRIPT;
        std::string stmt = jit ? JitStmt(*g.signature, language) : eager_stmt;
        if (autograd == AUTOGRAD_FORWARD_BACKWARD) {
          const std::string& y = *g.signature->output;
          // A TorchScript model returns an IValue in C++.
          absl::StrAppend(&stmt, "\n", y, jit && !python ? ".toTensor()" : "", ".backward()",
                          python ? "" : ";");
        }

        const std::string& setup = python ? g.py_setup : g.cpp_setup;
        const std::string& model_setup = python ? g.py_model_setup : g.cpp_model_setup;
        TimerArgs args;
        args.stmt = stmt;
        args.setup =
            jit ? JitSetup(setup, stmt, language) : internal::JoinBlocks({setup, model_setup});
        if (!python) {
          args.global_setup =
              jit ? internal::JoinBlocks({kJitIncludes, g.global_setup}) : g.global_setup;
        }
        args.language = language;
        args.min_libtorch_version = g.min_libtorch_version;
        if (jit) {
          args.torchscript_artifact = artifact;
          args.torchscript_model_source = g.model_source;
        }
        for (int threads : g.num_threads) {
          MaterializedBenchmark benchmark;
          benchmark.label = entry.label;
          benchmark.auto_labels = AutoLabels{runtime, autograd, language};
          benchmark.num_threads = threads;
          benchmark.timer_args = args;
          benchmark.timer_args.num_threads = threads;
          benchmark.where = entry.where;
          out.push_back(std::move(benchmark));
        }
      }
    }
  }
}

absl::Status CheckExplicit(const TimerArgs& args) {
  if (args.stmt.empty()) return absl::InvalidArgumentError("TimerArgs has an empty stmt");
  if (args.num_threads < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("TimerArgs has num_threads ", args.num_threads, "; it must be at least 1"));
  }
  if (args.language == timer::Language::kPython && !args.global_setup.empty()) {
    return absl::InvalidArgumentError(
        "TimerArgs: global_setup is C++ only (code at namespace scope); put Python imports in "
        "setup");
  }
  if (args.torchscript_artifact.empty() != args.torchscript_model_source.empty()) {
    return absl::InvalidArgumentError(
        "TimerArgs: torchscript_artifact and torchscript_model_source go together");
  }
  static const RE2* const kKey = new RE2(R"([A-Za-z0-9_.-]+)");
  if (!args.torchscript_artifact.empty() && !RE2::FullMatch(args.torchscript_artifact, *kKey)) {
    return absl::InvalidArgumentError(
        absl::StrCat("TimerArgs: torchscript_artifact \"", args.torchscript_artifact,
                     "\" must be a file name stem of letters, digits, '_', '.' and '-'"));
  }
  return CheckMinLibTorchVersion(args.min_libtorch_version);
}

// "Pointwise", "Math", "add" -> "pointwise_math_add": readable in file
// names and build logs.
std::string SanitizedKey(const Label& label) {
  std::string key;
  bool pending_underscore = false;
  for (const std::string& part : label) {
    for (char c : absl::StrCat(part, " ")) {
      unsigned char u = static_cast<unsigned char>(c);
      if (absl::ascii_isalnum(u) && u < 0x80) {
        if (pending_underscore && !key.empty()) key += '_';
        pending_underscore = false;
        key += absl::ascii_tolower(u);
      } else {
        pending_underscore = true;
      }
    }
  }
  return key.empty() ? "model" : key;
}

// A stable (platform- and run-independent) 32-bit hash of a label.
uint32_t LabelHash(const Label& label) {
  base::Fnv1a32 hash;
  for (const std::string& part : label) hash.Add(part, '\0');
  return hash.value();
}

// Checks each entry's definition and groups it (`grouped[i]`; nullopt for
// explicit TimerArgs), counting the entries with TorchScript per artifact
// key in `key_uses`.
absl::Status CheckAndGroup(const std::vector<FlatEntry>& entries,
                           std::vector<std::optional<Grouped>>& grouped,
                           absl::flat_hash_map<std::string, int>& key_uses) {
  for (size_t i = 0; i < entries.size(); ++i) {
    const FlatEntry& entry = entries[i];
    absl::Status status = std::visit(
        [&](const auto& definition) -> absl::Status {
          using T = std::decay_t<decltype(definition)>;
          if constexpr (std::is_same_v<T, TimerArgs>) {
            return CheckExplicit(definition);
          } else {
            absl::StatusOr<Grouped> g;
            if constexpr (std::is_same_v<T, GroupedStmts>) {
              g = FromStmts(definition);
            } else {
              g = FromModules(definition);
            }
            if (!g.ok()) return g.status();
            grouped[i] = *std::move(g);
            return absl::OkStatus();
          }
        },
        entry.definition);
    if (!status.ok()) return EntryError(entry.label, entry.where, status.message());
    if (grouped[i].has_value() && grouped[i]->torchscript) ++key_uses[SanitizedKey(entry.label)];
  }
  return absl::OkStatus();
}

// `entry`'s cases, appended to `out`: an explicit TimerArgs as it is, a
// grouped definition expanded.
void AppendCases(const FlatEntry& entry, const std::optional<Grouped>& grouped,
                 absl::flat_hash_map<std::string, int>& key_uses,
                 std::vector<MaterializedBenchmark>& out) {
  if (!grouped.has_value()) {
    MaterializedBenchmark benchmark;
    benchmark.label = entry.label;
    benchmark.timer_args = std::get<TimerArgs>(entry.definition);
    benchmark.auto_labels =
        AutoLabels{RUNTIME_EXPLICIT, AUTOGRAD_EXPLICIT, benchmark.timer_args.language};
    benchmark.num_threads = benchmark.timer_args.num_threads;
    benchmark.where = entry.where;
    out.push_back(std::move(benchmark));
  } else {
    std::string artifact;
    if (grouped->torchscript) {
      // Labels that sanitise alike ("a-b" and "a b") all get a hash of
      // their exact label, so no key depends on the order of definitions.
      artifact = SanitizedKey(entry.label);
      if (key_uses[artifact] > 1) absl::StrAppendFormat(&artifact, "_%08x", LabelHash(entry.label));
    }
    Expand(entry, *grouped, artifact, out);
  }
}

// The TorchScript artifacts of `entry`'s cases (`out` from `first` on)
// against `sources` (key -> source, label): one key, one model.
absl::Status CheckArtifactSources(
    const FlatEntry& entry, const std::vector<MaterializedBenchmark>& out, size_t first,
    absl::flat_hash_map<std::string, std::pair<std::string, Label>>& sources) {
  for (size_t k = first; k < out.size(); ++k) {
    const TimerArgs& args = out[k].timer_args;
    if (args.torchscript_artifact.empty()) continue;
    auto [it, inserted] =
        sources.try_emplace(args.torchscript_artifact, args.torchscript_model_source, entry.label);
    if (!inserted && it->second.first != args.torchscript_model_source) {
      return EntryError(entry.label, entry.where,
                        absl::StrCat("TorchScript artifact \"", args.torchscript_artifact,
                                     "\" is also used, with a different model, by \"",
                                     LabelText(it->second.second), "\""));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<MaterializedBenchmark>> Materialize(const BenchmarkTree& tree) {
  std::vector<FlatEntry> entries;
  absl::flat_hash_set<Label> seen;
  absl::Status flattened = Flatten(tree, {}, seen, entries);
  if (!flattened.ok()) return flattened;

  // Validate everything first, so that artifact keys are known before cases
  // are generated.
  std::vector<std::optional<Grouped>> grouped(entries.size());
  absl::flat_hash_map<std::string, int> key_uses;
  absl::Status checked = CheckAndGroup(entries, grouped, key_uses);
  if (!checked.ok()) return checked;

  std::vector<MaterializedBenchmark> out;
  absl::flat_hash_map<std::string, std::pair<std::string, Label>> sources;  // key -> source, label
  for (size_t i = 0; i < entries.size(); ++i) {
    const size_t first = out.size();
    AppendCases(entries[i], grouped[i], key_uses, out);
    absl::Status sourced = CheckArtifactSources(entries[i], out, first, sources);
    if (!sourced.ok()) return sourced;
  }
  return out;
}

std::string LabelText(const std::vector<std::string>& label) { return absl::StrJoin(label, " / "); }

std::string CaseKey(const MaterializedBenchmark& benchmark) {
  std::vector<std::string> parts;
  for (const std::string& part : benchmark.label) {
    std::string escaped;
    for (char c : part) {
      if (c == '\\' || c == '/' || c == '|') escaped += '\\';
      escaped += c;
    }
    parts.push_back(std::move(escaped));
  }
  return absl::StrCat(
      absl::StrJoin(parts, "/"), "|", RuntimeKeyName(benchmark.auto_labels.runtime), "|",
      AutogradKeyName(benchmark.auto_labels.autograd), "|",
      timer::LanguageName(benchmark.auto_labels.language), "|", benchmark.num_threads);
}

std::string CiKey(const MaterializedBenchmark& benchmark) {
  std::vector<std::string> label;
  for (const std::string& part : benchmark.label) label.push_back(base::PythonJsonString(part));
  const AutoLabels& a = benchmark.auto_labels;
  const char* runtime = RuntimeText(a.runtime);
  const char* autograd = AutogradText(a.autograd);
  return absl::StrCat("{\"label\": [", absl::StrJoin(label, ", "),
                      "], \"autolabels\": {\"runtime\": ", base::PythonJsonString(runtime),
                      ", \"autograd\": ", base::PythonJsonString(autograd),
                      ", \"language\": ", base::PythonJsonString(timer::LanguageName(a.language)),
                      "}, \"num_threads\": ", benchmark.num_threads, "}");
}

std::string ListLine(const MaterializedBenchmark& benchmark) {
  return absl::StrCat(LabelText(benchmark.label), " | ",
                      RuntimeName(benchmark.auto_labels.runtime), " | ",
                      AutogradName(benchmark.auto_labels.autograd), " | ",
                      timer::LanguageName(benchmark.auto_labels.language), " | ",
                      base::CountOf(benchmark.num_threads, "thread"));
}

std::vector<TorchScriptArtifact> TorchScriptArtifacts(
    const std::vector<MaterializedBenchmark>& benchmarks) {
  std::vector<TorchScriptArtifact> out;
  absl::flat_hash_set<std::string> seen;
  for (const MaterializedBenchmark& benchmark : benchmarks) {
    const TimerArgs& args = benchmark.timer_args;
    if (args.torchscript_artifact.empty() || !seen.insert(args.torchscript_artifact).second) {
      continue;
    }
    out.push_back(TorchScriptArtifact{args.torchscript_artifact, args.torchscript_model_source});
  }
  return out;
}

}  // namespace icount::expand
