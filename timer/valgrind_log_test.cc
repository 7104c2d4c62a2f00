#include "timer/valgrind_log.h"

#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace icount::timer {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// Logs written by valgrind 3.19 on this project's machines.
std::string TestdataPath(const std::string& name) { return "timer/testdata/" + name; }
std::string ReadTestdata(const std::string& name) {
  std::ifstream in(TestdataPath(name));
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

TEST(ValgrindLogTest, NamesRdtscpTheFunctionAndTheLibrary) {
  const std::string log = ReadTestdata("valgrind_rdtscp.log");
  ASSERT_FALSE(log.empty());
  const std::string diagnosis = DiagnoseValgrindLog(log);
  EXPECT_THAT(diagnosis, HasSubstr("the instruction RDTSCP (bytes 0xF 0x1 0xF9 0x48)"));
  EXPECT_THAT(diagnosis, HasSubstr("in hwy::platform::TimerResolution() "
                                   "(/usr/lib/x86_64-linux-gnu/libhwy.so.1.0.3)"));
  EXPECT_THAT(diagnosis, HasSubstr("SIGILL"));
  // What to do: this binary lacks the replacement.
  EXPECT_THAT(diagnosis, HasSubstr("rebuild it with icount's //third_party/libtorch"));
}

TEST(ValgrindLogTest, RdtscpElsewhereBlamesAnotherLibrary) {
  std::string log = ReadTestdata("valgrind_rdtscp.log");
  for (size_t at; (at = log.find("hwy::platform::TimerResolution()")) != std::string::npos;) {
    log.replace(at, std::strlen("hwy::platform::TimerResolution()"), "other_timer");
  }
  const std::string diagnosis = DiagnoseValgrindLog(log);
  EXPECT_THAT(diagnosis, HasSubstr("RDTSCP"));
  EXPECT_THAT(diagnosis, HasSubstr("in other_timer (/usr/lib"));
  EXPECT_THAT(diagnosis, HasSubstr("another library in this process runs RDTSCP"));
}

TEST(ValgrindLogTest, OtherUnknownInstructionsAreNamedByTheirBytes) {
  const std::string log =
      "vex amd64->IR: unhandled instruction bytes: 0x62 0xF2 0x7D 0x48 0x11 0x22\n"
      "==1== valgrind: Unrecognised instruction at address 0x4000.\n"
      "==1==    at 0x4000: kernel_avx512 (in /opt/lib/libfast.so)\n";
  const std::string diagnosis = DiagnoseValgrindLog(log);
  EXPECT_THAT(diagnosis, HasSubstr("an instruction (bytes 0x62 0xF2 0x7D 0x48) in kernel_avx512 "
                                   "(/opt/lib/libfast.so)"));
  EXPECT_THAT(diagnosis, Not(HasSubstr("RDTSCP")));
}

TEST(ValgrindLogTest, FatalSignalWithItsLocation) {
  const std::string diagnosis = DiagnoseValgrindLog(ReadTestdata("valgrind_segv.log"));
  EXPECT_EQ(diagnosis,
            "the process under valgrind was killed by signal 11 (SIGSEGV) in main "
            "(segv.c:1).");
}

TEST(ValgrindLogTest, OutOfMemory) {
  EXPECT_THAT(DiagnoseValgrindLog("==3== Valgrind's memory management: out of memory:\n"),
              HasSubstr("valgrind ran out of memory"));
}

TEST(ValgrindLogTest, ACleanLogHasNoDiagnosis) {
  EXPECT_EQ(DiagnoseValgrindLog("==1== Callgrind, a call-graph generating cache profiler\n"
                                "==1== Events    : Ir\n"),
            "");
}

TEST(ValgrindLogTest, ReportHasTheDiagnosisAndTheTail) {
  const std::string report = ValgrindLogReport(TestdataPath("valgrind_rdtscp.log"), 200);
  EXPECT_THAT(report, HasSubstr("RDTSCP"));
  EXPECT_THAT(report, HasSubstr("--- valgrind's log (timer/testdata/valgrind_rdtscp.log)"));
  EXPECT_THAT(report, HasSubstr("I   refs:"));
  EXPECT_LT(report.size(), 2000u);
  EXPECT_EQ(ValgrindLogReport(TestdataPath("no_such.log")), "");
}

}  // namespace
}  // namespace icount::timer
