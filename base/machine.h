#ifndef ICOUNT_BASE_MACHINE_H_
#define ICOUNT_BASE_MACHINE_H_

// Facts about the machine this process runs on, for results files:
//
//   HostName()   // "bench-7"
//   CpuModel()   // "AMD EPYC"
//   OnlineCpus() // 2

#include <string>

namespace icount::base {

// gethostname(); "unknown" when it fails.
std::string HostName();

// /proc/cpuinfo's first "model name"; "unknown CPU" when there is none.
std::string CpuModel();

// sysconf(_SC_NPROCESSORS_ONLN).
int OnlineCpus();

}  // namespace icount::base

#endif  // ICOUNT_BASE_MACHINE_H_
