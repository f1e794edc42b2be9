//===- LexicalScanTest.cpp - The interim lexical facts --------------------===//
#include "LexicalScan.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

using namespace kina;
using namespace kina::lsp;

namespace {

LexicalSummary scan(const std::string &text) { return scanLexically(SourceFile("t.kina", text)); }

TEST(LexicalScan, SeedGemmOutlineHasNoBracketErrors) {
  std::ifstream in(std::string(KINA_SOURCE_DIR) + "/tests/lit/syntax/seed_gemm_tc.kina");
  if (!in)
    GTEST_SKIP() << "seed kernel not present";
  std::stringstream ss;
  ss << in.rdbuf();
  LexicalSummary s = scan(ss.str());
  EXPECT_TRUE(s.diagnostics.empty());
  ASSERT_EQ(s.kernels.size(), 1u);
  EXPECT_EQ(s.kernels[0].name, "gemm_tc");
  ASSERT_EQ(s.symbols.size(), 1u);
  std::vector<std::string> children;
  for (const auto &c : s.symbols[0].children)
    children.push_back(c.detail + " " + c.name);
  EXPECT_EQ(children, (std::vector<std::string>{
                          "let block_m", "let block_n", "shared a_smem", "shared b_smem",
                          "let warps_per_block", "let warp_m", "let warp_n", "register c_reg"}));
}

TEST(LexicalScan, PlacementsAreNotDeclarations) {
  LexicalSummary s = scan("kernel k {\n  register r : Tile[F32, [4], on=cuda:register]\n  r <- fill 0.0\n}\n");
  ASSERT_EQ(s.symbols.size(), 1u);
  ASSERT_EQ(s.symbols[0].children.size(), 1u);
  EXPECT_EQ(s.symbols[0].children[0].name, "r");
}

TEST(LexicalScan, BracketDiagnosticsWithFixIts) {
  LexicalSummary s = scan("kernel k { ( ]\n");
  ASSERT_EQ(s.diagnostics.size(), 3u);
  EXPECT_EQ(s.diagnostics[0].id, DiagId::UnclosedDelimiter); // `{`
  EXPECT_EQ(s.diagnostics[1].id, DiagId::UnclosedDelimiter); // `(`
  EXPECT_EQ(s.diagnostics[2].id, DiagId::UnmatchedClosing);  // `]`
  ASSERT_EQ(s.diagnostics[2].fixits.size(), 1u);
  EXPECT_EQ(s.diagnostics[2].fixits[0].replacement, "");
}

TEST(LexicalScan, NumbersAndRangesAreSeparateTokens) {
  LexicalSummary s = scan("(0..K) 1.5e3 0x1F k*16 ..+ 16");
  std::vector<SemanticTokenType> types;
  for (const auto &t : s.tokens)
    types.push_back(t.type);
  using T = SemanticTokenType;
  EXPECT_EQ(types, (std::vector<T>{T::Number, T::Operator, T::Number, T::Number, T::Operator,
                                   T::Number, T::Operator, T::Number}));
}

TEST(LexicalScan, NeverCrashesOnArbitraryBytes) {
  std::string bytes;
  for (int i = 0; i < 4096; ++i)
    bytes.push_back(static_cast<char>((i * 7919) & 0xff));
  LexicalSummary s = scan(bytes);
  EXPECT_TRUE(std::is_sorted(s.tokens.begin(), s.tokens.end(),
                             [](const SemanticToken &a, const SemanticToken &b) {
                               return a.span.begin < b.span.begin;
                             }));
}

} // namespace
