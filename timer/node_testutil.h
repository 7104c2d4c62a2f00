#ifndef ICOUNT_TIMER_NODE_TESTUTIL_H_
#define ICOUNT_TIMER_NODE_TESTUTIL_H_

// Nodes and machines for tests. A node, for tests of what differs between
// nodes:
//
//   timer::NodeProto a = TestNode("n1");
//   timer::NodeProto b = TestNode("n2", "Intel Xeon", "AVX512");

#include <string>

#include "timer/measurement.pb.h"

namespace icount::timer {

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

// A results file's machine as a reader gives it (host, CPUs, CPU model):
//
//   results.machine_node = TestMachine("testhost", 2, "Test CPU @ 1 GHz");
//   results.machine = DescribeMachine(results.machine_node);  // timer/node.h
inline timer::NodeProto TestMachine(const std::string& host, int cpus,
                                    const std::string& cpu_model) {
  timer::NodeProto machine;
  machine.set_host(host);
  machine.set_cpus(cpus);
  machine.set_cpu_model(cpu_model);
  return machine;
}

}  // namespace icount::timer

#endif  // ICOUNT_TIMER_NODE_TESTUTIL_H_
