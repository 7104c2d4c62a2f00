#ifndef ICOUNT_BASE_MACHINE_H_
#define ICOUNT_BASE_MACHINE_H_

// Facts about the machine this process runs on, for results files:
//
//   HostName()   // "bench-7"
//   CpuModel()   // "AMD EPYC"
//   CpuId()      // "family 26, model 2, stepping 1"
//   OnlineCpus() // 2

#include <string>

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

}  // namespace icount::base

#endif  // ICOUNT_BASE_MACHINE_H_
