#include "base/program_place.h"

#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include "base/files.h"
#include "gtest/gtest.h"

namespace icount::base {
namespace {

bool Exists(const std::string& path) {
  struct stat info;
  return lstat(path.c_str(), &info) == 0;
}

// An executable file at `path` whose runfiles tree holds `data`.
void MakeProgram(const std::string& path) {
  ASSERT_TRUE(MakeDirectories(path + ".runfiles/icount").ok());
  ASSERT_TRUE(WriteFileAtomically(path, "#!/bin/sh\n").ok());
  ASSERT_EQ(chmod(path.c_str(), 0755), 0);
  ASSERT_TRUE(WriteFileAtomically(path + ".runfiles/icount/data", "d").ok());
}

class ProgramPlaceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::string> directory = MakeTemporaryDirectory("program_place_test");
    ASSERT_TRUE(directory.ok()) << directory.status();
    directory_ = *directory;
  }
  void TearDown() override { RemoveDirectoryTree(directory_); }
  std::string directory_;
};

TEST_F(ProgramPlaceTest, ProgramsFromPathsOfAnyLengthStartFromPathsOfOneLength) {
  const std::string short_path = directory_ + "/p";
  const std::string long_path = directory_ + "/" + std::string(200, 'd') + "/p";
  MakeProgram(short_path);
  MakeProgram(long_path);
  ProgramPlace one = ProgramPlace::Make(directory_);
  ProgramPlace other = ProgramPlace::Make(directory_ + "/" + std::string(200, 'd'));
  absl::StatusOr<std::string> first = one.Link(short_path, "worker");
  absl::StatusOr<std::string> second = other.Link(long_path, "worker");
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_NE(*first, *second);
  EXPECT_EQ(first->size(), second->size());
  EXPECT_EQ(first->rfind(std::string(kProgramPlaceParent) + "/icount-path-", 0), 0u) << *first;
  EXPECT_EQ(one.scratch().size(), other.scratch().size());
  EXPECT_EQ(access(first->c_str(), X_OK), 0) << "the program is not executable where it starts";
  EXPECT_EQ(*ReadFileToString(*second + ".runfiles/icount/data"), "d") << "runfiles not linked";
  ASSERT_TRUE(WriteFileAtomically(one.scratch() + "/written", "w").ok());
  EXPECT_EQ(*ReadFileToString(directory_ + "/written"), "w") << "scratch is not the directory";
}

TEST_F(ProgramPlaceTest, GoesWithItsObjectUnlessKeptAndLeavesWhatItLinks) {
  MakeProgram(directory_ + "/p");
  std::string removed;
  std::string kept;
  {
    ProgramPlace place = ProgramPlace::Make(directory_);
    absl::StatusOr<std::string> start = place.Link(directory_ + "/p", "p");
    ASSERT_TRUE(start.ok()) << start.status();
    removed = *start;
    ProgramPlace moved = std::move(place);  // the moved-from object removes nothing
    EXPECT_TRUE(Exists(removed));
    ProgramPlace other = ProgramPlace::Make(directory_);
    kept = other.scratch();
    other.Keep();
  }
  EXPECT_FALSE(Exists(removed));
  EXPECT_FALSE(Exists(removed.substr(0, removed.rfind('/'))));
  EXPECT_TRUE(Exists(directory_ + "/p")) << "removed what the place linked";
  EXPECT_TRUE(Exists(directory_ + "/p.runfiles/icount/data"));
  EXPECT_TRUE(Exists(kept));
  unlink(kept.c_str());
  rmdir(kept.substr(0, kept.rfind('/')).c_str());
}

