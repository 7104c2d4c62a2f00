#include "fuzzer/fuzzer.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Context.h>
#include <ATen/core/Generator.h>

#include <cstdint>
#include <exception>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "fuzzer/internal/random_state.h"
#include "fuzzer/parameter.h"
#include "fuzzer/tensor.h"
#include "fuzzer/value.h"

namespace icount::fuzzer {
namespace internal {

struct FuzzerSpec {
  std::vector<FuzzedParameter> parameters;
  std::vector<TensorSpec> tensors;
  std::vector<Constraint> constraints;
  int64_t seed;
  std::map<std::string, size_t, std::less<>> parameter_index;
};

struct FuzzerCounters {
  int64_t generated = 0;
  int64_t rejected = 0;
};

}  // namespace internal

namespace {

using fuzzer::internal::FuzzerCounters;
using fuzzer::internal::FuzzerSpec;
using fuzzer::internal::RandomState;

// Every parameter name a tensor refers to, with what it is used for.
std::vector<std::pair<std::string, std::string>> TensorReferences(const TensorSpec& spec) {
  std::vector<std::pair<std::string, std::string>> refs;
  auto add_entries = [&refs](const std::vector<SizeEntry>& entries, const char* what) {
    for (size_t i = 0; i < entries.size(); ++i) {
      if (const auto* name = std::get_if<std::string>(&entries[i])) {
        refs.emplace_back(*name, absl::StrCat(what, "[", i, "]"));
      }
    }
  };
  if (const auto* dense = std::get_if<FuzzedTensor>(&spec)) {
    add_entries(dense->size, "size");
    add_entries(dense->steps, "steps");
    if (dense->dim_parameter) refs.emplace_back(*dense->dim_parameter, "dim_parameter");
  } else {
    const auto& sparse = std::get<FuzzedSparseTensor>(spec);
    add_entries(sparse.size, "size");
    if (sparse.dim_parameter) refs.emplace_back(*sparse.dim_parameter, "dim_parameter");
    if (sparse.sparse_dim) refs.emplace_back(*sparse.sparse_dim, "sparse_dim");
    refs.emplace_back(sparse.density, "density");
    refs.emplace_back(sparse.coalesced, "coalesced");
  }
  return refs;
}

absl::Status ValidateTensorOptions(const TensorSpec& spec) {
  const std::string& name = TensorSpecName(spec);
  at::ScalarType dtype;
  bool cuda;
  if (const auto* dense = std::get_if<FuzzedTensor>(&spec)) {
    dtype = dense->dtype;
    cuda = dense->cuda;
    if (!(dense->probability_contiguous >= 0 && dense->probability_contiguous <= 1)) {
      return absl::InvalidArgumentError(
          absl::StrCat("tensor '", name, "': probability_contiguous must be in [0, 1], got ",
                       FormatDouble(dense->probability_contiguous)));
    }
    if (dtype == at::kBool && !dense->tensor_constructor) {
      return absl::InvalidArgumentError(
          absl::StrCat("tensor '", name,
                       "': dtype torch.bool needs a tensor_constructor; the default one calls "
                       "torch.randint(1, 127), which bool cannot hold"));
    }
  } else {
    const auto& sparse = std::get<FuzzedSparseTensor>(spec);
    dtype = sparse.dtype;
    cuda = sparse.cuda;
    if (at::isComplexType(dtype) || dtype == at::kBool) {
      return absl::InvalidArgumentError(
          absl::StrCat("tensor '", name, "': sparse tensors of dtype ", DtypeName(dtype),
                       " are not supported: the reference fills non-floating dtypes with "
                       "torch.randint(1, 127), which ",
                       DtypeName(dtype), " does not support"));
    }
  }
  if (absl::StatusOr<int64_t> size = ReferenceDtypeSize(dtype); !size.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("tensor '", name, "': ", size.status().message()));
  }
  if (cuda && !at::hasCUDA()) {
    return absl::FailedPreconditionError(
        absl::StrCat("tensor '", name, "': cuda=true, but this LibTorch has no CUDA support"));
  }
  return absl::OkStatus();
}

// Depth-first search for a cycle among aliases that can actually be drawn
// (probability > 0). Returns the cycle as "a -> b -> a", or "".
std::string FindAliasCycle(const std::vector<FuzzedParameter>& parameters,
                           const std::map<std::string, size_t, std::less<>>& index) {
  std::vector<std::vector<size_t>> edges(parameters.size());
  for (size_t i = 0; i < parameters.size(); ++i) {
    for (const WeightedOutcome& o : parameters[i].outcomes()) {
      const auto* alias = std::get_if<ParameterAlias>(&o.outcome);
      if (alias != nullptr && o.probability > 0) edges[i].push_back(index.at(alias->alias_to));
    }
  }
  enum class Mark { kNew, kOnPath, kDone };
  std::vector<Mark> marks(parameters.size(), Mark::kNew);
  std::vector<size_t> path;
  std::string cycle;
  std::function<bool(size_t)> visit = [&](size_t node) {
    marks[node] = Mark::kOnPath;
    path.push_back(node);
    for (const size_t next : edges[node]) {
      if (marks[next] == Mark::kOnPath) {
        std::vector<std::string> names;
        bool in_cycle = false;
        for (const size_t p : path) {
          in_cycle = in_cycle || p == next;
          if (in_cycle) names.push_back(parameters[p].name());
        }
        names.push_back(parameters[next].name());
        cycle = absl::StrJoin(names, " -> ");
        return true;
      }
      if (marks[next] == Mark::kNew && visit(next)) return true;
    }
    path.pop_back();
    marks[node] = Mark::kDone;
    return false;
  };
  for (size_t i = 0; i < parameters.size(); ++i) {
    if (marks[i] == Mark::kNew && visit(i)) return cycle;
  }
  return "";
}

// Each parameter is valid and has a name of its own; fills `index` (name
// -> position).
absl::Status IndexParameters(const std::vector<FuzzedParameter>& parameters,
                             std::map<std::string, size_t, std::less<>>& index) {
  for (size_t i = 0; i < parameters.size(); ++i) {
    if (absl::Status status = parameters[i].Validate(); !status.ok()) return status;
    if (!index.emplace(parameters[i].name(), i).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("two parameters are named '", parameters[i].name(), "'"));
    }
  }
  return absl::OkStatus();
}

