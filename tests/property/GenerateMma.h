//===- GenerateMma.h - MMA operand kernels for the property test -*- C++ -*-===//
//
// The MMA operands of issue 14 part 4 (docs/language.md "MMA operands") in
// the check => build property: kernels whose `wmma_mma` takes a register A
// (loaded from global memory or computed, attention's P), a transposed
// shared B (`transpose s`), an accumulator expression, F16 accumulators,
// and chains of two products where the first product, converted to 16 bits
// in registers, is the A of the second. Each kernel is meant to check
// clean, so `kina build` must then succeed.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "Generator.h"

#include <cstdint>

namespace kina::property {

/// Appends an MMA-operand kernel to `p` for about one program in four
/// (decided by `seed`), with its features and launch dims.
void appendMmaKernel(GeneratedProgram &p, uint64_t seed);

} // namespace kina::property
