//===- HopperIRTest.cpp - Builder, printer and verifier of the Hopper ops -===//
//
// The Hopper kernels build, print and verify; each rule codegen relies on
// (roles, register budgets, barrier stages, TMA boxes, swizzle alignment,
// wgmma shapes, warpgroup tiles) is a K122x diagnostic on malformed IR.
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

/// The ops of the first role of `k` (the producer of hopperGemm).
Block &role(Kernel &k, size_t which) {
  size_t seen = 0;
  for (Op &op : k.body.ops)
    if (auto *r = op.as<RoleOp>())
      if (seen++ == which)
        return r->body;
  static Block none;
  return none;
}
/// The first op of type T in b, looking into for bodies.
template <typename T> T *find(Block &b) {
  for (Op &op : b.ops) {
    if (auto *o = op.as<T>())
      return o;
    if (auto *f = op.as<ForOp>())
      if (T *o = find<T>(f->body))
        return o;
  }
  return nullptr;
}

} // namespace

TEST(HopperIR, FixturesVerify) {
  for (const Kernel &k :
       {fixtures::hopperGemm(), fixtures::hopperGemm({DType::F16}), fixtures::tmaRoundTrip(),
        fixtures::wgmmaSmall(), fixtures::wgmmaSmall(256, 64), fixtures::wgmmaSmall(8, 32)})
    EXPECT_EQ(check(k), std::vector<std::string>{}) << k.name << "\n" << print(k);
}

TEST(HopperIR, ThreadsPerBlockFollowTheWarpgroupGrid) {
  Kernel k = fixtures::hopperGemm();
  EXPECT_EQ(k.warpgroups, 3);
  EXPECT_EQ(k.threadsPerBlock(), 384u);
  EXPECT_EQ(launchRegisters(384), 168);
  EXPECT_EQ(launchRegisters(128), 248);
}

TEST(HopperIR, PrinterShowsTheProtocol) {
  std::string text = print(fixtures::hopperGemm());
  for (const char *want :
       {"warpgroup_grid [3]", "shared %a_s : tile<BF16, [3, 128, 64], cuda:shared, swizzle_128b>",
        "register %acc : tile<F32, [64, 256], cuda:register, warpgroup>",
        "shared %full : barrier<3, arrivals=1>", "shared %empty : barrier<3, arrivals=2>",
        "role producer (warpgroup 0) registers 40 {",
        "role consumer (warpgroup 1 .. 2) registers 232 {",
        "wait %empty[%s] round (floor_div %k 3 + -1)", "arrive %full[%s] expect_tx 49152",
        "tma_load %a_s[%s, 0 ..+ 128, 0 ..+ 64] <- %a[%bm * 128 ..+ 128, %k * 64 ..+ 64] "
        "completes %full[%s]",
        "let %wg = warpgroup_id - 1",
        "%acc <- wgmma %acc, %a_s[%s, %wg * 64 ..+ 64, 0 ..+ 64], %b_s[%s, 0 ..+ 256, 0 ..+ 64] "
        "zero_when (%k = 0)",
        "wgmma_commit", "wgmma_wait 0", "arrive %empty[%s]\n"})
    EXPECT_NE(text.find(want), std::string::npos) << want << "\n" << text;
}

TEST(HopperIR, BuilderReportsAnOpenRole) {
  KernelBuilder b("k");
  b.setWarpgroups(1);
  b.beginRole("r", 0, 0);
  auto k = b.finish();
  ASSERT_FALSE(static_cast<bool>(k));
  EXPECT_NE(llvm::toString(k.takeError()).find("endRole"), std::string::npos);
  KernelBuilder b2("k2");
  b2.endRole();
  auto k2 = b2.finish();
  ASSERT_FALSE(static_cast<bool>(k2));
  EXPECT_NE(llvm::toString(k2.takeError()).find("endRole() without"), std::string::npos);
}

