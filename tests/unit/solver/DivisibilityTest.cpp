//===- DivisibilityTest.cpp - Divisibility and exact division proofs ------===//
//
// proveDivisible / proveExactDivision: facts, sums, products, divisions,
// `mod`, multi-term congruences, and what must not be proved.
//
//===----------------------------------------------------------------------===//
#include "SolverTestUtil.h"

namespace kina::sema::solver::test {
namespace {

using DivisibilityTest = SolverTest;

TEST_F(DivisibilityTest, FromRequires) {
  DimExpr M = dim("M");
  C.assumeDivisible(M, 128);
  EXPECT_TRUE(C.proveDivisible(M, 128));
  EXPECT_TRUE(C.proveDivisible(M, 64));
  EXPECT_TRUE(C.proveDivisible(M, 1));
  EXPECT_FALSE(C.proveDivisible(M, 256));
  EXPECT_FALSE(C.proveDivisible(M, 3));
  EXPECT_TRUE(C.proveExactDivision(M, 128));
  EXPECT_TRUE(C.proveDivisible(M * 3, 384));
  EXPECT_EQ(C.knownDivisor(M * 3), 384);
}

TEST_F(DivisibilityTest, SumsAndProducts) {
  DimExpr a = var("a"), b = var("b"), M = dim("M"), N = dim("N");
  EXPECT_TRUE(C.proveDivisible(a * 128 + b * 64, 64));
  EXPECT_FALSE(C.proveDivisible(a * 128 + b * 64, 128));
  EXPECT_FALSE(C.proveDivisible(a * 128 + b * 64 + 32, 64));
  C.assumeDivisible(M, 16);
  C.assumeDivisible(N, 8);
  EXPECT_TRUE(C.proveDivisible(S.mul(M, N), 128));
  EXPECT_FALSE(C.proveDivisible(S.mul(M, N), 256));
  EXPECT_TRUE(C.proveDivisible(S.mul(M, a) * 4, 64));
}

TEST_F(DivisibilityTest, Divisions) {
  DimExpr M = dim("M");
  C.assumeDivisible(M, 128);
  EXPECT_TRUE(C.proveDivisible(S.exactDiv(M, 128) * 128, 128));
  EXPECT_TRUE(C.proveDivisible(S.exactDiv(M, 64), 2));
  EXPECT_FALSE(C.proveDivisible(S.exactDiv(M, 64), 4));
  EXPECT_FALSE(C.proveDivisible(S.exactDiv(M, 128) * 64, 128));
  EXPECT_TRUE(C.proveExactDivision(S.exactDiv(M, 16), 8));
  EXPECT_FALSE(C.proveExactDivision(S.exactDiv(M, 16), 16));
}

TEST_F(DivisibilityTest, ModAtoms) {
  DimExpr M = dim("M"), k = var("k");
  C.assumeDivisible(M, 64);
  // d | e and d | n give d | (e mod n).
  EXPECT_TRUE(C.proveDivisible(S.mod(M, 256), 64));
  EXPECT_FALSE(C.proveDivisible(S.mod(M, 256), 128));
  EXPECT_FALSE(C.proveDivisible(S.mod(k, 4), 2));
  EXPECT_TRUE(C.proveDivisible(S.mod(k * 8, 64), 8));
  // e mod n is 0 when n | e.
  EXPECT_TRUE(C.proveEqual(S.mod(M, 32), cst(0)));
}

TEST_F(DivisibilityTest, MultiTermCongruences) {
  DimExpr M = dim("M"), N = dim("N"), k = var("k");
  C.assumeDivisible(M + N, 64); // requires ((M + N) mod 64 = 0)
  EXPECT_TRUE(C.proveDivisible(M + N, 64));
  EXPECT_TRUE(C.proveDivisible(M + N + k * 64, 32));
  EXPECT_TRUE(C.proveDivisible(M * 2 + N * 2, 128));
  EXPECT_FALSE(C.proveDivisible(M, 64));
  EXPECT_FALSE(C.proveDivisible(M + N * 2, 64));
}

TEST_F(DivisibilityTest, EqualitiesAndDefinitions) {
  DimExpr M = dim("M"), N = dim("N"), t = var("t", SymbolKind::Let);
  C.assumeEqual(M, N * 4); // requires (M = N * 4)
  C.assumeDivisible(N, 32);
  EXPECT_TRUE(C.proveDivisible(M, 128));
  C.define(id(t), N * 2);
  EXPECT_TRUE(C.proveDivisible(t, 64));
}

TEST_F(DivisibilityTest, DisprovedAndInvalid) {
  DimExpr M = dim("M");
  Proof P = C.proveDivisible(M * 128 + 3, 128);
  EXPECT_EQ(P.Result, Verdict::Disproved);
  EXPECT_EQ(P.Goal, "(M * 128 + 3) mod 128 = 0");
  EXPECT_EQ(P.Message, "(M * 128 + 3) mod 128 = 0 does not hold");
  EXPECT_EQ(C.proveDivisible(cst(48), 16).Result, Verdict::Proved);
  EXPECT_EQ(C.proveDivisible(cst(50), 16).Result, Verdict::Disproved);
  Proof Z = C.proveDivisible(M, 0);
  EXPECT_EQ(Z.Result, Verdict::Unknown);
  EXPECT_EQ(Z.Message, "cannot prove M mod 0 = 0: the divisor must be positive");
  EXPECT_EQ(C.proveDivisible(DimExpr::invalid(), 4).Result, Verdict::Unknown);
}

TEST_F(DivisibilityTest, NormalizedDivisibleFacts) {
  DimExpr M = dim("M"), N = dim("N");
  C.assumeDivisible(M * 2, 128); // 2M ≡ 0 (mod 128) means M ≡ 0 (mod 64)
  EXPECT_TRUE(C.proveDivisible(M, 64));
  EXPECT_FALSE(C.proveDivisible(M, 128));
  C.assumeDivisible(N * 3, 16); // 3 is invertible mod 16
  EXPECT_TRUE(C.proveDivisible(N, 16));
}

} // namespace
} // namespace kina::sema::solver::test
