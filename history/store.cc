#include "history/store.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/files.h"
#include "base/fnv.h"
#include "base/status.h"
#include "base/timestamp.h"
#include "history/internal/transaction.h"
#include "re2/re2.h"
#include "timer/measurement.h"

namespace icount::history {
namespace {

using internal::Database;
using internal::Statement;
using internal::Transaction;

// Signed integers as zigzag varints (small magnitudes, either sign, take
// one or two bytes).
void PutZigzag(std::string& bytes, int64_t value) {
  auto zigzag = (static_cast<uint64_t>(value) << 1) ^ static_cast<uint64_t>(value >> 63);
  while (zigzag >= 0x80) {
    bytes.push_back(static_cast<char>((zigzag & 0x7f) | 0x80));
    zigzag >>= 7;
  }
  bytes.push_back(static_cast<char>(zigzag));
}

int64_t GetZigzag(const std::string& bytes, size_t& i) {
  uint64_t zigzag = 0;
  for (int shift = 0; i < bytes.size() && shift < 64; shift += 7) {
    const auto byte = static_cast<unsigned char>(bytes[i++]);
    zigzag |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) break;
  }
  return static_cast<int64_t>(zigzag >> 1) ^ -static_cast<int64_t>(zigzag & 1);
}

}  // namespace

std::string EncodeNanoseconds(const std::vector<double>& seconds) {
  std::string bytes;
  int64_t previous = 0;
  for (double t : seconds) {
    const auto ns = static_cast<int64_t>(std::llround(t * 1e9));
    PutZigzag(bytes, ns - previous);
    previous = ns;
  }
  return bytes;
}

std::vector<double> DecodeNanoseconds(const std::string& bytes) {
  std::vector<double> seconds;
  int64_t previous = 0;
  for (size_t i = 0; i < bytes.size();) {
    previous += GetZigzag(bytes, i);
    seconds.push_back(static_cast<double>(previous) / 1e9);
  }
  return seconds;
}

namespace {

// The runs table's CPU: the model, and its CPUID where the file has it, as
// results files describe the machine for people.
std::string CpuOfRun(const timer::NodeProto& machine) {
  return machine.cpuid().empty() ? machine.cpu_model()
                                 : absl::StrCat(machine.cpu_model(), " (", machine.cpuid(), ")");
}

std::string Setting(const timer::ResultsFile& results, const std::string& name) {
  auto it = results.settings.find(name);
  return it == results.settings.end() ? "" : it->second;
}

std::string JoinMap(const std::map<std::string, std::string>& map) {
  return absl::StrJoin(map, ", ", [](std::string* out, const auto& kv) {
    absl::StrAppend(out, kv.first, " ", kv.second);
  });
}

}  // namespace

const char* MetricName(Metric metric) {
  switch (metric) {
    case Metric::kCounts:
      return "counts";
    case Metric::kTime:
      return "time";
    case Metric::kAllocations:
      return "allocations";
  }
  return "unknown";
}

std::string CurrentKernel() {
  struct utsname name;
  if (uname(&name) != 0) return "";
  return name.release;
}

std::string RunFingerprint(const timer::ResultsFile& results, const std::string& side) {
  base::Fnv1a64 hash;
  hash.Add(side);
  hash.Add(results.start_time);
  hash.Add(results.end_time);
  hash.Add(results.machine);
  hash.Add(results.suite_checksum);
  for (const timer::InstructionCounts& c : results.instruction_counts) {
    hash.Add(timer::ResultCaseKey(c.metadata, c.task_spec));
    for (int64_t count : c.counts) hash.Add(absl::StrCat(count));
  }
  for (const timer::Measurement& m : results.measurements) {
    hash.Add(timer::ResultCaseKey(m.metadata(), m.task_spec()));
    for (double t : m.raw_times()) hash.Add(absl::StrFormat("%.17g", t));
  }
  return hash.Hex();
}

absl::StatusOr<Store> Store::OpenForWriting(const std::string& path) { return Open(path, true); }
absl::StatusOr<Store> Store::OpenForReading(const std::string& path) { return Open(path, false); }

