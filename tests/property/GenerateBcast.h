//===- GenerateBcast.h - Broadcast kernels for the property test -*- C++ -*-===//
//
// Broadcasting and reductions of per-warp tiles (docs/language.md
// "Broadcasting and reductions") in the check => build property: kernels
// whose elementwise values take [1, C] rows (`col_sum`, `col_max`, global
// [C] slices), [R, 1] columns (register or global), residual slices, and
// block reductions (`block_sum`, `block_max`) over the warps of a block,
// appended to some of the generated programs. Each kernel is meant to check
// clean and then build and compute what the interpreter computes.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "Generator.h"

#include <cstdint>

namespace kina::property {

/// Appends a broadcast kernel to `p` for about one program in four (decided
/// by `seed`), with its features and launch dims.
void appendBcastKernel(GeneratedProgram &p, uint64_t seed);

} // namespace kina::property
