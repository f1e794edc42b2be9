//===- Random.cpp - Deterministic seeded fills ----------------------------===//
//
// Implements the fill recipe documented in Random.h.
//
//===----------------------------------------------------------------------===//
#include "runtime/Random.h"

#include <algorithm>
#include <cstring>
#include <thread>
#include <vector>

namespace kina::runtime {

SplitMix64 streamFor(std::uint64_t seed, std::uint64_t paramIndex) {
  SplitMix64 mix(seed ^ (paramIndex * 0xD1B54A32D192ED03ull));
  return SplitMix64(mix.next());
}

namespace {
constexpr std::uint64_t kGamma = 0x9E3779B97F4A7C15ull;

/// Elements [begin, end) of the stream whose state before element 0 is s0.
void fillRange(HostTensor &t, std::uint64_t s0, std::size_t begin, std::size_t end) {
  SplitMix64 rng(s0 + std::uint64_t(begin) * kGamma);
  for (std::size_t i = begin; i < end; ++i) {
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
} // namespace

void fillRandom(HostTensor &t, std::uint64_t seed, std::uint64_t paramIndex) {
  SplitMix64 mix(seed ^ (paramIndex * 0xD1B54A32D192ED03ull));
  fillRange(t, mix.next(), 0, t.numel());
}

void fillRandomParallel(HostTensor &t, std::uint64_t seed, std::uint64_t paramIndex,
                        unsigned threads) {
  SplitMix64 mix(seed ^ (paramIndex * 0xD1B54A32D192ED03ull));
  std::uint64_t s0 = mix.next();
  std::size_t n = t.numel();
  threads =
      static_cast<unsigned>(std::clamp<std::size_t>(n / (1u << 20), 1, std::max(1u, threads)));
  if (threads == 1) {
    fillRange(t, s0, 0, n);
    return;
  }
  std::vector<std::thread> pool;
  std::size_t chunk = (n + threads - 1) / threads;
  for (unsigned w = 0; w < threads; ++w) {
    std::size_t b = std::min(n, w * chunk), e = std::min(n, b + chunk);
    pool.emplace_back([&t, s0, b, e] { fillRange(t, s0, b, e); });
  }
  for (std::thread &th : pool)
    th.join();
}

} // namespace kina::runtime
