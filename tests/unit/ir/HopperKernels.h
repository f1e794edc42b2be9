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
//  * hopperGemmCluster: the persistent GEMM in 2x1 clusters of
//    /work/coord/s3.md "Cluster multicast": the two CTAs of a cluster take
//    adjacent tiles that share one operand tile; each loads half of it and
//    multicasts it to both, and the consumers release each stage in both
//    CTAs (`arrive empty[s] cluster`, arrivals = 2 consumers x 2 CTAs).
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

/// wgmma with A from registers, one warpgroup, a [64, 64] BF16, b [N, 64]:
///  * chain = false: a_r <- a_s (ldmatrix); c[64, N] F32 = a @ b.T;
///  * chain = true: acc1 = a @ b1.T with b1 = b[0:64, :] (shared A), a_r <-
///    convert BF16 acc1, c[64, N] F32 = a_r @ b2.T with b2 = b2[N, 64] (the
///    attention-style P @ V step: the F32 fragment reused as the A fragment).
Kernel wgmmaRegisterA(int64_t n = 64, bool chain = false);

struct PersistentGemmConfig {
  DType input = DType::BF16;
  int64_t grid = 132;        ///< blocks (the H200's 132 SMs)
  unsigned wgmmaPending = 1; ///< 1: one group in flight across the back edge
  bool tmaStore = true;      ///< false: per-thread stores of the accumulator
  int64_t cluster = 1;       ///< CTAs per cluster along x (launch only)
};
Kernel hopperGemmPersistent(const PersistentGemmConfig &config = {});

struct ClusterGemmConfig {
  DType input = DType::BF16;
  int64_t grid = 132; ///< blocks, a multiple of the cluster's 2
  /// false (the plan's kernel, requires M mod 256): M-adjacent tiles share
  /// B; t / 2 walks tile pairs, bn = (t / 2) mod (N/256), bm = 2 * ((t / 2)
  /// / (N/256)) + cluster_rank; rank r loads rows [r*128, r*128+128) of
  /// B's [256, 64] box. true (requires N mod 512): N-adjacent tiles share
  /// A; bm = (t / 2) / (N/512), bn = 2 * ((t / 2) mod (N/512)) +
  /// cluster_rank; rank r loads rows [r*64, r*64+64) of A's [128, 64] box.
  bool shareA = false;
};
Kernel hopperGemmCluster(const ClusterGemmConfig &config = {});

/// A generic-proxy read of a multicast destination: a 2-CTA cluster, one
/// warpgroup; each CTA multicasts half of a [64, 64] BF16 A box, loads B
/// [n, 64] itself, reads A with ldmatrix (a_r <- a_s), c = a_r @ b.T, then
/// releases `empty` with a cluster arrival and waits for both CTAs' releases.
Kernel clusterLdmatrixRelease(int64_t n = 64);

} // namespace kina::ir::fixtures
