#include "tools/sides.h"

#include <map>
#include <string>
#include <vector>

#include "base/proto_json.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace icount::tools {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

TEST(ParseSidesFileTest, OneSidePerLineNamedOrNumbered) {
  absl::StatusOr<std::vector<SideSpec>> sides = ParseSidesFile(
      "# nightlies\n\n[2026-11-01] export X=1\n  true  \n[last]export X=3 && echo ]\n", "s.txt");
  ASSERT_TRUE(sides.ok()) << sides.status();
  ASSERT_EQ(sides->size(), 3);
  EXPECT_EQ((*sides)[0].name, "2026-11-01");
  EXPECT_EQ((*sides)[0].command, "export X=1");
  EXPECT_EQ((*sides)[0].line, 3);
  EXPECT_EQ((*sides)[1].name, "2");
  EXPECT_EQ((*sides)[1].command, "true");
  EXPECT_EQ((*sides)[2].name, "last");
  EXPECT_EQ((*sides)[2].command, "export X=3 && echo ]");
}

TEST(ParseSidesFileTest, ASideMayNameALibTorchDirectory) {
  absl::StatusOr<std::vector<SideSpec>> sides = ParseSidesFile(
      "[debian] true\n[mine, libtorch=/opt/libtorch]\n[pre , libtorch=/l] export X=1\n", "s.txt");
  ASSERT_TRUE(sides.ok()) << sides.status();
  ASSERT_EQ(sides->size(), 3);
  EXPECT_EQ((*sides)[0].libtorch_directory, "");
  EXPECT_EQ((*sides)[1].name, "mine");
  EXPECT_EQ((*sides)[1].libtorch_directory, "/opt/libtorch");
  EXPECT_EQ((*sides)[1].command, "true");
  EXPECT_EQ((*sides)[2].name, "pre");
  EXPECT_EQ((*sides)[2].libtorch_directory, "/l");
  EXPECT_EQ((*sides)[2].command, "export X=1");
}

TEST(ParseSidesFileTest, ASideMayNameARoot) {
  absl::StatusOr<std::vector<SideSpec>> sides = ParseSidesFile(
      "[bookworm] true\n[sid, root=sid]\n[image, root=/srv/image] export X=1\n", "s.txt");
  ASSERT_TRUE(sides.ok()) << sides.status();
  ASSERT_EQ(sides->size(), 3);
  EXPECT_EQ((*sides)[0].root, "");
  EXPECT_EQ((*sides)[1].root, "sid");
  EXPECT_EQ((*sides)[1].command, "true");
  EXPECT_EQ((*sides)[2].root, "/srv/image");
  EXPECT_EQ((*sides)[2].command, "export X=1");
}

TEST(ParseSidesFileTest, BadLinesSayWhereAndWhat) {
  auto error = [](const std::string& text) {
    return std::string(ParseSidesFile(text, "s.txt").status().message());
  };
  EXPECT_EQ(error("true\n[a export X=1\n"),
            "s.txt:2: \"[\" without \"]\": name a side as \"[NAME] command\"");
  EXPECT_EQ(error("true\n[] true\n"), "s.txt:2: an empty name \"[]\": write \"[NAME] command\"");
  EXPECT_THAT(error("true\n[a]\n"), HasSubstr("s.txt:2: side \"a\" has no command"));
  EXPECT_EQ(error("[a] true\n# x\n[a] false\n"),
            "s.txt:3: side name \"a\" is already used on line 1: give each side its own name");
  EXPECT_EQ(error("# sides\ntrue\n[1] false\n"),
            "s.txt:3: side name \"1\" is already used on line 2 (a side without [NAME] is named "
            "by its place among the sides): give each side its own name");
  EXPECT_EQ(error("# only one\ntrue\n"),
            "s.txt: 1 side; --sides needs at least two lines, one shell command per environment");
  EXPECT_THAT(error(""), HasSubstr("s.txt: 0 sides"));
  EXPECT_EQ(error("true\n[a, python=/x] true\n"),
            "s.txt:2: side \"a\": \"python=/x\" is not an option a side takes; write \"[NAME, "
            "libtorch=DIR]\" to measure the LibTorch directory DIR, or \"[NAME, root=ROOT]\" to "
            "measure in a root filesystem (a Debian suite such as trixie, or a directory)");
  EXPECT_EQ(error("true\n[a, libtorch=] true\n"),
            "s.txt:2: side \"a\": \"libtorch=\" has no value; write libtorch=DIR (a LibTorch "
            "directory)");
  EXPECT_EQ(error("true\n[a, root= ] true\n"),
            "s.txt:2: side \"a\": \"root=\" has no value; write root=ROOT (a Debian suite such "
            "as trixie, or a directory)");
  // An option given twice, or a LibTorch directory with a root, would leave
  // one of them unused.
  EXPECT_EQ(error("true\n[a, root=sid, root=trixie]\n"),
            "s.txt:2: side \"a\": \"root=\" is given twice; give each option once");
  EXPECT_EQ(error("true\n[a, libtorch=/x, root=sid]\n"),
            "s.txt:2: side \"a\": libtorch= and root= do not combine: a side in a root measures "
            "the root's own torch and LibTorch; give one of them");
}