absl::StatusOr<Store> Store::Open(const std::string& path, bool write) {
  if (path.empty()) return absl::InvalidArgumentError("no history store given (--db / --history)");
  const bool exists = access(path.c_str(), F_OK) == 0;
  if (base::IsDirectory(path)) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": is a directory; name the history store's file (e.g. ", path,
                     "/history.db)"));
  }
  if (!write && !exists) {
    return absl::NotFoundError(
        absl::StrCat(path, ": no such history store; record runs into it first (--history=", path,
                     " on main, ci or ab_test, or `history import`)"));
  }
  ICOUNT_ASSIGN_OR_RETURN(
      Database db,
      Database::Open(
          path, write ? (exists ? Database::kReadWrite : Database::kCreate) : Database::kReadOnly),
      absl::Status(_.code(), absl::StrCat(_.message(), write ? " (is the path writable?)" : "")));
  Store store(std::move(db));
  ICOUNT_RETURN_IF_ERROR(store.CheckSchema(write));
  return store;
}

absl::StatusOr<int64_t> Store::CaseId(const std::string& key, const std::string& label) {
  ICOUNT_ASSIGN_OR_RETURN(Statement insert,
                          db_.Prepare("INSERT OR IGNORE INTO cases(key, label) VALUES (?1, ?2)"));
  ICOUNT_RETURN_IF_ERROR(insert.Bind(1, key).Bind(2, label).Run());
  ICOUNT_ASSIGN_OR_RETURN(Statement select, db_.Prepare("SELECT id FROM cases WHERE key = ?1"));
  select.Bind(1, key);
  ICOUNT_ASSIGN_OR_RETURN(bool row, select.Step());
  if (!row) return absl::InternalError(absl::StrCat(db_.path(), ": case ", key, " vanished"));
  return select.Int(0);
}

absl::StatusOr<int64_t> Store::FunctionId(const timer::FunctionKey& function) {
  const std::string& name = function.text();
  ICOUNT_ASSIGN_OR_RETURN(
      Statement insert,
      db_.Prepare("INSERT OR IGNORE INTO function_names(name, key) VALUES (?1, ?2)"));
  ICOUNT_RETURN_IF_ERROR(
      insert.Bind(1, name).BindBlob(2, timer::FunctionKeyToProto(function).SerializeAsString()).Run());
  ICOUNT_ASSIGN_OR_RETURN(Statement select,
                          db_.Prepare("SELECT id FROM function_names WHERE name = ?1"));
  select.Bind(1, name);
  ICOUNT_ASSIGN_OR_RETURN(bool row, select.Step());
  if (!row) return absl::InternalError(absl::StrCat(db_.path(), ": function ", name, " vanished"));
  return select.Int(0);
}

absl::StatusOr<int64_t> Store::AddRun(const timer::ResultsFile& results, const RunInfo& info) {
  if (results.instruction_counts.empty() && results.measurements.empty()) {
    return absl::InvalidArgumentError("the results hold no instruction counts and no wall times");
  }
  const std::string fingerprint = RunFingerprint(results, info.side);
  ICOUNT_ASSIGN_OR_RETURN(std::unique_ptr<Transaction> transaction, Transaction::Begin(db_));
  {
    ICOUNT_ASSIGN_OR_RETURN(
        Statement same,
        db_.Prepare("SELECT id, label, recorded_at FROM runs WHERE fingerprint = ?1"));
    same.Bind(1, fingerprint);
    ICOUNT_ASSIGN_OR_RETURN(bool row, same.Step());
    if (row) {
      return absl::AlreadyExistsError(
          absl::StrCat("this run (", results.start_time, " to ", results.end_time,
                       ") is already in the store as run ", same.Int(0), " (label \"", same.Text(1),
                       "\", recorded ", same.Text(2), "); nothing was changed"));
    }
  }
  ICOUNT_ASSIGN_OR_RETURN(const int64_t run_id, InsertRun(results, info, fingerprint));
  ICOUNT_RETURN_IF_ERROR(InsertCounts(run_id, results));
  ICOUNT_RETURN_IF_ERROR(InsertTimes(run_id, results));
  ICOUNT_RETURN_IF_ERROR(transaction->Commit());
  return run_id;
}

