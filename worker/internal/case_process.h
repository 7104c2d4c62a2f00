#ifndef ICOUNT_WORKER_INTERNAL_CASE_PROCESS_H_
#define ICOUNT_WORKER_INTERNAL_CASE_PROCESS_H_

// What a case process does with one order (worker/worker.h's "case"): it
// builds the Timer and measures, and either writes its result for the
// worker or, once measured, ends and leaves its dumps; and how the worker
// reads what it left.
//
//   case process:  CaseProcess process(scratch, sequence);
//                  process.Finish(RunOrder(order, process));
//   worker:        sends MeasuredPart(order), reads CaseResultPath(...) or
//                  makes MeasuredCaseResult(order, sequence), RestoreLabels

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "base/phase_log.h"
#include "timer/timer.h"
#include "worker/worker.pb.h"

namespace icount::worker::internal {

absl::StatusOr<timer::Timer> MakeTimer(const WorkOrderProto& order);

// The order's runs per measured block (100 unless it says).
int64_t CallgrindNumber(const WorkOrderProto& order);

// The order's measured blocks (1 unless it says).
int CallgrindRepeats(const WorkOrderProto& order);

// Whether a count order's case process plays the template itself: it ends
// with the order, so it may, unless it must stay clean for a baseline of
// its own (or main --template_per_case asks for worker 0.8's tree).
bool MeasuresInItsProcess(const WorkOrderProto& order);

// Whether the case process of a count order ends as soon as its repeats are
// done, leaving its dumps where the worker finds them (CaseDumpTag) and no
// result file: the worker makes the result (MeasuredCaseResult). Building,
// serialising and writing it in the case process cost ~35 ms a case under
// valgrind (all its code translated afresh after instrumentation stops).
bool EndsOnceMeasured(const WorkOrderProto& order);

// The exit code of a case process that ended so.
constexpr int kCaseMeasuredExitCode = 86;

// The dump tag (CallgrindOptions::dump_tag) of the case process with this
// sequence number: unique in the worker's dump directory, and short enough
// ("case-<n>") to stay in std::string's inline buffer, so that the heap
// the measured blocks inherit does not depend on the case's position.
std::string CaseDumpTag(int64_t sequence);

// Where a case process writes its result for the worker.
std::string CaseResultPath(const std::string& scratch, int64_t sequence);

// The case process's own view of how it ends (RunCase, RunOrder).
class CaseProcess {
 public:
  CaseProcess(const std::string& scratch, int64_t sequence)
      : scratch_(scratch), sequence_(sequence), dump_tag_(CaseDumpTag(sequence)) {}

  // The phases before the order runs are done (base/phase_log.h).
  void StartOrder(base::PhaseMark mark) { mark_ = mark; }

  // Ends the process with `result`, written where the worker reads it.
  [[noreturn]] void Finish(const WorkerResultProto& result) const;

  // Ends the process once its dumps are where the worker finds them
  // (EndsOnceMeasured).
  [[noreturn]] void FinishMeasured() const;

  const std::string& dump_tag() const { return dump_tag_; }

 private:
  const std::string& scratch_;
  int64_t sequence_;
  std::string dump_tag_;
  base::PhaseMark mark_;
};

// What a case process sees of an order: what to measure, not what the case
// is called. Its heap before the measured region then holds no id, key or
// label, so renaming a case does not change its count
// (BatchInvarianceTest.NamesDoNotChangeCounts: up to 0.4% otherwise).
WorkOrderProto MeasuredPart(const WorkOrderProto& order);

// Puts the order's labels back on what its case process reported.
void RestoreLabels(const WorkOrderProto& order, WorkerResultProto& result);

// The result of a case process that ended once measured (EndsOnceMeasured):
// what RunOrder would have reported, made here from the order. A statement
// that ended the process with that exit code itself left no dumps: a
// failure that says so.
WorkerResultProto MeasuredCaseResult(const WorkOrderProto& order, int64_t sequence);

// Runs one order in this case process; a count order that EndsOnceMeasured
// ends the process from inside the measurement.
WorkerResultProto RunOrder(const WorkOrderProto& order, const CaseProcess& process);

}  // namespace icount::worker::internal

#endif  // ICOUNT_WORKER_INTERNAL_CASE_PROCESS_H_
