// Proves RE2 links from Debian's libre2-dev.
#include <string>

#include "gtest/gtest.h"
#include "re2/re2.h"

namespace {

TEST(Re2Test, StripsLibrarySuffix) {
  // The kind of rewrite FunctionCounts standardisation does.
  std::string name = "at::native::add_out [/usr/lib/libtorch_cpu.so.1.13]";
  EXPECT_TRUE(RE2::Replace(&name, R"( \[.+\]$)", ""));
  EXPECT_EQ(name, "at::native::add_out");
}

TEST(Re2Test, ExtractsSubmatch) {
  int line = 0;
  EXPECT_TRUE(RE2::FullMatch("snippet.cc:12", R"(snippet\.cc:(\d+))", &line));
  EXPECT_EQ(line, 12);
}

}  // namespace
