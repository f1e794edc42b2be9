//===- BoundsTest.cpp - Inequality proofs ----------------------------------===//
//
// proveNonNegative / proveLessEqual / proveLess / proveEqual over loop
// ranges, definitions, general inequalities, products, `mod` and scopes,
// and the cases that must NOT be proved (soundness).
//
//===----------------------------------------------------------------------===//
#include "SolverTestUtil.h"

namespace kina::sema::solver::test {
namespace {

using BoundsTest = SolverTest;

TEST_F(BoundsTest, DimsArePositive) {
  DimExpr M = dim("M"), x = var("x");
  EXPECT_TRUE(C.proveLessEqual(cst(1), M));
  EXPECT_TRUE(C.proveNonNegative(M * 3 - 3));
  EXPECT_FALSE(C.proveLessEqual(cst(2), M));
  EXPECT_FALSE(C.proveNonNegative(x)); // not a dim: nothing known
}

TEST_F(BoundsTest, LoopTileInBounds) {
  // for k in (0 .. K/16), K mod 16 = 0: k * 16 ..+ 16 fits in K.
  DimExpr K = dim("K"), k = var("k");
  C.assumeDivisible(K, 16);
  range(k, cst(0), S.exactDiv(K, 16));
  EXPECT_TRUE(C.proveNonNegative(k * 16));
  EXPECT_TRUE(C.proveLessEqual(k * 16 + 16, K));
  EXPECT_TRUE(C.proveLess(k * 16 + 15, K));
  EXPECT_TRUE(C.proveLess(k, S.exactDiv(K, 16)));
  // One element too far is not provable.
  Proof P = C.proveLessEqual(k * 16 + 17, K);
  EXPECT_EQ(P.Result, Verdict::Unknown);
  EXPECT_EQ(P.Message, "cannot prove k * 16 + 17 <= K");
  EXPECT_FALSE(C.proveLessEqual(k * 16 + 32, K));
  EXPECT_FALSE(C.proveLessEqual(k * 32 + 16, K));
}

TEST_F(BoundsTest, FloorDivisionLoopBoundNeedsNoDivisibility) {
  // k < floor(K / 16) keeps k * 16 + 16 <= K even when 16 does not divide K.
  DimExpr K = dim("K"), k = var("k");
  range(k, cst(0), S.floorDiv(K, 16));
  EXPECT_TRUE(C.proveLessEqual(k * 16 + 16, K));
  EXPECT_FALSE(C.proveLessEqual(k * 16 + 17, K));
}

TEST_F(BoundsTest, CeilDivisionLoopBoundNeedsDivisibility) {
  DimExpr K = dim("K"), k = var("k");
  range(k, cst(0), S.ceilDiv(K, 16));
  EXPECT_FALSE(C.proveLessEqual(k * 16 + 16, K));
  C.assumeDivisible(K, 16);
  EXPECT_TRUE(C.proveLessEqual(k * 16 + 16, K, {false, 64}));
}

TEST_F(BoundsTest, NestedLoopsAndTriangularBounds) {
  DimExpr N = dim("N"), i = var("i"), j = var("j");
  range(i, cst(0), N);
  range(j, cst(0), i + 1); // j <= i
  EXPECT_TRUE(C.proveLess(j, N));
  EXPECT_TRUE(C.proveLessEqual(i + j, N * 2 - 2));
  EXPECT_FALSE(C.proveLessEqual(i + j, N - 1));
}

TEST_F(BoundsTest, GeneralInequalitiesFromRequires) {
  DimExpr M = dim("M"), N = dim("N"), K = dim("K");
  C.assumeLessEqual(cst(16), K); // requires (K >= 16)
  C.assumeLessEqual(M, N);       // requires (M <= N)
  EXPECT_TRUE(C.proveLessEqual(cst(16), K));
  EXPECT_TRUE(C.proveLessEqual(cst(8), K));
  EXPECT_FALSE(C.proveLessEqual(cst(17), K));
  EXPECT_TRUE(C.proveLessEqual(M + 16, N + K));
  EXPECT_FALSE(C.proveLess(M, N));
  C.assumePositive(N - M); // requires (N > M)
  EXPECT_TRUE(C.proveLess(M, N));
}

TEST_F(BoundsTest, IntegerRoundingOfGoalsAndFacts) {
  DimExpr x = var("x");
  C.assumeNonNegative(x * 2 - 1); // 2x >= 1 means x >= 1 over the integers
  EXPECT_TRUE(C.proveLessEqual(cst(1), x));
  EXPECT_TRUE(C.proveNonNegative(x * 3 - 3));
  EXPECT_FALSE(C.proveLessEqual(cst(2), x));
}

TEST_F(BoundsTest, Definitions) {
  DimExpr K = dim("K"), k = var("k"), off = var("off", SymbolKind::Let);
  C.assumeDivisible(K, 16);
  range(k, cst(0), S.exactDiv(K, 16));
  C.define(id(off), k * 16); // let off = k * 16
  EXPECT_TRUE(C.proveLessEqual(off + 16, K));
  EXPECT_FALSE(C.proveLessEqual(off + 32, K));
  EXPECT_EQ(C.expand(off + 1), k * 16 + 1);
}

TEST_F(BoundsTest, DefinitionAfterFactsStillLinks) {
  DimExpr x = var("x", SymbolKind::Let), y = var("y");
  C.assumeLessEqual(cst(0), x);
  C.assumeLess(x, cst(10));
  C.define(id(x), y * 2);
  EXPECT_TRUE(C.proveLess(y, cst(5)));
  EXPECT_TRUE(C.proveNonNegative(y));
}

TEST_F(BoundsTest, ProductsWithKnownSignCofactor) {
  // Row-major linearization: i * N + j < M * N for i < M, j < N.
  DimExpr M = dim("M"), N = dim("N"), i = var("i"), j = var("j");
  range(i, cst(0), M);
  range(j, cst(0), N);
  EXPECT_TRUE(C.proveLess(S.mul(i, N) + j, S.mul(M, N)));
  EXPECT_TRUE(C.proveNonNegative(S.mul(i, N) + j));
  EXPECT_FALSE(C.proveLess(S.mul(i, N) + j + 1, S.mul(M, N)));
  EXPECT_FALSE(C.proveLess(S.mul(i, N) + j, S.mul(M, N) - 1));
  EXPECT_TRUE(C.proveLessEqual(N, S.mul(M, N)));
}

TEST_F(BoundsTest, ModAtomsAreBounded) {
  // A 3-stage pipeline: stage (k + 2) mod 3 of a [3 * 64, 16] shared buffer.
  DimExpr K = dim("K"), k = var("k");
  range(k, cst(0), S.exactDiv(K, 16));
  DimExpr Stage = S.mod(k + 2, 3);
  EXPECT_TRUE(C.proveNonNegative(Stage));
  EXPECT_TRUE(C.proveLessEqual(Stage + 1, cst(3)));
  EXPECT_TRUE(C.proveLessEqual(Stage * 64 + 64, cst(192)));
  EXPECT_FALSE(C.proveLessEqual(Stage * 64 + 64, cst(128)));
  EXPECT_FALSE(C.proveLessEqual(Stage + 1, cst(2)));
  // The next stage is the same ring slot as (k + 3) mod 3 == k mod 3.
  EXPECT_TRUE(C.proveEqual(S.mod(k + 3, 3), S.mod(k, 3)));
  EXPECT_TRUE(C.proveEqual(S.mod(k + 2, 3), S.mod(k - 1, 3)));
  EXPECT_FALSE(C.proveEqual(S.mod(k + 1, 3), S.mod(k, 3)));
  // x mod n <= x for x >= 0.
  EXPECT_TRUE(C.proveLessEqual(S.mod(k, 4), k));
  Assignment A;
  A.set(id(k), 4);
  EXPECT_EQ(evaluate(S, Stage, A).Value, 0);
}

TEST_F(BoundsTest, Equality) {
  DimExpr M = dim("M"), N = dim("N");
  C.assumeDivisible(M, 128);
  EXPECT_TRUE(C.proveEqual(S.exactDiv(M, 128) * 128, M));
  EXPECT_TRUE(C.proveEqual(S.exactDiv(M, 64), S.exactDiv(M, 128) * 2));
  EXPECT_FALSE(C.proveEqual(S.exactDiv(N, 128) * 128, N));
  C.assumeLessEqual(M, N);
  C.assumeLessEqual(N, M);
  EXPECT_TRUE(C.proveEqual(M, N));
}

TEST_F(BoundsTest, ScopesPushAndPop) {
  DimExpr K = dim("K"), k = var("k");
  EXPECT_EQ(C.depth(), 0u);
  {
    Context::Scope Loop(C);
    C.assumeDivisible(K, 16);
    range(k, cst(0), S.exactDiv(K, 16));
    EXPECT_EQ(C.depth(), 1u);
    EXPECT_TRUE(C.proveLessEqual(k * 16 + 16, K));
    {
      Context::Scope Inner(C);
      C.assumeLessEqual(k, cst(0));
      EXPECT_TRUE(C.proveLessEqual(k, cst(0)));
    }
    EXPECT_FALSE(C.proveLessEqual(k, cst(0)));
  }
  EXPECT_EQ(C.depth(), 0u);
  EXPECT_TRUE(C.facts().empty());
  EXPECT_FALSE(C.proveLessEqual(k * 16 + 16, K));
  EXPECT_FALSE(C.proveDivisible(K, 16));
  C.pop(); // popping at depth 0 is harmless
  EXPECT_EQ(C.depth(), 0u);
}

TEST_F(BoundsTest, DisprovedWhenFalseEverywhere) {
  DimExpr K = dim("K"), w = var("w", SymbolKind::WarpId);
  range(w, cst(0), cst(2));
  Proof P = C.proveLessEqual(cst(32), cst(16));
  EXPECT_EQ(P.Result, Verdict::Disproved);
  EXPECT_EQ(P.Message, "32 <= 16 does not hold");
  EXPECT_EQ(C.proveLessEqual(w * 64 + 64, cst(64)).Result, Verdict::Unknown);
  EXPECT_EQ(C.proveLessEqual(w + 3, cst(2)).Result, Verdict::Disproved);
  EXPECT_EQ(C.proveLessEqual(K + 1, cst(0)).Result, Verdict::Disproved);
}

TEST_F(BoundsTest, NumericBounds) {
  DimExpr M = dim("M"), k = var("k");
  C.assumeDivisible(M, 128);
  range(k, cst(0), cst(8));
  Interval R = C.bounds(M);
  EXPECT_EQ(R.Lo, 128);
  EXPECT_FALSE(R.hasHi());
  R = C.bounds(k * 16 + 16);
  EXPECT_EQ(R.Lo, 16);
  EXPECT_EQ(R.Hi, 128);
  R = C.bounds(S.exactDiv(M, 128));
  EXPECT_EQ(R.Lo, 1);
}

TEST_F(BoundsTest, ContradictionsAreReported) {
  DimExpr M = dim("M");
  EXPECT_FALSE(C.hasContradiction());
  C.push();
  C.assumeLessEqual(cst(16), cst(8));
  EXPECT_TRUE(C.hasContradiction());
  C.pop();
  EXPECT_FALSE(C.hasContradiction());
  C.push();
  C.assumeDivisible(M * 2 + 1, 2);
  EXPECT_TRUE(C.hasContradiction());
  C.pop();
  EXPECT_FALSE(C.hasContradiction());
}

TEST_F(BoundsTest, OverflowingGoalsAreNotProved) {
  DimExpr M = dim("M");
  DimExpr Huge = M * (int64_t(1) << 62);
  Proof P = C.proveLessEqual(Huge * 4, M);
  EXPECT_EQ(P.Result, Verdict::Unknown);
  EXPECT_EQ(P.Message, "cannot prove <overflow> <= M: the dimension arithmetic overflows");
  // Large but valid coefficients do not fool the interval arithmetic.
  EXPECT_FALSE(C.proveNonNegative(cst(INT64_MAX / 2) - M * (int64_t(1) << 40)));
  EXPECT_TRUE(C.proveNonNegative(M * (int64_t(1) << 61) + (int64_t(1) << 61)));
}

} // namespace
} // namespace kina::sema::solver::test
