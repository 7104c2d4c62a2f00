#include "expand/case_modes.h"

#include "gtest/gtest.h"

namespace icount::expand {
namespace {

TEST(CaseModesTest, Names) {
  EXPECT_STREQ(RuntimeName(RUNTIME_EAGER), "Eager");
  EXPECT_STREQ(RuntimeName(RUNTIME_TORCHSCRIPT), "TorchScript");
  EXPECT_STREQ(RuntimeName(RUNTIME_EXPLICIT), "Explicit");
  EXPECT_STREQ(RuntimeName(RUNTIME_UNSPECIFIED), "");
  EXPECT_STREQ(AutogradName(AUTOGRAD_FORWARD), "Forward");
  EXPECT_STREQ(AutogradName(AUTOGRAD_FORWARD_BACKWARD), "Forward + Backward");
  EXPECT_STREQ(AutogradName(AUTOGRAD_EXPLICIT), "Explicit");
  EXPECT_STREQ(AutogradName(AUTOGRAD_UNSPECIFIED), "");
}

TEST(CaseModesTest, ExplicitModesHaveNoText) {
  EXPECT_STREQ(RuntimeText(RUNTIME_EXPLICIT), "");
  EXPECT_STREQ(RuntimeText(RUNTIME_TORCHSCRIPT), "TorchScript");
  EXPECT_STREQ(AutogradText(AUTOGRAD_EXPLICIT), "");
  EXPECT_STREQ(AutogradText(AUTOGRAD_FORWARD_BACKWARD), "Forward + Backward");
}

}  // namespace
}  // namespace icount::expand
