//===- Hopper2IRTest.cpp - Tile IR of hopper2.md section 2 ----------------===//
//
// Strided loops, dim-expression divisors, cluster_rank and clusters, TMA
// stores, stmatrix stores and ldmatrix loads of warpgroup tiles, register A
// wgmma, swizzle_128b panels: the persistent GEMM fixture builds, prints
// and verifies, and each rule codegen relies on is a coded diagnostic.
//
//===----------------------------------------------------------------------===//
#include "HopperKernels.h"
#include "ir/Builder.h"
#include "ir/Printer.h"
#include "ir/Verifier.h"

#include <gtest/gtest.h>

using namespace kina;
using namespace kina::ir;

namespace {

std::vector<std::string> check(const Kernel &k) {
  DiagnosticSink sink;
  verify(k, sink);
  std::vector<std::string> out;
  for (const auto &d : sink.diagnostics())
    out.push_back(std::string(d.info().code) + ": " + d.message);
  return out;
}

::testing::AssertionResult hasDiag(const std::vector<std::string> &diags, const std::string &code,
                                   const std::string &fragment) {
  for (const auto &d : diags)
    if (d.rfind(code, 0) == 0 && d.find(fragment) != std::string::npos)
      return ::testing::AssertionSuccess();
  std::string all;
  for (const auto &d : diags)
    all += "\n  " + d;
  return ::testing::AssertionFailure()
         << "no " << code << " containing '" << fragment << "' among:" << all;
}

using E = IndexExpr;
SliceDim R(E off, int64_t n) { return SliceDim::range(std::move(off), n); }
SliceDim P(E at) { return SliceDim::at(std::move(at)); }
E c(int64_t v) { return E::constant(v); }

Block &role(Kernel &k, size_t which) {
  size_t seen = 0;
  for (Op &op : k.body.ops)
    if (auto *r = op.as<RoleOp>())
      if (seen++ == which)
        return r->body;
  static Block none;
  return none;
}
template <typename T> T *find(Block &b) {
  for (Op &op : b.ops) {
    if (auto *o = op.as<T>())
      return o;
    if (auto *f = op.as<ForOp>())
      if (T *o = find<T>(f->body))
        return o;
    if (auto *i = op.as<IfOp>())
      if (T *o = find<T>(i->thenBody))
        return o;
  }
  return nullptr;
}

/// One warpgroup, a [64, 64] BF16 swizzled stage and an F32 accumulator:
/// the smallest kernel the register-A and ldmatrix rules need.
struct Small {
  KernelBuilder b{"small"};
  ParamId a, out;
  TileId as, acc, ar, wide;
  Small() {
    a = b.addTensor("a", DType::BF16, {c(64), c(64)});
    out = b.addResult("c", DType::BF16, {c(64), c(256)});
    b.setWarpgroups(1);
    as = b.addSharedTile("a_s", DType::BF16, {2, 64, 64}, {}, SharedLayout::Swizzle128B);
    wide = b.addSharedTile("w_s", DType::BF16, {64, 256}, {}, SharedLayout::Swizzle128B);
    acc = b.addRegisterTile("acc", DType::F32, {64, 64}, {}, RegisterScope::Warpgroup);
    ar = b.addRegisterTile("a_r", DType::BF16, {64, 64}, {}, RegisterScope::Warpgroup);
  }
  Kernel finish() { return std::move(*b.finish()); }
};

} // namespace

TEST(Hopper2IR, PersistentFixturesVerify) {
  for (const Kernel &k :
       {fixtures::hopperGemmPersistent(), fixtures::hopperGemmPersistent({DType::F16}),
        fixtures::hopperGemmPersistent({DType::BF16, 132, 0, true}),
        fixtures::hopperGemmPersistent({DType::BF16, 132, 1, false}),
        fixtures::hopperGemmPersistent({DType::BF16, 8, 1, true})})
    EXPECT_EQ(check(k), std::vector<std::string>{}) << k.name << "\n" << print(k);
}

