// ab_test --sides=FILE: the sides the file lists, each counted (here up to
// one side per CPU at once, on Slurm every side at once), then each case
// across them.
#include <algorithm>
#include <cstdio>
#include <future>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/files.h"
#include "base/flags.h"
#include "base/machine.h"
#include "base/proto_json.h"
#include "base/status.h"
#include "base/text.h"
#include "compare/comparison_file.pb.h"
#include "history/store.h"
#include "timer/measurement_io.h"
#include "tools/ab_sides.h"
#include "tools/ab_test_parts.h"
#include "tools/environment_suite.h"
#include "tools/executor.h"
#include "tools/history_recording.h"
#include "tools/sides.h"
#include "tools/suite.h"
#include "worker/runner.h"

namespace icount::tools {

absl::StatusOr<std::vector<SideSpec>> ReadSidesFlag() {
  const std::string path = absl::GetFlag(FLAGS_sides);
  absl::StatusOr<std::string> text = base::ReadFileToString(path);
  if (!text.ok()) {
    return base::WithContext(text.status(), "--sides");
  }
  return ParseSidesFile(*text, path);
}

namespace {


// The sides --sides lists, each set up (its suite built where it needs
// one) and asked for its LibTorch; an error names the file's line.
absl::Status SetUpListedSides(const Suite& own_suite, std::vector<Side>& sides) {
  absl::StatusOr<std::vector<SideSpec>> specs = ReadSidesFlag();
  if (!specs.ok()) return specs.status();
  sides.resize(specs->size());
  const auto at_line = [](const SideSpec& spec, const absl::Status& status) {
    return absl::Status(status.code(), absl::StrCat(absl::GetFlag(FLAGS_sides), ":", spec.line,
                                                    ": ", status.message()));
  };
  const auto source = [](const SideSpec& spec) {
    return SideSource{spec.libtorch_directory, "sides", spec.root, "sides", ""};
  };
  // Every side's root first: a later side's misspelt suite is said before
  // an earlier side's root is made and built in.
  for (size_t k = 0; k < sides.size(); ++k) {
    sides[k].name = (*specs)[k].name;
    sides[k].command = (*specs)[k].command;
    if (absl::Status s = CheckSide(source((*specs)[k]), sides[k], absl::GetFlag(FLAGS_no_cpp));
        !s.ok()) {
      return at_line((*specs)[k], s);
    }
  }
  for (size_t k = 0; k < sides.size(); ++k) {
    const SideSpec& spec = (*specs)[k];
    Side& side = sides[k];
    absl::Status status = SetUpSide(own_suite, source(spec), side);
    if (status.ok()) status = ProbeLibTorch(side);
    if (!status.ok()) return at_line(spec, status);
    std::fprintf(stderr, "ab_test: %s runs LibTorch %s (from %s)\n", side.name.c_str(),
                 side.libtorch.version.c_str(), side.libtorch.source.c_str());
  }
  return absl::OkStatus();
}

// How many sides count at once on this machine: up to one per CPU; none on
// Slurm, where every side is a job array of its own.
size_t SidesAtOnce(size_t sides) {
  if (SlurmExecutorChosen()) return 0;
  return std::min(sides, static_cast<size_t>(std::max(1, base::OnlineCpus())));
}

// What every side of --sides counts, and how.
struct ListedSidesRun {
  const std::vector<expand::SuiteCaseProto>* cases = nullptr;
  expand::SuiteCaseProto canary;
  MeasureOptions measure;
  std::string journal_base;
};

// Every side's counts into runs[k]: on Slurm all sides at once; here in
// waves of SidesAtOnce, the first wave's canaries counted first with the
// rest (later waves' ran apart before).
absl::Status CountListedSides(const std::vector<Side>& sides, const ListedSidesRun& run,
                              SidesProgress& progress, std::vector<SideRun>& runs) {
  auto side_options = [&](size_t k, int jobs) {
    worker::RunnerOptions options =
        SideOptions(sides[k], jobs, JournalPath(run.journal_base, SideTag(k), "counts"),
                    absl::GetFlag(FLAGS_cache_sim));
    options.resume = absl::GetFlag(FLAGS_resume);
    options.on_progress = progress.For(static_cast<int>(k));
    return options;
  };
  const size_t orders_per_side = MakeOrders(sides[0].suite(), *run.cases, run.measure).size();
  const size_t at_once = SidesAtOnce(sides.size());
  absl::Status status;
  if (at_once == 0) {
    std::fprintf(stderr, "ab_test: instruction counts of %s in %zu sides...\n",
                 base::CountOf(orders_per_side, "case").c_str(), sides.size());
    std::vector<std::future<absl::Status>> running;
    for (size_t k = 0; k < sides.size(); ++k) {
      running.push_back(std::async(std::launch::async, [&, k] {
        const absl::Status counted = RunInto(MakeOrders(sides[k].suite(), *run.cases, run.measure),
                                             side_options(k, 0), runs[k]);
        return counted.ok() ? counted : SideError(sides[k], counted);
      }));
    }
    for (std::future<absl::Status>& side : running) status.Update(side.get());
    return status;
  }
  std::fprintf(stderr,
               "ab_test: instruction counts of %s in %zu sides, %zu at once, the canary first...\n",
               base::CountOf(orders_per_side, "case").c_str(), sides.size(), at_once);
  // The CPUs shared out among the sides that count at once.
  const int jobs = std::max(1, std::max(1, base::OnlineCpus()) / static_cast<int>(at_once));
  for (size_t first = 0; first < sides.size() && status.ok(); first += at_once) {
    const size_t end = std::min(sides.size(), first + at_once);
    std::vector<const Side*> wave;
    std::vector<std::vector<worker::WorkOrderProto>> orders;
    std::vector<SideRun*> wave_runs;
    for (size_t k = first; k < end; ++k) {
      wave.push_back(&sides[k]);
      orders.push_back(MakeOrders(sides[k].suite(), *run.cases, run.measure));
      wave_runs.push_back(&runs[k]);
    }
    status = CountSidesAtOnce(wave, std::move(orders),
                              first == 0 ? std::optional(run.canary) : std::nullopt, run.measure,
                              [&](size_t i) { return side_options(first + i, jobs); }, wave_runs);
  }
  return status;
}

// Each side's results, its LibTorch's settings and the run's times with
// them.
std::vector<SuiteResults> ListedSidesResults(const std::vector<Side>& sides,
                                             const std::vector<expand::SuiteCaseProto>& cases,
                                             const std::vector<SideRun>& runs,
                                             const std::string& start) {
  const std::string end = NowRfc3339();
  std::vector<SuiteResults> results;
  for (size_t k = 0; k < sides.size(); ++k) {
    results.push_back(CollectResults(cases, runs[k].orders, runs[k].results));
    AddLibTorchSettings(sides[k].environment, results.back().file.settings);
    results.back().file.start_time = start;
    results.back().file.end_time = end;
  }
  return results;
}

// Warnings for counts of neighbouring sides made on nodes that count
// differently, each printed.
std::vector<std::string> AcrossSidesWarnings(const std::vector<Side>& sides,
                                             const std::vector<SuiteResults>& results) {
  std::vector<std::string> warnings;
  for (size_t k = 1; k < sides.size(); ++k) {
    for (std::string& warning : CountWarnings(results[k - 1].file, results[k].file,
                                              sides[k - 1].name, sides[k].name)) {
      std::fprintf(stderr, "ab_test: warning: %s\n", warning.c_str());
      warnings.push_back(std::move(warning));
    }
  }
  return warnings;
}

// The --json of --sides: every side's results and each case across them.
absl::Status WriteSidesJson(const std::vector<Side>& sides,
                            const std::vector<SuiteResults>& results,
                            const std::vector<CaseAcrossSides>& across,
                            const std::vector<std::string>& names,
                            const std::vector<expand::SuiteCaseProto>& skipped,
                            const std::vector<std::string>& node_warnings,
                            const std::string& journal_base) {
  compare::AbTestSidesFileProto file;
  for (size_t k = 0; k < sides.size(); ++k) {
    compare::AbTestSideProto* side = file.add_sides();
    side->set_name(sides[k].name);
    side->set_command(sides[k].command);
    *side->mutable_libtorch() = LibTorchProto(sides[k]);
    *side->mutable_results() = timer::ResultsToProto(results[k].file);
  }
  for (const CaseAcrossSides& c : across) *file.add_cases() = AcrossSidesCaseToProto(c, names);
  for (const expand::SuiteCaseProto& c : skipped) file.add_skipped_by_backtesting(c.key());
  for (const std::string& warning : node_warnings) file.add_node_warnings(warning);
  const std::string json = base::ProtoToJsonAllFields(file) + "\n";
  if (absl::Status s = base::WriteFileAtomically(absl::GetFlag(FLAGS_json), json); !s.ok()) {
    return absl::Status(s.code(), absl::StrCat(s.message(), " (the journals ", journal_base,
                                               ".S*.counts.journal keep every result)"));
  }
  return absl::OkStatus();
}

// Records every side in --history and names every failed case; 1 when
// either happened.
int RecordSidesAndFailures(const std::vector<Side>& sides,
                           const std::vector<SuiteResults>& results,
                           std::optional<history::Store>& history) {
  int exit_code = 0;
  for (size_t k = 0; k < sides.size(); ++k) {
    if (!history.has_value()) break;
    if (absl::Status s = RecordHistory(*history, results[k].file, "ab_test --sides",
                                       sides[k].name, &sides[k].libtorch, absl::GetFlag(FLAGS_json));
        !s.ok()) {
      std::fprintf(stderr, "ab_test: %s\n", std::string(s.message()).c_str());
      exit_code = 1;
    }
  }
  for (size_t k = 0; k < sides.size(); ++k) {
    for (const auto& [key, reason] : results[k].file.failures) {
      std::fprintf(stderr, "ab_test: %s failed in %s: %s\n", key.c_str(), sides[k].name.c_str(),
                   reason.c_str());
      exit_code = 1;
    }
  }
  return exit_code;
}

// The cases --sides runs and the canary, with the canaries of the sides
// that do not count in the first wave run apart first, so that a broken
// side stops the run before anything long.
absl::Status ChooseListedSidesCases(const Suite& own_suite, std::vector<Side>& sides,
                                    std::vector<expand::SuiteCaseProto>& cases,
                                    std::vector<expand::SuiteCaseProto>& skipped,
                                    expand::SuiteCaseProto& canary) {
  std::vector<Side*> mutable_sides;
  std::vector<const Side*> side_pointers;
  for (Side& side : sides) {
    mutable_sides.push_back(&side);
    side_pointers.push_back(&side);
  }
  ICOUNT_ASSIGN_OR_RETURN(
      const bool python,
      PythonCases(mutable_sides, absl::GetFlag(FLAGS_no_python), absl::GetFlag(FLAGS_no_cpp)));
  ICOUNT_ASSIGN_OR_RETURN(const std::vector<expand::SuiteCaseProto> selected,
                          SelectedCases(own_suite, python));
  ICOUNT_ASSIGN_OR_RETURN(
      cases, CasesToRun(selected, side_pointers, absl::GetFlag(FLAGS_backtesting), skipped));
  ICOUNT_ASSIGN_OR_RETURN(canary, ChooseCanary(own_suite, python, side_pointers));
  const std::vector<const Side*> apart(side_pointers.begin() + SidesAtOnce(sides.size()),
                                       side_pointers.end());
  if (apart.empty()) return absl::OkStatus();
  return CheckCanaries(apart, canary, /*counts=*/true, absl::GetFlag(FLAGS_cache_sim));
}

}  // namespace

// --sides: every side's counts (on Slurm, one job array per side, all at
// once; here up to one side per CPU at once, sharing the CPUs), then a table of
// counts per case across the sides with the first side at which each
// changed.
int RunSides(const Suite& own_suite, std::optional<history::Store> history) {
  std::vector<Side> sides;
  if (absl::Status status = SetUpListedSides(own_suite, sides); !status.ok()) {
    return base::Fail(status);
  }
  std::vector<expand::SuiteCaseProto> cases, skipped;
  ListedSidesRun run;
  if (absl::Status status = ChooseListedSidesCases(own_suite, sides, cases, skipped, run.canary);
      !status.ok()) {
    return base::Fail(status);
  }
  absl::StatusOr<std::string> journal_base = JournalBase(absl::GetFlag(FLAGS_json));
  if (!journal_base.ok()) return base::Fail(journal_base.status());
  run.cases = &cases;
  run.measure.wall_time = false;
  run.measure.rehearse_torchscript = absl::GetFlag(FLAGS_rehearse_torchscript);
  run.journal_base = *journal_base;
  std::vector<std::string> names;
  for (const Side& side : sides) names.push_back(side.name);
  SidesProgress progress(names, static_cast<int>(MakeOrders(own_suite, cases, run.measure).size()));
  std::vector<SideRun> runs(sides.size());
  const std::string start = NowRfc3339();
  if (absl::Status status = CountListedSides(sides, run, progress, runs); !status.ok()) {
    std::vector<const SideRun*> stopped;
    for (const SideRun& side_run : runs) stopped.push_back(&side_run);
    ReportStoppedRun(status, absl::GetFlag(FLAGS_json), stopped);
    return 1;
  }
  const std::vector<SuiteResults> results = ListedSidesResults(sides, cases, runs, start);
  std::vector<std::map<std::string, double>> counts;
  std::vector<std::map<std::string, std::string>> failures;
  for (const SuiteResults& side : results) {
    counts.push_back(side.counts_per_run);
    failures.push_back(side.file.failures);
  }
  const std::vector<std::string> node_warnings = AcrossSidesWarnings(sides, results);
  std::vector<std::pair<std::string, std::string>> keys;
  for (const expand::SuiteCaseProto& c : cases) keys.emplace_back(c.key(), c.list_line());
  const std::vector<CaseAcrossSides> across = CompareAcrossSides(keys, counts);
  int changed = 0;
  for (const CaseAcrossSides& c : across) changed += c.changes.empty() ? 0 : 1;
  std::printf("Instructions per run across %zu sides: %d of %s changed\n%s", sides.size(), changed,
              base::CountOf(across.size(), "case").c_str(),
              AcrossSidesTable(across, names, failures, absl::GetFlag(FLAGS_markdown)).c_str());
  if (!absl::GetFlag(FLAGS_json).empty()) {
    if (absl::Status s = WriteSidesJson(sides, results, across, names, skipped, node_warnings,
                                        run.journal_base);
        !s.ok()) {
      return base::Fail(s);
    }
  }
  const int exit_code = RecordSidesAndFailures(sides, results, history);
  std::vector<const SideRun*> finished;
  for (const SideRun& side_run : runs) finished.push_back(&side_run);
  RemoveJournals(finished, absl::GetFlag(FLAGS_json), run.journal_base);
  return exit_code;
}

}  // namespace icount::tools
