//===- SeedKernels.h - Tile IR kernels built by hand for tests --*- C++ -*-===//
//
// The stdlib kernels, written directly against ir::KernelBuilder, so that the
// IR, codegen and benchmark tests run before (and independently of) the
// frontend. Each mirrors a .kina kernel: the seed gemm_tc (corrected to store
// into its result), a multi-stage cp.async + ldmatrix + mma.sync GEMM,
// elementwise add+relu, a row sum, a transpose through shared memory and a
// row softmax.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "ir/TileIR.h"

namespace kina::ir::fixtures {

/// Seed 003 §3.3 gemm_tc: 128x128 block tile, BK = 16, 2x2 warps of 64x64,
/// F16 inputs, F32 result.
Kernel seedGemm();

struct GemmConfig {
  DType input = DType::F16;
  DType output = DType::F32;
  int64_t blockM = 128, blockN = 128, blockK = 32;
  int64_t warpsM = 2, warpsN = 4;
  int64_t stages = 3;
};
/// Multi-stage pipelined GEMM: one block_sync per k-step, prefetch of stage
/// kt + stages - 1 while computing stage kt.
Kernel pipelinedGemm(const GemmConfig &config = {});

/// out = relu(a + b), [M, N] F32, 64x64 per block, 2x2 warps.
Kernel elementwiseAddRelu();
/// out[M, 1] = row sums of a[M, N] F32; 16 rows per warp, 4 warps.
Kernel rowSum();
/// out[N, M] = transpose(a[M, N]) F32 through a 64x64 shared tile.
Kernel transposeShared();
/// out = softmax over rows of a[M, 128] F32; 16 rows per warp.
Kernel rowSoftmax();

} // namespace kina::ir::fixtures