TEST(Hopper2IR, PrinterShowsThePersistentKernel) {
  std::string text = print(fixtures::hopperGemmPersistent());
  for (const char *want :
       {"block_grid [132, 1]", "shared %c_s : tile<BF16, [2, 64, 256], cuda:shared, swizzle_128b>",
        "for %t in (block_id 0 .. M / 128 * (N / 256) step 132) {", "let %bm = %t / (N / 256)",
        "let %bn = %t mod (N / 256)", "let %it = %t / 132 * (K / 64) + %k",
        "wait %empty[%s] round (%it / 3 - 1)", "wgmma_wait 1", "if %k > 0 {",
        "arrive %empty[(%it - 1) mod 3]", "wgmma_wait 0",
        "arrive %empty[(%t / 132 * (K / 64) + K / 64 - 1) mod 3]", "tma_store_wait 0",
        "store %c_s[%wg, 0 ..+ 64, 0 ..+ 256] <- convert %acc", "fence_proxy_async",
        "tma_store %c[%bm * 128 + %wg * 64 ..+ 64, %bn * 256 ..+ 256] <- %c_s[%wg, 0 ..+ 64, 0 "
        "..+ 256]",
        "tma_store_commit"})
    EXPECT_NE(text.find(want), std::string::npos) << want << "\n" << text;
}

TEST(Hopper2IR, StepDefaultsToOneAndPrintsOnlyWhenOther) {
  KernelBuilder b("loops");
  b.setBlockGrid(c(1));
  DimId n = b.addDim("N");
  VarId i = b.beginFor("i", c(0), c(10));
  b.endFor();
  VarId j = b.beginFor("j", c(1), c(10), c(3));
  b.endFor();
  b.beginFor("q", c(0), E::dim(n), exactDiv(E::dim(n), 4));
  b.endFor();
  Kernel k = std::move(*b.finish());
  ASSERT_EQ(k.body.ops.size(), 3u);
  EXPECT_EQ(k.body.ops[0].as<ForOp>()->step.asConstant(), std::optional<int64_t>(1));
  EXPECT_EQ(k.body.ops[1].as<ForOp>()->step.asConstant(), std::optional<int64_t>(3));
  EXPECT_EQ(k.body.ops[0].as<ForOp>()->var, i);
  EXPECT_EQ(k.body.ops[1].as<ForOp>()->var, j);
  std::string text = print(k);
  EXPECT_NE(text.find("for %i in (0 .. 10) {"), std::string::npos) << text;
  EXPECT_NE(text.find("for %j in (1 .. 10 step 3) {"), std::string::npos) << text;
  EXPECT_NE(text.find("for %q in (0 .. N step N / 4) {"), std::string::npos) << text;
  EXPECT_EQ(check(k), std::vector<std::string>{});
}

TEST(Hopper2IR, StepMustBePositiveAndLaunchInvariant) {
  Kernel k = fixtures::hopperGemmPersistent();
  find<ForOp>(role(k, 0))->step = c(0);
  EXPECT_TRUE(hasDiag(check(k), "K1204", "for step `0` must be a positive constant"));
  k = fixtures::hopperGemmPersistent();
  find<ForOp>(role(k, 0))->step = c(-132);
  EXPECT_TRUE(hasDiag(check(k), "K1204", "for step `-132`"));
  k = fixtures::hopperGemmPersistent();
  find<ForOp>(role(k, 0))->step = E::blockId(0) + c(1);
  EXPECT_TRUE(hasDiag(check(k), "K1204", "an expression over the dims"));
  k = fixtures::hopperGemmPersistent();
  find<ForOp>(role(k, 0))->step = E::binary(E::Kind::Gt, c(1), c(0));
  EXPECT_TRUE(hasDiag(check(k), "K1204", "for step: expected an integer"));
}

