#include "environment/build_sources.h"

#include <unistd.h>

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/files.h"
#include "base/runfiles.h"
#include "environment/nested_build_sources.h"
#include "environment/pytorch_install_testutil.h"
#include "gtest/gtest.h"

namespace icount::environment {
namespace {

bool Lists(absl::Span<const SourceFile> files, const std::string& path) {
  for (const SourceFile& file : files) {
    if (file.path == path) return true;
  }
  return false;
}

TEST(NestedBuildSourcesTest, ListsWhatASidesWorkerIsBuiltFromSortedAndOnlyIcountsOwn) {
  absl::Span<const SourceFile> files = NestedBuildSources();
  for (const char* path : {"worker/worker_main.cc", "worker/worker.proto", "timer/timer.h",
                           "base/fnv.h", "expand/generate.cc", "definitions/standard.cc",
                           "worker/internal/torchscript_rehearsal_model.py"}) {
    EXPECT_TRUE(Lists(files, path)) << path;
  }
  EXPECT_FALSE(Lists(files, "tools/main.cc"));  // the tools are not a worker's
  for (size_t i = 0; i < files.size(); ++i) {
    const std::string path = files[i].path;
    EXPECT_FALSE(absl::StartsWith(path, "external/") || absl::StartsWith(path, "../") ||
                 absl::StartsWith(path, "/") || absl::StartsWith(path, "bazel-out/"))
        << path;
    if (i > 0) {
      EXPECT_LT(std::string(files[i - 1].path), path);
    }
  }
}

TEST(NestedBuildSourcesTest, TheTreeThisTestWasBuiltFromMatches) {
  absl::Span<const SourceFile> files = NestedBuildSources();
  ASSERT_FALSE(files.empty());
  const std::string first = files[0].path;
  absl::StatusOr<std::string> found = base::FindRunfile("icount/" + first);
  ASSERT_TRUE(found.ok()) << found.status();
  const std::string tree = found->substr(0, found->size() - first.size() - 1);
  EXPECT_TRUE(CheckSourceTree(tree, files).ok()) << CheckSourceTree(tree, files);
}

class CheckSourceTreeTest : public testing::Test {
 protected:
  void SetUp() override { tree_ = base::MakeTemporaryDirectory("tree").value(); }
  void TearDown() override { base::RemoveDirectoryTree(tree_); }

  // Writes each file under the tree and records its digest as built.
  void Build(std::vector<std::string> paths) {
    paths_ = std::move(paths);  // not changed after: built_ points into it
    for (const std::string& path : paths_) {
      WriteTestFile(absl::StrCat(tree_, "/", path), "contents of " + path);
      built_.push_back({path.c_str(), ContentDigest("contents of " + path)});
    }
  }

  std::string tree_;
  std::vector<std::string> paths_;
  std::vector<SourceFile> built_;
};

TEST_F(CheckSourceTreeTest, AnUnchangedTreeMatches) {
  Build({"a.cc", "pkg/b.h"});
  EXPECT_TRUE(CheckSourceTree(tree_, built_).ok());
}

TEST_F(CheckSourceTreeTest, AnEditedFileIsNamed) {
  Build({"a.cc", "pkg/b.h"});
  WriteTestFile(tree_ + "/pkg/b.h", "contents of pkg/b.h, edited");
  const absl::Status status = CheckSourceTree(tree_, built_);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(status.message(),
            absl::StrCat("icount's source tree at ", tree_,
                         " is not the one this program was built from: pkg/b.h changed since (1 "
                         "of the 2 files a side's worker is built from)"));
}

TEST_F(CheckSourceTreeTest, GoneAndChangedFilesAreSummedUp) {
  Build({"a.cc", "b.cc", "c.cc", "d.cc", "e.cc", "f.cc"});
  for (const char* gone : {"a.cc", "b.cc", "c.cc", "d.cc", "e.cc"}) {
    ASSERT_EQ(unlink(absl::StrCat(tree_, "/", gone).c_str()), 0);
  }
  WriteTestFile(tree_ + "/f.cc", "");
  const absl::Status status = CheckSourceTree(tree_, built_);
  EXPECT_TRUE(absl::StrContains(
      status.message(),
      ": f.cc changed since; a.cc, b.cc, c.cc and 2 others are gone (6 of the 6 files"))
      << status;
}

}  // namespace
}  // namespace icount::environment
