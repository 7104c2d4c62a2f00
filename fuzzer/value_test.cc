#include "fuzzer/value.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace icount::fuzzer {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

TEST(ValueTest, KeepsPythonTypes) {
  EXPECT_TRUE(Value(3).is_int());
  EXPECT_TRUE(Value(int64_t{1} << 40).is_int());
  EXPECT_TRUE(Value(2.5).is_double());
  EXPECT_TRUE(Value(2.5f).is_double());
  EXPECT_TRUE(Value(true).is_bool());
  EXPECT_EQ(Value(uint32_t{4294967295}).int_value(), 4294967295);
  EXPECT_THROW(Value(3).double_value(), std::bad_variant_access);
}

TEST(ValueTest, EqualityIsPythons) {
  // 1 == 1.0 == True in Python; a dict cannot hold them as separate keys.
  EXPECT_EQ(Value(1), Value(1.0));
  EXPECT_EQ(Value(1), Value(true));
  EXPECT_EQ(Value(0.0), Value(false));
  EXPECT_NE(Value(1), Value(2));
  EXPECT_NE(Value(1), Value(1.5));
  // Exact, not through double: 2**53 + 1 is not 2**53.
  EXPECT_NE(Value((int64_t{1} << 53) + 1), Value(9007199254740992.0));
  EXPECT_EQ(Value(int64_t{1} << 53), Value(9007199254740992.0));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_NE(Value(nan), Value(nan));
}

TEST(ValueTest, CompareValuesIsExact) {
  EXPECT_LT(CompareValues(2, 2.5), 0);
  EXPECT_GT(CompareValues(3, 2.5), 0);
  EXPECT_EQ(CompareValues(2, 2.0), 0);
  EXPECT_LT(CompareValues(-3, -2.5), 0);
  EXPECT_GT(CompareValues(-2, -2.5), 0);
  EXPECT_GT(CompareValues(2.5, 2), 0);
  // INT64_MAX converts to 2**63 as a double, but is less than it.
  EXPECT_LT(CompareValues(std::numeric_limits<int64_t>::max(), 9223372036854775808.0), 0);
  EXPECT_GT(CompareValues(std::numeric_limits<int64_t>::min(), -1e19), 0);
  EXPECT_LT(CompareValues(false, 1), 0);
}

TEST(ValueTest, TruthinessAndConversion) {
  EXPECT_FALSE(Value(0).Truthy());
  EXPECT_TRUE(Value(-1).Truthy());
  EXPECT_FALSE(Value(0.0).Truthy());
  EXPECT_TRUE(Value(std::numeric_limits<double>::quiet_NaN()).Truthy());
  EXPECT_FALSE(Value(false).Truthy());
  EXPECT_EQ(Value(true).AsDouble(), 1.0);
  EXPECT_EQ(Value(7).AsDouble(), 7.0);
}

TEST(ValueTest, PrintsLikePython) {
  EXPECT_EQ(Value(16).ToPython(), "16");
  EXPECT_EQ(Value(-3).ToPython(), "-3");
  EXPECT_EQ(Value(true).ToPython(), "True");
  EXPECT_EQ(Value(false).ToJson(), "false");
  EXPECT_EQ(Value(0.05).ToPython(), "0.05");
  EXPECT_EQ(Value(2.0).ToJson(), "2.0");
  EXPECT_EQ(Value(std::numeric_limits<double>::infinity()).ToJson(), "Infinity");
}

// repr() and json.dumps() of each float, from
//   /usr/bin/python3 -c 'import json
//   for x in XS: print(x, repr(x), json.dumps(x))'
TEST(FormatDoubleTest, MatchesPythonRepr) {
  struct Case {
    double value;
    const char* repr;
  };
  const Case cases[] = {
      {0.0, "0.0"},
      {-0.0, "-0.0"},
      {1.0, "1.0"},
      {0.5, "0.5"},
      {0.1, "0.1"},
      {1e-05, "1e-05"},
      {0.0001, "0.0001"},
      {0.00012345, "0.00012345"},
      {1e+16, "1e+16"},
      {1234567890123456.0, "1234567890123456.0"},
      {1.2345678901234568e+16, "1.2345678901234568e+16"},
      {1.5e+300, "1.5e+300"},
      {-2.5e-310, "-2.5e-310"},
      {5e-324, "5e-324"},
      {9007199254740992.0, "9007199254740992.0"},
      {0.3, "0.3"},
      {0.6666666666666666, "0.6666666666666666"},
      {1e+22, "1e+22"},
      {123.456, "123.456"},
      {-7.0, "-7.0"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(FormatDouble(c.value), c.repr);
    EXPECT_EQ(FormatDoubleJson(c.value), c.repr);
  }
  EXPECT_EQ(FormatDouble(std::numeric_limits<double>::infinity()), "inf");
  EXPECT_EQ(FormatDouble(-std::numeric_limits<double>::infinity()), "-inf");
  EXPECT_EQ(FormatDouble(std::numeric_limits<double>::quiet_NaN()), "nan");
  EXPECT_EQ(FormatDoubleJson(std::numeric_limits<double>::quiet_NaN()), "NaN");
  EXPECT_EQ(FormatDoubleJson(-std::numeric_limits<double>::infinity()), "-Infinity");
}

TEST(ParamsTest, KeepsOrderAndReplacesInPlace) {
  Params params;
  params.Set("k0", 16);
  params.Set("density", 0.5);
  params.Set("k0", 32);  // replaced, stays first
  EXPECT_THAT(params, ElementsAre(Pair("k0", Value(32)), Pair("density", Value(0.5))));
  ASSERT_NE(params.Find("density"), nullptr);
  EXPECT_EQ(params.Find("nope"), nullptr);
  EXPECT_EQ(params.at("k0"), Value(32));
  try {
    params.at("k9");
    FAIL() << "at() of a missing name must throw";
  } catch (const std::out_of_range& e) {
    EXPECT_THAT(e.what(), HasSubstr("k9"));
  }
}

}  // namespace
}  // namespace icount::fuzzer
