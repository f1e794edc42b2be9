//===- GenerateGrid.h - Tile walks for the property test --------*- C++ -*-===//
//
// Grids and scalars (docs/language.md "Grids, scalars and atomics") in the
// check => build property: persistent tile loops over a small block grid
// that walk the output tiles row-major (`t / (N/TN)`, `t mod (N/TN)`) or in
// grouped rasterization (`t / (G * (N/TN))`, `r mod G`, `floor_div r G`),
// appended to some of the generated programs, or (about a third of them) an
// atomic fold of every row block into a [16, N] result (atomic_add, _max,
// _min on F32 or I32, masked over a ragged M or not). Each kernel is meant to
// check clean (bounds from the band's `requires`, coverage from the walk
// being a bijection, atomics counted as stores and never as duplicates); its
// launch dims are multiples of the band, or ragged for the masked folds.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "Generator.h"

#include <cstdint>

namespace kina::property {

/// Appends a tile-walk kernel to `p` for about one program in five (decided
/// by `seed`), with its features and launch dims.
void appendGridKernel(GeneratedProgram &p, uint64_t seed);

} // namespace kina::property