TEST_F(ProgramPlaceTest, DataFromPathsOfAnyLengthIsReadThroughPathsOfOneLength) {
  const std::string long_directory = directory_ + "/" + std::string(200, 'a');
  ASSERT_TRUE(MakeDirectories(long_directory).ok());
  ASSERT_TRUE(WriteFileAtomically(long_directory + "/m.pt", "model").ok());
  std::string link;
  {
    ProgramPlace one = ProgramPlace::Make(directory_);
    ProgramPlace other = ProgramPlace::Make(directory_);
    absl::StatusOr<std::string> short_link = one.LinkData(directory_, "a");
    absl::StatusOr<std::string> long_link = other.LinkData(long_directory, "a");
    ASSERT_TRUE(short_link.ok()) << short_link.status();
    ASSERT_TRUE(long_link.ok()) << long_link.status();
    EXPECT_EQ(short_link->size(), long_link->size());
    EXPECT_EQ(*ReadFileToString(*long_link + "/m.pt"), "model");
    EXPECT_FALSE(one.LinkData(directory_, "a").ok()) << "a name given twice";
    link = *long_link;
  }
  EXPECT_FALSE(Exists(link));
  EXPECT_EQ(*ReadFileToString(long_directory + "/m.pt"), "model") << "removed what was linked";
}

bool IsSymbolicLink(const std::string& path) {
  struct stat info;
  return lstat(path.c_str(), &info) == 0 && S_ISLNK(info.st_mode);
}

TEST_F(ProgramPlaceTest, ProgramsThatFindLibrariesByTheirOwnPathStayWhereTheyAre) {
  ProgramPlace place = ProgramPlace::Make(directory_);
  // This test, linked dynamically by Bazel: RUNPATH $ORIGIN/../_solib_k8.
  absl::StatusOr<std::string> test = place.Link("/proc/self/exe", "test");
  // /bin/true: no RUNPATH.
  absl::StatusOr<std::string> other = place.Link("/bin/true", "true");
  ASSERT_TRUE(test.ok()) << test.status();
  ASSERT_TRUE(other.ok()) << other.status();
  EXPECT_TRUE(IsSymbolicLink(*test)) << "moved a program away from its libraries";
  EXPECT_FALSE(IsSymbolicLink(*other)) << "a program that can move was not moved";
}

TEST_F(ProgramPlaceTest, MakingOneRemovesPlacesWhoseScratchIsGone) {
  const std::string gone = directory_ + "/gone";
  ASSERT_TRUE(MakeDirectories(gone).ok());
  MakeProgram(directory_ + "/p");
  std::string abandoned;
  std::string alive;
  {
    ProgramPlace place = ProgramPlace::Make(gone);
    ASSERT_TRUE(place.Link(directory_ + "/p", "p").ok());
    abandoned = place.scratch();
    place.Keep();  // as a killed run leaves it
    ProgramPlace other = ProgramPlace::Make(directory_);
    alive = other.scratch();
    other.Keep();
  }
  RemoveDirectoryTree(gone);
  ProgramPlace next = ProgramPlace::Make(directory_);
  EXPECT_FALSE(Exists(abandoned.substr(0, abandoned.rfind('/'))));
  EXPECT_TRUE(Exists(alive)) << "removed a place whose scratch directory exists";
  EXPECT_TRUE(Exists(directory_ + "/p"));
  unlink(alive.c_str());
  rmdir(alive.substr(0, alive.rfind('/')).c_str());
}

// A place in use is left alone though its scratch cannot be seen from
// here: another test's, in a Bazel sandbox of its own, lost its `s` to this
// one's Make and its case processes could not write their results.
TEST_F(ProgramPlaceTest, APlaceInUseIsKeptWhereItsScratchCannotBeSeen) {
  const std::string unseen = directory_ + "/unseen";
  ASSERT_TRUE(MakeDirectories(unseen).ok());
  ProgramPlace in_use = ProgramPlace::Make(unseen);
  RemoveDirectoryTree(unseen);  // as another mount namespace's scratch looks from here
  ProgramPlace next = ProgramPlace::Make(directory_);
  EXPECT_TRUE(Exists(in_use.scratch())) << "removed a place whose maker still uses it";
}

}  // namespace
}  // namespace icount::base
