//===- Random.h - Deterministic seeded fills for kernel inputs --*- C++ -*-===//
//
// `kina run --inputs random --seed S` must produce the same inputs on every
// machine, so Kina uses its own generator, SplitMix64 (Steele, Lea, Flood
// 2014), and integer-only derivations:
//   stream state  = SplitMix64(seed XOR (paramIndex * 0xD1B54A32D192ED03)).next()
//   float dtypes  : u = next() >> 40 (24 bits); x = u * 2^-23 - 1, in [-1, 1),
//                   exact in f32, then rounded to nearest even for f16/bf16
//   i8            : (next() >> 60) - 8, in [-8, 7]
//   i32           : (next() >> 54) - 512, in [-512, 511]
// Small integer ranges keep integer reductions exact and overflow-free.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "runtime/HostTensor.h"

#include <cstdint>

namespace kina::runtime {

class SplitMix64 {
public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }

private:
  std::uint64_t state_;
};

/// The generator for parameter `paramIndex` under `seed`.
SplitMix64 streamFor(std::uint64_t seed, std::uint64_t paramIndex);

/// Fills every element of `t` as documented above.
void fillRandom(HostTensor &t, std::uint64_t seed, std::uint64_t paramIndex);

/// The same values as fillRandom, computed on `threads` threads (SplitMix64
/// is a counter generator: element i uses state s0 + (i + 1) * gamma, so
/// each thread starts at its first element). `kina tune`'s worker fills the
/// inputs of LLM-sized GEMMs (100M+ elements) with it once per shape.
void fillRandomParallel(HostTensor &t, std::uint64_t seed, std::uint64_t paramIndex,
                        unsigned threads);

} // namespace kina::runtime
