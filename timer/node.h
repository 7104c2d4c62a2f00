#ifndef ICOUNT_TIMER_NODE_H_
#define ICOUNT_TIMER_NODE_H_

// Which node (machine) measured a case, and whether two nodes count alike.
// A results file keeps its nodes once, by id, and each case's metadata
// "node" names one, so a run spread over a cluster says where every case
// ran:
//
//   const std::string id = AddNode(results, node);   // "host", "host#2", ...
//   counts.metadata["node"] = id;
//   ...
//   const timer::NodeProto a = NodeOfCase(baseline, before.metadata);
//   const timer::NodeProto b = NodeOfCase(results, after.metadata);
//   for (const std::string& d : CountRelevantDifferences(a, b))
//     ...  // e.g. "ATen's CPU capability AVX512 vs AVX2"
//
// Instruction counts of the same code differ between CPUs (LibTorch picks
// kernels by CPU features; valgrind's CPUID offers what it supports) and
// between valgrind versions; wall times differ between any two hosts.

#include <map>
#include <string>
#include <vector>

#include "timer/measurement.pb.h"
#include "timer/measurement_io.h"

namespace icount::timer {

// The metadata key of a case's node id.
inline constexpr char kNodeMetadataKey[] = "node";

// The machine this process runs on: host, CPU model, CPUID, online CPUs
// (base/machine.h), for ResultsFile::machine_node.
timer::NodeProto ThisMachine();

// A machine for people, as ResultsFile::machine holds it:
// "bench-7, 2 CPUs, AMD EPYC (family 25, model 17, stepping 1)", the CPUID
// part where it is known.
std::string DescribeMachine(const timer::NodeProto& machine);

// Adds `node` to results.nodes, unless an identical one is there, and
// returns its id: the host name, then "host#2", "host#3", ... for other
// descriptions of the same host (e.g. a counting and a timing process).
std::string AddNode(ResultsFile& results, const timer::NodeProto& node);

// The node that measured a case with this metadata. Files older than
// timer 0.6 have no nodes: the file's machine_node and settings' valgrind
// stand in. Unknown fields are empty.
timer::NodeProto NodeOfCase(const ResultsFile& results,
                            const std::map<std::string, std::string>& metadata);

// What differs between two nodes that can change instruction counts: CPU
// model, CPUID (family, model, stepping), ATen's CPU capability, valgrind
// version (fields known on both only), one phrase each, e.g. "CPU AMD EPYC
// vs Intel Xeon" or "CPUID family 23, model 49, stepping 0 vs family 26,
// model 2, stepping 1". Empty: the nodes count alike.
std::vector<std::string> CountRelevantDifferences(const timer::NodeProto& a,
                                                  const timer::NodeProto& b);

// Whether the nodes are known to be different hosts, whose wall times do
// not compare (false when either host is unknown, as in hand-made files).
bool DifferentHosts(const timer::NodeProto& a, const timer::NodeProto& b);

// For people: "host1 (AMD EPYC, family 26, model 2, stepping 1, 2 CPUs,
// ATen AVX2, valgrind-3.19.0)"; what is unknown is left out.
std::string DescribeNode(const timer::NodeProto& node);

}  // namespace icount::timer

#endif  // ICOUNT_TIMER_NODE_H_
