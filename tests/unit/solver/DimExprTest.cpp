//===- DimExprTest.cpp - Normal form, operations and printing -------------===//
//
// DimExpr normalization (linear and nonlinear constructors), structural
// equality, substitution, overflow handling and Kina-syntax printing.
//
//===----------------------------------------------------------------------===//
#include "SolverTestUtil.h"

#include <limits>

namespace kina::sema::solver::test {
namespace {

using DimExprTest = SolverTest;

TEST_F(DimExprTest, LinearOperationsNormalize) {
  DimExpr M = dim("M"), K = dim("K");
  EXPECT_EQ(M + K, K + M);
  EXPECT_EQ(M - M, cst(0));
  EXPECT_EQ((M + 3) * 2, M * 2 + 6);
  EXPECT_EQ(-(M - K), K - M);
  EXPECT_TRUE((M - M + 5).isConstant());
  EXPECT_EQ((M - M + 5).constantValue(), 5);
  EXPECT_EQ(M.constantValue(), std::nullopt);
  EXPECT_EQ((M * 3 + K).coeffOf(id(M)), 3);
  EXPECT_EQ((M * 0).terms().size(), 0u);
}

TEST_F(DimExprTest, MulByConstantStaysLinear) {
  DimExpr M = dim("M");
  DimExpr P = S.mul(M + 1, cst(4));
  EXPECT_EQ(P, M * 4 + 4);
  EXPECT_EQ(S.mul(cst(3), cst(5)), cst(15));
}

TEST_F(DimExprTest, GeneralMulDistributesIntoMonomials) {
  DimExpr M = dim("M"), N = dim("N"), i = var("i");
  DimExpr P = S.mul(M + 1, N);
  EXPECT_EQ(P.terms().size(), 2u);
  EXPECT_EQ(P, S.mul(N, M) + N);
  EXPECT_EQ(str(S.mul(M, N)), "M * N");
  // (i + 1)·N - i·N = N.
  EXPECT_EQ(S.mul(i + 1, N) - S.mul(i, N), N);
  // Products of products flatten and commute.
  EXPECT_EQ(S.mul(S.mul(M, N), i), S.mul(i, S.mul(N, M)));
  EXPECT_EQ(str(S.mul(M, N) * 4), "M * N * 4");
}

TEST_F(DimExprTest, ExactDivision) {
  DimExpr M = dim("M"), K = dim("K"), k = var("k");
  EXPECT_EQ(S.exactDiv(M * 128 + K * 256, 128), M + K * 2);
  EXPECT_EQ(str(S.exactDiv(K, 16)), "K / 16");
  // (n·q + r) / n == q + r / n.
  EXPECT_EQ(S.exactDiv(M + 128, 128), S.exactDiv(M, 128) + 1);
  // Common factors cancel: (2·M) / 4 == M / 2.
  EXPECT_EQ(S.exactDiv(M * 2, 4), S.exactDiv(M, 2));
  // Nested divisions merge.
  EXPECT_EQ(S.exactDiv(S.exactDiv(M, 128), 2), S.exactDiv(M, 256));
  EXPECT_EQ(S.exactDiv(M, 1), M);
  EXPECT_FALSE(S.exactDiv(M, 0).isValid());
  EXPECT_FALSE(S.exactDiv(M, -4).isValid());
  EXPECT_EQ(str(S.exactDiv(M + k, 2)), "(M + k) / 2");
  EXPECT_EQ(S.exactDiv(cst(64), 16), cst(4));
  // An inexact constant division stays an (unprovable) atom.
  EXPECT_FALSE(S.exactDiv(cst(65), 16).isConstant());
}

TEST_F(DimExprTest, FloorAndCeilDivision) {
  DimExpr M = dim("M");
  EXPECT_EQ(S.floorDiv(cst(-7), 2), cst(-4));
  EXPECT_EQ(S.ceilDiv(cst(-7), 2), cst(-3));
  EXPECT_EQ(S.ceilDiv(cst(7), 2), cst(4));
  EXPECT_EQ(S.floorDiv(M * 4 + 3, 4), M);
  EXPECT_EQ(S.ceilDiv(M * 4 + 3, 4), M + 1);
  EXPECT_EQ(S.floorDiv(M + 8, 4), S.floorDiv(M, 4) + 2);
  EXPECT_NE(S.floorDiv(M, 4), S.ceilDiv(M, 4));
  EXPECT_NE(S.floorDiv(M, 4), S.exactDiv(M, 4));
  EXPECT_EQ(str(S.ceilDiv(M + 15, 16)), "ceil_div (M + 15) 16");
}

TEST_F(DimExprTest, ModNormalizes) {
  DimExpr M = dim("M"), k = var("k");
  EXPECT_EQ(S.mod(k + 2, 3), S.mod(k - 1, 3));
  EXPECT_EQ(S.mod(k + 3, 3), S.mod(k, 3));
  EXPECT_EQ(S.mod(M * 128 + k * 64, 64), cst(0));
  EXPECT_EQ(S.mod(cst(-1), 3), cst(2));
  EXPECT_EQ(S.mod(k, 1), cst(0));
  // (2k) mod 4 == 2 · (k mod 2).
  EXPECT_EQ(S.mod(k * 2, 4), S.mod(k, 2) * 2);
  // (k mod 6) mod 3 == k mod 3.
  EXPECT_EQ(S.mod(S.mod(k, 6), 3), S.mod(k, 3));
  EXPECT_FALSE(S.mod(k, 0).isValid());
  EXPECT_EQ(str(S.mod(M, 128)), "M mod 128");
  EXPECT_EQ(str(S.mod(k + 2, 3)), "(k + 2) mod 3");
}

TEST_F(DimExprTest, PrintsKinaSyntax) {
  DimExpr bm = var("block_m", SymbolKind::BlockId), wm = var("warp_m", SymbolKind::WarpId);
  DimExpr K = dim("K"), k = var("k");
  EXPECT_EQ(str(bm * 128 + wm * 64), "block_m * 128 + warp_m * 64");
  EXPECT_EQ(str(k * 16 + 16), "k * 16 + 16");
  EXPECT_EQ(str(K - k * 16 - 16), "K - k * 16 - 16");
  EXPECT_EQ(str(-k), "-k");
  EXPECT_EQ(str(cst(-3)), "-3");
  EXPECT_EQ(str(S.exactDiv(K, 16) * 16), "(K / 16) * 16");
  EXPECT_EQ(str(S.exactDiv(K, 16) - 1), "K / 16 - 1");
  EXPECT_EQ(str(S.mul(S.mod(k, 3), K)), "K * (k mod 3)");
  EXPECT_EQ(str(DimExpr::invalid()), "<overflow>");
}

TEST_F(DimExprTest, PrintsFacts) {
  DimExpr M = dim("M"), N = dim("N"), K = dim("K");
  EXPECT_EQ(printFact(S, Fact::nonNegative(K - 16)), "K >= 16");
  EXPECT_EQ(printFact(S, Fact::nonNegative(N - K)), "N >= K");
  EXPECT_EQ(printFact(S, Fact::nonNegative(N - K - 1)), "N >= K + 1");
  EXPECT_EQ(printFact(S, Fact::nonNegative(cst(100) - K)), "K <= 100");
  EXPECT_EQ(printFact(S, Fact::divisible(M, 128)), "M mod 128 = 0");
  EXPECT_EQ(printFact(S, Fact::divisible(M + N, 64)), "(M + N) mod 64 = 0");
  EXPECT_EQ(printFact(S, Fact::zero(M - N * 2)), "M = N * 2");
}

TEST_F(DimExprTest, Substitution) {
  DimExpr M = dim("M"), k = var("k"), x = var("x", SymbolKind::Let);
  DimExpr E = x * 2 + S.mod(x + 1, 4) + S.exactDiv(x, 8) + S.mul(x, M);
  DimExpr R = S.substitute(E, id(x), k * 8);
  EXPECT_EQ(R, k * 16 + S.mod(k * 8 + 1, 4) + k + S.mul(k * 8, M));
  EXPECT_EQ(S.substitute(E, id(k), M), E); // k does not occur
  // Substituting a constant folds opaque atoms.
  EXPECT_EQ(S.substitute(S.mod(x + 1, 4), id(x), cst(6)), cst(3));
}

TEST_F(DimExprTest, OverflowMakesInvalid) {
  constexpr int64_t Big = std::numeric_limits<int64_t>::max();
  DimExpr M = dim("M");
  DimExpr E = M * Big;
  EXPECT_TRUE(E.isValid());
  EXPECT_FALSE((E * 2).isValid());
  EXPECT_FALSE((E + M).isValid());
  EXPECT_FALSE((cst(Big) + 1).isValid());
  EXPECT_FALSE(S.mul(E, M + 2).isValid());
  // Invalidity propagates through every operation.
  DimExpr Bad = DimExpr::invalid();
  EXPECT_FALSE((Bad + M).isValid());
  EXPECT_FALSE(S.mod(Bad, 4).isValid());
  EXPECT_FALSE(S.exactDiv(Bad, 4).isValid());
  EXPECT_FALSE(S.mul(Bad, M).isValid());
  EXPECT_EQ(Bad, DimExpr::invalid());
  EXPECT_NE(Bad, cst(0));
}

TEST_F(DimExprTest, HugeProductsAreRejectedNotExpanded) {
  std::vector<DimExpr> Xs;
  DimExpr Sum;
  for (int I = 0; I < 20; ++I)
    Sum = Sum + var(("x" + std::to_string(I)).c_str());
  DimExpr P = S.mul(Sum, Sum); // 400 terms > kMaxTerms
  EXPECT_FALSE(P.isValid());
}

TEST_F(DimExprTest, HashConsing) {
  DimExpr K = dim("K");
  size_t Before = S.size();
  DimExpr A = S.exactDiv(K, 16), B = S.exactDiv(K, 16);
  EXPECT_EQ(A, B);
  EXPECT_EQ(S.size(), Before + 1);
  EXPECT_EQ(DimExprHash()(A), DimExprHash()(B));
  // Same names, different symbols.
  DimExpr K2 = dim("K");
  EXPECT_NE(K, K2);
  EXPECT_EQ(str(K), str(K2));
}

} // namespace
} // namespace kina::sema::solver::test
