#ifndef ICOUNT_BASE_PHASE_LOG_H_
#define ICOUNT_BASE_PHASE_LOG_H_

// Where a measurement's time goes, phase by phase, for the cost benchmark
// (bench/case_phases.py). When ICOUNT_PHASE_LOG names a file, the worker's
// processes (worker, zygote, case, template, repeat) each append one line
// per phase they pass through:
//
//   <pid>\t<process>\t<phase>\t<wall s>\t<user s>\t<sys s>\t<minor faults>\t<major faults>
//
//   base::PhaseMark mark = base::PhaseNow();
//   RunSetup();
//   mark = base::RecordPhase("template", "setup and warm-up", mark);
//
// A phase's figures are this process's and those of the children it reaped
// meanwhile (getrusage RUSAGE_SELF + RUSAGE_CHILDREN) between two marks, so
// a phase that forks and waits includes what its children cost, as its wall
// time does; RecordChildPhase reports a reaped child's whole life (wait4's
// rusage, which includes the children that child reaped). Nothing here allocates: a case's heap
// before its measured region must not depend on whether the log is on, or its counts would. When
// the variable is unset, marks cost two system calls and nothing is written.

#include <sys/resource.h>
#include <time.h>

namespace icount::base {

struct PhaseMark {
  timespec wall{};
  rusage usage{};  // this process's and its reaped children's
};

// Whether ICOUNT_PHASE_LOG is set (read once).
bool PhaseLogEnabled();

// This process's clock and resource usage now (zeros when the log is off).
PhaseMark PhaseNow();

// Appends the phase from `since` to now for this process and returns now.
PhaseMark RecordPhase(const char* process, const char* phase, const PhaseMark& since);

// Appends a child's whole life: wall time since `forked` (when fork
// returned in the parent, so that the parent's side of fork is a phase of
// its own) and the rusage wait4 returned for it.
void RecordChildPhase(const char* process, const char* phase, const timespec& forked,
                      const rusage& child);

// Appends the phase from this process's start (exec, per /proc/self/stat)
// to now: for what happens before main, such as a dynamic loader's work.
PhaseMark RecordPhaseSinceStart(const char* process, const char* phase);

}  // namespace icount::base

#endif  // ICOUNT_BASE_PHASE_LOG_H_
