//===- Random.cpp - Deterministic seeded fills ----------------------------===//
//
// Implements the fill recipe documented in Random.h.
//
//===----------------------------------------------------------------------===//
#include "runtime/Random.h"

#include <cstring>

namespace kina::runtime {

SplitMix64 streamFor(std::uint64_t seed, std::uint64_t paramIndex) {
  SplitMix64 mix(seed ^ (paramIndex * 0xD1B54A32D192ED03ull));
  return SplitMix64(mix.next());
}

void fillRandom(HostTensor &t, std::uint64_t seed, std::uint64_t paramIndex) {
  SplitMix64 rng = streamFor(seed, paramIndex);
  std::size_t n = t.numel();
  for (std::size_t i = 0; i < n; ++i) {
    std::uint64_t r = rng.next();
    switch (t.dtype) {
    case DType::F16:
    case DType::BF16:
    case DType::F32:
    case DType::F64: {
      float x = float(double(r >> 40) * (1.0 / 8388608.0) - 1.0);
      t.set(i, x);
      break;
    }
    case DType::I8:
      t.set(i, double(std::int64_t(r >> 60) - 8));
      break;
    case DType::U8:
      t.set(i, double(r >> 56));
      break;
    case DType::I32:
    case DType::I64:
      t.set(i, double(std::int64_t(r >> 54) - 512));
      break;
    }
  }
}

} // namespace kina::runtime
