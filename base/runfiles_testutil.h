#ifndef ICOUNT_BASE_RUNFILES_TESTUTIL_H_
#define ICOUNT_BASE_RUNFILES_TESTUTIL_H_

#include <string>

namespace icount::base {

// In a test, the absolute path of a file of its runfiles, named as a
// WORKSPACE build names it, whichever front door built the test (under
// bzlmod the tree holds icount as "_main"; FindRunfile follows the tree's
// repository mapping):
//
//   const std::string log = TestRunfile("icount/timer/testdata/valgrind_segv.log");
//
// A missing file fails the test, naming it, and gives "".
std::string TestRunfile(const std::string& relative_path);

}  // namespace icount::base

#endif  // ICOUNT_BASE_RUNFILES_TESTUTIL_H_
