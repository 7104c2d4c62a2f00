#include "slurm/task_log.h"

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/files.h"

namespace icount::slurm {

std::string TaskLogEnd(const std::string& path, int lines, const std::string& shared_dir,
                       const std::string& node) {
  absl::StatusOr<std::string> text = base::ReadFileToString(path);
  if (!text.ok() || text->empty()) {
    return absl::StrCat("(", path, " is empty or missing: the task wrote nothing into --shared_dir=",
                        shared_dir, ". Is it mounted at that path on ",
                        node.empty() ? "the task's node" : node,
                        "? Slurm opens a task's log there before the task starts; `srun -w ",
                        node.empty() ? "NODE" : node, " ls ", shared_dir, "` shows what the node sees)");
  }
  std::vector<absl::string_view> all = absl::StrSplit(*text, '\n', absl::SkipEmpty());
  const size_t from = all.size() > static_cast<size_t>(lines) ? all.size() - lines : 0;
  return absl::StrJoin(all.begin() + from, all.end(), "\n");
}

}  // namespace icount::slurm
