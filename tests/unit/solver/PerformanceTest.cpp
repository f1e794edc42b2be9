//===- PerformanceTest.cpp - Scale sanity of the solver --------------------===//
//
// Runs the checker's query pattern at the scale of a large generated file
// (thousands of kernels, nested scopes, many slices) and checks the answers,
// not the time: DESIGN.md §4 keeps timings out of unit tests. The elapsed
// time is printed for information; bench/ owns the measured figure.
//
//===----------------------------------------------------------------------===//
#include "SolverTestUtil.h"

#include <chrono>
#include <cstdio>

namespace kina::sema::solver::test {
namespace {

TEST(SolverPerformance, ManyKernelsOfGemmShapedQueries) {
  auto Start = std::chrono::steady_clock::now();
  int Proofs = 0;
  // 2,000 gemm_tc-sized kernels is about the content of a 50,000-line file.
  for (int Kernel = 0; Kernel < 2000; ++Kernel) {
    SymbolTable S;
    Context C(S);
    DimExpr M = S.newSymbolExpr("M", SymbolKind::Dim), N = S.newSymbolExpr("N", SymbolKind::Dim),
            K = S.newSymbolExpr("K", SymbolKind::Dim);
    int64_t TileM = 64 << (Kernel % 2), TileK = 16 << (Kernel % 3 == 0);
    C.assumeDivisible(M, TileM);
    C.assumeDivisible(N, 128);
    C.assumeDivisible(K, TileK);
    ASSERT_TRUE(C.proveExactDivision(M, TileM));
    ASSERT_TRUE(C.proveExactDivision(K, TileK));
    Context::Scope Grid(C);
    DimExpr Bm = S.newSymbolExpr("block_m", SymbolKind::BlockId);
    DimExpr Bn = S.newSymbolExpr("block_n", SymbolKind::BlockId);
    C.assumeRange(Bm, DimExpr::constant(0), S.exactDiv(M, TileM));
    C.assumeRange(Bn, DimExpr::constant(0), S.exactDiv(N, 128));
    Context::Scope Warps(C);
    DimExpr Wm = S.newSymbolExpr("warp_m", SymbolKind::WarpId);
    DimExpr Wn = S.newSymbolExpr("warp_n", SymbolKind::WarpId);
    C.assumeRange(Wm, DimExpr::constant(0), DimExpr::constant(2));
    C.assumeRange(Wn, DimExpr::constant(0), DimExpr::constant(2));
    for (int Loop = 0; Loop < 3; ++Loop) {
      Context::Scope Body(C);
      DimExpr k = S.newSymbolExpr("k", SymbolKind::LoopVar);
      C.assumeRange(k, DimExpr::constant(0), S.exactDiv(K, TileK));
      DimExpr Starts[] = {Bm * TileM, k * TileK, Bn * 128, Wm * (TileM / 2), Wn * 64,
                          S.mod(k + 2, 3) * TileK};
      DimExpr Ends[] = {Bm * TileM + TileM, k * TileK + TileK, Bn * 128 + 128,
                        Wm * (TileM / 2) + TileM / 2, Wn * 64 + 64, S.mod(k + 2, 3) * TileK + TileK};
      DimExpr Extents[] = {M, K, N, DimExpr::constant(TileM), DimExpr::constant(128),
                           DimExpr::constant(3 * TileK)};
      for (int I = 0; I < 6; ++I) {
        ASSERT_TRUE(C.proveNonNegative(Starts[I])) << S.str(Starts[I]);
        ASSERT_TRUE(C.proveLessEqual(Ends[I], Extents[I])) << S.str(Ends[I]);
        Proofs += 2;
      }
    }
    DimExpr Col = Bn * 128 + Wn * 64 + 64;
    ASSERT_TRUE(C.proveLessEqual(Col, N));
    ASSERT_FALSE(C.proveLessEqual(Col, K)); // one failing store per kernel, with suggestions
    Proofs += 2;
  }
  double Ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - Start)
                  .count();
  std::printf("[ info ] %d proofs in %.1f ms (%.2f us/proof)\n", Proofs, Ms, 1000 * Ms / Proofs);
}

TEST(SolverPerformance, DeepScopesAndManyFacts) {
  SymbolTable S;
  Context C(S);
  DimExpr N = S.newSymbolExpr("N", SymbolKind::Dim);
  std::vector<DimExpr> Vars;
  // 64 nested loops, each bounded by the previous variable.
  DimExpr Prev = N;
  for (int I = 0; I < 64; ++I) {
    C.push();
    DimExpr V = S.newSymbolExpr("i" + std::to_string(I), SymbolKind::LoopVar);
    C.assumeRange(V, DimExpr::constant(0), Prev);
    Vars.push_back(V);
    Prev = V;
  }
  // A chain of 6 bounds is within the search depth; 64 is not (a documented
  // limit of the bounded search).
  EXPECT_TRUE(C.proveLess(Vars[5], N));
  EXPECT_TRUE(C.proveLess(Vars[3], Vars[2]));
  EXPECT_FALSE(C.proveLess(Vars[2], Vars[3]));
  for (int I = 0; I < 64; ++I)
    C.pop();
  EXPECT_EQ(C.depth(), 0u);
  EXPECT_TRUE(C.facts().empty());
}

} // namespace
} // namespace kina::sema::solver::test
