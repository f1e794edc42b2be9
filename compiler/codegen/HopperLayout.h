//===- HopperLayout.h - Bit layouts of the sm_90a path ----------*- C++ -*-===//
//
// The encodings the Hopper lowering (mlir/HopperToMLIR.cpp) and the runtime
// (tensor maps) must agree on, as pure functions so that each is unit-tested
// against hand-computed values (tests/unit/codegen/HopperLayoutTest.cpp):
//
//  * the 128-byte swizzle of a shared tile row (what TMA writes with
//    CU_TENSOR_MAP_SWIZZLE_128B and wgmma reads with swizzle mode 1);
//  * the wgmma shared-memory matrix descriptor;
//  * the register fragment of a wgmma m64nNk16 F32 accumulator;
//  * the tensor maps a kernel needs (one per tensor and box), which become
//    128-byte by-value kernel parameters after the dims.
//
// Each bit layout cites the PTX ISA section it comes from (PTX ISA 8.x,
// docs.nvidia.com/cuda/parallel-thread-execution, anchors given).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "ir/TileIR.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kina::codegen {

/// Byte offset of element byte `colByte` (0..127) of row `row` inside a
/// 128-byte-swizzled tile whose base is 1024-byte aligned. PTX ISA
/// "Tensor Swizzling Modes" (#tensor-swizzling-modes), 128B mode: the 16-byte
/// chunk index (address bits 4-6) is XORed with the row within the 8-row,
/// 1024-byte pattern (address bits 7-9).
uint32_t swizzle128BOffset(uint32_t row, uint32_t colByte);

/// The 64-bit shared-memory matrix descriptor of a wgmma operand that is
/// K-major with the 128-byte swizzle, starting at shared address
/// `byteAddress` (a multiple of 16). PTX ISA "Matrix Descriptor Format"
/// (#asynchronous-warpgroup-level-matrix-shared-memory-layout-matrix-descriptor):
///   bits  0-13  start address >> 4 (address & 0x3FFFF)
///   bits 16-29  leading dimension byte offset >> 4: unused for swizzled
///               K-major layouts, set to 1 (16 B) as CUTLASS does
///   bits 32-45  stride dimension byte offset >> 4: 1024 B between two
///               8-row core-matrix groups (8 rows x 128 B) = 64
///   bits 49-51  base offset: 0 (the pattern starts 1024-B aligned)
///   bits 62-63  swizzle mode: 1 = 128-byte swizzle
/// One k16 step of a 16-bit type inside a 128-byte row advances the start
/// address by 32 bytes (16 elements x 2 B).
uint64_t wgmmaDescriptor128B(uint32_t byteAddress);
/// The constant part of wgmmaDescriptor128B (everything but the address).
constexpr uint64_t kWgmmaDescriptor128BFixed =
    (uint64_t(1) << 16) | (uint64_t(1024 >> 4) << 32) | (uint64_t(1) << 62);

/// Row and column, in the [64, N] accumulator, of register i (0 .. N/2-1)
/// of thread `thread` (0..127 in the warpgroup). PTX ISA "Register
/// Fragments" of wgmma .m64nNk16 matrix D (#wgmma-64n16-d): warp w = t/32
/// owns rows 16w .. 16w+15; lane l holds rows l/4 and l/4 + 8; register i
/// is column 8*(i/4) + 2*(l%4) + i%2 of row 16w + l/4 + 8*((i/2)%2).
struct FragmentCoord {
  int64_t row = 0, col = 0;
  bool operator==(const FragmentCoord &) const = default;
};
FragmentCoord wgmmaAccumulatorCoord(unsigned thread, unsigned i);

/// Byte offset, within one stage of a 16-bit swizzle_128b tile with `rows`
/// rows (panel-major 128-byte panels, codegen/Layout.h), of the row address
/// that thread `thread` (0..127 of the warpgroup) gives to
/// stmatrix.sync.aligned.m8n8.x4.b16 for the 16x16 square `square` of its
/// warp's rows (PTX ISA "Warp-level matrix store instruction: stmatrix":
/// lanes 8j .. 8j+7 give the addresses of rows 0..7 of matrix j). Matrices
/// 0..3 are (rows 0-7, cols 0-7), (rows 8-15, cols 0-7), (rows 0-7, cols
/// 8-15), (rows 8-15, cols 8-15) of the square at rows 16w .. 16w+15 (w the
/// warp), columns 16 * square ..: lane l addresses row 16w + 8 * ((l/8)%2)
/// + l%8, column 16 * square + 8 * (l/16). WarpgroupSharedToMLIR.cpp emits
/// exactly this; the unit test checks that with the accumulator fragment
/// (wgmmaAccumulatorCoord) every element lands at the tile layout's offset.
uint32_t stmatrixRowAddress(unsigned thread, unsigned square, int64_t rows);

/// A TMA tensor map a kernel takes: one per (tensor, box). The map is 2-D,
/// row-major, box = [boxRows, boxCols] of `dtype` with the 128-byte swizzle;
/// the runtime encodes it with cuTensorMapEncodeTiled (dims inner first).
struct TensorMapUse {
  ir::ParamId param = 0;
  ir::DType dtype = ir::DType::BF16;
  int64_t boxRows = 0, boxCols = 0;
  bool operator==(const TensorMapUse &) const = default;
};

/// The tensor maps of `kernel`'s tma_loads and tma_stores, in first-use
/// order (the order of the kernel parameters that carry them). A copy of a
/// tile wider than one 128-byte panel uses a box of one panel ([rows, 64]
/// for 16-bit types), issued once per panel; a load and a store of the same
/// tensor and box share one map (the map has no direction).
std::vector<TensorMapUse> planTensorMaps(const ir::Kernel &kernel);

/// Elements of `dtype` in one 128-byte swizzle panel (64 for 16-bit types).
int64_t panelElements(ir::DType dtype);

/// The index in `maps` of the map a tma_load / tma_store uses; -1 when none fits.
int tensorMapIndex(const std::vector<TensorMapUse> &maps, const ir::Kernel &kernel,
                   const ir::TmaLoadOp &op);
int tensorMapIndex(const std::vector<TensorMapUse> &maps, const ir::Kernel &kernel,
                   const ir::TmaStoreOp &op);

/// The lines of a ptxas log that report wgmma serialisation (warnings
/// C7510 .. C7515, "wgmma.mma_async instructions are serialized ..."), in
/// order; empty when there is none.
std::vector<std::string> wgmmaSerializationWarnings(std::string_view ptxasLog);

/// The lines of a ptxas log that say it ignored setmaxnreg (e.g. C7507
/// "'setmaxnreg' ignored to maintain minimum register requirements").
std::vector<std::string> setmaxnregIgnoredWarnings(std::string_view ptxasLog);

} // namespace kina::codegen
