#ifndef ICOUNT_WORKER_CASE_DUMPS_H_
#define ICOUNT_WORKER_CASE_DUMPS_H_

// A case's callgrind dumps on their way from the case process (under
// valgrind) to the runner (native), which parses them: parsing in the case
// process ran 5-10x slower and cost ~10% of a case's time.
//
//   case process:  CallgrindDumpsToProto(dumps, *output.mutable_callgrind_dumps());
//   worker:        sets callgrind_dumps.shared_baseline
//   runner:        ParseCaseDumps(result);  // callgrind_dumps -> callgrind

#include "timer/callgrind.pb.h"
#include "timer/callgrind_dumps.h"
#include "worker/worker.pb.h"

namespace icount::worker {

void CallgrindDumpsToProto(const timer::CallgrindDumpFiles& dumps, CallgrindDumpsProto& proto);

// Gives `stats` the empty statement's counts (`empty`, measured apart) as
// its baseline.
void AttachBaseline(const timer::CallgrindStatsProto& empty, timer::CallgrindStatsProto& stats);

// Replaces the output's callgrind_dumps with the counts they hold (one
// CallgrindStatsProto per repeat, the shared baseline attached) and removes
// the files; a result without dumps is left alone. A dump that cannot be
// read makes the result a FAILURE_MEASURE naming it. `object_names` renames
// objects in function keys (timer::CallgrindStatsFromDumps).
void ParseCaseDumps(WorkerResultProto& result, const timer::ObjectNames& object_names = {});

}  // namespace icount::worker

#endif  // ICOUNT_WORKER_CASE_DUMPS_H_