// Each tensor has a name of its own, which no parameter has.
absl::Status ValidateTensorNames(const std::vector<TensorSpec>& tensors,
                                 const std::map<std::string, size_t, std::less<>>& index) {
  std::set<std::string> tensor_names;
  std::vector<std::string> overlap;
  for (const TensorSpec& tensor : tensors) {
    const std::string& name = TensorSpecName(tensor);
    if (name.empty()) return absl::InvalidArgumentError("a tensor has an empty name");
    if (!tensor_names.insert(name).second) {
      return absl::InvalidArgumentError(absl::StrCat("two tensors are named '", name, "'"));
    }
    if (index.count(name) != 0) overlap.push_back(absl::StrCat("'", name, "'"));
  }
  if (!overlap.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("Duplicate names in parameters and tensors: {",
                                                   absl::StrJoin(overlap, ", "), "}"));
  }
  return absl::OkStatus();
}

// Every alias names a parameter, and no aliases that can be drawn form a
// cycle.
absl::Status ValidateAliases(const std::vector<FuzzedParameter>& parameters,
                             const std::map<std::string, size_t, std::less<>>& index) {
  for (const FuzzedParameter& p : parameters) {
    for (const WeightedOutcome& o : p.outcomes()) {
      const auto* alias = std::get_if<ParameterAlias>(&o.outcome);
      if (alias != nullptr && index.count(alias->alias_to) == 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("parameter '", p.name(), "' has an outcome ParameterAlias('",
                         alias->alias_to, "'), but there is no parameter of that name"));
      }
    }
  }
  if (std::string cycle = FindAliasCycle(parameters, index); !cycle.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "ParameterAlias cycle detected: ", cycle,
        " (each alias has a nonzero probability, so some sample would draw them all)"));
  }
  return absl::OkStatus();
}

// Every parameter a tensor refers to exists, and its options are valid.
absl::Status ValidateTensors(const std::vector<TensorSpec>& tensors,
                             const std::map<std::string, size_t, std::less<>>& index) {
  for (const TensorSpec& tensor : tensors) {
    for (const auto& [ref, role] : TensorReferences(tensor)) {
      if (index.count(ref) == 0) {
        return absl::InvalidArgumentError(absl::StrCat("tensor '", TensorSpecName(tensor),
                                                       "': ", role, " names '", ref,
                                                       "', which is not a parameter"));
      }
    }
    if (absl::Status status = ValidateTensorOptions(tensor); !status.ok()) return status;
  }
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<const FuzzerSpec>> BuildSpec(std::vector<FuzzedParameter> parameters,
                                                            std::vector<TensorSpec> tensors,
                                                            std::vector<Constraint> constraints,
                                                            int64_t seed) {
  if (absl::StatusOr<RandomState> state = RandomState::FromSeed(seed); !state.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("seed ", seed, " is out of range: ", state.status().message()));
  }

  auto spec = std::make_shared<FuzzerSpec>();
  if (absl::Status status = IndexParameters(parameters, spec->parameter_index); !status.ok()) {
    return status;
  }
  if (absl::Status status = ValidateTensorNames(tensors, spec->parameter_index); !status.ok()) {
    return status;
  }
  if (absl::Status status = ValidateAliases(parameters, spec->parameter_index); !status.ok()) {
    return status;
  }
  if (absl::Status status = ValidateTensors(tensors, spec->parameter_index); !status.ok()) {
    return status;
  }
  for (size_t i = 0; i < constraints.size(); ++i) {
    if (!constraints[i]) {
      return absl::InvalidArgumentError(absl::StrCat("constraint #", i, " is empty"));
    }
  }

  spec->parameters = std::move(parameters);
  spec->tensors = std::move(tensors);
  spec->constraints = std::move(constraints);
  spec->seed = seed;
  return std::shared_ptr<const FuzzerSpec>(std::move(spec));
}

}  // namespace

