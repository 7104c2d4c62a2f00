#include "environment/root.h"

#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <future>
#include <limits>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "base/files.h"
#include "base/subprocess.h"
#include "environment/pytorch_install.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace icount::environment {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

// A suite's root as far as RootIsMade looks: usr/ and dpkg's database
// with `installed` installed, then `more` paragraphs.
void MakeSuiteRoot(const std::string& directory, const std::vector<std::string>& installed,
                   const std::string& more = "") {
  ASSERT_TRUE(base::MakeDirectories(directory + "/usr").ok());
  ASSERT_TRUE(base::MakeDirectories(directory + "/var/lib/dpkg").ok());
  std::string status;
  for (const std::string& package : installed) {
    absl::StrAppend(&status, "Package: ", package, "\nStatus: install ok installed\nVersion: 1\n\n");
  }
  ASSERT_TRUE(base::WriteFileAtomically(directory + "/var/lib/dpkg/status", status + more).ok());
}

// A cache directory of the test's own, so that no root of the machine's is
// seen or touched.
class RootTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cache_ = base::MakeTemporaryDirectory("root-cache").value();
    setenv("ICOUNT_CACHE_DIR", cache_.c_str(), 1);
  }
  void TearDown() override {
    unsetenv("ICOUNT_CACHE_DIR");
    unsetenv("ICOUNT_DEBIAN_MIRROR");
  }
  std::string cache_;
};

bool Exists(const std::string& path) { return access(path.c_str(), F_OK) == 0; }

TEST_F(RootTest, ASuiteNameIsARootIcountMakesUnderItsCache) {
  absl::StatusOr<Root> root = ResolveRoot("trixie", "--B_root");
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(root->suite, "trixie");
  EXPECT_TRUE(root->made_by_icount());
  EXPECT_EQ(root->directory, cache_ + "/roots/trixie");
  EXPECT_FALSE(RootIsMade(*root));
}

TEST_F(RootTest, ASuitesRootLackingAPackageThisIcountNeedsIsNotMade) {
  absl::StatusOr<Root> root = ResolveRoot("trixie", "--B_root");
  ASSERT_TRUE(root.ok()) << root.status();
  const std::vector<std::string>& packages = RootPackages();
  // Every package but the last installed, and that one known but removed.
  MakeSuiteRoot(root->directory, std::vector<std::string>(packages.begin(), packages.end() - 1),
                "Package: " + packages.back() + "\nStatus: deinstall ok config-files\n");
  EXPECT_EQ(MissingRootPackages(*root), std::vector<std::string>{packages.back()});
  EXPECT_FALSE(RootIsMade(*root));
  MakeSuiteRoot(root->directory, packages);
  EXPECT_TRUE(MissingRootPackages(*root).empty());
  EXPECT_TRUE(RootIsMade(*root));
}

TEST_F(RootTest, ADirectoryIsTheUsersRoot) {
  const std::string image = cache_ + "/image";
  ASSERT_TRUE(base::MakeDirectories(image + "/usr").ok());
  absl::StatusOr<Root> root = ResolveRoot(image, "--root");
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_FALSE(root->made_by_icount());
  EXPECT_EQ(root->directory, image);
  EXPECT_TRUE(RootIsMade(*root));
}

TEST_F(RootTest, ASuitesRootNamedByItsPathIsThatSuitesRoot) {
  const std::vector<std::string>& packages = RootPackages();
  MakeSuiteRoot(cache_ + "/roots/trixie", packages);
  ASSERT_TRUE(base::MakeDirectories(cache_ + "/roots/trixie/usr").ok());
  ASSERT_EQ(symlink((cache_ + "/roots").c_str(), (cache_ + "/link").c_str()), 0);
  absl::StatusOr<Root> root = ResolveRoot(cache_ + "/link/trixie/", "--root");
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(root->suite, "trixie");
  EXPECT_EQ(root->directory, cache_ + "/roots/trixie");
  // Its builds are the suite's: named either way, one build.
  EXPECT_EQ(RootBuildsDirectory(*root), RootBuildsDirectory(*ResolveRoot("trixie", "--root")));

  // A make's .partial is never used half-made.
  ASSERT_TRUE(base::MakeDirectories(cache_ + "/roots/sid.partial/usr").ok());
  root = ResolveRoot(cache_ + "/roots/sid.partial", "--B_root");
  EXPECT_THAT(root.status().message(),
              HasSubstr("is a root icount is making or replacing, or whose make was cut off"));
  // A directory inside a root is the user's own.
  ASSERT_TRUE(base::MakeDirectories(cache_ + "/roots/trixie/opt/image/usr").ok());
  root = ResolveRoot(cache_ + "/roots/trixie/opt/image", "--root");
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_FALSE(root->made_by_icount());
}

