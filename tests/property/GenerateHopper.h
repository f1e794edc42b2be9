//===- GenerateHopper.h - Random valid Hopper kernels -----------*- C++ -*-===//
//
// The Hopper template family of the check => build property generator
// (Generator.h): TMA + mbarrier-ring GEMMs on wgmma, as docs/language.md's
// "Warpgroups, barriers, TMA and wgmma" and "Persistent kernels" sections
// write them, in random legal combinations: non-persistent and persistent
// tile loops (`for t in (block_id 0 .. T step G)`, `/` and `mod` by
// dimension expressions), block tiles BM x BN x 64 with 2-5 stages, one or
// two consumer warpgroups (or one warpgroup doing everything), BF16 and
// F16, warp-specialized roles with `registers N`, full/empty barrier
// protocols with rounds and expect_tx bytes, single- and split-box TMA
// loads, wgmma from shared or register A, groups kept in flight across the
// back edge (`wgmma_wait 1`), epilogues (direct stores, convert, warpgroup
// elementwise math with scalar / [N] / [1, N] / [64, 1] broadcasts, the
// stmatrix + fence_proxy_async + tma_store path) and cluster launches.
// Every choice keeps the kernel check-clean for sm_90a: shared memory and
// registers fit, expect_tx equals the bytes the copies land, every wait is
// in its copy's phase. The kernels need sm_90a: on sm_80 and sm_90 the
// checker rejects them with a capability code.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "GenText.h"

#include <set>
#include <string>
#include <utility>
#include <vector>

namespace kina::property {

/// Where a template writes: the program's RNG, text, features and launches.
struct GenSink {
  Rng &rng;
  Out &out;
  std::set<std::string> &features;
  /// kernel name, `kina run --dims` value (every `requires` holds, two or
  /// more tiles along each dimension).
  std::vector<std::pair<std::string, std::string>> &launches;
};

/// Appends one Hopper kernel called `name`; records its features (all
/// named `hopper-*`, plus `dtype-*`).
void generateHopperKernel(GenSink sink, const std::string &name);

/// The target every Hopper kernel needs.
inline constexpr const char *kHopperTarget = "sm_90a";

/// The `hopper-*` features the family can record: each must be generated
/// (and built) in a CI-sized run, or the harness reports it as missing.
const std::vector<std::string> &hopperFeatures();

} // namespace kina::property