Fuzzer::Fuzzer(std::shared_ptr<const FuzzerSpec> spec, std::shared_ptr<FuzzerCounters> counters)
    : spec_(std::move(spec)), counters_(std::move(counters)) {}

absl::StatusOr<Fuzzer> Fuzzer::Create(std::vector<FuzzedParameter> parameters,
                                      std::vector<TensorSpec> tensors,
                                      std::vector<Constraint> constraints, int64_t seed) {
  absl::StatusOr<std::shared_ptr<const FuzzerSpec>> spec =
      BuildSpec(std::move(parameters), std::move(tensors), std::move(constraints), seed);
  if (!spec.ok()) return spec.status();
  return Fuzzer(*std::move(spec), std::make_shared<FuzzerCounters>());
}

absl::StatusOr<Fuzzer> Fuzzer::Create(std::vector<FuzzedParameter> parameters,
                                      std::vector<TensorSpec> tensors, int64_t seed) {
  return Create(std::move(parameters), std::move(tensors), /*constraints=*/{}, seed);
}

FuzzerStream Fuzzer::Stream() { return FuzzerStream(spec_, counters_); }

absl::StatusOr<std::vector<FuzzedSample>> Fuzzer::Take(int64_t n) {
  if (n < 0) return absl::InvalidArgumentError(absl::StrCat("Take(", n, "): n must be >= 0"));
  std::vector<FuzzedSample> samples;
  FuzzerStream stream = Stream();
  for (int64_t i = 0; i < n; ++i) {
    absl::StatusOr<FuzzedSample> sample = stream.Next();
    if (!sample.ok()) return sample.status();
    samples.push_back(*std::move(sample));
  }
  return samples;
}

double Fuzzer::rejection_rate() const {
  if (counters_->generated == 0) return 0.0;
  return static_cast<double>(counters_->rejected) / static_cast<double>(counters_->generated);
}

int64_t Fuzzer::candidates_generated() const { return counters_->generated; }
int64_t Fuzzer::candidates_rejected() const { return counters_->rejected; }
int64_t Fuzzer::seed() const { return spec_->seed; }
const std::vector<FuzzedParameter>& Fuzzer::parameters() const { return spec_->parameters; }
const std::vector<TensorSpec>& Fuzzer::tensors() const { return spec_->tensors; }

FuzzerStream::FuzzerStream(std::shared_ptr<const FuzzerSpec> spec,
                           std::shared_ptr<FuzzerCounters> counters)
    : spec_(std::move(spec)),
      counters_(std::move(counters)),
      // Create() checked the range.
      state_(static_cast<uint32_t>(spec_->seed)),
      // torch.manual_seed(state.randint(low=0, high=2 ** 63)): a fresh CPU
      // generator with that seed is in the state manual_seed puts torch's
      // default generator in.
      torch_seed_(static_cast<uint64_t>(state_.DrawTorchSeed())),
      generator_(at::make_generator<at::CPUGeneratorImpl>(torch_seed_)) {}