TEST_F(RootTest, BadValuesSayWhatARootIs) {
  auto error = [](const std::string& value) {
    return std::string(ResolveRoot(value, "--A_root").status().message());
  };
  EXPECT_THAT(error(cache_ + "/missing"),
              HasSubstr(absl::StrCat("--A_root: ", cache_, "/missing: no such directory")));
  EXPECT_THAT(error(cache_), HasSubstr("is not a root filesystem (it has no usr/)"));
  ASSERT_TRUE(base::WriteFileAtomically(cache_ + "/file", "").ok());
  EXPECT_THAT(error(cache_ + "/file"),
              HasSubstr(absl::StrCat("--A_root: ", cache_, "/file: a file, not a directory")));
  EXPECT_THAT(error("Trixie"), HasSubstr("--A_root: Trixie: neither a directory"));
  EXPECT_THAT(error("sid-2"), HasSubstr("nor a Debian suite's name"));
}

TEST(RootContentsTest, SaysEverythingARootLacks) {
  Root root;
  root.name = "/srv/image";
  root.directory = "/";  // with /bin/bash
  RootContents contents;
  contents.torch = "2.6.0";
  contents.python = "3.13.5";
  contents.compiler = "g++ 14.2.0";
  contents.valgrind = "valgrind-3.24.0";
  contents.bazel = "bazel 4.2.3";
  EXPECT_TRUE(CheckRootContents(root, contents).ok());
  contents.torch = "ModuleNotFoundError: No module named 'torch'";
  contents.compiler = "none";
  contents.valgrind = "none";
  root.directory = "/srv/image";  // without
  const std::string message(CheckRootContents(root, contents).message());
  EXPECT_THAT(message, HasSubstr("the root /srv/image (/srv/image) lacks torch (`import torch`: "
                                 "ModuleNotFoundError: No module named 'torch'; install "
                                 "python3-torch), bash (install bash: a side's commands run with "
                                 "/bin/bash), a C++ compiler (install g++), valgrind"));
  EXPECT_THAT(message, Not(HasSubstr("Bazel (install")));
  EXPECT_EQ(RootToolchain(contents), "Python 3.13.5, none");
}

// apt reads the sources the test writes (APT_CONFIG) instead of the
// machine's.
class DebianMirrorTest : public RootTest {
 protected:
  void SetUp() override {
    RootTest::SetUp();
    unsetenv("ICOUNT_DEBIAN_MIRROR");
    apt_ = base::MakeTemporaryDirectory("apt").value();
    ASSERT_TRUE(base::MakeDirectories(apt_ + "/parts").ok());
    ASSERT_TRUE(base::MakeDirectories(apt_ + "/lists").ok());
    ASSERT_TRUE(base::WriteFileAtomically(apt_ + "/none.list", "").ok());
    ASSERT_TRUE(base::WriteFileAtomically(
                    apt_ + "/apt.conf",
                    absl::StrCat("Dir::Etc::SourceList \"", apt_, "/none.list\";\n",
                                 "Dir::Etc::SourceParts \"", apt_, "/parts\";\n",
                                 "Dir::State::Lists \"", apt_, "/lists\";\n"))
                    .ok());
    setenv("APT_CONFIG", (apt_ + "/apt.conf").c_str(), 1);
  }
  void TearDown() override {
    unsetenv("APT_CONFIG");
    RootTest::TearDown();
  }
  void WriteSources(const std::string& name, const std::string& text) {
    ASSERT_TRUE(base::WriteFileAtomically(apt_ + "/parts/" + name, text).ok());
  }
  std::string apt_;
};

