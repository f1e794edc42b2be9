//===- Lowerable.h - What code generation can lower ------------*- C++ -*-===//
//
// Layer: target (below sema and codegen). The declared limits of the PTX
// backend: element types, MMA element-type combinations and the
// instructions they become, and the shape rules of the register layout,
// mma fragments, transposes, async copies and grids. The checker consults
// these to reject a program with a coded error at the user's span
// (sema/CheckLowerable.cpp); code generation's legality checks
// (codegen/Layout.cpp) and capability collection (codegen/Codegen.cpp) are
// derived from the same functions, so after a clean check they never fire.
// Rows are in Lowerable.def.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "target/Registry.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kina::target::lowerable {

// ---- register tiles: the mma.sync m16n8 accumulator layout over a warp ----
inline constexpr int64_t kRegisterRowMultiple = 16; ///< rows of a 2-D register tile
inline constexpr int64_t kRegisterColMultiple = 8;  ///< columns (or exactly 1)
inline constexpr int64_t kVectorMultiple = 16;      ///< elements of a 1-D register tile

// ---- mma: m16n8k16 fragments; the language's wmma_mma tile is 16x16x16 ----
inline constexpr int64_t kMmaM = 16, kMmaN = 8, kMmaK = 16;
inline constexpr int64_t kLanguageMmaTile = 16; ///< m, n, k multiples sema asks for

// ---- transpose: 16x16 blocks exchanged with shfl ----
inline constexpr int64_t kTransposeMultiple = 16;

// ---- cp_async: 16-byte chunks ----
inline constexpr unsigned kCopyChunkBytes = 16;

// ---- grids ----
inline constexpr unsigned kMaxBlockGridRank = 3;
inline constexpr unsigned kMaxWarpGridRank = 2;

/// nullopt when code generation handles element type `dtype` (a Kina name,
/// "F16"); otherwise why not and what to use instead.
std::optional<std::string> dtypeProblem(std::string_view dtype);

/// nullopt when a register tile of `shape` (constant extents) can be spread
/// over a warp; otherwise the reason.
std::optional<std::string> registerTileProblem(const std::vector<int64_t> &shape);

/// nullopt when an mma [m, k] x [k, n] splits into fragments.
std::optional<std::string> mmaShapeProblem(int64_t m, int64_t n, int64_t k);

/// nullopt when a register tile [rows, cols] can be transposed.
std::optional<std::string> transposeProblem(int64_t rows, int64_t cols);

/// nullopt when cp_async rows of `rowBytes` split into chunks.
std::optional<std::string> copyRowProblem(int64_t rowBytes);

/// How `wmma_mma` with these element types is lowered, or null when it is
/// not (the checker rejects it, listing mmaCombinations()).
struct MmaLowering {
  std::string_view a, b, c;
  std::string_view languageCapability; ///< what `requires capability` names
  std::vector<CapabilityId> instructions;
};
const MmaLowering *mmaLowering(std::string_view a, std::string_view b, std::string_view c);
/// "f16_f16_f32, bf16_bf16_f32" (A_B_C, as capability names spell them)
std::string mmaCombinations();

/// The registry capabilities of the instructions code generation emits for
/// a language capability (`mma_m16n16k16_f16_f16_f32` -> ldmatrix, mma.sync
/// m16n8k16; `cp_async` -> cp_async). Empty for capabilities the language
/// uses without an instruction of its own.
std::vector<CapabilityId> instructionsFor(std::string_view languageCapability);

} // namespace kina::target::lowerable
