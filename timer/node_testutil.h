#ifndef ICOUNT_TIMER_NODE_TESTUTIL_H_
#define ICOUNT_TIMER_NODE_TESTUTIL_H_

// A node for tests of what differs between nodes:
//
//   timer::NodeProto a = TestNode("n1");
//   timer::NodeProto b = TestNode("n2", "Intel Xeon", "AVX512");

#include <string>

#include "timer/measurement.pb.h"

namespace icount {

inline timer::NodeProto TestNode(const std::string& host, const std::string& cpu_model = "AMD EPYC",
                                 const std::string& aten_cpu_capability = "AVX2",
                                 const std::string& valgrind = "valgrind-3.19.0") {
  timer::NodeProto node;
  node.set_host(host);
  node.set_cpu_model(cpu_model);
  node.set_cpus(2);
  node.set_aten_cpu_capability(aten_cpu_capability);
  node.set_valgrind(valgrind);
  return node;
}

}  // namespace icount

#endif  // ICOUNT_TIMER_NODE_TESTUTIL_H_