absl::StatusOr<int64_t> Store::InsertRun(const timer::ResultsFile& results, const RunInfo& info,
                                         const std::string& fingerprint) {
  const timer::NodeProto& machine = results.machine_node;
  ICOUNT_ASSIGN_OR_RETURN(
      Statement run,
      db_.Prepare("INSERT INTO runs(label, source, recorded_at, start_time, end_time, host, "
                  "cpu_model, cores, kernel, valgrind, valgrind_options, libtorch_version, "
                  "libtorch_build, versions, settings, command, fingerprint, toolchain) VALUES "
                  "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, "
                  "?18)"));
  run.Bind(1, info.label)
      .Bind(2, info.source)
      .Bind(3, base::NowRfc3339())
      .Bind(4, results.start_time)
      .Bind(5, results.end_time)
      .Bind(6, machine.host())
      .Bind(7, CpuOfRun(machine))
      .Bind(8, static_cast<int64_t>(machine.cpus()))
      .Bind(9, info.kernel)
      .Bind(10, Setting(results, "valgrind"))
      .Bind(11, Setting(results, "valgrind_options"))
      .Bind(12, info.libtorch_version)
      .Bind(13, info.libtorch_build)
      .Bind(14, JoinMap(results.versions))
      .Bind(15, JoinMap(results.settings))
      .Bind(16, info.command)
      .Bind(17, fingerprint)
      .Bind(18, Setting(results, "toolchain"));
  ICOUNT_RETURN_IF_ERROR(run.Run());
  return db_.LastInsertRowId();
}

absl::Status Store::InsertCounts(int64_t run_id, const timer::ResultsFile& results) {
  ICOUNT_ASSIGN_OR_RETURN(
      Statement counts,
      db_.Prepare("INSERT INTO counts(case_id, run_id, number_per_run, baseline, per_run, "
                  "repeats, allocations) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"));
  ICOUNT_ASSIGN_OR_RETURN(
      Statement functions,
      db_.Prepare("INSERT INTO functions(run_id, case_id, top) VALUES (?1, ?2, ?3)"));
  for (const timer::InstructionCounts& c : results.instruction_counts) {
    const std::string key = timer::ResultCaseKey(c.metadata, c.task_spec);
    ICOUNT_ASSIGN_OR_RETURN(int64_t case_id, CaseId(key, timer::ResultCaseTitle(c.task_spec)));
    counts.Bind(1, case_id)
        .Bind(2, run_id)
        .Bind(3, c.number_per_run)
        .Bind(4, c.baseline)
        .Bind(5, c.counts_per_run)
        .Bind(6, absl::StrJoin(c.counts, ","));
    if (c.allocations_per_run) {
      counts.Bind(7, *c.allocations_per_run);
    } else {
      counts.BindNull(7);
    }
    ICOUNT_RETURN_IF_ERROR(counts.Run(),
                           absl::Status(_.code(), absl::StrCat(_.message(), " (case ", key, ")")));
    std::string top;
    const timer::FunctionCounts kept = c.exclusive.Slice(0, kTopFunctions);
    for (const timer::FunctionCount& row : kept.rows()) {
      ICOUNT_ASSIGN_OR_RETURN(int64_t function_id, FunctionId(row.function));
      PutZigzag(top, function_id);
      PutZigzag(top, row.count);
    }
    if (!top.empty()) {
      ICOUNT_RETURN_IF_ERROR(functions.Bind(1, run_id).Bind(2, case_id).BindBlob(3, top).Run());
    }
  }
  return absl::OkStatus();
}

