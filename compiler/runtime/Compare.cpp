//===- Compare.cpp - Tolerance comparison of results ----------------------===//
//
// Implements compareTensors and its human-readable summary (Compare.h).
//
//===----------------------------------------------------------------------===//
#include "runtime/Compare.h"

#include <cmath>
#include <cstdio>

namespace kina::runtime {

Tolerance defaultTolerance(DType dtype, std::int64_t reductionLength) {
  double scale = std::sqrt(double(reductionLength > 1 ? reductionLength : 1));
  switch (dtype) {
  case DType::F32:
    return {1e-4, 1e-5 * scale};
  case DType::F64:
    return {1e-10, 1e-12 * scale};
  case DType::F16:
    return {1e-2, 1e-3 * scale};
  case DType::BF16:
    return {2e-2, 1e-2 * scale};
  case DType::I8:
  case DType::U8:
  case DType::I32:
  case DType::I64:
    return {0, 0};
  }
  return {0, 0};
}

Result<CompareReport> compareTensors(const HostTensor &got, const HostTensor &want, Tolerance tol) {
  if (got.shape != want.shape)
    return makeError(ErrorKind::InvalidArgument, "cannot compare " + got.typeString() + " with " +
                                                     want.typeString() + ": shapes differ");
  CompareReport r;
  r.tolerance = tol;
  r.count = got.numel();
  for (std::size_t i = 0; i < r.count; ++i) {
    double g = got.get(i), w = want.get(i);
    bool pass;
    double absErr;
    if (std::isnan(g) || std::isnan(w)) {
      pass = std::isnan(g) && std::isnan(w);
      absErr = pass ? 0 : INFINITY;
    } else if (std::isinf(g) || std::isinf(w)) {
      pass = g == w;
      absErr = pass ? 0 : INFINITY;
    } else {
      absErr = std::fabs(g - w);
      pass = absErr <= tol.atol + tol.rtol * std::fabs(w);
    }
    if (absErr > r.maxAbsError) {
      r.maxAbsError = absErr;
      r.maxAbsIndex = i;
    }
    if (w != 0 && std::isfinite(absErr)) {
      double rel = absErr / std::fabs(w);
      if (rel > r.maxRelError) {
        r.maxRelError = rel;
        r.maxRelIndex = i;
      }
    }
    if (!pass) {
      if (r.mismatches == 0) {
        r.firstMismatch = i;
        r.gotAtFirst = g;
        r.wantAtFirst = w;
      }
      ++r.mismatches;
    }
  }
  r.ok = r.mismatches == 0;
  return r;
}

std::string describeComparison(const CompareReport &r, const HostTensor &t) {
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "max abs error %.3g at %s, max rel error %.3g at %s; %zu of %zu elements "
                "outside tolerance (rtol %.1g, atol %.3g)",
                r.maxAbsError, t.indexString(r.maxAbsIndex).c_str(), r.maxRelError,
                t.indexString(r.maxRelIndex).c_str(), r.mismatches, r.count, r.tolerance.rtol,
                r.tolerance.atol);
  std::string out = buf;
  if (r.mismatches > 0) {
    std::snprintf(buf, sizeof buf, "; first at %s: got %.8g, expected %.8g",
                  t.indexString(r.firstMismatch).c_str(), r.gotAtFirst, r.wantAtFirst);
    out += buf;
  }
  return out;
}

} // namespace kina::runtime
