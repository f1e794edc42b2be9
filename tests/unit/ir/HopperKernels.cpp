//===- HopperKernels.cpp - Hopper tile IR kernels built by hand -----------===//
//
// See HopperKernels.h. hopperGemm reads like the kernel of hopper.md §1.
//
//===----------------------------------------------------------------------===//
#include "HopperKernels.h"

#include "ir/Builder.h"

#include <cstdlib>
#include <functional>
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
    if (cfg.wgmmaPending) { // release the previous stage; the last one after the loop
      b.beginIf(E::binary(E::Kind::Gt, kk, c(0)));
      b.barrierArrive(empty, mod(kk + c(S - 1), S));
      b.endIf();
    } else {
      b.barrierArrive(empty, st);
    }
    b.endFor();
    if (cfg.wgmmaPending) {
      b.wgmmaWait(0);
      b.barrierArrive(empty, mod(exactDiv(k, BK) + c(S - 1), S));
    }
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
                     (cfg.tmaStore ? "" : "_gstore") +
                     (cfg.cluster > 1 ? "_cluster" + std::to_string(cfg.cluster) : "");
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
  if (cfg.cluster > 1) {
    b.setCluster(cfg.cluster);
    b.addCapability("clusters");
  }
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

Kernel hopperGemmCluster(const ClusterGemmConfig &cfg) {
  const int64_t BM = 128, BN = 256, BK = 64, S = 3, G = cfg.grid, CL = 2;
  std::string name = std::string("gemm_") + (cfg.input == DType::BF16 ? "bf16" : "f16") +
                     "_hopper_cluster" + (cfg.shareA ? "_share_a" : "") +
                     (G != 132 ? "_grid" + std::to_string(G) : "");
  KernelBuilder b(name);
  DimId M = b.addDim("M"), N = b.addDim("N"), K = b.addDim("K");
  E m = E::dim(M), n = E::dim(N), k = E::dim(K);
  requireMod(b, M, "M", cfg.shareA ? BM : CL * BM);
  requireMod(b, N, "N", cfg.shareA ? CL * BN : BN);
  requireMod(b, K, "K", BK);
  for (const char *cap :
       {"sm_90a", cfg.input == DType::BF16 ? "wgmma_bf16" : "wgmma_f16", "tma", "tma_store",
        "tma_multicast", "mbarrier", "mbarrier_try_wait", "setmaxnreg", "clusters"})
    b.addCapability(cap);
  ParamId a = b.addTensor("a", cfg.input, {m, k});
  ParamId bt = b.addTensor("b", cfg.input, {n, k});
  ParamId out = b.addResult("c", cfg.input, {m, n});
  b.setBlockGrid(c(G));
  b.setCluster(CL);
  b.setWarpgroups(3);
  TileId as = b.addSharedTile("a_s", cfg.input, {S, BM, BK}, {}, SharedLayout::Swizzle128B);
  TileId bs = b.addSharedTile("b_s", cfg.input, {S, BN, BK}, {}, SharedLayout::Swizzle128B);
  TileId cs = b.addSharedTile("c_s", cfg.input, {2, 64, BN}, {}, SharedLayout::Swizzle128B);
  BarrierId full = b.addBarrier("full", S, 1);
  BarrierId empty = b.addBarrier("empty", S, 2 * CL);
  E tiles = exactDiv(m, BM) * exactDiv(n, BN), kTiles = exactDiv(k, BK);
  E rank = E::clusterRank();
  // (bm, bn) of tile t: the pair index t / 2 is the same in both CTAs.
  auto tileOf = [&](E t) {
    E pair = div(std::move(t), c(CL));
    if (cfg.shareA) {
      E pairsN = exactDiv(n, CL * BN);
      return std::pair{b.let("bm", div(pair, pairsN)),
                       b.let("bn", c(CL) * mod(pair, pairsN) + rank)};
    }
    E tilesN = exactDiv(n, BN);
    return std::pair{b.let("bm", c(CL) * div(pair, tilesN) + rank), b.let("bn", mod(pair, tilesN))};
  };

  b.beginRole("producer", 0, 0, 40);
  {
    VarId tv = b.beginFor("t", E::blockId(0), tiles, c(G));
    E t = E::var(tv);
    auto [bm, bn] = tileOf(t);
    VarId kv = b.beginFor("k", c(0), kTiles);
    VarId it = b.let("it", div(t, c(G)) * kTiles + E::var(kv));
    VarId s = b.let("s", mod(E::var(it), S));
    E st = E::var(s);
    b.barrierWait(empty, st, div(E::var(it), c(S)) - c(1));
    // This CTA's own box plus the peers' halves of the shared box.
    b.barrierArrive(full, st, (BM + BN) * BK * 2);
    E kc = E::var(kv) * BK;
    if (cfg.shareA) {
      const int64_t H = BM / CL;
      b.tmaLoad(Access::tile(as, {P(st), R(rank * H, H), R(c(0), BK)}),
                Access::tensor(a, {R(E::var(bm) * BM + rank * H, H), R(kc, BK)}), full, st);
      b.tmaLoad(Access::tile(bs, {P(st), R(c(0), BN), R(c(0), BK)}),
                Access::tensor(bt, {R(E::var(bn) * BN, BN), R(kc, BK)}), full, st);
    } else {
      const int64_t H = BN / CL;
      b.tmaLoad(Access::tile(as, {P(st), R(c(0), BM), R(c(0), BK)}),
                Access::tensor(a, {R(E::var(bm) * BM, BM), R(kc, BK)}), full, st);
      b.tmaLoad(Access::tile(bs, {P(st), R(rank * H, H), R(c(0), BK)}),
                Access::tensor(bt, {R(E::var(bn) * BN + rank * H, H), R(kc, BK)}), full, st);
    }
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
    auto [bm, bn] = tileOf(t);
    VarId kv = b.beginFor("k", c(0), kTiles);
    E kk = E::var(kv);
    VarId it = b.let("it", div(t, c(G)) * kTiles + kk);
    VarId s = b.let("s", mod(E::var(it), S));
    E st = E::var(s);
    b.barrierWait(full, st, div(E::var(it), c(S)));
    b.wgmma(acc, Access::tile(as, {P(st), R(E::var(wg) * 64, 64), R(c(0), BK)}),
            Access::tile(bs, {P(st), R(c(0), BN), R(c(0), BK)}), eq(kk, c(0)));
    b.wgmmaCommit();
    b.wgmmaWait(1);
    b.beginIf(E::binary(E::Kind::Gt, kk, c(0)));
    b.barrierArrive(empty, mod(E::var(it) - c(1), S));
    b.endIf();
    b.endFor();
    b.wgmmaWait(0);
    b.barrierArrive(empty, mod(div(t, c(G)) * kTiles + kTiles - c(1), S));
    Access dst =
        Access::tensor(out, {R(E::var(bm) * BM + E::var(wg) * 64, 64), R(E::var(bn) * BN, BN)});
    Access stage = Access::tile(cs, {P(E::var(wg)), R(c(0), 64), R(c(0), BN)});
    b.tmaStoreWait(0);
    b.store(stage, acc, /*convert=*/true);
    b.fenceProxyAsync();
    b.tmaStore(dst, stage);
    b.tmaStoreCommit();
    b.endFor();
    b.tmaStoreWait(0);
  }
  b.endRole();
  Kernel kernel = finish(b);
  // The cluster clauses (the builder has no parameters for them): the
  // shared operand's copy multicasts, every release of `empty` is a
  // cluster arrival.
  std::function<void(Block &)> mark = [&](Block &blk) {
    for (Op &op : blk.ops) {
      if (auto *l = op.as<TmaLoadOp>())
        l->multicast = l->dst.id == (cfg.shareA ? as : bs);
      else if (auto *r = op.as<BarrierArriveOp>())
        r->cluster = r->barrier == empty;
      else if (auto *f = op.as<ForOp>())
        mark(f->body);
      else if (auto *ro = op.as<RoleOp>())
        mark(ro->body);
      else if (auto *i = op.as<IfOp>()) {
        mark(i->thenBody);
        mark(i->elseBody);
      }
    }
  };
  mark(kernel.body);
  return kernel;
}