namespace {

// Why the candidates for one sample were rejected, for the message when
// all of them were.
struct Rejections {
  int64_t by_constraint = 0;
  std::map<std::string, int64_t> by_tensor;  // tensor name -> candidates
};

// One outcome per parameter, drawn in order; a strict parameter's outcome
// held from an earlier candidate of the sample is used again, not drawn.
absl::StatusOr<std::vector<Outcome>> DrawCandidate(const std::vector<FuzzedParameter>& parameters,
                                                   RandomState& state,
                                                   std::vector<std::optional<Outcome>>& held) {
  std::vector<Outcome> candidate;
  candidate.reserve(parameters.size());
  for (size_t i = 0; i < parameters.size(); ++i) {
    if (parameters[i].strict() && held[i].has_value()) {
      candidate.push_back(*held[i]);
      continue;
    }
    absl::StatusOr<Outcome> outcome = parameters[i].Sample(state);
    if (!outcome.ok()) return outcome.status();
    if (parameters[i].strict()) held[i] = *outcome;
    candidate.push_back(*std::move(outcome));
  }
  return candidate;
}

// _resolve_aliases: every alias takes the value at the end of its chain.
// Create() rejected cycles, so a chain is at most one hop per parameter.
absl::StatusOr<Params> ResolveAliases(const FuzzerSpec& spec,
                                      const std::vector<Outcome>& candidate) {
  const std::vector<FuzzedParameter>& parameters = spec.parameters;
  Params params;
  for (size_t i = 0; i < parameters.size(); ++i) {
    const Outcome* outcome = &candidate[i];
    size_t hops = 0;
    while (const auto* alias = std::get_if<ParameterAlias>(outcome)) {
      if (++hops > parameters.size()) {
        return absl::InternalError(
            absl::StrCat("ParameterAlias cycle detected at '", parameters[i].name(), "'"));
      }
      outcome = &candidate[spec.parameter_index.find(alias->alias_to)->second];
    }
    params.Set(parameters[i].name(), std::get<Value>(*outcome));
  }
  return params;
}

// Whether every constraint accepts `params`; the first that does not
// decides, and later ones are not called.
absl::StatusOr<bool> MeetsConstraints(const FuzzerSpec& spec, const Params& params) {
  bool accepted = true;
  for (size_t c = 0; c < spec.constraints.size() && accepted; ++c) {
    try {
      accepted = spec.constraints[c](params);
    } catch (const std::exception& e) {
      return absl::InvalidArgumentError(absl::StrCat("constraint #", c, " threw: ", e.what()));
    }
  }
  return accepted;
}

// The first tensor whose limits `params` break; nullptr when none does.
absl::StatusOr<const TensorSpec*> TensorRejecting(const FuzzerSpec& spec, const Params& params) {
  for (const TensorSpec& tensor : spec.tensors) {
    absl::StatusOr<bool> ok =
        std::visit([&params](const auto& t) { return t.SatisfiesConstraints(params); }, tensor);
    if (!ok.ok()) return ok.status();
    if (!*ok) return &tensor;
  }
  return nullptr;
}

absl::Status AllRejectedError(const Rejections& rejections, int64_t sample) {
  std::vector<std::string> reasons;
  if (rejections.by_constraint > 0) {
    reasons.push_back(absl::StrCat(rejections.by_constraint, " by constraints"));
  }
  for (const auto& [tensor, count] : rejections.by_tensor) {
    reasons.push_back(absl::StrCat(count, " by the limits of tensor '", tensor, "'"));
  }
  return absl::ResourceExhaustedError(absl::StrCat(
      "Failed to generate a set of valid parameters: all ", Fuzzer::kMaxAttempts,
      " candidates for sample #", sample, " were rejected (", absl::StrJoin(reasons, ", "),
      "). Loosen the constraints or limits, or widen the parameter ranges."));
}

}  // namespace

absl::StatusOr<Params> FuzzerStream::Generate() {
  // Strict parameters keep their first (unresolved) outcome for this sample.
  std::vector<std::optional<Outcome>> held(spec_->parameters.size());
  Rejections rejections;

  for (int attempt = 0; attempt < Fuzzer::kMaxAttempts; ++attempt) {
    absl::StatusOr<std::vector<Outcome>> candidate = DrawCandidate(spec_->parameters, state_, held);
    if (!candidate.ok()) return candidate.status();
    absl::StatusOr<Params> params = ResolveAliases(*spec_, *candidate);
    if (!params.ok()) return params.status();

    ++counters_->generated;
    absl::StatusOr<bool> accepted = MeetsConstraints(*spec_, *params);
    if (!accepted.ok()) return accepted.status();
    if (!*accepted) {
      ++counters_->rejected;
      ++rejections.by_constraint;
      continue;
    }
    absl::StatusOr<const TensorSpec*> rejecting = TensorRejecting(*spec_, *params);
    if (!rejecting.ok()) return rejecting.status();
    if (*rejecting != nullptr) {
      ++counters_->rejected;
      ++rejections.by_tensor[TensorSpecName(**rejecting)];
      continue;
    }
    return params;
  }
  return AllRejectedError(rejections, samples_);
}

absl::StatusOr<FuzzedSample> FuzzerStream::Next() {
  if (!error_.ok()) return error_;
  FuzzedSample sample;
  absl::StatusOr<Params> params = Generate();
  if (!params.ok()) {
    error_ = params.status();
    return error_;
  }
  sample.params = *std::move(params);
  for (const TensorSpec& tensor : spec_->tensors) {
    absl::StatusOr<MadeTensor> made = std::visit(
        [this, &sample](const auto& t) { return t.Make(sample.params, state_, generator_); },
        tensor);
    if (!made.ok()) {
      error_ = made.status();
      return error_;
    }
    sample.tensors.push_back(
        NamedTensor{TensorSpecName(tensor), std::move(made->tensor), std::move(made->properties)});
  }
  ++samples_;
  return sample;
}

}  // namespace icount::fuzzer
