//===- HopperKernels.cpp - Hopper tile IR kernels built by hand -----------===//
//
// See HopperKernels.h. hopperGemm reads like the kernel of hopper.md §1.
//
//===----------------------------------------------------------------------===//
#include "HopperKernels.h"

#include "ir/Builder.h"

#include <cstdlib>
#include <iostream>

namespace kina::ir::fixtures {
namespace {

using E = IndexExpr;
E c(int64_t v) { return E::constant(v); }
SliceDim R(E off, int64_t n) { return SliceDim::range(std::move(off), n); }
SliceDim P(E at) { return SliceDim::at(std::move(at)); }
E eq(E a, E b) { return E::binary(E::Kind::Eq, std::move(a), std::move(b)); }

void requireMod(KernelBuilder &b, DimId d, const std::string &name, int64_t m) {
  b.addRequirement(eq(mod(E::dim(d), m), c(0)), name + " mod " + std::to_string(m) + " = 0");
}

Kernel finish(KernelBuilder &b) {
  auto k = b.finish();
  if (!k) {
    std::cerr << llvm::toString(k.takeError()) << "\n";
    std::abort(); // a bug in this file, not in the code under test
  }
  return std::move(*k);
}

} // namespace

Kernel hopperGemm(const HopperGemmConfig &cfg) {
  const int64_t BM = cfg.blockM, BN = cfg.blockN, BK = cfg.blockK, S = cfg.stages;
  std::string name = std::string("gemm_") + (cfg.input == DType::BF16 ? "bf16" : "f16") +
                     "_hopper_" + std::to_string(BM) + "x" + std::to_string(BN) + "x" +
                     std::to_string(BK) + "_s" + std::to_string(S);
  KernelBuilder b(name);
  DimId M = b.addDim("M"), N = b.addDim("N"), K = b.addDim("K");
  E m = E::dim(M), n = E::dim(N), k = E::dim(K);
  requireMod(b, M, "M", BM);
  requireMod(b, N, "N", BN);
  requireMod(b, K, "K", BK);
  for (const char *cap : {"sm_90a", "wgmma", "tma", "mbarrier", "setmaxnreg"})
    b.addCapability(cap);
  ParamId a = b.addTensor("a", cfg.input, {m, k});
  ParamId bt = b.addTensor("b", cfg.input, {n, k}); // K-major B: c = a * transpose(b)
  ParamId out = b.addResult("c", cfg.input, {m, n});
  b.setBlockGrid(exactDiv(m, BM), exactDiv(n, BN));
  b.setWarpgroups(1 + cfg.consumers);
  VarId bm = b.let("bm", E::blockId(0));
  VarId bn = b.let("bn", E::blockId(1));
  TileId as = b.addSharedTile("a_s", cfg.input, {S, BM, BK}, {}, SharedLayout::Swizzle128B);
  TileId bs = b.addSharedTile("b_s", cfg.input, {S, BN, BK}, {}, SharedLayout::Swizzle128B);
  BarrierId full = b.addBarrier("full", S, 1);
  BarrierId empty = b.addBarrier("empty", S, cfg.consumers);
  const int64_t stageBytes = (BM + BN) * BK * 2;

  b.beginRole("producer", 0, 0, cfg.producerRegisters);
  {
    VarId kv = b.beginFor("k", c(0), exactDiv(k, BK));
    E kk = E::var(kv);
    VarId s = b.let("s", mod(kk, S));
    E st = E::var(s);
    b.barrierWait(empty, st, floorDiv(kk, S) + c(-1));
    b.barrierArrive(full, st, stageBytes);
    b.tmaLoad(Access::tile(as, {P(st), R(c(0), BM), R(c(0), BK)}),
              Access::tensor(a, {R(E::var(bm) * BM, BM), R(kk * BK, BK)}), full, st);
    b.tmaLoad(Access::tile(bs, {P(st), R(c(0), BN), R(c(0), BK)}),
              Access::tensor(bt, {R(E::var(bn) * BN, BN), R(kk * BK, BK)}), full, st);
    b.endFor();
  }
  b.endRole();

  b.beginRole("consumer", 1, cfg.consumers, cfg.consumerRegisters);
  {
    VarId wg = b.let("wg", E::warpgroupId() - c(1));
    TileId acc = b.addRegisterTile("acc", DType::F32, {64, BN}, {}, RegisterScope::Warpgroup);
    VarId kv = b.beginFor("k", c(0), exactDiv(k, BK));
    E kk = E::var(kv);
    VarId s = b.let("s", mod(kk, S));
    E st = E::var(s);
    b.barrierWait(full, st, floorDiv(kk, S));
    b.wgmma(acc, Access::tile(as, {P(st), R(E::var(wg) * 64, 64), R(c(0), BK)}),
            Access::tile(bs, {P(st), R(c(0), BN), R(c(0), BK)}), eq(kk, c(0)));
    b.wgmmaCommit();
    b.wgmmaWait(cfg.wgmmaPending);
    b.barrierArrive(empty, st);
    b.endFor();
    b.store(Access::tensor(out, {R(E::var(bm) * BM + E::var(wg) * 64, 64), R(E::var(bn) * BN, BN)}),
            acc, /*convert=*/true);
  }
  b.endRole();
  return finish(b);
}

Kernel hopperGemmPersistent(const PersistentGemmConfig &cfg) {
  const int64_t BM = 128, BN = 256, BK = 64, S = 3, G = cfg.grid;
  std::string name = std::string("gemm_") + (cfg.input == DType::BF16 ? "bf16" : "f16") +
                     "_hopper_persistent" + (cfg.wgmmaPending ? "" : "_wait0") +
                     (cfg.tmaStore ? "" : "_gstore");
  KernelBuilder b(name);
  DimId M = b.addDim("M"), N = b.addDim("N"), K = b.addDim("K");
  E m = E::dim(M), n = E::dim(N), k = E::dim(K);
  requireMod(b, M, "M", BM);
  requireMod(b, N, "N", BN);
  requireMod(b, K, "K", BK);
  for (const char *cap : {"sm_90a", cfg.input == DType::BF16 ? "wgmma_bf16" : "wgmma_f16", "tma",
                          "tma_store", "mbarrier", "mbarrier_try_wait", "setmaxnreg"})
    b.addCapability(cap);
  ParamId a = b.addTensor("a", cfg.input, {m, k});
  ParamId bt = b.addTensor("b", cfg.input, {n, k});
  ParamId out = b.addResult("c", cfg.input, {m, n});
  b.setBlockGrid(c(G));
  b.setWarpgroups(3);
  TileId as = b.addSharedTile("a_s", cfg.input, {S, BM, BK}, {}, SharedLayout::Swizzle128B);
  TileId bs = b.addSharedTile("b_s", cfg.input, {S, BN, BK}, {}, SharedLayout::Swizzle128B);
  TileId cs = cfg.tmaStore
                  ? b.addSharedTile("c_s", cfg.input, {2, 64, BN}, {}, SharedLayout::Swizzle128B)
                  : 0;
  BarrierId full = b.addBarrier("full", S, 1);
  BarrierId empty = b.addBarrier("empty", S, 2);
  E tiles = exactDiv(m, BM) * exactDiv(n, BN), tilesN = exactDiv(n, BN), kTiles = exactDiv(k, BK);

  b.beginRole("producer", 0, 0, 40);
  {
    VarId tv = b.beginFor("t", E::blockId(0), tiles, c(G));
    E t = E::var(tv);
    VarId bm = b.let("bm", div(t, tilesN));
    VarId bn = b.let("bn", mod(t, tilesN));
    VarId kv = b.beginFor("k", c(0), kTiles);
    VarId it = b.let("it", div(t, c(G)) * kTiles + E::var(kv));
    VarId s = b.let("s", mod(E::var(it), S));
    E st = E::var(s);
    b.barrierWait(empty, st, div(E::var(it), c(S)) - c(1));
    b.barrierArrive(full, st, (BM + BN) * BK * 2);
    b.tmaLoad(Access::tile(as, {P(st), R(c(0), BM), R(c(0), BK)}),
              Access::tensor(a, {R(E::var(bm) * BM, BM), R(E::var(kv) * BK, BK)}), full, st);
    b.tmaLoad(Access::tile(bs, {P(st), R(c(0), BN), R(c(0), BK)}),
              Access::tensor(bt, {R(E::var(bn) * BN, BN), R(E::var(kv) * BK, BK)}), full, st);
    b.endFor();
    b.endFor();
  }
  b.endRole();

  b.beginRole("consumer", 1, 2, 232);
  {
    VarId wg = b.let("wg", E::warpgroupId() - c(1));
    TileId acc = b.addRegisterTile("acc", DType::F32, {64, BN}, {}, RegisterScope::Warpgroup);
    VarId tv = b.beginFor("t", E::blockId(0), tiles, c(G));
    E t = E::var(tv);
    VarId bm = b.let("bm", div(t, tilesN));
    VarId bn = b.let("bn", mod(t, tilesN));
    VarId kv = b.beginFor("k", c(0), kTiles);
    E kk = E::var(kv);
    VarId it = b.let("it", div(t, c(G)) * kTiles + kk);
    VarId s = b.let("s", mod(E::var(it), S));
    E st = E::var(s);
    b.barrierWait(full, st, div(E::var(it), c(S)));
    b.wgmma(acc, Access::tile(as, {P(st), R(E::var(wg) * 64, 64), R(c(0), BK)}),
            Access::tile(bs, {P(st), R(c(0), BN), R(c(0), BK)}), eq(kk, c(0)));
    b.wgmmaCommit();
    b.wgmmaWait(cfg.wgmmaPending);
    if (cfg.wgmmaPending) {
      b.beginIf(E::binary(E::Kind::Gt, kk, c(0)));
      b.barrierArrive(empty, mod(E::var(it) - c(1), S));
      b.endIf();
    } else {
      b.barrierArrive(empty, st);
    }
    b.endFor();
    if (cfg.wgmmaPending) {
      b.wgmmaWait(0);
      b.barrierArrive(empty, mod(div(t, c(G)) * kTiles + kTiles - c(1), S));
    }
    Access dst =
        Access::tensor(out, {R(E::var(bm) * BM + E::var(wg) * 64, 64), R(E::var(bn) * BN, BN)});
    if (cfg.tmaStore) {
      Access stage = Access::tile(cs, {P(E::var(wg)), R(c(0), 64), R(c(0), BN)});
      b.tmaStoreWait(0);
      b.store(stage, acc, /*convert=*/true);
      b.fenceProxyAsync();
      b.tmaStore(dst, stage);
      b.tmaStoreCommit();
    } else {
      b.store(dst, acc, /*convert=*/true);
    }
    b.endFor();
    if (cfg.tmaStore)
      b.tmaStoreWait(0);
  }
  b.endRole();
  return finish(b);
}

Kernel tmaRoundTrip() {
  KernelBuilder b("tma_round_trip");
  DimId M = b.addDim("M");
  E m = E::dim(M);
  requireMod(b, M, "M", 64);
  for (const char *cap : {"sm_90a", "tma", "mbarrier"})
    b.addCapability(cap);
  ParamId a = b.addTensor("a", DType::BF16, {m, c(64)});
  ParamId out = b.addResult("out", DType::BF16, {m, c(64)});
  b.setBlockGrid(exactDiv(m, 64));
  b.setWarpgroups(1);
  VarId bm = b.let("bm", E::blockId(0));
  TileId as = b.addSharedTile("a_s", DType::BF16, {64, 64}, {}, SharedLayout::Swizzle128B);
  BarrierId full = b.addBarrier("full", 1, 1);
  b.barrierArrive(full, c(0), 64 * 64 * 2);
  b.tmaLoad(Access::tile(as), Access::tensor(a, {R(E::var(bm) * 64, 64), R(c(0), 64)}), full, c(0));
  b.barrierWait(full, c(0), c(0));
  // Each warp reads the swizzled tile back through the generic proxy (the
  // same bytes go out four times: a check of the swizzle, not of speed).
  TileId r = b.addRegisterTile("r", DType::BF16, {64, 64});
  b.load(r, Access::tile(as));
  b.store(Access::tensor(out, {R(E::var(bm) * 64, 64), R(c(0), 64)}), r);
  return finish(b);
}

Kernel wgmmaSmall(int64_t n, int64_t kk) {
  KernelBuilder b("wgmma_m64n" + std::to_string(n) + "k" + std::to_string(kk));
  for (const char *cap : {"sm_90a", "wgmma", "tma", "mbarrier"})
    b.addCapability(cap);
  ParamId a = b.addTensor("a", DType::BF16, {c(64), c(64)});
  ParamId bt = b.addTensor("b", DType::BF16, {c(n), c(64)});
  ParamId out = b.addResult("c", DType::F32, {c(64), c(n)});
  b.setWarpgroups(1);
  TileId as = b.addSharedTile("a_s", DType::BF16, {64, 64}, {}, SharedLayout::Swizzle128B);
  TileId bs = b.addSharedTile("b_s", DType::BF16, {n, 64}, {}, SharedLayout::Swizzle128B);
  BarrierId full = b.addBarrier("full", 1, 1);
  b.barrierArrive(full, c(0), (64 + n) * 64 * 2);
  b.tmaLoad(Access::tile(as), Access::tensor(a, {R(c(0), 64), R(c(0), 64)}), full, c(0));
  b.tmaLoad(Access::tile(bs), Access::tensor(bt, {R(c(0), n), R(c(0), 64)}), full, c(0));
  b.barrierWait(full, c(0), c(0));
  TileId acc = b.addRegisterTile("acc", DType::F32, {64, n}, {}, RegisterScope::Warpgroup);
  b.wgmma(acc, Access::tile(as, {R(c(0), 64), R(c(0), kk)}),
          Access::tile(bs, {R(c(0), n), R(c(0), kk)}), eq(c(0), c(0)));
  b.wgmmaCommit();
  b.wgmmaWait(0);
  b.store(Access::tensor(out, {R(c(0), 64), R(c(0), n)}), acc);
  return finish(b);
}

} // namespace kina::ir::fixtures