Kernel clusterLdmatrixRelease(int64_t n) {
  KernelBuilder b("cluster_ldmatrix_release_n" + std::to_string(n));
  for (const char *cap : {"sm_90a", "wgmma_bf16", "tma", "tma_multicast", "mbarrier", "clusters"})
    b.addCapability(cap);
  ParamId a = b.addTensor("a", DType::BF16, {c(64), c(64)});
  ParamId bt = b.addTensor("b", DType::BF16, {c(n), c(64)});
  ParamId out = b.addResult("c", DType::F32, {c(64), c(n)});
  b.setBlockGrid(c(2));
  b.setCluster(2);
  b.setWarpgroups(1);
  TileId as = b.addSharedTile("a_s", DType::BF16, {64, 64}, {}, SharedLayout::Swizzle128B);
  TileId bs = b.addSharedTile("b_s", DType::BF16, {n, 64}, {}, SharedLayout::Swizzle128B);
  BarrierId full = b.addBarrier("full", 1, 1);
  BarrierId empty = b.addBarrier("empty", 1, 2);
  E rank = E::clusterRank();
  b.barrierArrive(full, c(0), (64 + n) * 64 * 2);
  b.tmaLoad(Access::tile(as, {R(rank * 32, 32), R(c(0), 64)}),
            Access::tensor(a, {R(rank * 32, 32), R(c(0), 64)}), full, c(0));
  b.tmaLoad(Access::tile(bs), Access::tensor(bt, {R(c(0), n), R(c(0), 64)}), full, c(0));
  b.barrierWait(full, c(0), c(0));
  TileId ar = b.addRegisterTile("a_r", DType::BF16, {64, 64}, {}, RegisterScope::Warpgroup);
  TileId acc = b.addRegisterTile("acc", DType::F32, {64, n}, {}, RegisterScope::Warpgroup);
  b.load(ar, Access::tile(as, {R(c(0), 64), R(c(0), 64)}));
  b.wgmma(acc, Access::tile(ar), Access::tile(bs), eq(c(0), c(0)));
  b.wgmmaCommit();
  b.wgmmaWait(0);
  b.barrierArrive(empty, c(0));
  b.barrierWait(empty, c(0), c(0));
  b.store(Access::tensor(out, {R(c(0), 64), R(c(0), n)}), acc);
  Kernel kernel = finish(b);
  for (Op &op : kernel.body.ops) {
    if (auto *l = op.as<TmaLoadOp>())
      l->multicast = l->dst.id == as;
    else if (auto *r = op.as<BarrierArriveOp>())
      r->cluster = r->barrier == empty;
  }
  return kernel;
}

