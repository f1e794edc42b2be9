//===- IndexWidth.h - Launch requirements for 32-bit index values -*- C++ -*-===//
//
// The PTX computes index values (loop counters and bounds, quotients,
// remainders, the operands of `if` comparisons) in 32-bit registers, as it
// computes element offsets. Wrapping is harmless for sums and products
// whose final value fits (arithmetic mod 2^32 is a ring), but not for a
// comparison, a division or a loop counter: `for k in (0 .. M * N)` at
// M = N = 46341 would run no trip on the GPU. For every such value that is
// a formula over the dims alone and that some dims in [1, 2^31 - 1] could
// push out of [-2^31, 2^31 - 1], this returns a launch requirement stating
// that it fits; the launch guard (GPU and interpreter) checks it.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "ir/TileIR.h"

#include <string>
#include <utility>
#include <vector>

namespace kina::codegen {

/// (text, condition) pairs: `requires (E <= 2147483647)` (or `>= -2147483648`)
/// with the reason appended to the text, in the order the kernel's ops
/// compute them, without duplicates.
std::vector<std::pair<std::string, ir::IndexExpr>> indexWidthRequirements(const ir::Kernel &kernel);

} // namespace kina::codegen
