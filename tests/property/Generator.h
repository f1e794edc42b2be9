//===- Generator.h - Random valid Kina programs -----------------*- C++ -*-===//
//
// Generates the kind of program a kernel author writes from
// docs/language.md: elementwise, reduction, transpose and copy chains over
// random legal shapes (register tiles, shared tiles filled by cp_async and
// made readable by commit + wait + block_sync, multi-stage pipelines,
// row reductions, transpose, convert, [R, 1] columns and scalars as second
// operands, wmma_mma with legal shapes and dtypes, for loops, ifs on block
// ids, lets, several kernels per file, tile and host functions, requires
// clauses that make every division exact, 1-D/2-D/3-D grids, several warp
// layouts), plus every other construct of grammar/grammar.js, and Hopper
// GEMMs (GenerateHopper.h: TMA, mbarrier rings, wgmma, warp-specialized
// roles, persistent tile loops, TMA-store epilogues, clusters). Programs are
// built to check clean; each records the constructs it uses (features) so
// the harness can report coverage and which constructs a failure needs.
//
// Deterministic: the same (seed, index) gives the same program on every
// machine (own integer RNG, no std distributions).
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace kina::property {

struct GeneratorOptions {
  /// Most kernels one file holds.
  unsigned maxKernels = 3;
  /// Most random compute statements in one warp body (the generator's size).
  unsigned maxStatements = 6;
  /// Deepest expression tree.
  unsigned maxDepth = 3;
  /// Empty: every template family; "hopper": only Hopper kernels.
  std::string family;
};

struct GeneratedProgram {
  std::string text;
  std::set<std::string> features; ///< constructs used, e.g. "wmma_mma", "grid-3d"
  /// Each kernel with dims that satisfy its `requires` facts (two blocks
  /// along each divided dimension), as `kina run --dims` takes them:
  /// {"ew0", "M=128,N=256"}.
  std::vector<std::pair<std::string, std::string>> launches;
  /// Empty: any target; else the one target family the program needs
  /// ("sm_90a" for a Hopper kernel): on targets without its capabilities
  /// the checker must reject it with a capability code (K05xx).
  std::string requiredTarget;
};

/// Program number `index` of the run seeded with `seed`.
GeneratedProgram generateProgram(uint64_t seed, uint64_t index, const GeneratorOptions &options);

/// Every feature name the generator can record, for the coverage table.
const std::set<std::string> &allFeatures();

} // namespace kina::property