Kernel wgmmaRegisterA(int64_t n, bool chain) {
  KernelBuilder b(std::string(chain ? "wgmma_rega_chain_n" : "wgmma_rega_ldmatrix_n") +
                  std::to_string(n));
  for (const char *cap : {"sm_90a", "wgmma_bf16", "tma", "mbarrier"})
    b.addCapability(cap);
  ParamId a = b.addTensor("a", DType::BF16, {c(64), c(64)});
  ParamId bt = b.addTensor("b", DType::BF16, {c(chain ? 64 : n), c(64)});
  ParamId b2 = chain ? b.addTensor("b2", DType::BF16, {c(n), c(64)}) : 0;
  ParamId out = b.addResult("c", DType::F32, {c(64), c(n)});
  b.setWarpgroups(1);
  TileId as = b.addSharedTile("a_s", DType::BF16, {64, 64}, {}, SharedLayout::Swizzle128B);
  TileId bs =
      b.addSharedTile("b_s", DType::BF16, {chain ? 64 : n, 64}, {}, SharedLayout::Swizzle128B);
  TileId b2s =
      chain ? b.addSharedTile("b2_s", DType::BF16, {n, 64}, {}, SharedLayout::Swizzle128B) : 0;
  BarrierId full = b.addBarrier("full", 1, 1);
  int64_t bytes = (64 + (chain ? 64 + n : n)) * 64 * 2;
  b.barrierArrive(full, c(0), bytes);
  b.tmaLoad(Access::tile(as), Access::tensor(a, {R(c(0), 64), R(c(0), 64)}), full, c(0));
  b.tmaLoad(Access::tile(bs), Access::tensor(bt, {R(c(0), chain ? 64 : n), R(c(0), 64)}), full,
            c(0));
  if (chain)
    b.tmaLoad(Access::tile(b2s), Access::tensor(b2, {R(c(0), n), R(c(0), 64)}), full, c(0));
  b.barrierWait(full, c(0), c(0));
  TileId ar = b.addRegisterTile("a_r", DType::BF16, {64, 64}, {}, RegisterScope::Warpgroup);
  TileId acc = b.addRegisterTile("acc", DType::F32, {64, n}, {}, RegisterScope::Warpgroup);
  if (chain) {
    TileId acc1 = b.addRegisterTile("acc1", DType::F32, {64, 64}, {}, RegisterScope::Warpgroup);
    b.wgmma(acc1, Access::tile(as), Access::tile(bs), eq(c(0), c(0)));
    b.wgmmaCommit();
    b.wgmmaWait(0);
    b.unary(UnaryKind::Convert, ar, Operand::ofTile(acc1));
    b.wgmma(acc, Access::tile(ar), Access::tile(b2s), eq(c(0), c(0)));
  } else {
    b.load(ar, Access::tile(as, {R(c(0), 64), R(c(0), 64)}));
    b.wgmma(acc, Access::tile(ar), Access::tile(bs), eq(c(0), c(0)));
  }
  b.wgmmaCommit();
  b.wgmmaWait(0);
  b.store(Access::tensor(out, {R(c(0), 64), R(c(0), n)}), acc);
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
