//===- SeedKernels.cpp - Tile IR kernels built by hand for tests ----------===//
//
// See SeedKernels.h. Each function reads like the .kina source it mirrors.
//
//===----------------------------------------------------------------------===//
#include "SeedKernels.h"

#include "ir/Builder.h"

#include <cstdlib>
#include <iostream>

namespace kina::ir::fixtures {
namespace {

using E = IndexExpr;
E c(int64_t v) { return E::constant(v); }
SliceDim R(E off, int64_t n) { return SliceDim::range(std::move(off), n); }
E eq(E a, E b) { return E::binary(E::Kind::Eq, std::move(a), std::move(b)); }
E lt(E a, E b) { return E::binary(E::Kind::Lt, std::move(a), std::move(b)); }

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

Kernel seedGemm() {
  KernelBuilder b("gemm_tc");
  DimId M = b.addDim("M"), N = b.addDim("N"), K = b.addDim("K");
  E m = E::dim(M), n = E::dim(N), k = E::dim(K);
  requireMod(b, M, "M", 128);
  requireMod(b, N, "N", 128);
  requireMod(b, K, "K", 16);
  b.addCapability("mma_m16n16k16_f16_f16_f32");
  ParamId a = b.addTensor("a", DType::F16, {m, k});
  ParamId bt = b.addTensor("b", DType::F16, {k, n});
  ParamId out = b.addResult("out", DType::F32, {m, n});
  b.setBlockGrid(exactDiv(m, 128), exactDiv(n, 128));
  b.setWarpGrid(2, 2);
  VarId bm = b.let("block_m", E::blockId(0));
  VarId bn = b.let("block_n", E::blockId(1));
  TileId as = b.addSharedTile("a_smem", DType::F16, {128, 16});
  TileId bs = b.addSharedTile("b_smem", DType::F16, {16, 128});
  VarId wm = b.let("warp_m", E::warpId(0));
  VarId wn = b.let("warp_n", E::warpId(1));
  TileId acc = b.addRegisterTile("c_reg", DType::F32, {64, 64});
  b.fill(acc, 0.0);
  VarId kv = b.beginFor("k", c(0), exactDiv(k, 16));
  E kk = E::var(kv);
  b.cpAsync(Access::tile(as), Access::tensor(a, {R(E::var(bm) * 128, 128), R(kk * 16, 16)}));
  b.cpAsync(Access::tile(bs), Access::tensor(bt, {R(kk * 16, 16), R(E::var(bn) * 128, 128)}));
  b.cpAsyncCommit();
  b.cpAsyncWait(0);
  b.blockSync();
  b.mma(acc, acc, Access::tile(as, {R(E::var(wm) * 64, 64), R(c(0), 16)}),
        Access::tile(bs, {R(c(0), 16), R(E::var(wn) * 64, 64)}));
  b.blockSync();
  b.endFor();
  b.store(Access::tensor(out, {R(E::var(bm) * 128 + E::var(wm) * 64, 64),
                               R(E::var(bn) * 128 + E::var(wn) * 64, 64)}),
          acc);
  return finish(b);
}

Kernel pipelinedGemm(const GemmConfig &cfg) {
  std::string name = std::string("gemm_pipelined_") +
                     (cfg.input == DType::BF16 ? "bf16" : "f16") + "_" +
                     std::to_string(cfg.blockM) + "x" + std::to_string(cfg.blockN) + "x" +
                     std::to_string(cfg.blockK) + "_s" + std::to_string(cfg.stages);
  KernelBuilder b(name);
  DimId M = b.addDim("M"), N = b.addDim("N"), K = b.addDim("K");
  E m = E::dim(M), n = E::dim(N), k = E::dim(K);
  requireMod(b, M, "M", cfg.blockM);
  requireMod(b, N, "N", cfg.blockN);
  requireMod(b, K, "K", cfg.blockK);
  ParamId a = b.addTensor("a", cfg.input, {m, k});
  ParamId bt = b.addTensor("b", cfg.input, {k, n});
  ParamId out = b.addResult("out", cfg.output, {m, n});
  b.setBlockGrid(exactDiv(m, cfg.blockM), exactDiv(n, cfg.blockN));
  b.setWarpGrid(cfg.warpsM, cfg.warpsN);
  int64_t wtm = cfg.blockM / cfg.warpsM, wtn = cfg.blockN / cfg.warpsN, S = cfg.stages;
  TileId as = b.addSharedTile("a_smem", cfg.input, {S, cfg.blockM, cfg.blockK});
  TileId bs = b.addSharedTile("b_smem", cfg.input, {S, cfg.blockK, cfg.blockN});
  TileId acc = b.addRegisterTile("acc", DType::F32, {wtm, wtn});
  E bm = E::blockId(0), bn = E::blockId(1), wm = E::warpId(0), wn = E::warpId(1);
  VarId kt = b.let("k_tiles", exactDiv(k, cfg.blockK));
  E KT = E::var(kt);
  auto loadStage = [&](E tile) {
    E s = mod(tile, S);
    b.cpAsync(Access::tile(as, {SliceDim::at(s), R(c(0), cfg.blockM), R(c(0), cfg.blockK)}),
              Access::tensor(a, {R(bm * cfg.blockM, cfg.blockM), R(tile * cfg.blockK, cfg.blockK)}));
    b.cpAsync(Access::tile(bs, {SliceDim::at(s), R(c(0), cfg.blockK), R(c(0), cfg.blockN)}),
              Access::tensor(bt, {R(tile * cfg.blockK, cfg.blockK), R(bn * cfg.blockN, cfg.blockN)}));
  };
  b.fill(acc, 0.0);
  // Prologue: stages 0 .. S-2 in flight.
  for (int64_t s = 0; s + 1 < S; ++s) {
    b.beginIf(lt(c(s), KT));
    loadStage(c(s));
    b.endIf();
    b.cpAsyncCommit();
  }
  VarId kv = b.beginFor("kt", c(0), KT);
  E kk = E::var(kv);
  b.cpAsyncWait(static_cast<unsigned>(S - 2));
  b.blockSync();
  VarId next = b.let("next", kk + (S - 1));
  b.beginIf(lt(E::var(next), KT));
  loadStage(E::var(next));
  b.endIf();
  b.cpAsyncCommit();
  E cur = mod(kk, S);
  b.mma(acc, acc,
        Access::tile(as, {SliceDim::at(cur), R(wm * wtm, wtm), R(c(0), cfg.blockK)}),
        Access::tile(bs, {SliceDim::at(cur), R(c(0), cfg.blockK), R(wn * wtn, wtn)}));
  b.endFor();
  b.cpAsyncWait(0);
  b.store(Access::tensor(out, {R(bm * cfg.blockM + wm * wtm, wtm), R(bn * cfg.blockN + wn * wtn, wtn)}),
          acc, /*convert=*/cfg.output != DType::F32);
  return finish(b);
}

Kernel elementwiseAddRelu() {
  KernelBuilder b("add_relu");
  DimId M = b.addDim("M"), N = b.addDim("N");
  E m = E::dim(M), n = E::dim(N);
  requireMod(b, M, "M", 64);
  requireMod(b, N, "N", 64);
  ParamId a = b.addTensor("a", DType::F32, {m, n});
  ParamId bt = b.addTensor("b", DType::F32, {m, n});
  ParamId out = b.addResult("out", DType::F32, {m, n});
  b.setBlockGrid(exactDiv(m, 64), exactDiv(n, 64));
  b.setWarpGrid(2, 2);
  TileId x = b.addRegisterTile("x", DType::F32, {32, 32});
  TileId y = b.addRegisterTile("y", DType::F32, {32, 32});
  E r = E::blockId(0) * 64 + E::warpId(0) * 32, col = E::blockId(1) * 64 + E::warpId(1) * 32;
  b.load(x, Access::tensor(a, {R(r, 32), R(col, 32)}));
  b.load(y, Access::tensor(bt, {R(r, 32), R(col, 32)}));
  b.binary(BinaryKind::Add, x, Operand::ofTile(x), Operand::ofTile(y));
  b.unary(UnaryKind::Relu, x, Operand::ofTile(x));
  b.store(Access::tensor(out, {R(r, 32), R(col, 32)}), x);
  return finish(b);
}

Kernel rowSum() {
  KernelBuilder b("row_sum");
  DimId M = b.addDim("M"), N = b.addDim("N");
  E m = E::dim(M), n = E::dim(N);
  requireMod(b, M, "M", 64);
  requireMod(b, N, "N", 64);
  ParamId a = b.addTensor("a", DType::F32, {m, n});
  ParamId out = b.addResult("out", DType::F32, {m, c(1)});
  b.setBlockGrid(exactDiv(m, 64));
  b.setWarpGrid(4, 1);
  TileId x = b.addRegisterTile("x", DType::F32, {16, 64});
  TileId part = b.addRegisterTile("part", DType::F32, {16, 1});
  TileId acc = b.addRegisterTile("acc", DType::F32, {16, 1});
  E r = E::blockId(0) * 64 + E::warpId(0) * 16;
  b.fill(acc, 0.0);
  VarId j = b.beginFor("j", c(0), exactDiv(n, 64));
  b.load(x, Access::tensor(a, {R(r, 16), R(E::var(j) * 64, 64)}));
  b.rowReduce(ReduceKind::Sum, part, x);
  b.binary(BinaryKind::Add, acc, Operand::ofTile(acc), Operand::ofTile(part));
  b.endFor();
  b.store(Access::tensor(out, {R(r, 16), R(c(0), 1)}), acc);
  return finish(b);
}

Kernel transposeShared() {
  KernelBuilder b("transpose");
  DimId M = b.addDim("M"), N = b.addDim("N");
  E m = E::dim(M), n = E::dim(N);
  requireMod(b, M, "M", 64);
  requireMod(b, N, "N", 64);
  ParamId a = b.addTensor("a", DType::F32, {m, n});
  ParamId out = b.addResult("out", DType::F32, {n, m});
  b.setBlockGrid(exactDiv(m, 64), exactDiv(n, 64));
  b.setWarpGrid(2, 2);
  TileId s = b.addSharedTile("tile", DType::F32, {64, 64});
  TileId x = b.addRegisterTile("x", DType::F32, {32, 32});
  TileId t = b.addRegisterTile("t", DType::F32, {32, 32});
  E bm = E::blockId(0), bn = E::blockId(1), wm = E::warpId(0), wn = E::warpId(1);
  b.load(x, Access::tensor(a, {R(bm * 64 + wm * 32, 32), R(bn * 64 + wn * 32, 32)}));
  b.store(Access::tile(s, {R(wm * 32, 32), R(wn * 32, 32)}), x);
  b.blockSync();
  b.load(x, Access::tile(s, {R(wn * 32, 32), R(wm * 32, 32)}));
  b.transpose(t, x);
  b.store(Access::tensor(out, {R(bn * 64 + wm * 32, 32), R(bm * 64 + wn * 32, 32)}), t);
  return finish(b);
}

Kernel rowSoftmax() {
  KernelBuilder b("softmax_rows");
  DimId M = b.addDim("M");
  E m = E::dim(M);
  requireMod(b, M, "M", 64);
  ParamId a = b.addTensor("a", DType::F32, {m, c(128)});
  ParamId out = b.addResult("out", DType::F32, {m, c(128)});
  b.setBlockGrid(exactDiv(m, 64));
  b.setWarpGrid(4, 1);
  TileId x = b.addRegisterTile("x", DType::F32, {16, 128});
  TileId mx = b.addRegisterTile("row_max", DType::F32, {16, 1});
  TileId sm = b.addRegisterTile("row_sum", DType::F32, {16, 1});
  E r = E::blockId(0) * 64 + E::warpId(0) * 16;
  b.load(x, Access::tensor(a, {R(r, 16), R(c(0), 128)}));
  b.rowReduce(ReduceKind::Max, mx, x);
  b.binary(BinaryKind::Sub, x, Operand::ofTile(x), Operand::ofTile(mx));
  b.unary(UnaryKind::Exp, x, Operand::ofTile(x));
  b.rowReduce(ReduceKind::Sum, sm, x);
  b.binary(BinaryKind::Div, x, Operand::ofTile(x), Operand::ofTile(sm));
  b.store(Access::tensor(out, {R(r, 16), R(c(0), 128)}), x);
  return finish(b);
}

} // namespace kina::ir::fixtures