TEST(HopperIR, WarpgroupGridRules) {
  Kernel k = fixtures::hopperGemm();
  k.warpgroups = 9;
  EXPECT_TRUE(hasDiag(check(k), "K1220", "1 to 8 warpgroups"));
  k = fixtures::hopperGemm();
  k.warpGrid = {2, 1};
  EXPECT_TRUE(hasDiag(check(k), "K1220", "not both"));
  k = fixtures::hopperGemm();
  k.warpgroups = 0;
  auto d = check(k);
  EXPECT_TRUE(hasDiag(d, "K1220", "role 'producer' needs a warpgroup grid"));
  EXPECT_TRUE(hasDiag(d, "K1221", "barrier 'full' needs a warpgroup grid"));
  EXPECT_TRUE(hasDiag(d, "K1220", "`warpgroup_id` needs a warpgroup grid"));
}

TEST(HopperIR, RoleRules) {
  Kernel k = fixtures::hopperGemm();
  k.body.ops[3].as<RoleOp>()->lastWarpgroup = 3; // consumer 1 .. 3 of 3
  EXPECT_TRUE(hasDiag(check(k), "K1220", "covers warpgroups 1 .. 3 of a grid of 3"));
  k = fixtures::hopperGemm();
  k.body.ops[3].as<RoleOp>()->firstWarpgroup = 0;
  EXPECT_TRUE(hasDiag(check(k), "K1220", "overlaps another role's warpgroups 0 .. 0"));
  k = fixtures::hopperGemm();
  k.body.ops[2].as<RoleOp>()->registers = 36;
  EXPECT_TRUE(hasDiag(check(k), "K1220", "registers 36 must be a multiple of 8 in [24, 256]"));
  // 128 * 40 + 256 * 256 > 65536: setmaxnreg.inc would wait forever.
  k = fixtures::hopperGemm({DType::BF16, 128, 256, 64, 3, 2, 40, 256});
  EXPECT_TRUE(hasDiag(check(k), "K1220", "need 70656 registers per block"));
  // A role inside a loop.
  k = fixtures::hopperGemm();
  Op roleOp = k.body.ops[2];
  find<ForOp>(role(k, 1))->body.ops.push_back(roleOp);
  EXPECT_TRUE(hasDiag(check(k), "K1220", "must be at the top level"));
}

TEST(HopperIR, BarrierRules) {
  Kernel k = fixtures::hopperGemm();
  k.barriers[1].arrivals = 0;
  EXPECT_TRUE(hasDiag(check(k), "K1221", "expects 0 arrivals"));
  k = fixtures::hopperGemm();
  k.barriers[0].stages = 0;
  EXPECT_TRUE(hasDiag(check(k), "K1221", "has 0 stages"));
  k = fixtures::hopperGemm();
  find<BarrierArriveOp>(role(k, 0))->stage = c(3);
  EXPECT_TRUE(hasDiag(check(k), "K1221", "stage 3 of barrier 'full' (3 stages) is out of range"));
  k = fixtures::hopperGemm();
  find<BarrierArriveOp>(role(k, 0))->expectTxBytes = 1 << 20;
  EXPECT_TRUE(hasDiag(check(k), "K1221", "expect_tx 1048576 is outside"));
  k = fixtures::hopperGemm();
  find<BarrierWaitOp>(role(k, 0))->barrier = 7;
  EXPECT_TRUE(hasDiag(check(k), "K1221", "barrier #7 is not declared"));
  k = fixtures::hopperGemm();
  find<BarrierWaitOp>(role(k, 0))->round = E::binary(E::Kind::Eq, c(0), c(0));
  EXPECT_TRUE(hasDiag(check(k), "K1204", "wait round: expected an integer"));
}

