#include "base/output_files.h"

#include <unistd.h>

#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/files.h"
#include "gtest/gtest.h"

namespace icount::base {
namespace {

absl::Status IsNote(absl::string_view text) {
  return absl::StartsWith(text, "note:") ? absl::OkStatus()
                                         : absl::FailedPreconditionError("is not a note");
}

TEST(CheckReplaceableTest, NothingThereOrItsOwnOutputMayBeReplaced) {
  const std::string dir = MakeTemporaryDirectory("replaceable").value();
  EXPECT_TRUE(CheckReplaceable(dir + "/new.txt", "notes", IsNote).ok());
  ASSERT_TRUE(WriteFileAtomically(dir + "/old.txt", "note: kept").ok());
  EXPECT_TRUE(CheckReplaceable(dir + "/old.txt", "notes", IsNote).ok());
}

TEST(CheckReplaceableTest, AnotherFileIsRefusedSayingWhatToDo) {
  const std::string dir = MakeTemporaryDirectory("replaceable").value();
  ASSERT_TRUE(WriteFileAtomically(dir + "/results.json", "{}").ok());
  const absl::Status status = CheckReplaceable(dir + "/results.json", "notes", IsNote);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(status.message(), absl::StrCat(dir, "/results.json exists and is not a note; icount "
                                           "replaces only its own notes: choose another file "
                                           "or move it away"));
}

// Reading /dev/zero would never end, and writing through a rename would
// replace the device.
TEST(CheckReplaceableTest, ADeviceIsRefused) {
  const absl::Status status = CheckReplaceable("/dev/zero", "notes", IsNote);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(status.message(),
            "/dev/zero exists and is not a regular file (a device, pipe or socket); icount "
            "replaces only its own notes: choose another file or move it away");
}

TEST(CheckDistinctOutputsTest, TwoFlagsNamingOneFileAreRefused) {
  // Resolved, as the messages name it.
  const std::string dir = RealPath(MakeTemporaryDirectory("distinct").value()).value();
  ASSERT_TRUE(MakeDirectories(dir + "/real").ok());
  ASSERT_EQ(symlink((dir + "/real").c_str(), (dir + "/link").c_str()), 0);
  // Not written yet, named through a link and "..".
  absl::Status status = CheckDistinctOutputs(
      {{"json", dir + "/real/ab.json"}, {"html", dir + "/link/../real/../link/ab.json"}});
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), absl::StrCat("--json and --html both name ", dir,
                                           "/real/ab.json: give each its own file"));
  // An existing file, named relative to the working directory.
  ASSERT_TRUE(WriteFileAtomically(dir + "/real/run.json", "{}").ok());
  ASSERT_EQ(chdir((dir + "/real").c_str()), 0);
  status = CheckDistinctOutputs({{"output", "run.json"}, {"html", "x.html"}, {"db", "./run.json"}});
  EXPECT_EQ(status.message(), absl::StrCat("--output and --db both name ", dir,
                                           "/real/run.json: give each its own file"));
}

TEST(CheckDistinctOutputsTest, DifferentFilesAndFlagsNotGivenAreFine) {
  EXPECT_TRUE(CheckDistinctOutputs({{"json", "/tmp/a.json"}, {"html", "/tmp/a.html"}}).ok());
  EXPECT_TRUE(CheckDistinctOutputs({{"json", ""}, {"html", ""}, {"markdown", "/tmp/m"}}).ok());
}

}  // namespace
}  // namespace icount::base
