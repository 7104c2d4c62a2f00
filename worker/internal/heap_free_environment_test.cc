// The worker's setenv & co. (heap_free_environment.cc) against what glibc's
// do, and the reason they exist: the heap does not move.
#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include <cstdint>
#include <string>

#include "gtest/gtest.h"
#include "worker/internal/heap_free_environment.h"

extern "C" char** environ;

namespace {

size_t HeapInUse() { return mallinfo2().uordblks; }

std::string Get(const char* name) {
  const char* value = getenv(name);
  return value == nullptr ? "(unset)" : value;
}

TEST(HeapFreeEnvironmentTest, SetenvAddsReplacesAndKeeps) {
  ASSERT_EQ(setenv("ICOUNT_TEST_A", "one", 1), 0);
  EXPECT_EQ(Get("ICOUNT_TEST_A"), "one");
  ASSERT_EQ(setenv("ICOUNT_TEST_A", "two", 0), 0);
  EXPECT_EQ(Get("ICOUNT_TEST_A"), "one");
  ASSERT_EQ(setenv("ICOUNT_TEST_A", "three", 1), 0);
  EXPECT_EQ(Get("ICOUNT_TEST_A"), "three");
  ASSERT_EQ(unsetenv("ICOUNT_TEST_A"), 0);
  EXPECT_EQ(Get("ICOUNT_TEST_A"), "(unset)");
}

TEST(HeapFreeEnvironmentTest, PutenvKeepsTheCallersStringAndANameAloneRemoves) {
  static char entry[] = "ICOUNT_TEST_B=first";
  ASSERT_EQ(putenv(entry), 0);
  EXPECT_EQ(Get("ICOUNT_TEST_B"), "first");
  entry[14] = 'F';  // the string is the environment's, as with glibc
  EXPECT_EQ(Get("ICOUNT_TEST_B"), "First");
  static char name_alone[] = "ICOUNT_TEST_B";
  ASSERT_EQ(putenv(name_alone), 0);
  EXPECT_EQ(Get("ICOUNT_TEST_B"), "(unset)");
}

TEST(HeapFreeEnvironmentTest, BadNamesAreEinval) {
  errno = 0;
  EXPECT_EQ(setenv("A=B", "x", 1), -1);
  EXPECT_EQ(errno, EINVAL);
  errno = 0;
  EXPECT_EQ(setenv("", "x", 1), -1);
  EXPECT_EQ(errno, EINVAL);
  errno = 0;
  EXPECT_EQ(unsetenv("A=B"), -1);
  EXPECT_EQ(errno, EINVAL);
}

TEST(HeapFreeEnvironmentTest, UnsetenvRemovesEveryEntryOfTheName) {
  ASSERT_EQ(setenv("ICOUNT_TEST_C", "1", 1), 0);
  static char twice[] = "ICOUNT_TEST_C=2";
  // A second entry of the same name, as execve may hand a program.
  size_t n = 0;
  while (environ[n] != nullptr) ++n;
  environ[n] = twice;
  environ[n + 1] = nullptr;
  ASSERT_EQ(unsetenv("ICOUNT_TEST_C"), 0);
  for (char** e = environ; *e != nullptr; ++e) EXPECT_NE(strncmp(*e, "ICOUNT_TEST_C=", 14), 0);
}

TEST(HeapFreeEnvironmentTest, AddingVariablesAllocatesNothingOnTheHeap) {
  ASSERT_EQ(setenv("ICOUNT_TEST_WARM", "x", 1), 0);  // the first use reserves the mapping
  {
    // The loop's own strings, once: their chunks then sit in malloc's
    // per-thread cache, which mallinfo2 counts as in use on newer glibc
    // (2.43), before the count is taken as after.
    const std::string name = "ICOUNT_TEST_MANY_" + std::to_string(199);
    const std::string value(100, 'v');
  }
  const size_t before = HeapInUse();
  for (int i = 0; i < 200; ++i) {
    const std::string name = "ICOUNT_TEST_MANY_" + std::to_string(i);
    ASSERT_EQ(setenv(name.c_str(), std::string(100, 'v').c_str(), 1), 0);
  }
  // `name` and the value were freed; 200 new variables in glibc's setenv
  // would hold 200 strings and an array of 200+ pointers on the heap.
  EXPECT_EQ(HeapInUse(), before);
  EXPECT_EQ(Get("ICOUNT_TEST_MANY_199"), std::string(100, 'v'));
}

TEST(HeapFreeEnvironmentTest, EveryStringStartsAPageOfItsOwn) {
  ASSERT_EQ(setenv("ICOUNT_TEST_E", "before", 1), 0);
  const std::string path = Get("PATH");
  size_t before = 0;
  while (environ[before] != nullptr) ++before;
  icount::worker::internal::PutEachVariableOnAPageOfItsOwn();
  ASSERT_EQ(setenv("ICOUNT_TEST_F", "after", 1), 0);
  size_t n = 0;
  for (; environ[n] != nullptr; ++n) {
    EXPECT_EQ(reinterpret_cast<uintptr_t>(environ[n]) % 4096, 0u) << environ[n];
  }
  EXPECT_EQ(n, before + 1);
  EXPECT_EQ(Get("PATH"), path);
  EXPECT_EQ(Get("ICOUNT_TEST_E"), "before");
  EXPECT_EQ(Get("ICOUNT_TEST_F"), "after");
}

TEST(HeapFreeEnvironmentTest, ClearenvEmptiesAndSetenvStartsAgain) {
  ASSERT_EQ(clearenv(), 0);
  EXPECT_EQ(Get("PATH"), "(unset)");
  ASSERT_EQ(setenv("ICOUNT_TEST_D", "4", 1), 0);
  EXPECT_EQ(Get("ICOUNT_TEST_D"), "4");
  EXPECT_EQ(environ[1], nullptr);
}

}  // namespace
