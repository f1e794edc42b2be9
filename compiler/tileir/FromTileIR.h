//===- FromTileIR.h - Kina's tile IR to CUDA Tile IR bytecode ---*- C++ -*-===//
//
// Lowers a block-level ir::Kernel (no warp grid, warpgroups, shared tiles
// or clusters: register tiles belong to the whole block) to Tile IR
// bytecode. The entry takes the tensor pointers in order, then the dims as
// i32 (Kina's kernel ABI order); tensors are row-major views whose extents
// and strides are computed from the dims. A slice `e ..+ S` becomes the
// partition-view index `e / S`: the caller (the checker) guarantees that
// `e` is a multiple of S. Register tiles become SSA values; a tile a `for`
// body assigns is carried through the loop.
//
// Supported: let, fill, load, store (same dtype), add/sub/mul/div/max (a
// tile, an [R, 1] column broadcast along the rows, or a literal), exp and
// copy, row_sum/row_max, wmma_mma of whole register tiles (mmaf: F16/BF16
// into F32), for. Anything else is an error naming the op
// (never a silent drop). Issue 18 part 4's language form and driver hook
// are not implemented; this is the lowering they will call.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "ir/TileIR.h"
#include "tileir/Bytecode.h"

#include <string>
#include <vector>

namespace kina::tileir {

struct LoweredKernel {
  std::vector<std::uint8_t> bytecode; ///< empty on error
  std::string error;
  Span errorSpan; ///< the op that could not be lowered (empty: the kernel)
  ModuleRequirements requirements;
};

LoweredKernel lowerToTileIr(const ir::Kernel &kernel, Version version);

} // namespace kina::tileir
