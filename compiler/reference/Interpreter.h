//===- Interpreter.h - CPU reference semantics of the tile IR ---*- C++ -*-===//
//
// Layer: ir -> reference. `kina run --check` compares the GPU's result with
// this interpreter's, so both evaluate the same program. Values are doubles,
// rounded to each buffer's element type on every store.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "ir/TileIR.h"

#include <optional>
#include <string>
#include <vector>

namespace kina::reference {

/// A row-major host tensor in double precision.
struct Buffer {
  std::vector<int64_t> shape;
  ir::DType dtype = ir::DType::F32;
  std::vector<double> data;
};

/// Rounds v as an arithmetic result of element type t is rounded: floats to
/// nearest even; integers wrap modulo 2^width as the GPU's do (I8 100 * 3 is
/// 44, U8 50 - 200 is 106).
double roundTo(ir::DType t, double v);
/// Converts v to element type t as `convert` does: floats round to nearest
/// even, integers truncate toward zero and saturate (PTX cvt.rzi.sat; NaN
/// becomes 0), from floats and from wider or differently signed integers.
double convertTo(ir::DType t, double v);

/// Runs the kernel over its whole grid. `dims` are in Kernel::dims order;
/// `params` in Kernel::params order (inputs, then the result, preallocated);
/// `scalars` in Kernel::scalars order (values of the scalar parameters).
/// Returns an error message, or nullopt on success.
std::optional<std::string> execute(const ir::Kernel &kernel, const std::vector<int64_t> &dims,
                                   std::vector<Buffer> &params, unsigned threads = 1,
                                   const std::vector<double> &scalars = {});

} // namespace kina::reference
