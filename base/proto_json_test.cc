#include "base/proto_json.h"

#include <string>

#include "base/proto_json_test.pb.h"
#include "gtest/gtest.h"

namespace icount::base {
namespace {

ProtoJsonTestMessage Named(bool ascending) {
  ProtoJsonTestMessage out;
  for (int i = 0; i < 40; ++i) {
    const int n = ascending ? i : 39 - i;
    (*out.mutable_by_name())["key_" + std::to_string(100 + n)] = n;
  }
  return out;
}

// A map's entries are printed sorted by key, whatever the order they were
// made in and however the process seeds protobuf's map iteration: the same
// message always gives the same bytes.
TEST(ProtoJsonTest, MapsPrintInKeyOrder) {
  const std::string json = ProtoToJson(Named(/*ascending=*/false));
  EXPECT_EQ(json, ProtoToJson(Named(/*ascending=*/true)));
  std::string expected = R"({"by_name":{)";
  for (int n = 0; n < 40; ++n) {
    expected += (n ? ",\"key_" : "\"key_") + std::to_string(100 + n) + "\":" + std::to_string(n);
  }
  EXPECT_EQ(json, expected + "}}");
}

TEST(ProtoJsonTest, OnlyWhatIsSetWithTheSchemasNames) {
  ProtoJsonTestMessage message;
  message.set_big_count(12345678901);
  message.add_empty_list("a");
  EXPECT_EQ(ProtoToJson(message), R"({"empty_list":["a"],"big_count":"12345678901"})");
  EXPECT_EQ(ProtoToJson(ProtoJsonTestMessage()), "{}");
}

// Every field a reader may index is there; a field with presence only when
// set.
TEST(ProtoJsonTest, AllFieldsPrintsZerosAndEmptyLists) {
  EXPECT_EQ(ProtoToJsonAllFields(ProtoJsonTestMessage()),
            R"({"zero_count":0,"empty_list":[],"by_name":{},"big_count":"0"})");
  ProtoJsonTestMessage figure;
  figure.set_absent_figure(0);
  EXPECT_EQ(ProtoToJsonAllFields(figure),
            R"({"zero_count":0,"empty_list":[],"by_name":{},"big_count":"0","absent_figure":0})");
}

}  // namespace
}  // namespace icount::base
