//===- HopperKernels.h - Hopper tile IR kernels built by hand ---*- C++ -*-===//
//
// Tile IR kernels for the sm_90a path (TMA, mbarriers, wgmma, warpgroup
// roles), written against ir::KernelBuilder so that codegen, the runtime
// and the GPU bring-up run before and independently of the frontend:
//
//  * hopperGemm: the GEMM of /work/coord/hopper.md section 1 (128x256x64
//    tiles, a 3-stage TMA ring, one producer and two consumer warpgroups,
//    setmaxnreg 40/232): c[M, N] = a[M, K] * transpose(b[N, K]), BF16 or F16
//    inputs, result in the input type (F32 accumulation).
//  * tmaRoundTrip: one TMA load of a 64x64 box into a swizzle_128b tile,
//    a wait, and a per-warp load + store back to global (out = a's box).
//  * wgmmaSmall: TMA loads of A [64, 64] and B [N, 64], then one wgmma group
//    of K/16 m64nNk16 instructions: c[64, N] = a[:, 0:K] * transpose(b[:, 0:K]).
//  * hopperGemmPersistent: the persistent GEMM of /work/coord/hopper2.md
//    section 1 (a strided tile loop over a grid of G blocks, a ring counter
//    across tiles, one wgmma group in flight, the stmatrix -> proxy fence ->
//    TMA store epilogue); options select the older forms for comparison.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "ir/TileIR.h"

namespace kina::ir::fixtures {

struct HopperGemmConfig {
  DType input = DType::BF16;
  int64_t blockM = 128, blockN = 256, blockK = 64;
  int64_t stages = 3;
  int64_t consumers = 2;          ///< consumer warpgroups (each owns 64 rows)
  int64_t producerRegisters = 40; ///< 0 = no setmaxnreg
  int64_t consumerRegisters = 232;
  unsigned wgmmaPending = 0; ///< wgmma_wait N in the consumers
};
Kernel hopperGemm(const HopperGemmConfig &config = {});

/// out[M, 64] (BF16) = a[M, 64] through TMA; one block per 64 rows.
Kernel tmaRoundTrip();

/// c[64, N] F32 = a[64, 0:K] * transpose(b[N, 0:K]); a [64, 64], b [N, 64]
/// BF16; K a multiple of 16 up to 64, N a multiple of 8 up to 256.
Kernel wgmmaSmall(int64_t n = 64, int64_t k = 16);

struct PersistentGemmConfig {
  DType input = DType::BF16;
  int64_t grid = 132;        ///< blocks (the H200's 132 SMs)
  unsigned wgmmaPending = 1; ///< 1: one group in flight across the back edge
  bool tmaStore = true;      ///< false: per-thread stores of the accumulator
};
Kernel hopperGemmPersistent(const PersistentGemmConfig &config = {});

} // namespace kina::ir::fixtures
