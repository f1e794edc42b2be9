//===- GenerateGrid.h - Tile walks for the property test --------*- C++ -*-===//
//
// Grids and scalars (docs/language.md "Grids, scalars and atomics") in the
// check => build property: persistent tile loops over a small block grid
// that walk the output tiles row-major (`t / (N/TN)`, `t mod (N/TN)`) or in
// grouped rasterization (`t / (G * (N/TN))`, `r mod G`, `floor_div r G`),
// appended to some of the generated programs. Each kernel is meant to check
// clean (bounds from the band's `requires`, coverage from the walk being a
// bijection); its launch dims are multiples of the band, one or more bands.
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
