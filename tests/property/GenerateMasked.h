//===- GenerateMasked.h - Masked kernels for the property test --*- C++ -*-===//
//
// The masks-and-ragged-edges constructs (docs/language.md "Masks and ragged
// edges") in the check => build property: kernels over ragged grids
// (`ceil_div`) with masked loads and stores, index tiles, and `select` on
// tile comparisons, appended to some of the generated programs. Like the
// rest of the generator, each kernel is meant to check clean; its launch
// dims are ragged (M = 1000, 7, ...), which only masked accesses allow.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "Generator.h"

#include <cstdint>

namespace kina::property {

/// Appends a masked kernel to `p` for about one program in four (decided by
/// `seed`), with its features and launch dims.
void appendMaskedKernel(GeneratedProgram &p, uint64_t seed);

} // namespace kina::property
