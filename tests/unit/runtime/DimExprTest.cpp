//===- DimExprTest.cpp - Dim formulas: parsing, exact division, errors ----===//
#include "runtime/DimExpr.h"

#include <gtest/gtest.h>

using namespace kina::runtime;

static std::int64_t eval(const std::string &text, const DimValues &dims) {
  auto e = DimExpr::parse(text);
  EXPECT_TRUE(e) << (e ? "" : e.error().message);
  if (!e)
    return -999;
  auto v = e->evaluate(dims);
  EXPECT_TRUE(v) << (v ? "" : v.error().message);
  return v ? *v : -999;
}

static std::string evalError(const std::string &text, const DimValues &dims) {
  auto e = DimExpr::parse(text);
  if (!e)
    return e.error().message;
  auto v = e->evaluate(dims);
  EXPECT_FALSE(v) << text;
  return v ? "" : v.error().message;
}

TEST(DimExpr, Arithmetic) {
  DimValues d{{"M", 1024}, {"N", 384}, {"K", 64}};
  EXPECT_EQ(eval("M/128", d), 8);
  EXPECT_EQ(eval("N / 128", d), 3);
  EXPECT_EQ(eval("2*M*N*K", d), 2LL * 1024 * 384 * 64);
  EXPECT_EQ(eval("(M + 127) floordiv 128", d), 8);
  EXPECT_EQ(eval("1000 cdiv 128", d), 8);
  EXPECT_EQ(eval("1000 floordiv 128", d), 7);
  EXPECT_EQ(eval("1000 mod 128", d), 104);
  EXPECT_EQ(eval("-7 mod 3", d), 2);
  EXPECT_EQ(eval("-7 floordiv 2", d), -4);
  EXPECT_EQ(eval("M - N - K", d), 1024 - 384 - 64);
  EXPECT_EQ(eval("K/16*16", d), 64);
  EXPECT_EQ(eval("42", d), 42);
}

TEST(DimExpr, ExactDivisionIsChecked) {
  std::string msg = evalError("M/128", {{"M", 1000}});
  EXPECT_NE(msg.find("1000 / 128 is not exact (remainder 104)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("`M/128`"), std::string::npos) << msg;
}

TEST(DimExpr, EvaluationErrors) {
  EXPECT_NE(evalError("Q*2", {{"M", 1}}).find("dim `Q` has no value"), std::string::npos);
  EXPECT_NE(evalError("M mod 0", {{"M", 1}}).find("not positive"), std::string::npos);
  EXPECT_NE(evalError("M/(0-4)", {{"M", 8}}).find("not positive"), std::string::npos);
  EXPECT_NE(evalError("M*M*M", {{"M", 4000000000}}).find("overflow"), std::string::npos);
}

TEST(DimExpr, SyntaxErrorsNameTheColumn) {
  for (const char *bad : {"", "M +", "(M", "M ) ", "M $ 2", "mod 3", "99999999999999999999"}) {
    auto e = DimExpr::parse(bad);
    ASSERT_FALSE(e) << bad;
    EXPECT_EQ(e.error().kind, ErrorKind::InvalidMetadata);
    EXPECT_NE(e.error().message.find("column"), std::string::npos) << e.error().message;
  }
  std::string deep(500, '(');
  EXPECT_FALSE(DimExpr::parse(deep + "M" + std::string(500, ')')));
}

TEST(DimExpr, NamesAndShape) {
  auto e = DimExpr::parse("M*N + modK");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->names(), (std::set<std::string>{"M", "N", "modK"}));
  EXPECT_FALSE(e->isName());
  EXPECT_TRUE(DimExpr::parse("M")->isName());
  EXPECT_EQ(DimExpr::constant(7).text(), "7");
}

TEST(DimExpr, RandomTextNeverCrashes) {
  static const char alphabet[] = "MNK0129()+-*/ modcdivfloor";
  std::uint64_t x = 7;
  for (int i = 0; i < 20000; ++i) {
    std::string text;
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    int len = int((x >> 33) % 24);
    for (int c = 0; c < len; ++c) {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      text.push_back(alphabet[(x >> 33) % (sizeof alphabet - 1)]);
    }
    auto e = DimExpr::parse(text);
    if (e)
      (void)e->evaluate({{"M", 1 << 20}, {"N", 3}, {"K", 0}});
  }
}
