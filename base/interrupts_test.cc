#include "base/interrupts.h"

#include <poll.h>
#include <signal.h>

#include <cstring>
#include <string>

#include "gtest/gtest.h"

namespace icount::base {
namespace {

class InterruptsTest : public ::testing::TestWithParam<int> {};

// Each signal that stops a run stops it: Interrupted() turns true and the
// descriptor runs poll turns readable.
TEST_P(InterruptsTest, TheSignalStopsRunsInTheScope) {
  InterruptScope scope;
  EXPECT_FALSE(Interrupted());
  ASSERT_EQ(raise(GetParam()), 0);
  EXPECT_TRUE(Interrupted());
  pollfd readable = {InterruptFd(), POLLIN, 0};
  EXPECT_EQ(poll(&readable, 1, 0), 1);
}

// The last scope gives the signal back to the handler it found.
TEST_P(InterruptsTest, TheHandlerBeforeTheScopeIsRestored) {
  struct sigaction ignore = {};
  ignore.sa_handler = SIG_IGN;
  struct sigaction before;
  ASSERT_EQ(sigaction(GetParam(), &ignore, &before), 0);
  { InterruptScope scope; }
  struct sigaction after;
  ASSERT_EQ(sigaction(GetParam(), &before, &after), 0);
  EXPECT_EQ(after.sa_handler, SIG_IGN);
}

INSTANTIATE_TEST_SUITE_P(Signals, InterruptsTest, ::testing::Values(SIGINT, SIGTERM, SIGHUP),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return std::string(sigabbrev_np(info.param));
                         });

}  // namespace
}  // namespace icount::base
