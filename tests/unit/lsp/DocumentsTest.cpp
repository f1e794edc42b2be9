//===- DocumentsTest.cpp - Incremental text sync with UTF-16 ranges -------===//
#include "Documents.h"

#include <gtest/gtest.h>

#include <random>

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

/// A change updates the line table around the edit (SourceFile's edit
/// constructor): after every random edit, line by line and offset by offset
/// it equals the table of a SourceFile made from the whole new text.
TEST(Documents, LineTableAfterEditsEqualsAFreshOne) {
  DocumentStore docs;
  std::string text = "kernel k\n  (a : T)\n\n{\n  block_sync\n}\n\xC3\xA9\n";
  docs.open("u", text, 1);
  std::mt19937 rng(3);
  const std::vector<std::string> inserts = {"x",    "\n",       "\n\n", "ab\ncd",
                                            "\r\n", "\xC3\xA9", "",     "\n  q\n"};
  for (int i = 0; i < 2000; ++i) {
    const kina::SourceFile &before = *docs.get("u")->file;
    uint32_t l1 = rng() % (before.lineCount() + 1), l2 = l1 + rng() % 3;
    uint32_t c1 = rng() % 6, c2 = rng() % 6;
    if (l2 == l1 && c2 < c1)
      std::swap(c1, c2);
    std::string warning;
    ASSERT_TRUE(
        docs.change("u", i + 2, {edit(l1, c1, l2, c2, inserts[rng() % inserts.size()])}, warning));
    const kina::SourceFile &got = *docs.get("u")->file;
    kina::SourceFile want("u", got.text());
    ASSERT_EQ(got.lineCount(), want.lineCount()) << "edit " << i;
    for (uint32_t l = 0; l < want.lineCount(); ++l)
      ASSERT_EQ(got.lineText(l), want.lineText(l)) << "edit " << i << " line " << l;
    for (uint32_t o = 0; o <= want.text().size(); ++o) {
      ASSERT_EQ(got.byteLineCol(o).line, want.byteLineCol(o).line) << "edit " << i;
      ASSERT_EQ(got.byteLineCol(o).column, want.byteLineCol(o).column) << "edit " << i;
    }
    if (got.text().size() > 4000)
      docs.open("u", text, i + 2); // start over: keep each check small
  }
}

TEST(Documents, UnknownDocument) {
  DocumentStore docs;
  std::string warning;
  EXPECT_FALSE(docs.change("nope", 1, {}, warning));
  EXPECT_FALSE(docs.close("nope"));
}

} // namespace
