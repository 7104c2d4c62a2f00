#include "timer/internal/allocation_calls.h"

#include "absl/status/statusor.h"
#include "gtest/gtest.h"
#include "timer/internal/callgrind_parser.h"

namespace icount::timer::internal {
namespace {

// A measured region as callgrind writes it: the case function allocates
// through operator new (which calls malloc) three times and through
// posix_memalign once, frees through operator delete (which calls free)
// twice and directly once, and calls a function whose name only starts
// like an allocator.
constexpr char kRegion[] = R"(# callgrind format
events: Ir

ob=(1) /usr/lib/libtorch.so
fl=(1) ???
fn=(1) case(int)
0 100
cob=(2) /usr/lib/libstdc++.so.6
cfn=(2) operator new(unsigned long)
calls=3 0
0 300
cob=(3) /usr/lib/libc.so.6
cfn=(4) posix_memalign
calls=1 0
0 200
cob=(2)
cfn=(5) operator delete(void*, unsigned long)
calls=2 0
0 40
cob=(3)
cfn=(6) free'2
calls=1 0
0 20
cfn=(7) malloc_usable_size
calls=4 0
0 40

ob=(2)
fn=(2)
0 30
cob=(3)
cfn=(3) malloc
calls=3 0
0 270

fn=(5)
0 10
cob=(3)
cfn=(6)
calls=2 0
0 30

ob=(3)
fl=(2) ./malloc/./malloc/malloc.c
fn=(3)
0 270
fn=(4)
0 200
fn=(6)
0 50
fn=(7)
0 40
)";

TEST(CountAllocationCallsTest, CountsCallsIntoTheFamilyFromOutsideIt) {
  absl::StatusOr<CallgrindProfile> profile = ParseCallgrindOutput(kRegion, "region");
  ASSERT_TRUE(profile.ok()) << profile.status();
  const AllocationCalls calls = CountAllocationCalls(*profile);
  EXPECT_EQ(calls.allocations, 4);  // 3 operator new + 1 posix_memalign
  EXPECT_EQ(calls.frees, 3);        // 2 operator delete + 1 free
}

TEST(CountAllocationCallsTest, NoCallsNoAllocations) {
  absl::StatusOr<CallgrindProfile> profile =
      ParseCallgrindOutput("events: Ir\nfl=a.c\nfn=f\n1 10\n", "flat");
  ASSERT_TRUE(profile.ok()) << profile.status();
  const AllocationCalls calls = CountAllocationCalls(*profile);
  EXPECT_EQ(calls.allocations, 0);
  EXPECT_EQ(calls.frees, 0);
}

}  // namespace
}  // namespace icount::timer::internal
