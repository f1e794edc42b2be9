//===- EvaluateTest.cpp - Concrete evaluation of dimension expressions ----===//
//
// evaluate(): values under an assignment, exact division checks, floor
// semantics of mod/floor_div, unbound symbols and overflow detection.
//
//===----------------------------------------------------------------------===//
#include "SolverTestUtil.h"

#include <limits>

namespace kina::sema::solver::test {
namespace {

using EvaluateTest = SolverTest;

TEST_F(EvaluateTest, GemmIndices) {
  DimExpr M = dim("M"), K = dim("K"), bm = var("block_m"), wm = var("warp_m"), k = var("k");
  Assignment A;
  A.set(id(M), 4096);
  A.set(id(K), 1024);
  A.set(id(bm), 3);
  A.set(id(wm), 1);
  A.set(id(k), 63);
  EXPECT_EQ(evaluate(S, bm * 128 + wm * 64 + 64, A).Value, 512);
  EXPECT_EQ(evaluate(S, S.exactDiv(K, 16), A).Value, 64);
  EXPECT_EQ(evaluate(S, S.exactDiv(M, 128) * 128 - M, A).Value, 0);
  EXPECT_EQ(evaluate(S, S.mod(k + 2, 3), A).Value, 2);
  EXPECT_EQ(evaluate(S, S.mul(M, K), A).Value, 4096 * 1024);
  EXPECT_EQ(constantValue(S.exactDiv(cst(4096), 128)), 32);
  EXPECT_EQ(constantValue(M), std::nullopt);
}

TEST_F(EvaluateTest, FloorSemantics) {
  DimExpr x = var("x");
  Assignment A;
  A.set(id(x), -7);
  EXPECT_EQ(evaluate(S, S.mod(x, 3), A).Value, 2);
  EXPECT_EQ(evaluate(S, S.floorDiv(x, 2), A).Value, -4);
  EXPECT_EQ(evaluate(S, S.ceilDiv(x, 2), A).Value, -3);
}

TEST_F(EvaluateTest, InexactDivisionIsAnError) {
  DimExpr K = dim("K");
  Assignment A;
  A.set(id(K), 40);
  EvalResult R = evaluate(S, S.exactDiv(K, 16), A);
  EXPECT_FALSE(R);
  EXPECT_EQ(R.Error, EvalError::InexactDivision);
  EXPECT_EQ(R.Message, "`K / 16` is not exact: `K` = 40");
  EXPECT_EQ(evaluate(S, S.floorDiv(K, 16), A).Value, 2);
}

TEST_F(EvaluateTest, UnboundSymbol) {
  DimExpr M = dim("M"), N = dim("N");
  Assignment A;
  A.set(id(M), 1);
  EvalResult R = evaluate(S, M + N, A);
  EXPECT_EQ(R.Error, EvalError::UnboundSymbol);
  EXPECT_EQ(R.Message, "no value for `N`");
}

TEST_F(EvaluateTest, OverflowIsDetected) {
  DimExpr M = dim("M"), N = dim("N");
  Assignment A;
  A.set(id(M), int64_t(1) << 40);
  A.set(id(N), int64_t(1) << 40);
  EXPECT_EQ(evaluate(S, S.mul(M, N), A).Error, EvalError::Overflow);
  EXPECT_EQ(evaluate(S, M * (int64_t(1) << 30), A).Error, EvalError::Overflow);
  EXPECT_EQ(evaluate(S, M + N, A).Value, int64_t(1) << 41);
  EXPECT_EQ(evaluate(S, DimExpr::invalid(), A).Error, EvalError::InvalidExpr);
}

} // namespace
} // namespace kina::sema::solver::test
