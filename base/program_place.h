#ifndef ICOUNT_BASE_PROGRAM_PLACE_H_
#define ICOUNT_BASE_PROGRAM_PLACE_H_

// A place to start a measured program from whose path has one length
// wherever the program was built and whatever TMPDIR is.
//
// A process's heap holds the paths it was started with: its argv[0] (a
// flags library keeps it), its executable's path as the dynamic loader and
// /proc/self/exe give it, the directory it writes its dumps into. Their
// lengths move allocation sizes, so instruction counts followed them: a
// worker's add case by up to 1.5% between a checkout's build and one
// built elsewhere, a Timer::ForCallable lambda by 1.6% between a binary
// copied to two directories 150 bytes apart. Started from a ProgramPlace,
// the same binary counts the same.
//
//   ProgramPlace place = ProgramPlace::Make(scratch);
//   absl::StatusOr<std::string> start = place.Link("bazel-bin/worker/worker", "worker");
//   if (!start.ok()) return start.status();
//   // *start: "/tmp/icount-path-AbC123/worker", its runfiles beside it;
//   // place.scratch(): "/tmp/icount-path-AbC123/s", a link to `scratch`.
//   ...  // the place goes when `place` does, unless kept

//
// A place is a directory of its own in kProgramPlaceParent. Where none
// can be made there, the place is `scratch` itself: programs still run,
// counting as they did before, with their paths' lengths.

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace icount::base {

// Where places are made, whatever TMPDIR is. A launcher that enters a
// root filesystem must show it inside.
inline constexpr char kProgramPlaceParent[] = "/tmp";

class ProgramPlace {
 public:
  // A new place, "<kProgramPlaceParent>/icount-path-XXXXXX", holding `s`,
  // a symbolic link to the directory `scratch`, and a lock held while this
  // object lives. Removes first the places of this user whose maker is gone
  // and whose scratch directory is gone (a killed run's).
  static ProgramPlace Make(const std::string& scratch);

  // `program` (symbolic links resolved) as "<place>/<name>": a hard link,
  // or a copy where the file system refuses one (another mount, as in
  // Bazel's sandbox), or a symbolic link (which evens out argv[0] but not
  // the executable's path) where even that fails or where the program
  // finds its libraries by its own path ($ORIGIN); its runfiles tree,
  // if it has one, linked as "<place>/<name>.runfiles", so that a program
  // that finds its data by argv[0] finds it there. Returns the path to
  // start.
  absl::StatusOr<std::string> Link(const std::string& program, const std::string& name);

  // A symbolic link "<place>/<name>" to `path` (a directory of data that
  // programs open by path, such as TorchScript files): what they are given
  // then has one length wherever `path` is. Returns the link's path.
  absl::StatusOr<std::string> LinkData(const std::string& path, const std::string& name);

  // The scratch directory as programs started from here see it.
  const std::string& scratch() const { return scratch_; }

  // Leaves the place in /tmp when this object goes, for messages that
  // name paths through it (logs kept for a failure).
  void Keep() { kept_ = true; }

  ProgramPlace(ProgramPlace&& other) noexcept
      : directory_(std::move(other.directory_)),
        scratch_(std::move(other.scratch_)),
        real_scratch_(std::move(other.real_scratch_)),
        names_(std::move(other.names_)),
        lock_(other.lock_),
        kept_(other.kept_) {
    other.lock_ = -1;
    other.kept_ = true;
  }
  ProgramPlace& operator=(ProgramPlace&&) = delete;
  ProgramPlace(const ProgramPlace&) = delete;
  ProgramPlace& operator=(const ProgramPlace&) = delete;

  // Removes the place (its links, never what they point to) unless kept.
  ~ProgramPlace();

 private:
  ProgramPlace(std::string directory, std::string scratch, std::string real_scratch)
      : directory_(std::move(directory)),
        scratch_(std::move(scratch)),
        real_scratch_(std::move(real_scratch)) {}

  std::string directory_;  // holds the programs; real_scratch_ where none could be made
  std::string scratch_;
  std::string real_scratch_;
  std::vector<std::string> names_;  // linked by Link and LinkData
  int lock_ = -1;  // holds the place's lock file locked while in use
  bool kept_ = false;
};

}  // namespace icount::base

#endif  // ICOUNT_BASE_PROGRAM_PLACE_H_
