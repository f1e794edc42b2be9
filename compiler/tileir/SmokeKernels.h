//===- SmokeKernels.h - Hand-built Tile IR kernels of the writer -*- C++ -*-===//
//
// Three kernels written directly against BytecodeWriter: an elementwise
// add, a GEMM (f16 x f16 -> f32, a `for` over K with mmaf) and a row
// softmax (reduce max, exp, reduce sum, divide). They exercise every op the
// writer encodes, are assembled by the real tileiras in tests/unit/tileir
// and run against a CPU reference on the GPU by tools/kina-tileir-smoke
// (tests/gpu/tileir/run.sh). Shapes are static (each a multiple of its
// tile). They are not the block-level Kina form (issue 18 part 4), which is
// not implemented yet.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tileir/Bytecode.h"

#include <array>
#include <string>
#include <vector>

namespace kina::tileir {

struct SmokeKernel {
  std::string name; ///< the entry symbol
  std::vector<std::uint8_t> bytecode;
  std::array<unsigned, 3> grid{1, 1, 1};
  std::string error; ///< the writer's error, if any
};

/// out[i] = x[i] + y[i] over f32 [n], one tile of `tile` elements per block.
SmokeKernel elementwiseAddKernel(Version v, int n, int tile);
/// The same with n a kernel parameter (x, y, out, then n as i32: the
/// layout of Kina's kernel ABI, pointers then dims): the tensor views have
/// a dynamic extent; the grid is ceil(n / tile) and n must be a multiple of
/// `tile` (no masking). Its tile index is computed as (bid * tile) / tile
/// with muli/divi, the index arithmetic of a Kina slice.
SmokeKernel elementwiseAddDynamicKernel(Version v, int tile, unsigned gridX);
/// c[M, N] = a[M, K] * b[K, N]; a, b f16 row-major, c f32.
SmokeKernel gemmKernel(Version v, int m, int n, int k, int bm, int bn, int bk);
/// y = softmax(x) along the rows of f32 [rows, cols], `br` rows per block.
SmokeKernel softmaxKernel(Version v, int rows, int cols, int br);

} // namespace kina::tileir