TEST_F(DebianMirrorTest, IsTheFirstReleaseArchiveAsAptReadsTheSources) {
  // apt reads a directory's files in the order of their names.
  WriteSources("a.sources",
               "Types: deb-src\n"
               "URIs: http://src.example/debian\n"
               "Suites: bookworm\n"
               "Components: main\n"
               "\n"
               "Types: deb\n"
               "URIs: http://off.example/debian\n"
               "Suites: bookworm\n"
               "Components: main\n"
               "Enabled: no\n"
               "\n"
               "Types: deb\n"
               "URIs: http://security.example/debian-security\n"
               "Suites: bookworm-security\n"
               "Components: main\n");
  WriteSources("b.list",
               "# deb http://old.example/debian buster main\n"
               "deb http://mirror.example/debian bookworm-updates main\n"
               "deb [signed-by=/usr/share/keyrings/k.gpg] http://mirror.example/debian "
               "bookworm main contrib\n");
  WriteSources("c.list", "deb http://later.example/debian bookworm main\n");
  absl::StatusOr<std::string> mirror = DebianMirror();
  ASSERT_TRUE(mirror.ok()) << mirror.status();
  EXPECT_EQ(*mirror, "http://mirror.example/debian/");
}

TEST_F(DebianMirrorTest, NoneSaysHowToNameOne) {
  WriteSources("a.list", "deb http://security.example/ bookworm-security main\n");
  absl::StatusOr<std::string> mirror = DebianMirror();
  ASSERT_FALSE(mirror.ok());
  EXPECT_EQ(mirror.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(mirror.status().message(),
            "no Debian mirror in this machine's apt sources (/etc/apt/sources.list, "
            "/etc/apt/sources.list.d/): add one, or set ICOUNT_DEBIAN_MIRROR=<mirror URL>");
}

TEST_F(RootTest, TheMirrorVariableWins) {
  setenv("ICOUNT_DEBIAN_MIRROR", "http://mirror.example/debian", 1);
  absl::StatusOr<std::string> mirror = DebianMirror();
  ASSERT_TRUE(mirror.ok()) << mirror.status();
  EXPECT_EQ(*mirror, "http://mirror.example/debian");
}

// A suite Debian does not have is refused where it is named, before a tool
// of many sides sets up any; one made before stays usable.
TEST_F(RootTest, ASuiteDebianDoesNotHaveIsRefusedWhereItIsNamed) {
  const absl::StatusOr<Root> root = ResolveRoot("nosuchsuite", "--root");
  EXPECT_EQ(root.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(root.status().message()),
              HasSubstr("--root: Debian has no suite named nosuchsuite (its releases, as "
                        "/usr/share/distro-info/debian.csv lists them: ..., "));
  EXPECT_THAT(std::string(root.status().message()), HasSubstr(", sid); or give a root directory"));
  EXPECT_FALSE(Exists(RootsDirectory() + "/nosuchsuite.lock"));
  ASSERT_TRUE(base::MakeDirectories(RootsDirectory() + "/nosuchsuite/usr").ok());
  EXPECT_TRUE(ResolveRoot("nosuchsuite", "--root").ok()) << "a root made before was refused";
}

// Debian's moving names are refused with the codename they stand for.
TEST_F(RootTest, AMovingSuiteNameSaysItsCodename) {
  EXPECT_EQ(ResolveRoot("unstable", "--root").status().message(),
            "--root: unstable is Debian's moving name for sid; name the codename (--root=sid), "
            "so that a root keeps what it holds");
  EXPECT_THAT(std::string(ResolveRoot("stable", "--root").status().message()),
              HasSubstr("stable is Debian's moving name for "));
}

// A make that cannot reach its mirror leaves nothing, and a make cut off
// earlier (its .partial) is removed first, never used.
TEST_F(RootTest, AnUnreachableMirrorLeavesNothingHalfMade) {
  if (geteuid() != 0) GTEST_SKIP() << "mmdebstrap runs as root only";
  // Port 9 (discard) of this machine: refused at once.
  setenv("ICOUNT_DEBIAN_MIRROR", "http://127.0.0.1:9/debian", 1);
  absl::StatusOr<Root> root = ResolveRoot("trixie", "--root");
  ASSERT_TRUE(root.ok()) << root.status();
  ASSERT_TRUE(base::MakeDirectories(root->directory + ".partial/usr/bin").ok());
  std::vector<std::string> lines;
  RootMakeOptions options;
  options.on_line = [&](const std::string& line) { lines.push_back(line); };
  options.free_bytes_needed = 0;  // whatever this machine's disk has
  const absl::Status made = EnsureRootMade(*root, options);
  EXPECT_THAT(std::string(made.message()),
              HasSubstr("cannot make the Debian root trixie: the Debian mirror "
                        "http://127.0.0.1:9/debian could not be reached, or has no suite trixie"));
  EXPECT_THAT(std::string(made.message()), HasSubstr("nothing was kept"));
  EXPECT_THAT(lines, testing::Contains(HasSubstr("left by a make that was cut off")));
  EXPECT_FALSE(Exists(root->directory));
  EXPECT_FALSE(Exists(root->directory + ".partial"));
  EXPECT_FALSE(RootIsMade(*root));
}

// A tool killed while it makes a root: mmdebstrap, apt and dpkg end with
// it, rather than go on writing into the root's directory. The mirror is a
// port of this test's that takes a connection and never answers; apt's
// connection to it closing is the sign that apt ended.
TEST_F(RootTest, AMakeEndsWithTheToolThatStartedIt) {
  if (geteuid() != 0) GTEST_SKIP() << "mmdebstrap runs as root only";
  const int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(listener, 0);
  sockaddr_in address = {};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(address);
  ASSERT_EQ(bind(listener, reinterpret_cast<sockaddr*>(&address), length), 0);
  ASSERT_EQ(listen(listener, 4), 0);
  ASSERT_EQ(getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length), 0);
  setenv("ICOUNT_DEBIAN_MIRROR",
         absl::StrCat("http://127.0.0.1:", ntohs(address.sin_port), "/debian").c_str(), 1);
  absl::StatusOr<Root> root = ResolveRoot("trixie", "--root");
  ASSERT_TRUE(root.ok()) << root.status();
  const pid_t tool = fork();
  ASSERT_GE(tool, 0);
  if (tool == 0) {
    close(listener);
    RootMakeOptions options;
    options.free_bytes_needed = 0;
    _exit(EnsureRootMade(*root, options).ok() ? 0 : 1);
  }
  // apt asks the mirror for the suite's Release file (30 s is the bound,
  // well inside the test's timeout).
  pollfd waiting = {listener, POLLIN, 0};
  const bool reached = poll(&waiting, 1, 30'000) == 1;
  const int apt = reached ? accept4(listener, nullptr, nullptr, SOCK_CLOEXEC) : -1;
  kill(tool, SIGKILL);  // whether or not apt came: the tool ends here
  ASSERT_EQ(waitpid(tool, nullptr, 0), tool);
  ASSERT_TRUE(reached) << "mmdebstrap never reached the mirror";
  ASSERT_GE(apt, 0);
  // apt's end closes its connection at once, after what it asked (20 s is
  // the bound; apt's own timeout is longer).
  bool closed = false;
  for (int waited = 0; !closed && waited < 200; ++waited) {
    pollfd connection = {apt, POLLIN, 0};
    if (poll(&connection, 1, 100) != 1) continue;
    char request[4096];
    closed = read(apt, request, sizeof(request)) <= 0;
  }
  close(apt);
  EXPECT_TRUE(closed) << "apt outlived the tool that made the root";
  close(listener);
}

// Too little free on the cache's disk: refused before mmdebstrap starts,
// saying how much is free and what to do, rather than a make that fails
// minutes later on a full disk.
TEST_F(RootTest, TooLittleFreeSpaceIsRefusedBeforeMmdebstrapStarts) {
  if (geteuid() != 0) GTEST_SKIP() << "mmdebstrap runs as root only";
  absl::StatusOr<Root> root = ResolveRoot("trixie", "--root");
  ASSERT_TRUE(root.ok()) << root.status();
  RootMakeOptions options;
  options.mirror = "http://127.0.0.1:9/debian";
  options.free_bytes_needed = std::numeric_limits<uint64_t>::max();
  const absl::Status made = EnsureRootMade(*root, options);
  EXPECT_EQ(made.code(), absl::StatusCode::kResourceExhausted) << made;
  EXPECT_THAT(std::string(made.message()),
              HasSubstr("making the Debian root trixie needs about "));
  EXPECT_THAT(std::string(made.message()), HasSubstr(" MB: free some space (`roots remove`"));
  EXPECT_FALSE(Exists(root->directory + ".partial"));
}

// A make through sudo leaves the user who ran it what they write into when
// they use the root as themself: the cache, its roots/ and roots/.mnt.
TEST_F(RootTest, AMakeThroughSudoLeavesTheRootsDirectoryToTheUser) {
  if (geteuid() != 0) GTEST_SKIP() << "mmdebstrap runs as root only";
  setenv("ICOUNT_CACHE_DIR", (cache_ + "/made-by-sudo").c_str(), 1);
  setenv("SUDO_UID", "65534", 1);
  setenv("SUDO_GID", "65534", 1);
  RootMakeOptions options;
  options.free_bytes_needed = std::numeric_limits<uint64_t>::max();  // stops before mmdebstrap
  const absl::Status made = EnsureRootMade(ResolveRoot("trixie", "--root").value(), options);
  unsetenv("SUDO_UID");
  unsetenv("SUDO_GID");
  EXPECT_EQ(made.code(), absl::StatusCode::kResourceExhausted) << made;
  for (const std::string& directory :
       {cache_ + "/made-by-sudo", cache_ + "/made-by-sudo/roots", cache_ + "/made-by-sudo/roots/.mnt"}) {
    struct stat info;
    ASSERT_EQ(stat(directory.c_str(), &info), 0) << directory;
    EXPECT_EQ(info.st_uid, 65534u) << directory;
  }
}

TEST_F(RootTest, ListsMadeAndCutOffRootsOnce) {
  EXPECT_THAT(ListMadeRoots(), IsEmpty());
  MakeSuiteRoot(cache_ + "/roots/trixie", RootPackages());
  ASSERT_TRUE(base::MakeDirectories(cache_ + "/roots/sid.partial").ok());
  ASSERT_TRUE(base::MakeDirectories(cache_ + "/roots/.mnt").ok());
  std::vector<std::string> listed;
  for (const Root& root : ListMadeRoots()) {
    listed.push_back(absl::StrCat(root.suite, RootIsMade(root) ? " made" : " cut off"));
  }
  EXPECT_THAT(listed, ElementsAre("sid cut off", "trixie made"));
}

// `roots list` says why a suite's root is not made, and names what a
// refresh cut off left behind.
TEST_F(RootTest, SaysWhyARootIsNotMade) {
  const Root sid = ResolveRoot("sid", "--root").value();
  EXPECT_THAT(WhyNotMade(sid), HasSubstr("not made yet; `roots make sid` makes it"));
  ASSERT_TRUE(base::MakeDirectories(sid.directory + ".partial").ok());
  EXPECT_EQ(WhyNotMade(sid), "not made: a make was cut off; the next use makes it again");
  {
    absl::StatusOr<base::FileLock> making = base::FileLock::Take(sid.directory + ".lock");
    ASSERT_TRUE(making.ok()) << making.status();
    EXPECT_EQ(WhyNotMade(sid), "being made now by another icount run");
  }
  ASSERT_TRUE(base::MakeDirectories(sid.directory + ".old/usr").ok());
  EXPECT_THAT(WhyNotMade(sid), HasSubstr("(a refresh cut off left " + sid.directory +
                                         ".old: `roots remove sid` removes it)"));
}

// What a refresh cut off left is listed and removed, though no root is.
TEST_F(RootTest, ARefreshsLeftoverIsListedAndRemoved) {
  const Root forky = ResolveRoot("forky", "--root").value();
  ASSERT_TRUE(base::MakeDirectories(forky.directory + ".old/usr").ok());
  ASSERT_EQ(ListMadeRoots().size(), 1u);
  EXPECT_EQ(ListMadeRoots()[0].suite, "forky");
  ASSERT_TRUE(RemoveRoot(forky).ok());
  EXPECT_FALSE(Exists(forky.directory + ".old"));
}

TEST_F(RootTest, RemovingTakesTheRootAndItsBuilds) {
  absl::StatusOr<Root> root = ResolveRoot("trixie", "--root");
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_THAT(std::string(RemoveRoot(*root).message()), HasSubstr("there is no root trixie"));
  ASSERT_TRUE(base::MakeDirectories(root->directory + "/usr").ok());
  ASSERT_TRUE(base::MakeDirectories(RootBuildsDirectory(*root) + "/output").ok());
  ASSERT_TRUE(RemoveRoot(*root).ok());
  EXPECT_FALSE(Exists(root->directory));
  EXPECT_FALSE(Exists(RootBuildsDirectory(*root)));
}

TEST_F(RootTest, ARootInUseIsRemovedOnlyOnceTheRunEnds) {
  absl::StatusOr<Root> root = ResolveRoot("trixie", "--root");
  ASSERT_TRUE(root.ok()) << root.status();
  MakeSuiteRoot(root->directory, RootPackages());
  ASSERT_TRUE(base::MakeDirectories(root->directory + "/usr").ok());
  absl::StatusOr<std::optional<base::FileLock>> in_use = UseRoot(*root, {});
  ASSERT_TRUE(in_use.ok()) << in_use.status();
  ASSERT_TRUE(in_use->has_value()) << "a suite's root in use holds its lock";

  std::promise<std::string> first_line;
  std::promise<absl::Status> removed;
  std::thread remove([&] {
    bool said = false;
    removed.set_value(RemoveRoot(*root, [&](const std::string& line) {
      if (!said) first_line.set_value(line);
      said = true;
    }));
    if (!said) first_line.set_value("");
  });
  // flock(2) locks belong to open files: this thread's removal waits for
  // the use above like another process's would.
  const std::string line = first_line.get_future().get();
  EXPECT_THAT(line, HasSubstr("waiting for the other icount runs that make or use the root "
                              "trixie to end"));
  EXPECT_TRUE(Exists(root->directory + "/usr")) << "removed while in use";
  in_use->reset();  // the run ends
  EXPECT_TRUE(removed.get_future().get().ok());
  remove.join();
  EXPECT_FALSE(Exists(root->directory));

  // A user's directory is the user's: nothing to hold.
  const std::string image = cache_ + "/image";
  ASSERT_TRUE(base::MakeDirectories(image + "/usr").ok());
  absl::StatusOr<std::optional<base::FileLock>> users = UseRoot(*ResolveRoot(image, "--root"), {});
  ASSERT_TRUE(users.ok()) << users.status();
  EXPECT_FALSE(users->has_value());
}

// A command's output, its last newline dropped.
std::string Output(const std::vector<std::string>& argv) {
  absl::StatusOr<base::CommandResult> result = base::RunCommand(argv);
  if (!result.ok()) return result.status().ToString();
  return std::string(absl::StripTrailingAsciiWhitespace(result->output));
}

// The machine's own root, entered as a root a user brings: what the tools
// ask of every root before using it.
TEST_F(RootTest, InspectsWhatARootHolds) {
  absl::StatusOr<Root> root = ResolveRoot("/", "--root");
  ASSERT_TRUE(root.ok()) << root.status();
  absl::StatusOr<RootContents> contents = InspectRoot(*root);
  ASSERT_TRUE(contents.ok()) << contents.status();
  // What the machine says by other means: its LibTorch's headers, python3,
  // the compiler this test was built with, valgrind.
  const std::string headers = HeaderVersion("/usr/include").value_or("?");
  EXPECT_THAT(contents->torch, testing::StartsWith(headers.substr(0, headers.rfind('.'))));
  EXPECT_EQ(contents->python,
            Output({"/usr/bin/python3", "-c", "import platform; print(platform.python_version())"}));
  EXPECT_THAT(contents->compiler, testing::StartsWith(absl::StrCat("g++ ", __GNUC__, ".")));
  EXPECT_EQ(contents->valgrind, Output({"valgrind", "--version"}));
  EXPECT_THAT(contents->bazel, testing::MatchesRegex("bazel [0-9]+\\.[0-9]+\\.[0-9]+"));
  EXPECT_TRUE(CheckRootContents(*root, *contents).ok());
}

}  // namespace
}  // namespace icount::environment