TEST(Hopper2IR, DivisorsAreConstantsOrDimExpressions) {
  E n = E::dim(1);
  Kernel k = fixtures::hopperGemmPersistent();
  ASSERT_EQ(check(k), std::vector<std::string>{});
  // `t / (N/256)` verifies (the fixture); a loop variable as divisor does not.
  Op &let = role(k, 0).ops[0].as<ForOp>()->body.ops[0];
  ASSERT_TRUE(let.as<LetOp>());
  let.as<LetOp>()->value = div(E::var(0), E::blockId(0)); // var 0: the producer's t
  EXPECT_TRUE(
      hasDiag(check(k), "K1204", "`/` needs a positive constant or an expression over the dims"));
  k = fixtures::hopperGemmPersistent();
  role(k, 0).ops[0].as<ForOp>()->body.ops[0].as<LetOp>()->value = mod(E::var(0), c(0));
  EXPECT_TRUE(hasDiag(check(k), "K1204", "`mod` needs a positive constant"));
  // floor_div keeps a constant divisor.
  k = fixtures::hopperGemmPersistent();
  role(k, 0).ops[0].as<ForOp>()->body.ops[0].as<LetOp>()->value =
      E::binary(E::Kind::FloorDiv, E::var(0), n);
  EXPECT_TRUE(hasDiag(check(k), "K1204", "`floor_div` needs a positive constant on the right"));
  // Run-time divisors fold like the others when they are constant.
  EXPECT_EQ(div(c(17), c(4) + c(1)).asConstant(), std::optional<int64_t>(3));
  EXPECT_EQ(mod(c(17), c(4) + c(1)).asConstant(), std::optional<int64_t>(2));
}

TEST(Hopper2IR, ClusterRankAndClusters) {
  Kernel k = fixtures::hopperGemmPersistent();
  k.cluster = {2, 1, 1};
  EXPECT_EQ(k.clusterSize(), 2);
  EXPECT_EQ(check(k), std::vector<std::string>{}); // 132 = 66 * 2
  EXPECT_NE(print(k).find("cluster [2, 1, 1]"), std::string::npos);
  EXPECT_EQ(print(fixtures::hopperGemmPersistent()).find("cluster"), std::string::npos);
  k.cluster = {5, 1, 1};
  EXPECT_TRUE(hasDiag(check(k), "K1240", "not a multiple of the cluster extent 5"));
  k.cluster = {4, 3, 1};
  EXPECT_TRUE(hasDiag(check(k), "K1240", "at most 8 CTAs"));
  k.cluster = {0, 1, 1};
  EXPECT_TRUE(hasDiag(check(k), "K1240", "positive extents"));
  k = fixtures::hopperGemm(); // symbolic grid: the runtime checks divisibility
  k.cluster = {2, 1, 1};
  EXPECT_EQ(check(k), std::vector<std::string>{});

  k = fixtures::hopperGemmPersistent();
  VarId wg = role(k, 1).ops[0].as<LetOp>()->var;
  role(k, 1).ops.push_back(Op{LetOp{wg, E::clusterRank() * 64}, {}});
  EXPECT_EQ(check(k), std::vector<std::string>{});
  EXPECT_NE(print(k).find("let %wg = cluster_rank * 64"), std::string::npos) << print(k);
  EXPECT_TRUE(E::clusterRank().isLeaf());
  EXPECT_TRUE(E::clusterRank().structurallyEqual(E::clusterRank()));
  EXPECT_FALSE(E::clusterRank().structurallyEqual(E::warpgroupId()));
  k.requirements.push_back({E::binary(E::Kind::Eq, E::clusterRank(), c(0)), "x", {}});
  EXPECT_TRUE(hasDiag(check(k), "K1204", "`cluster_rank` may only appear in the kernel body"));
}

TEST(Hopper2IR, TmaStoreRules) {
  auto store = [](Kernel &k) { return find<TmaStoreOp>(role(k, 1)); };
  Kernel k = fixtures::hopperGemmPersistent();
  ASSERT_TRUE(store(k));
  store(k)->src = Access::tile(0, {P(c(0)), R(c(0), 64), R(c(0), 64)}); // a_s: [64, 64] box
  EXPECT_TRUE(hasDiag(check(k), "K1222", "must be the same 2-D box"));
  k = fixtures::hopperGemmPersistent();
  store(k)->src = Access::tile(2, {P(c(0)), R(c(0), 64), R(c(0), 128)}); // half a stage
  store(k)->dst.slice[1].size = 128;
  EXPECT_TRUE(hasDiag(check(k), "K1222", "must be one whole stage of 'c_s'"));
  k = fixtures::hopperGemmPersistent();
  store(k)->dst = Access::tensor(0, store(k)->dst.slice); // the input a
  EXPECT_TRUE(hasDiag(check(k), "K1222", "tensor 'a' is read-only"));
  k = fixtures::hopperGemmPersistent();
  store(k)->src = Access::tile(3); // acc: not a swizzled tile
  EXPECT_TRUE(hasDiag(check(k), "K1222", "tma_store source must be a swizzle_128b shared tile"));
  k = fixtures::hopperGemmPersistent();
  store(k)->src.slice[0] = R(c(0), 1);
  EXPECT_TRUE(hasDiag(check(k), "K1222", "the stage dimensions of 'c_s' take a point index"));
  k = fixtures::hopperGemmPersistent();
  k.params[2].dtype = DType::F16;
  EXPECT_TRUE(hasDiag(check(k), "K1222", "tma_store: dtypes differ (BF16 -> F16)"));
  k = fixtures::hopperGemmPersistent();
  k.warpgroups = 0;
  EXPECT_TRUE(hasDiag(check(k), "K1220", "tma_store_commit/tma_store_wait need a warpgroup grid"));
}

