#ifndef ICOUNT_BASE_MACHINE_H_
#define ICOUNT_BASE_MACHINE_H_

// Facts about the machine this process runs on, for results files:
//
//   HostName()   // "bench-7"
//   CpuModel()   // "AMD EPYC"
//   CpuId()      // "family 26, model 2, stepping 1"
//   OnlineCpus() // 2
//   AllowedCpus() // {0, 1}; {4, 5} under `taskset -c 4,5`

#include <string>
#include <vector>

namespace icount::base {

// gethostname(); "unknown" when it fails.
std::string HostName();

// /proc/cpuinfo's first "model name"; "unknown CPU" when there is none.
std::string CpuModel();

// The first processor's CPUID family, model and stepping from
// /proc/cpuinfo, "family 26, model 2, stepping 1"; empty where cpuinfo has
// none of them (e.g. ARM). VMs often name CPUs generations apart alike
// ("AMD EPYC"), and their counts differ (glibc and LibTorch pick code by
// CPU), so results record both.
std::string CpuId();

// sysconf(_SC_NPROCESSORS_ONLN).
int OnlineCpus();

// The CPUs this process may run on (its affinity mask: taskset, a cpuset,
// a batch system's binding), ascending; 0..OnlineCpus()-1 when the mask
// cannot be read. Pin workers to these, never to 0..n-1: CPU 0 may be
// outside the mask.
std::vector<int> AllowedCpus();

}  // namespace icount::base

#endif  // ICOUNT_BASE_MACHINE_H_
