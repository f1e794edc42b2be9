//===- Layout.h - Physical layouts chosen by code generation ----*- C++ -*-===//
//
// The tile IR leaves physical layout to code generation; this file decides
// it, without any MLIR, so the decisions are unit-testable:
//
//  * Shared tiles: one static shared-memory arena; each tile gets a 128-byte
//    aligned offset. Tiles whose rows are whole 16-byte chunks (a power of
//    two of them) are stored with an XOR swizzle of the 16-byte chunks, so
//    that ldmatrix (8 rows x 16 bytes) and cp.async hit 8 distinct chunks of
//    a 128-byte line, i.e. no bank conflicts. Leading stage dimensions are
//    laid out one stage after another.
//    A swizzle_128b tile (rows of 128 bytes) gets a 1024-byte aligned offset:
//    the chunk swizzle of 8 chunks per row (chunk ^= row % 8) is then exactly
//    TMA's and wgmma's 128-byte swizzle (HopperLayout.h). mbarriers (8 bytes
//    per stage) follow the tiles.
//  * Register tiles: the mma.sync m16n8 accumulator layout. An [R, C] tile
//    (R % 16 == 0, C % 8 == 0) holds R*C/32 values per lane: for fragment
//    (fm, fn) and slot s in 0..3, lane L holds row fm*16 + (s/2)*8 + L/4,
//    column fn*8 + 2*(L%4) + s%2. An [R, 1] tile (row vector) holds R/8
//    values: slot fm*2 + h is row fm*16 + h*8 + L/4 (replicated over L%4).
//    A [1, C] tile (column vector of a row) holds C/4 values: slot fn*2 + i
//    is column fn*8 + 2*(L%4) + i (replicated over L/4).
//
// checkLowerable() reports shapes the lowering cannot handle (K1206) and
// shared memory above the target limit (K1207).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "diag/Diagnostic.h"
#include "ir/TileIR.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace kina::codegen {

struct SharedTileLayout {
  uint64_t offsetBytes = 0; ///< start of stage 0 in the arena
  uint64_t stageBytes = 0;  ///< bytes of one [rows, cols] stage
  int64_t stages = 1;       ///< product of the leading dims
  int64_t rows = 0, cols = 0;
  unsigned elemBytes = 2;
  bool swizzled = false;
  unsigned chunksPerRow = 0; ///< 16-byte chunks per row (when swizzled)
  /// A swizzle_128b tile with rows wider than 128 bytes: stored as column
  /// panels of 128 bytes, panel-major (panel p = an [rows, 128 B] block at
  /// p * panelBytes, itself 128B-swizzled; see ir::SharedLayout).
  bool panelled = false;
  uint64_t panelBytes = 0; ///< rows * 128 when panelled

  /// Byte offset of element (row, col) within one stage.
  uint64_t byteOffset(int64_t row, int64_t col) const;
};

struct KernelLayout {
  /// Indexed by TileId; empty for register tiles.
  std::vector<std::optional<SharedTileLayout>> shared;
  /// Indexed by BarrierId: arena offset of stage 0 (8 bytes per stage).
  std::vector<uint64_t> barrierOffsets;
  /// The kernel has swizzle_128b tiles: their offsets are 1024-byte aligned
  /// relative to an arena base that the kernel rounds up to 1024 bytes at
  /// run time (a dynamic shared-memory base is only 16-byte aligned), and
  /// sharedBytes includes the 1024 bytes of slack that rounding may skip.
  bool alignBase1024 = false;
  uint64_t sharedBytes = 0; ///< arena size, multiple of 128
};

/// Computes the shared-memory arena. Never fails (limits are checked by
/// checkLowerable).
KernelLayout planLayout(const ir::Kernel &kernel);

/// Register slots per lane of a register tile of `shape` in the layout above.
int64_t registerSlots(const std::vector<int64_t> &shape);

/// Reports K1206/K1207 for what the lowering cannot handle; maxSharedBytes
/// is the target's per-block limit (with opt-in). Returns true when fine.
bool checkLowerable(const ir::Kernel &kernel, const KernelLayout &layout, uint64_t maxSharedBytes,
                    DiagnosticSink &sink);

/// The largest power-of-two multiple known for `e`, using constants and the
/// kernel's `requires (D mod m = 0)` facts (1 when nothing is known).
int64_t knownMultiple(const ir::Kernel &kernel, const ir::IndexExpr &e);

} // namespace kina::codegen
