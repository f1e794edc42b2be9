//===- SuggestTest.cpp - Missing facts offered on failed proofs -----------===//
//
// The solver suggests only facts that make the failed proof succeed, over
// dimension symbols only, in Kina syntax ready for a `requires` fix-it.
//
//===----------------------------------------------------------------------===//
#include "SolverTestUtil.h"

namespace kina::sema::solver::test {
namespace {

using SuggestTest = SolverTest;

/// Every suggestion, assumed in a fresh scope, must make Query succeed.
void expectSuggestionsWork(Context &C, const Proof &P, const std::function<Proof()> &Query) {
  for (const Suggestion &Sg : P.Suggestions) {
    Context::Scope Trial(C);
    for (const Fact &F : Sg.Facts)
      C.assume(F);
    EXPECT_TRUE(Query()) << Sg.Text;
  }
}

TEST_F(SuggestTest, CeilLoopNeedsKDivisibleBy16) {
  // for k in (0 .. ceil_div K 16): the last tile k * 16 ..+ 16 may overrun K.
  DimExpr K = dim("K"), k = var("k");
  range(k, cst(0), S.ceilDiv(K, 16));
  auto Query = [&] { return C.proveLessEqual(k * 16 + 16, K); };
  Proof P = Query();
  EXPECT_EQ(P.Result, Verdict::Unknown);
  EXPECT_EQ(P.Message, "cannot prove k * 16 + 16 <= K");
  ASSERT_FALSE(P.Suggestions.empty());
  EXPECT_EQ(P.Suggestions[0].Text, "K mod 16 = 0");
  EXPECT_EQ(P.Suggestions[0].RequiresClauses[0], "requires (K mod 16 = 0)");
  // A weaker divisibility (K mod 8 = 0) does not help and is not offered.
  for (const std::string &T : texts(P))
    EXPECT_NE(T, "K mod 8 = 0");
  expectSuggestionsWork(C, P, Query);
}

TEST_F(SuggestTest, MinimumExtent) {
  // a[0 ..+ 16] against an extent K with no facts.
  DimExpr K = dim("K");
  auto Query = [&] { return C.proveLessEqual(cst(16), K); };
  Proof P = Query();
  EXPECT_EQ(texts(P), (std::vector<std::string>{"K mod 16 = 0", "K >= 16"}));
  expectSuggestionsWork(C, P, Query);
}

TEST_F(SuggestTest, ExactDivisionOfScaledDim) {
  DimExpr M = dim("M");
  Proof P = C.proveExactDivision(M * 2, 128);
  EXPECT_EQ(P.Goal, "(M * 2) mod 128 = 0");
  ASSERT_FALSE(P.Suggestions.empty());
  EXPECT_EQ(P.Suggestions[0].Text, "M mod 64 = 0");
  expectSuggestionsWork(C, P, [&] { return C.proveExactDivision(M * 2, 128); });
}

TEST_F(SuggestTest, DivisibilityOfASum) {
  DimExpr M = dim("M"), N = dim("N");
  auto Query = [&] { return C.proveDivisible(M + N, 64); };
  Proof P = Query();
  EXPECT_EQ(texts(P),
            (std::vector<std::string>{"M mod 64 = 0 and N mod 64 = 0", "(M + N) mod 64 = 0"}));
  EXPECT_EQ(P.Suggestions[0].RequiresClauses,
            (std::vector<std::string>{"requires (M mod 64 = 0)", "requires (N mod 64 = 0)"}));
  expectSuggestionsWork(C, P, Query);
}

TEST_F(SuggestTest, PartiallyKnownDivisibility) {
  DimExpr M = dim("M"), N = dim("N");
  C.assumeDivisible(M, 64);
  Proof P = C.proveDivisible(M + N * 2, 64);
  ASSERT_FALSE(P.Suggestions.empty());
  EXPECT_EQ(P.Suggestions[0].Text, "N mod 32 = 0");
}

TEST_F(SuggestTest, NothingToSuggestOverLoopVariables) {
  // `k mod 2 = 0` cannot be a requires clause: k is a loop variable.
  DimExpr k = var("k");
  Proof P = C.proveDivisible(k, 2);
  EXPECT_EQ(P.Result, Verdict::Unknown);
  EXPECT_TRUE(P.Suggestions.empty());
  Proof B = C.proveNonNegative(k);
  EXPECT_TRUE(B.Suggestions.empty());
}

TEST_F(SuggestTest, BothDimsNeedTheSameDivisor) {
  // for i in (0 .. ceil_div M 32), for j in (0 .. ceil_div N 32):
  // i * 32 + 32 <= M and j * 32 + 32 <= N together (an equality-style query).
  DimExpr M = dim("M"), N = dim("N"), i = var("i"), j = var("j");
  range(i, cst(0), S.ceilDiv(M, 32));
  range(j, cst(0), S.ceilDiv(N, 32));
  Proof P = C.proveLessEqual(i * 32 + j * 32 + 64, M + N);
  ASSERT_FALSE(P.Suggestions.empty());
  EXPECT_EQ(P.Suggestions[0].Text, "M mod 32 = 0 and N mod 32 = 0");
  expectSuggestionsWork(C, P, [&] { return C.proveLessEqual(i * 32 + j * 32 + 64, M + N); });
}

TEST_F(SuggestTest, NoSuggestionsWhenDisabled) {
  DimExpr K = dim("K");
  ProofOptions O;
  O.Suggest = false;
  Proof P = C.proveLessEqual(cst(16), K, O);
  EXPECT_FALSE(P);
  EXPECT_TRUE(P.Suggestions.empty());
  EXPECT_EQ(C.depth(), 0u); // trials leave no scope behind
  EXPECT_TRUE(C.facts().empty());
}

} // namespace
} // namespace kina::sema::solver::test
