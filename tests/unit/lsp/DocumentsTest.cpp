//===- DocumentsTest.cpp - Incremental text sync with UTF-16 ranges -------===//
#include "Documents.h"

#include <gtest/gtest.h>

using namespace kina::lsp;

namespace {

TextDocumentContentChangeEvent edit(uint32_t l1, uint32_t c1, uint32_t l2, uint32_t c2,
                                    std::string text) {
  return {Range{{l1, c1}, {l2, c2}}, std::move(text)};
}

TEST(Documents, AppliesIncrementalChangesInOrder) {
  DocumentStore docs;
  docs.open("u", "abc\ndef\n", 1);
  std::string warning;
  ASSERT_TRUE(docs.change("u", 2, {edit(0, 1, 0, 2, "XY"), edit(1, 0, 1, 0, ">")}, warning));
  EXPECT_EQ(docs.get("u")->file->text(), "aXYc\n>def\n");
  EXPECT_EQ(docs.get("u")->version, 2);
  EXPECT_TRUE(warning.empty());
}

TEST(Documents, CountsUtf16CodeUnits) {
  DocumentStore docs;
  // U+1F600 is 4 bytes in UTF-8 and 2 code units in UTF-16; é is 2 bytes, 1 unit.
  docs.open("u", "\xF0\x9F\x98\x80" "\xC3\xA9x\n", 1);
  std::string warning;
  ASSERT_TRUE(docs.change("u", 2, {edit(0, 3, 0, 4, "Y")}, warning));
  EXPECT_EQ(docs.get("u")->file->text(), "\xF0\x9F\x98\x80" "\xC3\xA9Y\n");
  ASSERT_TRUE(docs.change("u", 3, {edit(0, 0, 0, 2, "")}, warning));
  EXPECT_EQ(docs.get("u")->file->text(), "\xC3\xA9Y\n");
}

TEST(Documents, FullReplacementAndClampedRanges) {
  DocumentStore docs;
  docs.open("u", "one\n", 1);
  std::string warning;
  ASSERT_TRUE(docs.change("u", 2, {{std::nullopt, "two\nlines"}}, warning));
  EXPECT_EQ(docs.get("u")->file->text(), "two\nlines");
  ASSERT_TRUE(docs.change("u", 3, {edit(7, 0, 9, 0, "!")}, warning));
  EXPECT_EQ(docs.get("u")->file->text(), "two\nlines!");
  EXPECT_FALSE(warning.empty());
}

TEST(Documents, NonIncreasingVersionWarnsButApplies) {
  DocumentStore docs;
  docs.open("u", "a", 5);
  std::string warning;
  ASSERT_TRUE(docs.change("u", 5, {{std::nullopt, "b"}}, warning));
  EXPECT_NE(warning.find("does not increase"), std::string::npos);
  EXPECT_EQ(docs.get("u")->file->text(), "b");
}

TEST(Documents, UnknownDocument) {
  DocumentStore docs;
  std::string warning;
  EXPECT_FALSE(docs.change("nope", 1, {}, warning));
  EXPECT_FALSE(docs.close("nope"));
}

} // namespace
