#include "slurm/task_log.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "base/files.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace icount::slurm {
namespace {

using ::testing::HasSubstr;

std::string Directory() { return base::MakeTemporaryDirectory("task-log").value(); }

TEST(TaskLogEndTest, QuotesTheLastLines) {
  const std::string log = Directory() + "/shard_0.log";
  ASSERT_TRUE(base::WriteFileAtomically(log, "one\ntwo\n\nthree\nfour\n").ok());
  EXPECT_EQ(TaskLogEnd(log, 2, "/shared", "node7"), "three\nfour");
  EXPECT_EQ(TaskLogEnd(log, 10, "/shared", "node7"), "one\ntwo\nthree\nfour");
}

// A task that never wrote its log most often ran where the shared
// directory is not mounted: said, with the node and a command to check.
TEST(TaskLogEndTest, AnEmptyOrMissingLogPointsAtTheSharedDirectory) {
  const std::string directory = Directory();
  const std::string missing = directory + "/shard_1.log";
  EXPECT_EQ(TaskLogEnd(missing, 15, "/shared", "node7"),
            absl::StrCat("(", missing,
                         " is empty or missing: the task wrote nothing into --shared_dir=/shared. "
                         "Is it mounted at that path on node7? Slurm opens a task's log there "
                         "before the task starts; `srun -w node7 ls /shared` shows what the node "
                         "sees)"));
  const std::string empty = directory + "/shard_0.log";
  ASSERT_TRUE(base::WriteFileAtomically(empty, "").ok());
  EXPECT_THAT(TaskLogEnd(empty, 15, "/shared", ""),
              HasSubstr("mounted at that path on the task's node? Slurm opens a task's log there "
                        "before the task starts; `srun -w NODE ls /shared`"));
}

}  // namespace
}  // namespace icount::slurm
