//===- DeadOnEntryTest.cpp - Register tiles dead at a loop body's entry ---===//
//
// ir/DeadOnEntry.h lets codegen drop a register tile's value at the top of
// a loop body. Each case here is one reason a tile must stay live (a read
// before the write, a write on one branch only, an inner loop that may not
// run, a wgmma group that may be in flight) or may be dropped.
//
//===----------------------------------------------------------------------===//
#include "ir/DeadOnEntry.h"
#include "ir/Builder.h"

#include <gtest/gtest.h>

using namespace kina;
using namespace kina::ir;

namespace {

using E = IndexExpr;
E c(int64_t v) { return E::constant(v); }

/// The outermost for loop of the kernel body (inside a role if there is one).
const ForOp *outerLoop(const Block &b) {
  for (const Op &op : b.ops) {
    if (auto *f = op.as<ForOp>())
      return f;
    if (auto *r = op.as<RoleOp>())
      if (auto *f = outerLoop(r->body))
        return f;
  }
  return nullptr;
}

std::vector<TileId> dead(const Kernel &k) {
  const ForOp *loop = outerLoop(k.body);
  EXPECT_NE(loop, nullptr);
  return loop ? DeadOnEntry(k).tiles(*loop) : std::vector<TileId>{};
}

Kernel finish(KernelBuilder &b) {
  auto k = b.finish();
  EXPECT_TRUE(static_cast<bool>(k)) << llvm::toString(k.takeError());
  return std::move(*k);
}

struct Warp {
  KernelBuilder b{"k"};
  TileId x, y;
  Warp() {
    b.setBlockGrid(c(1));
    b.setWarpGrid(1);
    x = b.addRegisterTile("x", DType::F32, {16, 16});
    y = b.addRegisterTile("y", DType::F32, {16, 16});
  }
};

TEST(DeadOnEntry, OverwrittenBeforeReadIsDead) {
  Warp w;
  w.b.beginFor("i", c(0), c(4));
  w.b.fill(w.x, ScalarExpr::constant(0.0));
  w.b.unary(UnaryKind::Relu, w.y, Operand::ofTile(w.x));
  w.b.endFor();
  EXPECT_EQ(dead(finish(w.b)), (std::vector<TileId>{w.x, w.y}));
}

TEST(DeadOnEntry, ReadBeforeWriteIsLive) {
  Warp w;
  w.b.beginFor("i", c(0), c(4));
  w.b.unary(UnaryKind::Relu, w.y, Operand::ofTile(w.x)); // reads the previous x
  w.b.fill(w.x, ScalarExpr::constant(0.0));
  w.b.endFor();
  EXPECT_EQ(dead(finish(w.b)), (std::vector<TileId>{w.y}));
}

TEST(DeadOnEntry, AccumulatingIsLive) {
  Warp w;
  w.b.beginFor("i", c(0), c(4));
  w.b.binary(BinaryKind::Add, w.x, Operand::ofTile(w.x), Operand::ofTile(w.y));
  w.b.endFor();
  EXPECT_EQ(dead(finish(w.b)), std::vector<TileId>{});
}

TEST(DeadOnEntry, WriteOnOneBranchOnlyIsLive) {
  Warp w;
  VarId i = w.b.beginFor("i", c(0), c(4));
  w.b.beginIf(E::binary(E::Kind::Eq, E::var(i), c(0)));
  w.b.fill(w.x, ScalarExpr::constant(0.0));
  w.b.endIf();
  w.b.unary(UnaryKind::Relu, w.y, Operand::ofTile(w.x));
  w.b.endFor();
  EXPECT_EQ(dead(finish(w.b)), (std::vector<TileId>{w.y}));
}

TEST(DeadOnEntry, WriteOnBothBranchesIsDead) {
  Warp w;
  VarId i = w.b.beginFor("i", c(0), c(4));
  w.b.beginIf(E::binary(E::Kind::Eq, E::var(i), c(0)));
  w.b.fill(w.x, ScalarExpr::constant(0.0));
  w.b.beginElse();
  w.b.fill(w.x, ScalarExpr::constant(1.0));
  w.b.endIf();
  w.b.unary(UnaryKind::Relu, w.y, Operand::ofTile(w.x));
  w.b.endFor();
  EXPECT_EQ(dead(finish(w.b)), (std::vector<TileId>{w.x, w.y}));
}

/// The persistent GEMM's consumer: for t { for k { acc <- wgmma acc a b
/// zero_when (k = 0); commit; wait 1 }; wait 0; c <- acc }.
struct Gemm {
  KernelBuilder b{"gemm"};
  TileId acc, a, bt;
  ParamId out;
  Gemm() {
    DimId m = b.addDim("M");
    b.setBlockGrid(c(132));
    b.setWarpgroups(2);
    a = b.addSharedTile("a_s", DType::BF16, {64, 64}, {}, SharedLayout::Swizzle128B);
    bt = b.addSharedTile("b_s", DType::BF16, {64, 64}, {}, SharedLayout::Swizzle128B);
    acc = b.addRegisterTile("acc", DType::F32, {64, 64}, {}, RegisterScope::Warpgroup);
    out = b.addResult("c", DType::F32, {b.dim(m), c(64)});
  }
  void tile(bool innerRuns, bool waitAll) {
    VarId k = b.beginFor("k", c(0), c(4));
    if (innerRuns)
      b.markLoopRuns();
    b.wgmma(acc, Access::tile(a), Access::tile(bt), E::binary(E::Kind::Eq, E::var(k), c(0)));
    b.wgmmaCommit();
    b.wgmmaWait(1);
    b.endFor();
    if (waitAll)
      b.wgmmaWait(0);
    b.store(Access::tensor(out, {SliceDim::range(c(0), 64), SliceDim::range(c(0), 64)}), acc);
  }
};

TEST(DeadOnEntry, AccumulatorOfAPersistentTileLoopIsDead) {
  Gemm g;
  g.b.beginFor("t", c(0), c(8));
  g.tile(/*innerRuns=*/true, /*waitAll=*/true);
  g.b.endFor();
  EXPECT_EQ(dead(finish(g.b)), std::vector<TileId>{g.acc});
}

TEST(DeadOnEntry, InnerLoopThatMayNotRunKeepsTheAccumulator) {
  Gemm g;
  g.b.beginFor("t", c(0), c(8));
  g.tile(/*innerRuns=*/false, /*waitAll=*/true);
  g.b.endFor();
  EXPECT_EQ(dead(finish(g.b)), std::vector<TileId>{});
}

TEST(DeadOnEntry, GroupInFlightAtTheBackEdgeKeepsTheAccumulator) {
  Gemm g;
  g.b.beginFor("t", c(0), c(8));
  g.tile(/*innerRuns=*/true, /*waitAll=*/false);
  g.b.endFor();
  EXPECT_EQ(dead(finish(g.b)), std::vector<TileId>{});
}

TEST(DeadOnEntry, GroupInFlightBeforeTheLoopKeepsTheAccumulator) {
  Gemm g;
  g.b.wgmma(g.acc, Access::tile(g.a), Access::tile(g.bt));
  g.b.wgmmaCommit(); // still in flight when the tile loop starts
  g.b.beginFor("t", c(0), c(8));
  g.tile(/*innerRuns=*/true, /*waitAll=*/true);
  g.b.endFor();
  EXPECT_EQ(dead(finish(g.b)), std::vector<TileId>{});
}

TEST(DeadOnEntry, ZeroWhenOnALaterIterationOnlyKeepsTheAccumulator) {
  Gemm g;
  g.b.beginFor("t", c(0), c(8));
  VarId k = g.b.beginFor("k", c(0), c(4));
  g.b.markLoopRuns();
  g.b.wgmma(g.acc, Access::tile(g.a), Access::tile(g.bt),
            E::binary(E::Kind::Eq, E::var(k), c(1))); // k = 0 accumulates onto the old value
  g.b.wgmmaCommit();
  g.b.wgmmaWait(0);
  g.b.endFor();
  g.b.endFor();
  EXPECT_EQ(dead(finish(g.b)), std::vector<TileId>{});
}

} // namespace
