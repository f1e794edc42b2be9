//===- GemmFactsTest.cpp - The seed's gemm_tc, fact by fact ---------------===//
//
// Replays what the checker asks while walking seed 003 §3.3's `gemm_tc`:
// the grid divisions, the slices of the tile loop, the warp sub-tiles and
// the store whose second index fits N but not K (the seed's bug).
//
//===----------------------------------------------------------------------===//
#include "SolverTestUtil.h"

#include <set>

namespace kina::sema::solver::test {
namespace {

class GemmFactsTest : public SolverTest {
protected:
  DimExpr M = dim("M"), N = dim("N"), K = dim("K");
  DimExpr BlockM = var("block_m", SymbolKind::BlockId);
  DimExpr BlockN = var("block_n", SymbolKind::BlockId);
  DimExpr WarpM = var("warp_m", SymbolKind::WarpId);
  DimExpr WarpN = var("warp_n", SymbolKind::WarpId);
  DimExpr k = var("k");

  /// `requires` clauses, block_grid [M/128, N/128], warp_grid [2, 2] and
  /// `for k in (0 .. K/16)`.
  void enterKernel(bool WithRequires = true) {
    if (WithRequires) {
      C.assumeDivisible(M, 128);
      C.assumeDivisible(N, 128);
      C.assumeDivisible(K, 16);
    }
    C.push(); // block_grid
    range(BlockM, cst(0), S.exactDiv(M, 128));
    range(BlockN, cst(0), S.exactDiv(N, 128));
    C.push(); // warp_grid
    range(WarpM, cst(0), cst(2));
    range(WarpN, cst(0), cst(2));
  }
  void enterLoop() {
    C.push();
    range(k, cst(0), S.exactDiv(K, 16));
  }

