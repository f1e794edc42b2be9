//===- BuilderTest.cpp - KernelBuilder: ids, regions, async groups --------===//
#include "SeedKernels.h"
#include "ir/Builder.h"

#include <gtest/gtest.h>

using namespace kina::ir;

TEST(TileIRBuilder, SeedGemmStructure) {
  Kernel k = fixtures::seedGemm();
  EXPECT_EQ(k.name, "gemm_tc");
  ASSERT_EQ(k.dims.size(), 3u);
  ASSERT_EQ(k.params.size(), 3u);
  EXPECT_TRUE(k.params[2].isResult);
  EXPECT_EQ(k.threadsPerBlock(), 128u);
  EXPECT_EQ(k.numTokens, 1u);
  // let, let, let, let, fill, for, store
  ASSERT_EQ(k.body.ops.size(), 7u);
  const ForOp *loop = k.body.ops[5].as<ForOp>();
  ASSERT_NE(loop, nullptr);
  ASSERT_EQ(loop->body.ops.size(), 7u);
  const auto *commit = loop->body.ops[2].as<CpAsyncCommitOp>();
  ASSERT_NE(commit, nullptr);
  EXPECT_EQ(loop->body.ops[0].as<CpAsyncOp>()->group, commit->group);
  EXPECT_EQ(loop->body.ops[1].as<CpAsyncOp>()->group, commit->group);
  const auto *wait = loop->body.ops[3].as<CpAsyncWaitOp>();
  ASSERT_NE(wait, nullptr);
  EXPECT_EQ(wait->pending, 0u);
  EXPECT_EQ(wait->completes, std::vector<TokenId>{commit->group});
}

TEST(TileIRBuilder, EachCommitClosesItsOwnGroup) {
  Kernel k = fixtures::pipelinedGemm();
  // Two prologue commits plus the one in the loop.
  EXPECT_EQ(k.numTokens, 3u);
}

TEST(TileIRBuilder, UnbalancedRegionsAreErrorsNotCrashes) {
  {
    KernelBuilder b("k");
    b.endFor();
    auto k = b.finish();
    ASSERT_FALSE(static_cast<bool>(k));
    EXPECT_NE(llvm::toString(k.takeError()).find("endFor() without a matching beginFor()"),
              std::string::npos);
  }
  {
    KernelBuilder b("k");
    b.beginFor("i", IndexExpr::constant(0), IndexExpr::constant(4));
    auto k = b.finish();
    ASSERT_FALSE(static_cast<bool>(k));
    EXPECT_NE(llvm::toString(k.takeError()).find("left open"), std::string::npos);
  }
  {
    KernelBuilder b("k");
    b.beginFor("i", IndexExpr::constant(0), IndexExpr::constant(4));
    b.beginElse();
    b.endFor();
    auto k = b.finish();
    ASSERT_FALSE(static_cast<bool>(k));
    EXPECT_NE(llvm::toString(k.takeError()).find("beginElse()"), std::string::npos);
  }
}

TEST(TileIRBuilder, IfElseRegions) {
  KernelBuilder b("k");
  TileId t = b.addRegisterTile("t", DType::F32, {16, 8});
  b.beginIf(IndexExpr::binary(IndexExpr::Kind::Lt, IndexExpr::warpId(0), IndexExpr::constant(1)));
  b.fill(t, 1.0);
  b.beginElse();
  b.fill(t, 2.0);
  b.fill(t, 3.0);
  b.endIf();
  auto k = b.finish();
  ASSERT_TRUE(static_cast<bool>(k));
  const IfOp *i = k->body.ops[0].as<IfOp>();
  ASSERT_NE(i, nullptr);
  EXPECT_EQ(i->thenBody.ops.size(), 1u);
  EXPECT_EQ(i->elseBody.ops.size(), 2u);
}

TEST(IndexExpr, FoldingAndEquality) {
  IndexExpr e = exactDiv(IndexExpr::constant(256), 128) + IndexExpr::constant(3) * 2;
  EXPECT_EQ(e.asConstant(), std::optional<int64_t>(8));
  EXPECT_EQ(mod(IndexExpr::constant(-1), 3).asConstant(), std::optional<int64_t>(2));
  EXPECT_FALSE((IndexExpr::dim(0) + 1).asConstant());
  EXPECT_TRUE((IndexExpr::dim(0) * 4).structurallyEqual(IndexExpr::dim(0) * 4));
  EXPECT_FALSE((IndexExpr::dim(0) * 4).structurallyEqual(IndexExpr::dim(1) * 4));
  EXPECT_EQ(exactDiv(IndexExpr::constant(1), 0).asConstant(), std::nullopt);
}
