//===- Evaluate.h - CPU reference semantics of the algebraic IR -*- C++ -*-===//
//
// What each algebraic operation computes, in double precision, rounded to
// the element type where a value is stored: host-placed operations run
// this (it is their implementation), and `kina run --fn --interpret` runs
// the library (cuBLASLt) steps with it. A fused step rounds once, at its
// output, as the fused kernel (F32 accumulation and epilogue) does.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "algebraic/AlgebraicIR.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kina::algebraic {

/// A concrete tensor: row-major values (already rounded to `dtype`). A
/// value on a mesh (issue 19) keeps one part per device, in mesh order,
/// each a separate buffer of that device's local block (or copy, or partial
/// sum); `data` is then empty and `shape` the logical shape. Operations on
/// a mesh run on each part; the collectives combine the parts.
struct Value {
  std::vector<int64_t> shape;
  std::string dtype;
  std::vector<double> data;
  std::vector<Value> parts;
  size_t numel() const;
};

/// `whole` laid out as `t`: a copy per device (Replicated), the blocks along
/// the sharded axis (Sharded); unchanged for a single device.
Value distribute(const Value &whole, const TensorType &t);

/// The logical tensor of `v`, laid out as `t`: the blocks concatenated
/// (Sharded), the sum (Partial), the first device's copy (Replicated).
Value gather(const Value &v, const TensorType &t);

/// Rounds v to `dtype` (F32, BF16, F16 round to nearest even; F64 exact;
/// integers to nearest, saturating).
double roundToDType(const std::string &dtype, double v);

/// Evaluates `ops` of `f` in order into `values` (op index -> value; the
/// operands must be there). With `roundEach`, every result is rounded to
/// its dtype; without, only the last (a fused step). Returns an error.
std::optional<std::string> evaluateOps(const Function &f, const std::vector<int> &ops,
                                       std::map<int, Value> &values, bool roundEach);

} // namespace kina::algebraic
