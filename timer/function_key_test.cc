#include "timer/function_key.h"

#include "absl/container/flat_hash_set.h"
#include "gtest/gtest.h"

namespace icount::timer {
namespace {

TEST(FunctionKeyTest, TextIsAnnotatesSpelling) {
  EXPECT_EQ(FunctionKey("./malloc/malloc.c", "malloc", "/lib/libc.so.6").text(),
            "./malloc/malloc.c:malloc [/lib/libc.so.6]");
  EXPECT_EQ(FunctionKey("inl.h", "main", "").text(), "inl.h:main");
  EXPECT_EQ(FunctionKey("d.c", "d", "/bin/d", 2).text(), "d.c:d'2 [/bin/d]");
  EXPECT_EQ(FunctionKey("", "main", "").text(), ":main");
}

TEST(FunctionKeyTest, ObjectNameAndUnnamed) {
  const FunctionKey unnamed("???", "0x0000000000000030", "/usr/lib/libx.so");
  EXPECT_EQ(unnamed.object_name(), "libx.so");
  EXPECT_TRUE(unnamed.unnamed());
  EXPECT_FALSE(FunctionKey("???", "at::add", "libtorch.so").unnamed());
  EXPECT_EQ(FunctionKey("???", "at::add", "libtorch.so").object_name(), "libtorch.so");
}

// Keys are equal, hash and order as their texts: a key's fields are never
// compared apart.
TEST(FunctionKeyTest, EqualKeysAreOneFunction) {
  absl::flat_hash_set<FunctionKey> keys = {FunctionKey("a.c", "f", "/x"),
                                           FunctionKey("a.c", "f", "/x"),
                                           FunctionKey("a.c", "f", "/x", 2)};
  EXPECT_EQ(keys.size(), 2u);
  EXPECT_LT(FunctionKey("a.c", "f", ""), FunctionKey("a.c", "g", ""));
}

TEST(FunctionKeyTest, ProtoKeepsEveryField) {
  const FunctionKey key("f.cc", "g<'a'>()", "/bin/app", 3);
  const FunctionKeyProto proto = FunctionKeyToProto(key);
  EXPECT_EQ(proto.function(), "g<'a'>()");
  EXPECT_EQ(proto.recursion(), 3);
  const FunctionKey back = FunctionKeyFromProto(proto);
  EXPECT_EQ(back.file(), "f.cc");
  EXPECT_EQ(back.object(), "/bin/app");
  EXPECT_EQ(back.recursion(), 3);
  EXPECT_EQ(back, key);
  EXPECT_EQ(FunctionKeyFromProto(FunctionKeyProto()).recursion(), 1);
}

// What files written with keys as text alone carry.
TEST(FunctionKeyTest, FromTextReadsEveryPart) {
  const FunctionKey malloc = FunctionKeyFromText("./malloc/./malloc/malloc.c:malloc'2 [/lib/libc.so.6]");
  EXPECT_EQ(malloc.file(), "./malloc/./malloc/malloc.c");
  EXPECT_EQ(malloc.function(), "malloc");
  EXPECT_EQ(malloc.object(), "/lib/libc.so.6");
  EXPECT_EQ(malloc.recursion(), 2);
  EXPECT_EQ(FunctionKeyFromText("???:operator new[](unsigned long) [/lib/libstdc++.so.6]").function(),
            "operator new[](unsigned long)");
  EXPECT_EQ(FunctionKeyFromText("???:c10::alloc_cpu(unsigned long)").function(),
            "c10::alloc_cpu(unsigned long)");
  EXPECT_EQ(FunctionKeyFromText(":main").function(), "main");
  EXPECT_EQ(FunctionKeyFromText("f.cc:g<'a'>()").function(), "g<'a'>()");
  // An argument list with an array: the object is the last bracket alone.
  const FunctionKey array = FunctionKeyFromText("a.cc:f(int (&) [3]) [/lib/liba.so]");
  EXPECT_EQ(array.function(), "f(int (&) [3])");
  EXPECT_EQ(array.object(), "/lib/liba.so");
  for (const char* text : {"./malloc/malloc.c:malloc'2 [/lib/libc.so.6]", ":main",
                           "a.cc:f(int (&) [3]) [/lib/liba.so]", "f.cc:g<'a'>()"}) {
    EXPECT_EQ(FunctionKeyFromText(text).text(), text);
  }
}

}  // namespace
}  // namespace icount::timer