  /// start >= 0 and start + length <= extent.
  ::testing::AssertionResult sliceInBounds(const DimExpr &Start, int64_t Length,
                                           const DimExpr &Extent) {
    Proof Lo = C.proveNonNegative(Start);
    Proof Hi = C.proveLessEqual(Start + Length, Extent);
    if (Lo && Hi)
      return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << (Lo ? Hi.Message : Lo.Message);
  }
};

TEST_F(GemmFactsTest, GridDivisionsAreExact) {
  enterKernel();
  EXPECT_TRUE(C.proveExactDivision(M, 128));
  EXPECT_TRUE(C.proveExactDivision(N, 128));
  EXPECT_TRUE(C.proveExactDivision(K, 16));
  // The grid covers the output exactly.
  EXPECT_TRUE(C.proveEqual(S.exactDiv(M, 128) * 128, M));
  // The block has 2 x 2 warps of 32 threads.
  EXPECT_EQ(constantValue(cst(2) * 2 * 32), 128);
}

TEST_F(GemmFactsTest, GridDivisionWithoutRequiresNamesTheFact) {
  enterKernel(/*WithRequires=*/false);
  Proof P = C.proveExactDivision(M, 128);
  EXPECT_EQ(P.Result, Verdict::Unknown);
  EXPECT_EQ(P.Goal, "M mod 128 = 0");
  EXPECT_EQ(P.Message, "cannot prove M mod 128 = 0 (the division M / 128 must be exact)");
  ASSERT_EQ(P.Suggestions.size(), 1u);
  EXPECT_EQ(P.Suggestions[0].Text, "M mod 128 = 0");
  EXPECT_EQ(P.Suggestions[0].RequiresClauses, std::vector<std::string>{"requires (M mod 128 = 0)"});
}

TEST_F(GemmFactsTest, GlobalLoadsInTheTileLoop) {
  enterKernel();
  enterLoop();
  // cp_async a_smem <- a[block_m * 128 ..+ 128, k * 16 ..+ 16] with a : [M, K]
  EXPECT_TRUE(sliceInBounds(BlockM * 128, 128, M));
  EXPECT_TRUE(sliceInBounds(k * 16, 16, K));
  // cp_async b_smem <- b[k * 16 ..+ 16, block_n * 128 ..+ 128] with b : [K, N]
  EXPECT_TRUE(sliceInBounds(k * 16, 16, K));
  EXPECT_TRUE(sliceInBounds(BlockN * 128, 128, N));
  // A block_n-indexed slice against K (the seed's store bug in miniature)
  // is not provable.
  EXPECT_FALSE(sliceInBounds(BlockN * 128, 128, K));
}

TEST_F(GemmFactsTest, SharedSubTiles) {
  enterKernel();
  enterLoop();
  // a_smem[warp_m * 64 ..+ 64, 0 ..+ 16] with a_smem : [128, 16]
  EXPECT_TRUE(sliceInBounds(WarpM * 64, 64, cst(128)));
  EXPECT_TRUE(sliceInBounds(cst(0), 16, cst(16)));
  // b_smem[0 ..+ 16, warp_n * 64 ..+ 64] with b_smem : [16, 128]
  EXPECT_TRUE(sliceInBounds(WarpN * 64, 64, cst(128)));
  // A 4-warp layout would overrun the 128-row tile.
  EXPECT_FALSE(sliceInBounds(WarpM * 64, 128, cst(128)));
}

TEST_F(GemmFactsTest, StoreSecondIndexFailsAgainstKButPassesAgainstN) {
  enterKernel();
  DimExpr Row = BlockM * 128 + WarpM * 64, Col = BlockN * 128 + WarpN * 64;
  // a[block_m*128 + warp_m*64 ..+ 64, block_n*128 + warp_n*64 ..+ 64] <- c_reg, a : [M, K]
  EXPECT_TRUE(sliceInBounds(Row, 64, M));
  EXPECT_TRUE(C.proveNonNegative(Col));
  Proof P = C.proveLessEqual(Col + 64, K);
  EXPECT_EQ(P.Result, Verdict::Unknown);
  EXPECT_EQ(P.Message, "cannot prove block_n * 128 + warp_n * 64 + 64 <= K");
  // No divisibility fact helps; the only fix is an unrelated inequality.
  for (const Suggestion &Sg : P.Suggestions)
    for (const Fact &F : Sg.Facts)
      EXPECT_NE(F.K, Fact::Kind::Divisible) << Sg.Text;
  EXPECT_EQ(texts(P), std::vector<std::string>{"K >= N"});
  // The corrected kernel stores into its [M, N] result.
  EXPECT_TRUE(sliceInBounds(Col, 64, N));
}

TEST_F(GemmFactsTest, WithoutRequiresTheLoadsStillFitButDivisionsDoNot) {
  enterKernel(/*WithRequires=*/false);
  enterLoop();
  // Floor semantics of an unproven `/` keep the tiles in bounds; the checker
  // reports the inexact division itself.
  EXPECT_TRUE(sliceInBounds(k * 16, 16, K));
  EXPECT_TRUE(sliceInBounds(BlockM * 128, 128, M));
  EXPECT_FALSE(C.proveExactDivision(K, 16));
  EXPECT_FALSE(C.proveEqual(S.exactDiv(M, 128) * 128, M));
}

TEST_F(GemmFactsTest, MultiStagePipelineIndex) {
  enterKernel();
  enterLoop();
  // shared a_smem : Tile[F16, [3, 128, 16]]; stage = (k + 2) mod 3
  DimExpr Stage = S.mod(k + 2, 3);
  EXPECT_TRUE(sliceInBounds(Stage, 1, cst(3)));
  EXPECT_TRUE(sliceInBounds(Stage * 128 + WarpM * 64, 64, cst(3 * 128)));
  EXPECT_EQ(str(Stage), "(k + 2) mod 3");
  // Prefetch distance 2: the slot written at k + 2 is the one read at k + 3 - 1.
  EXPECT_TRUE(C.proveEqual(S.mod(k + 2, 3), S.mod((k + 3) - 1, 3)));
}

} // namespace
/// Proof hovers (issue 17 part 4): the facts that bear on a slice's goal,
/// with the origins the checker gave them, rolled back with the scopes.
TEST_F(GemmFactsTest, FactsAboutTheTileLoopSliceCarryTheirOrigins) {
  C.setOrigin(0); // requires (K mod 16 = 0) etc.
  enterKernel();
  C.setOrigin(1); // for k
  enterLoop();
  C.setOrigin(-1);
  ASSERT_TRUE(sliceInBounds(k * 16, 16, K));
  std::set<int32_t> origins;
  for (size_t I : C.factsAbout(K - (k * 16 + 16)))
    origins.insert(C.factOrigin(I));
  // The requires clause on K and the loop bound; not the grid's block ids.
  EXPECT_TRUE(origins.count(0));
  EXPECT_TRUE(origins.count(1));
  for (size_t I : C.factsAbout(K - (k * 16 + 16)))
    EXPECT_EQ(printFact(S, C.facts()[I]).find("block"), std::string::npos)
        << printFact(S, C.facts()[I]);
  // A constant goal bears on no fact.
  EXPECT_TRUE(C.factsAbout(cst(16) - cst(16)).empty());
  // After the loop's scope, its facts (and their origins) are gone.
  C.pop();
  for (size_t I : C.factsAbout(K - (k * 16 + 16)))
    EXPECT_NE(C.factOrigin(I), 1);
}

} // namespace kina::sema::solver::test
