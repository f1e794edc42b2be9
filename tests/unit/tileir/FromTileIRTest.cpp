//===- FromTileIRTest.cpp - Block-level ir::Kernel -> Tile IR bytecode ----===//
//
// Block-level kernels built with ir::KernelBuilder (register tiles owned by
// the block, no warp grid) are lowered to bytecode that the real tileiras
// 13.3 assembles for sm_90; what the lowering cannot express is an error
// naming it.
//
//===----------------------------------------------------------------------===//
#include "tileir/FromTileIR.h"
#include "ir/Builder.h"
#include "target/TargetError.h"
#include "tileir/Assembler.h"

#include <gtest/gtest.h>

using namespace kina;
using namespace kina::ir;
using namespace kina::tileir;

namespace {

using IE = ir::IndexExpr;

ir::Kernel softmaxRows() {
  KernelBuilder b("softmax_rows");
  DimId m = b.addDim("M"), n = b.addDim("N");
  ParamId x = b.addTensor("x", DType::F32, {b.dim(m), b.dim(n)});
  ParamId y = b.addResult("y", DType::F32, {b.dim(m), b.dim(n)});
  b.setBlockGrid(IE::binary(IE::Kind::Div, b.dim(m), IE::constant(16)));
  TileId xt = b.addRegisterTile("xt", DType::F32, {16, 256});
  TileId mx = b.addRegisterTile("mx", DType::F32, {16, 1});
  TileId e = b.addRegisterTile("e", DType::F32, {16, 256});
  TileId s = b.addRegisterTile("s", DType::F32, {16, 1});
  VarId bm = b.let("bm", IE::blockId(0));
  auto rows = SliceDim::range(IE::var(bm) * 16, 16);
  b.load(xt, Access::tensor(x, {rows, SliceDim::range(IE::constant(0), 256)}));
  b.rowReduce(ReduceKind::Max, mx, xt);
  b.binary(BinaryKind::Sub, e, Operand::ofTile(xt), Operand::ofTile(mx));
  b.unary(UnaryKind::Exp, e, Operand::ofTile(e));
  b.rowReduce(ReduceKind::Sum, s, e);
  b.binary(BinaryKind::Div, e, Operand::ofTile(e), Operand::ofTile(s));
  b.store(Access::tensor(y, {rows, SliceDim::range(IE::constant(0), 256)}), e);
  auto k = b.finish();
  EXPECT_TRUE(static_cast<bool>(k));
  return std::move(*k);
}

ir::Kernel rowSumsOverChunks() {
  KernelBuilder b("row_sums");
  DimId m = b.addDim("M"), n = b.addDim("N");
  ParamId x = b.addTensor("x", DType::F32, {b.dim(m), b.dim(n)});
  ParamId y = b.addResult("y", DType::F32, {b.dim(m), IE::constant(1)});
  b.setBlockGrid(IE::binary(IE::Kind::Div, b.dim(m), IE::constant(16)));
  TileId xt = b.addRegisterTile("xt", DType::F32, {16, 128});
  TileId part = b.addRegisterTile("part", DType::F32, {16, 1});
  TileId acc = b.addRegisterTile("acc", DType::F32, {16, 1});
  VarId bm = b.let("bm", IE::blockId(0));
  b.fill(acc, 0.0);
  VarId j =
      b.beginFor("j", IE::constant(0), IE::binary(IE::Kind::Div, b.dim(n), IE::constant(128)));
  b.load(xt, Access::tensor(x, {SliceDim::range(IE::var(bm) * 16, 16),
                                SliceDim::range(IE::var(j) * 128, 128)}));
  b.rowReduce(ReduceKind::Sum, part, xt);
  b.binary(BinaryKind::Add, acc, Operand::ofTile(acc), Operand::ofTile(part));
  b.endFor();
  b.binary(BinaryKind::Mul, acc, Operand::ofTile(acc), Operand::ofScalar(0.5));
  b.store(Access::tensor(
              y, {SliceDim::range(IE::var(bm) * 16, 16), SliceDim::range(IE::constant(0), 1)}),
          acc);
  auto k = b.finish();
  EXPECT_TRUE(static_cast<bool>(k));
  return std::move(*k);
}

TEST(TileIrFromTileIR, WarpLevelKernelsAreRefusedNamingWhy) {
  KernelBuilder b("warpy");
  DimId m = b.addDim("M");
  ParamId x = b.addTensor("x", DType::F32, {b.dim(m), IE::constant(64)});
  b.addResult("y", DType::F32, {b.dim(m), IE::constant(64)});
  b.setWarpGrid(4);
  TileId t = b.addRegisterTile("t", DType::F32, {16, 64});
  b.load(t, Access::tensor(x, {SliceDim::range(IE::warpId(0) * 16, 16),
                               SliceDim::range(IE::constant(0), 64)}));
  auto k = b.finish();
  ASSERT_TRUE(static_cast<bool>(k));
  auto l = lowerToTileIr(*k, Version{13, 3});
  EXPECT_TRUE(l.bytecode.empty());
  EXPECT_NE(l.error.find("only block-level kernels"), std::string::npos) << l.error;
}

TEST(TileIrFromTileIR, ShapesTheLoweringLacksAreErrorsNotDrops) {
  KernelBuilder b("gelu");
  DimId m = b.addDim("M");
  ParamId x = b.addTensor("x", DType::F32, {b.dim(m), IE::constant(64)});
  ParamId y = b.addResult("y", DType::F32, {b.dim(m), IE::constant(64)});
  TileId t = b.addRegisterTile("t", DType::F32, {16, 64});
  auto sl = std::vector<SliceDim>{SliceDim::range(IE::blockId(0) * 16, 16),
                                  SliceDim::range(IE::constant(0), 64)};
  b.load(t, Access::tensor(x, sl));
  b.unary(UnaryKind::Gelu, t, Operand::ofTile(t));
  b.store(Access::tensor(y, sl), t);
  auto k = b.finish();
  ASSERT_TRUE(static_cast<bool>(k));
  auto l = lowerToTileIr(*k, Version{13, 3});
  EXPECT_TRUE(l.bytecode.empty());
  EXPECT_NE(l.error.find("is not lowered to Tile IR yet"), std::string::npos) << l.error;
}

class FromTileIRReal : public ::testing::Test {
protected:
  void SetUp() override {
    auto tool = target::findTool(target::Tool::Tileiras);
    if (!tool)
      GTEST_SKIP() << "SKIP: no tileiras (" << llvm::toString(tool.takeError()) << ")";
    tool_ = *tool;
  }
  void expectAssembles(const ir::Kernel &k) {
    auto l = lowerToTileIr(k, Version{13, 3});
    ASSERT_TRUE(l.error.empty()) << l.error;
    ASSERT_FALSE(l.bytecode.empty());
    auto cubin = assemble(tool_, l.bytecode, Target::Sm90);
    ASSERT_TRUE(static_cast<bool>(cubin)) << target::takeTargetFailure(cubin.takeError()).message;
    EXPECT_EQ(std::vector<std::uint8_t>(cubin->begin(), cubin->begin() + 4),
              (std::vector<std::uint8_t>{0x7F, 'E', 'L', 'F'}));
  }
  target::ToolLocation tool_;
};

TEST_F(FromTileIRReal, SoftmaxRowsAssemblesForSm90) { expectAssembles(softmaxRows()); }
TEST_F(FromTileIRReal, ALoopCarriedAccumulatorAssemblesForSm90) {
  expectAssembles(rowSumsOverChunks());
}

} // namespace