TEST(Hopper2IR, SwizzledTilesAreWholePanels) {
  Kernel k = fixtures::hopperGemmPersistent();
  k.tiles[2].shape = {2, 64, 96};
  EXPECT_TRUE(hasDiag(check(k), "K1222", "rows of a multiple of 64 elements"));
  // wgmma operands stay inside one panel of a [64, 128] B: columns 32 ..+ 32
  // and 64 ..+ 64 do, 32 ..+ 64 and (A) 48 ..+ 32 of a [64, 256] tile do not.
  Small s;
  TileId bs = s.b.addSharedTile("b_s", DType::BF16, {64, 128}, {}, SharedLayout::Swizzle128B);
  s.b.wgmma(s.acc, Access::tile(s.as, {P(c(0)), R(c(0), 64), R(c(0), 32)}),
            Access::tile(bs, {R(c(0), 64), R(c(32), 32)}));
  s.b.wgmma(s.acc, Access::tile(s.as, {P(c(0)), R(c(0), 64), R(c(0), 64)}),
            Access::tile(bs, {R(c(0), 64), R(c(64), 64)}));
  s.b.wgmma(s.acc, Access::tile(s.as, {P(c(0)), R(c(0), 64), R(c(0), 64)}),
            Access::tile(bs, {R(c(0), 64), R(c(32), 64)}));
  s.b.wgmma(s.acc, Access::tile(s.wide, {R(c(0), 64), R(c(48), 32)}),
            Access::tile(bs, {R(c(0), 64), R(c(0), 32)}));
  Kernel kk = s.finish();
  auto d = check(kk);
  EXPECT_EQ(std::count_if(d.begin(), d.end(),
                          [](const std::string &x) {
                            return x.find("inside one 64-element (128-byte) panel") !=
                                   std::string::npos;
                          }),
            2)
      << ::testing::PrintToString(d);
}

TEST(Hopper2IR, StmatrixStoreRules) {
  auto wgStore = [](Kernel &k) -> StoreOp * {
    for (Op &op : role(k, 1).ops[1].as<ForOp>()->body.ops)
      if (auto *s = op.as<StoreOp>())
        return s;
    return nullptr;
  };
  Kernel k = fixtures::hopperGemmPersistent();
  ASSERT_TRUE(wgStore(k));
  wgStore(k)->convert = false;
  EXPECT_TRUE(hasDiag(check(k), "K1202", "needs an explicit convert"));
  k = fixtures::hopperGemmPersistent();
  wgStore(k)->dst.slice[2] = R(c(0), 128);
  EXPECT_TRUE(hasDiag(check(k), "K1242", "must be one whole stage [64, 256]"));
  k = fixtures::hopperGemmPersistent();
  k.tiles[2].layout = SharedLayout::None;
  EXPECT_TRUE(hasDiag(check(k), "K1242", "16-bit swizzle_128b shared tile (stmatrix)"));
  // A 16-bit warpgroup tile stores as it is; F16 into a BF16 stage does not.
  Small s;
  s.b.store(Access::tile(s.as, {P(c(1)), R(c(0), 64), R(c(0), 64)}), s.ar);
  Kernel ok = s.finish();
  EXPECT_EQ(check(ok), std::vector<std::string>{});
  ok.tiles[s.ar].dtype = DType::F16;
  EXPECT_TRUE(hasDiag(check(ok), "K1242", "stmatrix stores the same type or converts from F32"));
}

