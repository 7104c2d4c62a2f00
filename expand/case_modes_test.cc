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

// Keys name cases in results files and history stores: their spelling
// never follows the display names.
TEST(CaseModesTest, KeyNames) {
  EXPECT_STREQ(RuntimeKeyName(RUNTIME_EAGER), "Eager");
  EXPECT_STREQ(RuntimeKeyName(RUNTIME_TORCHSCRIPT), "TorchScript");
  EXPECT_STREQ(RuntimeKeyName(RUNTIME_EXPLICIT), "Explicit");
  EXPECT_STREQ(AutogradKeyName(AUTOGRAD_FORWARD), "Forward");
  EXPECT_STREQ(AutogradKeyName(AUTOGRAD_FORWARD_BACKWARD), "ForwardBackward");
  EXPECT_STREQ(AutogradKeyName(AUTOGRAD_EXPLICIT), "Explicit");
}

}  // namespace
}  // namespace icount::expand
