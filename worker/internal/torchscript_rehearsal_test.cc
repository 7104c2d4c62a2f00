#include "worker/internal/torchscript_rehearsal.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace icount::worker::internal {
namespace {

using ::testing::HasSubstr;

TEST(TorchScriptRehearsalTest, RunsTheEmbeddedModel) {
  const std::string_view model = TorchScriptRehearsalModel();
  ASSERT_GT(model.size(), 1000u);
  EXPECT_EQ(model.substr(0, 2), "PK");  // a TorchScript archive is a zip
  absl::Status status = RehearseTorchScript(model);
  EXPECT_TRUE(status.ok()) << status;
}

TEST(TorchScriptRehearsalTest, NamesTheRehearsalAndTheWayOutWhenItFails) {
  const std::string_view model = TorchScriptRehearsalModel();
  const std::string truncated(model.substr(0, model.size() / 2));
  absl::Status status = RehearseTorchScript(truncated);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("the TorchScript rehearsal"));
  EXPECT_THAT(status.message(), HasSubstr("torchscript_rehearsal_model.py"));
  EXPECT_THAT(status.message(), HasSubstr("run without --rehearse_torchscript"));
}

}  // namespace
}  // namespace icount::worker::internal