TEST(Hopper2IR, LdmatrixLoadRules) {
  Small s;
  s.b.load(s.ar, Access::tile(s.as, {P(c(1)), R(c(0), 64), R(c(0), 64)}));
  Kernel k = s.finish();
  EXPECT_EQ(check(k), std::vector<std::string>{});
  auto *ld = find<LoadOp>(k.body);
  ld->src.slice[1] = R(c(4), 64);
  ld->src.slice[0] = P(c(0));
  k.tiles[s.as].shape = {2, 128, 64};
  EXPECT_TRUE(hasDiag(check(k), "K1242", "not known to be a multiple of 8"));
  Small s2;
  s2.b.load(s2.ar, Access::tile(s2.wide, {R(c(0), 64), R(c(32), 64)}));
  Kernel k2 = s2.finish();
  EXPECT_TRUE(hasDiag(check(k2), "K1242", "inside one 64-element (128-byte) panel"));
  Small s3;
  s3.b.load(s3.acc, Access::tile(s3.as, {P(c(1)), R(c(0), 64), R(c(0), 64)}));
  Kernel k3 = s3.finish();
  EXPECT_TRUE(hasDiag(check(k3), "K1242", "only BF16/F16 operand tiles are loaded"));
}

TEST(Hopper2IR, RegisterAWgmma) {
  Small s;
  s.b.unary(UnaryKind::Convert, s.ar, Operand::ofTile(s.acc));
  s.b.wgmma(s.acc, Access::tile(s.ar), Access::tile(s.as, {P(c(0)), R(c(0), 64), R(c(0), 64)}));
  s.b.wgmmaCommit();
  s.b.wgmmaWait(0);
  Kernel k = s.finish();
  EXPECT_EQ(check(k), std::vector<std::string>{}) << print(k);
  EXPECT_NE(print(k).find("%acc <- wgmma %acc, %a_r, %a_s[0, 0 ..+ 64, 0 ..+ 64]"),
            std::string::npos)
      << print(k);
  EXPECT_NE(print(k).find("register %a_r : tile<BF16, [64, 64], cuda:register, warpgroup>"),
            std::string::npos);
  auto *w = find<WgmmaOp>(k.body);
  w->a.slice = {R(c(0), 64), R(c(0), 32)};
  EXPECT_TRUE(hasDiag(check(k), "K1223", "is used whole, not sliced"));
  w->a.slice.clear();
  k.tiles[s.ar].dtype = DType::F16;
  k.tiles[s.ar].shape = {64, 64};
  EXPECT_TRUE(hasDiag(check(k), "K1223", "must both be F16 or both BF16, they are F16 and BF16"));
  k.tiles[s.ar].dtype = DType::BF16;
  k.tiles[s.ar].shape = {64, 32};
  EXPECT_TRUE(hasDiag(check(k), "K1223", "must be [64, N], [64, K], [N, K]"));
  k.tiles[s.ar].shape = {64, 24};
  EXPECT_TRUE(hasDiag(check(k), "K1220", "the operand BF16/F16 [64, K], K a multiple of 16"));
  // A per-warp register tile is no wgmma operand.
  k.tiles[s.ar].shape = {64, 64};
  k.tiles[s.ar].scope = RegisterScope::Warp;
  EXPECT_TRUE(hasDiag(check(k), "K1223", "must be a warpgroup tile"));
}

TEST(Hopper2IR, WarpgroupElementwiseNeedsOneShape) {
  Small s;
  TileId other = s.b.addRegisterTile("o", DType::F32, {64, 128}, {}, RegisterScope::Warpgroup);
  TileId warp = s.b.addRegisterTile("w", DType::F32, {64, 64});
  s.b.binary(BinaryKind::Add, s.acc, Operand::ofTile(s.acc), Operand::ofScalar(1.0));
  s.b.binary(BinaryKind::Add, s.acc, Operand::ofTile(s.acc), Operand::ofTile(other));
  s.b.unary(UnaryKind::Relu, warp, Operand::ofTile(s.acc));
  Kernel k = s.finish();
  auto d = check(k);
  EXPECT_TRUE(hasDiag(d, "K1220", "'o' and the result 'acc' must both be warpgroup tiles"));
  EXPECT_TRUE(hasDiag(d, "K1220", "'acc' and the result 'w' must both be warpgroup tiles"));
  EXPECT_EQ(d.size(), 3u) << ::testing::PrintToString(d); // + the [64, 128] shape mismatch
}