TEST(CompareAcrossSidesTest, FindsEveryChangeAndTheFirst) {
  const std::vector<std::map<std::string, double>> counts = {
      {{"same", 100}, {"steps", 100}, {"gap", 100}, {"late", 50}},
      {{"same", 100}, {"steps", 110}, {"late", 50}},  // "gap" failed here
      {{"same", 100}, {"steps", 110}, {"gap", 120}, {"late", 50}},
      {{"same", 100}, {"steps", 99}, {"gap", 120}, {"late", 49.5}}};
  const std::vector<CaseAcrossSides> cases = CompareAcrossSides(
      {{"same", "Same"}, {"steps", "Steps"}, {"gap", "Gap"}, {"late", "Late"}}, counts);
  ASSERT_EQ(cases.size(), 4);
  EXPECT_THAT(cases[0].changes, ElementsAre());
  EXPECT_THAT(cases[1].changes, ElementsAre(1, 3));
  EXPECT_THAT(cases[2].changes, ElementsAre(2));  // against side 0, the last counted
  EXPECT_FALSE(cases[2].counts[1].has_value());
  EXPECT_THAT(cases[3].changes, ElementsAre(3));

  const std::vector<std::string> names = {"a", "b", "c", "d"};
  const std::vector<std::map<std::string, std::string>> failures = {{}, {{"gap", "crash"}}, {}, {}};
  const std::string table = AcrossSidesTable(cases, names, failures, false);
  EXPECT_THAT(table, HasSubstr("Steps"));
  EXPECT_THAT(table, HasSubstr("b (+10.00%), 1 more"));
  EXPECT_THAT(table, HasSubstr("failed"));
  EXPECT_THAT(table, HasSubstr("c (+20.00%)"));
  EXPECT_THAT(table, HasSubstr("d (-1.00%)"));
  EXPECT_THAT(AcrossSidesTable(cases, names, failures, true),
              HasSubstr("| Late | 50.0 | 50.0 | 50.0 | 49.5 | d (-1.00%) |"));

  // As --json holds them: null where a side has no count, no first_change
  // without a change.
  std::vector<std::string> json;
  for (const CaseAcrossSides& c : cases) {
    json.push_back(base::ProtoToJsonAllFields(AcrossSidesCaseToProto(c, names)));
  }
  EXPECT_THAT(json[0], HasSubstr("\"counts_per_run\":[100,100,100,100]"));
  EXPECT_THAT(json[0], HasSubstr("\"changes\":[]"));
  EXPECT_THAT(json[0], Not(HasSubstr("first_change")));
  EXPECT_THAT(json[2], HasSubstr("\"counts_per_run\":[100,null,120,120]"));
  EXPECT_THAT(json[2], HasSubstr("\"first_change\":{\"side\":\"c\",\"index\":2,\"delta_pct\":20}"));
  EXPECT_THAT(json[1], HasSubstr("\"changes\":[{\"side\":\"b\",\"index\":1,\"delta_pct\":10},"
                                 "{\"side\":\"d\",\"index\":3,\"delta_pct\":-10}]"));
}

}  // namespace
}  // namespace icount::tools