absl::Status Store::InsertTimes(int64_t run_id, const timer::ResultsFile& results) {
  ICOUNT_ASSIGN_OR_RETURN(Statement times,
                          db_.Prepare("INSERT INTO times(case_id, run_id, seq, number_per_run, "
                                      "raw_ns) VALUES (?1, ?2, ?3, ?4, ?5)"));
  std::map<int64_t, int64_t> next_seq;             // case id -> measurements so far
  std::map<int64_t, std::vector<double>> per_run;  // case id -> seconds per run, pooled
  for (const timer::Measurement& m : results.measurements) {
    ICOUNT_ASSIGN_OR_RETURN(int64_t case_id,
                            CaseId(timer::ResultCaseKey(m.metadata(), m.task_spec()),
                                   timer::ResultCaseTitle(m.task_spec())));
    const std::string encoded = EncodeNanoseconds(m.raw_times());
    times.Bind(1, case_id)
        .Bind(2, run_id)
        .Bind(3, next_seq[case_id]++)
        .Bind(4, m.number_per_run())
        .BindBlob(5, encoded);
    ICOUNT_RETURN_IF_ERROR(times.Run());
    // The level is computed from the stored (nanosecond) samples, so it is
    // the same whether read now or recomputed from the store later.
    for (double t : DecodeNanoseconds(encoded)) {
      per_run[case_id].push_back(t / static_cast<double>(m.number_per_run()));
    }
  }
  ICOUNT_ASSIGN_OR_RETURN(Statement levels,
                          db_.Prepare("INSERT INTO time_levels(case_id, run_id, median, p25, "
                                      "p75, samples) VALUES (?1, ?2, ?3, ?4, ?5, ?6)"));
  for (auto& [case_id, samples] : per_run) {
    if (samples.empty()) continue;
    std::sort(samples.begin(), samples.end());
    levels.Bind(1, case_id)
        .Bind(2, run_id)
        .Bind(3, timer::Quantile(samples, 0.5))
        .Bind(4, timer::Quantile(samples, 0.25))
        .Bind(5, timer::Quantile(samples, 0.75))
        .Bind(6, static_cast<int64_t>(samples.size()));
    ICOUNT_RETURN_IF_ERROR(levels.Run());
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<RunRow>> Store::Runs() {
  ICOUNT_ASSIGN_OR_RETURN(
      Statement select,
      db_.Prepare(absl::StrCat(
          "SELECT id, label, source, recorded_at, start_time, end_time, host, cpu_model, "
          "cores, kernel, valgrind, libtorch_version, libtorch_build, versions, command, "
          "IFNULL(counted.n, 0), IFNULL(timed.n, 0), ",
          // Stores of schema 3 and older, read without being written, have none.
          schema_ >= 4 ? "toolchain" : "''",
          " FROM runs "
          // One pass over each table (both are keyed by case first).
          "LEFT JOIN (SELECT run_id, COUNT(*) AS n FROM counts GROUP BY run_id) AS counted "
          "ON counted.run_id = runs.id "
          "LEFT JOIN (SELECT run_id, COUNT(*) AS n FROM time_levels GROUP BY run_id) AS timed "
          "ON timed.run_id = runs.id ORDER BY start_time, id")));
  std::vector<RunRow> runs;
  while (true) {
    ICOUNT_ASSIGN_OR_RETURN(bool row, select.Step());
    if (!row) break;
    RunRow r;
    r.id = select.Int(0);
    r.label = select.Text(1);
    r.source = select.Text(2);
    r.recorded_at = select.Text(3);
    r.start_time = select.Text(4);
    r.end_time = select.Text(5);
    r.host = select.Text(6);
    r.cpu_model = select.Text(7);
    r.cores = select.Int(8);
    r.kernel = select.Text(9);
    r.valgrind = select.Text(10);
    r.libtorch_version = select.Text(11);
    r.libtorch_build = select.Text(12);
    r.versions = select.Text(13);
    r.command = select.Text(14);
    r.counted_cases = select.Int(15);
    r.timed_cases = select.Int(16);
    r.toolchain = select.Text(17);
    runs.push_back(std::move(r));
  }
  return runs;
}

namespace {

// Runs in order; the position of each is its place in every series.
struct RunOrder {
  std::map<int64_t, std::pair<size_t, std::string>> place;  // id -> (position, label)
  size_t first_position = 0;  // of the first run labelled `since_label`
};

absl::StatusOr<RunOrder> ReadRunOrder(Database& db, const std::string& since_label) {
  ICOUNT_ASSIGN_OR_RETURN(Statement runs,
                          db.Prepare("SELECT id, label FROM runs ORDER BY start_time, id"));
  RunOrder order;
  bool since_found = since_label.empty();
  while (true) {
    ICOUNT_ASSIGN_OR_RETURN(bool row, runs.Step());
    if (!row) break;
    const size_t position = order.place.size();
    if (!since_found && runs.Text(1) == since_label) {
      since_found = true;
      order.first_position = position;
    }
    order.place[runs.Int(0)] = {position, runs.Text(1)};
  }
  if (!since_found) {
    return absl::NotFoundError(
        absl::StrCat("no run is labelled \"", since_label, "\" (`history list` shows the labels)"));
  }
  return order;
}

// Case id -> its series.
using SeriesByCaseId = std::map<int64_t, CaseSeries>;

// The series, without points yet, of every case whose key or label
// `filter` matches (every case when `case_regex` is empty).
absl::StatusOr<SeriesByCaseId> SelectCases(Database& db, const std::string& case_regex,
                                           const RE2& filter) {
  ICOUNT_ASSIGN_OR_RETURN(Statement cases, db.Prepare("SELECT id, key, label FROM cases"));
  SeriesByCaseId selected;
  while (true) {
    ICOUNT_ASSIGN_OR_RETURN(bool row, cases.Step());
    if (!row) break;
    const std::string key = cases.Text(1);
    const std::string label = cases.Text(2);
    if (case_regex.empty() || RE2::PartialMatch(key, filter) || RE2::PartialMatch(label, filter)) {
      selected[cases.Int(0)] = CaseSeries{key, label, {}};
    }
  }
  return selected;
}

// (case id, run id) -> the value and its spread
using PointsByIds = std::map<std::pair<int64_t, int64_t>, SeriesPoint>;

// The values of `metric` of the selected cases in every run, from a store
// of schema version `schema`.
absl::StatusOr<PointsByIds> ReadValues(Database& db, int64_t schema, Metric metric,
                                       const SeriesByCaseId& selected) {
  PointsByIds values;
  if (metric == Metric::kCounts || metric == Metric::kAllocations) {
    // A version 1 store (read, not upgraded) has no allocations.
    if (metric == Metric::kAllocations && schema < 2) return values;
    ICOUNT_ASSIGN_OR_RETURN(
        Statement select,
        db.Prepare(metric == Metric::kCounts ? "SELECT case_id, run_id, per_run FROM counts"
                                             : "SELECT case_id, run_id, allocations FROM counts "
                                               "WHERE allocations IS NOT NULL"));
    while (true) {
      ICOUNT_ASSIGN_OR_RETURN(bool row, select.Step());
      if (!row) break;
      if (!selected.count(select.Int(0))) continue;
      const double value = select.Double(2);
      values[{select.Int(0), select.Int(1)}] = SeriesPoint{0, "", value, value, value};
    }
  } else {
    ICOUNT_ASSIGN_OR_RETURN(
        Statement select, db.Prepare("SELECT case_id, run_id, median, p25, p75 FROM time_levels"));
    while (true) {
      ICOUNT_ASSIGN_OR_RETURN(bool row, select.Step());
      if (!row) break;
      if (!selected.count(select.Int(0))) continue;
      values[{select.Int(0), select.Int(1)}] =
          SeriesPoint{0, "", select.Double(2), select.Double(3), select.Double(4)};
    }
  }
  return values;
}

// The selected cases' series with their points from the first position on,
// each in run order; cases without points are left out. Sorted by key.
std::vector<CaseSeries> SeriesInRunOrder(SeriesByCaseId selected, PointsByIds values,
                                         const RunOrder& order) {
  for (auto& [ids, point] : values) {
    const auto& [position, label] = order.place.at(ids.second);
    if (position < order.first_position) continue;
    point.run_id = ids.second;
    point.run_label = label;
    selected[ids.first].points.push_back(std::move(point));
  }
  std::vector<CaseSeries> out;
  for (auto& [id, series] : selected) {
    if (series.points.empty()) continue;
    std::sort(series.points.begin(), series.points.end(),
              [&](const SeriesPoint& a, const SeriesPoint& b) {
                return order.place.at(a.run_id).first < order.place.at(b.run_id).first;
              });
    out.push_back(std::move(series));
  }
  std::sort(out.begin(), out.end(),
            [](const CaseSeries& a, const CaseSeries& b) { return a.key < b.key; });
  return out;
}

}  // namespace

absl::StatusOr<std::vector<CaseSeries>> Store::Series(Metric metric, const std::string& case_regex,
                                                      const std::string& since_label) {
  RE2 filter(case_regex, RE2::Quiet);
  if (!filter.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("the case filter \"", case_regex,
                                                   "\" is not a valid regex: ", filter.error()));
  }
  ICOUNT_ASSIGN_OR_RETURN(RunOrder order, ReadRunOrder(db_, since_label));
  ICOUNT_ASSIGN_OR_RETURN(SeriesByCaseId selected, SelectCases(db_, case_regex, filter));
  ICOUNT_ASSIGN_OR_RETURN(PointsByIds values, ReadValues(db_, schema_, metric, selected));
  return SeriesInRunOrder(std::move(selected), std::move(values), order);
}

absl::StatusOr<timer::FunctionCounts> Store::TopFunctions(int64_t run_id,
                                                          const std::string& case_key) {
  ICOUNT_ASSIGN_OR_RETURN(Statement select,
                          db_.Prepare("SELECT functions.top FROM functions JOIN cases ON "
                                      "cases.id = functions.case_id WHERE functions.run_id = ?1 "
                                      "AND cases.key = ?2"));
  select.Bind(1, run_id).Bind(2, case_key);
  ICOUNT_ASSIGN_OR_RETURN(bool found, select.Step());
  std::vector<timer::FunctionCount> rows;
  if (!found) return timer::FunctionCounts(std::move(rows), /*inclusive=*/false);
  const std::string top = select.Text(0);
  // Stores of schema 2, read without being written, have no typed keys.
  ICOUNT_ASSIGN_OR_RETURN(
      Statement name,
      db_.Prepare(schema_ >= 3 ? "SELECT name, key FROM function_names WHERE id = ?1"
                              : "SELECT name, NULL FROM function_names WHERE id = ?1"));
  for (size_t i = 0; i < top.size();) {
    const int64_t function_id = GetZigzag(top, i);
    const int64_t count = GetZigzag(top, i);
    name.Bind(1, function_id);
    ICOUNT_ASSIGN_OR_RETURN(bool named, name.Step());
    if (!named) {
      return absl::FailedPreconditionError(absl::StrCat(
          db_.path(), ": run ", run_id, " names function ", function_id, ", which is missing"));
    }
    timer::FunctionKeyProto key;
    const std::string key_bytes = name.Text(1);
    rows.push_back(timer::FunctionCount{count, !key_bytes.empty() && key.ParseFromString(key_bytes)
                                                   ? timer::FunctionKeyFromProto(key)
                                                   : timer::FunctionKeyFromText(name.Text(0))});
    name.Reset();
  }
  return timer::FunctionCounts(std::move(rows), /*inclusive=*/false);
}

absl::StatusOr<int64_t> Store::CountsNumberPerRun(int64_t run_id, const std::string& case_key) {
  ICOUNT_ASSIGN_OR_RETURN(
      Statement select,
      db_.Prepare("SELECT counts.number_per_run FROM counts JOIN cases ON cases.id = "
                  "counts.case_id WHERE counts.run_id = ?1 AND cases.key = ?2"));
  select.Bind(1, run_id).Bind(2, case_key);
  ICOUNT_ASSIGN_OR_RETURN(bool row, select.Step());
  if (!row) {
    return absl::NotFoundError(absl::StrCat("run ", run_id, " has no counts of ", case_key));
  }
  return select.Int(0);
}

}  // namespace icount::history
