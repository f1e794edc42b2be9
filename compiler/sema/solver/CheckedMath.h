//===- CheckedMath.h - Overflow-checked integer helpers ---------*- C++ -*-===//
//
// Small integer helpers shared by the refinement solver: overflow-checked
// add/multiply, floor/ceil division and modulo with mathematical (floor)
// semantics, gcd/lcm. Internal to kina_solver; not part of its API.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <limits>
#include <numeric>

namespace kina::sema::solver::detail {

/// a + b; false on overflow.
inline bool checkedAdd(int64_t A, int64_t B, int64_t &Out) {
  return !__builtin_add_overflow(A, B, &Out);
}
/// a - b; false on overflow.
inline bool checkedSub(int64_t A, int64_t B, int64_t &Out) {
  return !__builtin_sub_overflow(A, B, &Out);
}
/// a * b; false on overflow.
inline bool checkedMul(int64_t A, int64_t B, int64_t &Out) {
  return !__builtin_mul_overflow(A, B, &Out);
}

/// floor(a / b) for b > 0.
inline int64_t floorDiv(int64_t A, int64_t B) {
  int64_t Q = A / B;
  if ((A % B != 0) && (A < 0))
    --Q;
  return Q;
}
/// ceil(a / b) for b > 0.
inline int64_t ceilDiv(int64_t A, int64_t B) {
  int64_t Q = A / B;
  if ((A % B != 0) && (A > 0))
    ++Q;
  return Q;
}
/// a mod b in [0, b) for b > 0.
inline int64_t floorMod(int64_t A, int64_t B) {
  int64_t R = A % B;
  return R < 0 ? R + B : R;
}

/// gcd of magnitudes; gcd(0, x) = |x|. Safe for INT64_MIN.
inline uint64_t gcdU(uint64_t A, uint64_t B) {
  while (B != 0) {
    uint64_t T = A % B;
    A = B;
    B = T;
  }
  return A;
}
inline uint64_t magnitude(int64_t V) {
  return V < 0 ? uint64_t(0) - uint64_t(V) : uint64_t(V);
}
inline int64_t gcd64(int64_t A, int64_t B) {
  uint64_t G = gcdU(magnitude(A), magnitude(B));
  return G > uint64_t(std::numeric_limits<int64_t>::max()) ? 1 : int64_t(G);
}

/// lcm of positive values, or 0 when it does not fit in int64.
inline int64_t lcm64(int64_t A, int64_t B) {
  int64_t G = gcd64(A, B);
  int64_t Out;
  if (G == 0 || !checkedMul(A / G, B, Out))
    return 0;
  return Out;
}

} // namespace kina::sema::solver::detail