TEST(HopperIR, TmaRules) {
  Kernel k = fixtures::hopperGemm();
  k.tiles[0].layout = SharedLayout::None;
  EXPECT_TRUE(hasDiag(check(k), "K1222", "tma_load destination must be a swizzle_128b"));
  k = fixtures::hopperGemm();
  k.tiles[0].shape = {3, 128, 32};
  EXPECT_TRUE(hasDiag(check(k), "K1222", "rows of a multiple of 64 elements (128-byte panels)"));
  k = fixtures::hopperGemm();
  find<TmaLoadOp>(role(k, 0))->dst.slice[1] = R(c(4), 120);
  EXPECT_TRUE(hasDiag(check(k), "K1222", "not known to be a multiple of 8"));
  k = fixtures::hopperGemm();
  find<TmaLoadOp>(role(k, 0))->src.slice[0].size = 64;
  EXPECT_TRUE(hasDiag(check(k), "K1222", "must be the same 2-D box"));
  k = fixtures::hopperGemm({DType::BF16, 128, 512, 64, 1, 2, 0, 0});
  EXPECT_TRUE(hasDiag(check(k), "K1222", "at most 256 rows"));
  k = fixtures::hopperGemm();
  k.params[0].dtype = DType::F16;
  EXPECT_TRUE(hasDiag(check(k), "K1222", "dtypes differ (F16 -> BF16)"));
  k = fixtures::hopperGemm();
  find<TmaLoadOp>(role(k, 0))->dst.slice[0] = R(c(0), 1);
  EXPECT_TRUE(hasDiag(check(k), "K1222", "take a point index"));
}

TEST(HopperIR, WgmmaRules) {
  Kernel k = fixtures::hopperGemm();
  k.tiles[2].scope = RegisterScope::Warp;
  EXPECT_TRUE(hasDiag(check(k), "K1223", "must be a warpgroup tile"));
  k = fixtures::hopperGemm();
  k.tiles[2].shape = {128, 256};
  EXPECT_TRUE(hasDiag(check(k), "K1220", "supports the wgmma accumulator F32 [64, N]"));
  k = fixtures::hopperGemm();
  find<WgmmaOp>(role(k, 1))->a.slice[2] = R(c(8), 48);
  auto d = check(k);
  EXPECT_TRUE(hasDiag(d, "K1223", "must be [64, N], [64, K], [N, K]")) << d.size();
  k = fixtures::wgmmaSmall(64, 32);
  {
    auto *w = find<WgmmaOp>(k.body);
    w->a.slice[1] = R(c(8), 32);
    w->b.slice[1] = R(c(8), 32);
  }
  EXPECT_TRUE(hasDiag(check(k), "K1223", "the K offset `8` must be a constant multiple of 16"));
  k = fixtures::hopperGemm();
  find<WgmmaOp>(role(k, 1))->a.slice[1] = R(E::var(0) * 64 + c(4), 64);
  EXPECT_TRUE(hasDiag(check(k), "K1223", "not known to be a multiple of 8"));
  k = fixtures::hopperGemm();
  k.tiles[1].dtype = DType::F16;
  k.params[1].dtype = DType::F16;
  EXPECT_TRUE(hasDiag(check(k), "K1223", "must both be F16 or both BF16, they are BF16 and F16"));
  k = fixtures::hopperGemm();
  find<WgmmaOp>(role(k, 1))->zeroWhen = c(1);
  EXPECT_TRUE(hasDiag(check(k), "K1204", "wgmma zero_when: expected a condition"));
}

TEST(HopperIR, WarpgroupTilesOnlyFeedWgmmaStoresAndElementwiseOps) {
  Kernel k = fixtures::hopperGemm();
  TileId acc = 2;
  role(k, 1).ops.push_back(Op{FillOp{acc, 0.0}, {}});
  role(k, 1).ops.push_back(
      Op{StoreOp{Access::tile(0, {P(c(0)), R(c(0), 64), R(c(0), 64)}), acc, true}, {}});
  auto d = check(k);
  EXPECT_TRUE(hasDiag(d, "K1220", "fill of warpgroup tile 'acc' is not supported"));
  // a_s stages are [128, 64]; a [64, 256] accumulator is not one whole stage.
  EXPECT_TRUE(hasDiag(d, "K1242", "must be one whole stage [64, 256]"));
  // Elementwise ops on warpgroup tiles of one shape are IR (hopper2.md section 2).
  k = fixtures::hopperGemm();
  role(k, 1).ops.push_back(Op{UnaryOp{UnaryKind::Relu, acc, Operand::ofTile(acc)}, {}});
  EXPECT_EQ(check(k), std::vector<std::string>{});
}
