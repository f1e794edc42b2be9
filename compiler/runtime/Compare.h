//===- Compare.h - Checking kernel results against a reference --*- C++ -*-===//
//
// `kina run --check` compares each output the GPU produced with the CPU
// reference. An element passes when |got - want| <= atol + rtol * |want|
// (numpy.allclose); NaN matches only NaN, infinities only the same infinity.
// The report gives the max abs and rel errors with the index where each
// occurred, the first failing element, and the number of failures.
//
// Default tolerances by output dtype (atol is multiplied by
// sqrt(reductionLength), the length of the longest sum feeding one element,
// e.g. K for a GEMM, because rounding error of a sum grows with it):
//   f32  rtol 1e-4  atol 1e-5      f16  rtol 1e-2  atol 1e-3
//   bf16 rtol 2e-2  atol 1e-2      i8/i32 exact
//
//===----------------------------------------------------------------------===//
#pragma once

#include "runtime/HostTensor.h"
#include "runtime/RuntimeError.h"

#include <cstdint>
#include <string>

namespace kina::runtime {

struct Tolerance {
  double rtol = 0;
  double atol = 0;
};

/// The documented default for `dtype` and a reduction of `reductionLength`.
Tolerance defaultTolerance(DType dtype, std::int64_t reductionLength = 1);

struct CompareReport {
  bool ok = true;
  std::size_t count = 0;      ///< elements compared
  std::size_t mismatches = 0; ///< elements outside tolerance
  double maxAbsError = 0;
  std::size_t maxAbsIndex = 0;
  double maxRelError = 0; ///< |got - want| / |want| over elements with want != 0
  std::size_t maxRelIndex = 0;
  std::size_t firstMismatch = 0; ///< valid when mismatches > 0
  double gotAtFirst = 0, wantAtFirst = 0;
  Tolerance tolerance;
};

/// Compares `got` with `want`. Dtypes may differ (values compare as double);
/// a shape difference is an InvalidArgument error, not a mismatch.
Result<CompareReport> compareTensors(const HostTensor &got, const HostTensor &want,
                                     Tolerance tolerance);

/// "max abs error 3.1e-03 at [12, 40], max rel error 2.0e-03 at [3, 7];
/// 0 of 16384 elements outside tolerance (rtol 1e-04, atol 1e-05)", plus
/// the first failing element's values when there are mismatches. `shapeOf`
/// supplies the shape for multi-indices.
std::string describeComparison(const CompareReport &report, const HostTensor &shapeOf);

} // namespace kina::runtime
