#ifndef ICOUNT_EXPAND_CASE_SOURCES_H_
#define ICOUNT_EXPAND_CASE_SOURCES_H_

// How the suite generator names each C++ case's code to the compiler, and
// how a build of the suite that fails on some cases is told which ones:
// the build of a side whose LibTorch lacks an API a case uses leaves that
// case out (the compiler's first error reported for it on that side) and
// compiles every other case.
//
// The generator writes each case's code under a #line directive naming
// CaseSourceName(c), inside `#ifndef LeaveOutMacro(c.key())`:
//
//   #ifndef ICOUNT_LEAVE_OUT_3f2a9c0d11e4b5a7
//   #line 340 "definitions/standard.cc (InferenceMode / View, C++ Eager Forward)"
//   ...
//   #endif
//
// A tool whose build failed attributes the compiler's lines to cases and
// builds again with -D for each case that failed:
//
//   std::map<std::string, std::string> errors = CaseCompileErrors(manifest, lines);
//   // {"InferenceMode/View|Eager|Forward|C++|1":
//   //  "definitions/standard.cc (InferenceMode / View, C++ Eager Forward):341:25: error: ..."}
//   for (const auto& [key, error] : errors) defines.push_back(LeaveOutMacro(key));

#include <map>
#include <string>
#include <vector>

#include "expand/suite.pb.h"

namespace icount::expand {

// "definitions/standard.cc (InferenceMode / View, C++ Eager Forward)", with
// ", 2 threads" after the modes when the case runs on more than one: unique
// among a suite's C++ cases, as their keys are.
std::string CaseSourceName(const SuiteCaseProto& c);

// The name of a C++ case's global setup, which the generator writes once
// for every case of a translation unit that shares it:
// "definitions/standard.cc (training / simple, C++ Eager Forward, global setup)".
std::string GlobalSetupSourceName(const SuiteCaseProto& c);

// "ICOUNT_LEAVE_OUT_<16 hex digits of the key's FNV-1a hash>".
std::string LeaveOutMacro(const std::string& key);

// The cases of `manifest` that the compiler's output `lines` (GCC's or
// Clang's, as a build prints them) reports errors in, each with the first
// error's line. An error in a header counts for the case whose code the
// compiler names last before it ("... required from here", "In function");
// an error in a global setup counts for every case that shares it. Errors
// that name no case (a LibTorch header broken for all, icount's own code)
// are in none: an empty result means the failure is not the cases'.
std::map<std::string, std::string> CaseCompileErrors(const SuiteManifestProto& manifest,
                                                     const std::vector<std::string>& lines);

}  // namespace icount::expand

#endif  // ICOUNT_EXPAND_CASE_SOURCES_H_
