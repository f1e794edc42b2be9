//===- HopperLayoutTest.cpp - The sm_90a bit layouts, by hand -------------===//
//
// Each encoding of codegen/HopperLayout.h against values worked out by hand
// from the PTX ISA sections it cites, plus the arena plan of the Hopper
// GEMM (1024-byte aligned swizzled stages, barriers after them).
//
//===----------------------------------------------------------------------===//
#include "codegen/HopperLayout.h"
#include "HopperKernels.h"
#include "codegen/Layout.h"

#include <gtest/gtest.h>

using namespace kina;
using namespace kina::codegen;

TEST(HopperLayout, Swizzle128BXorsTheChunkWithTheRow) {
  // Row 0 is unswizzled.
  EXPECT_EQ(swizzle128BOffset(0, 0), 0u);
  EXPECT_EQ(swizzle128BOffset(0, 17), 17u);
  // Row 1: chunk 0 -> 1 (bytes 16..31 of the row at 128).
  EXPECT_EQ(swizzle128BOffset(1, 0), 128u + 16u);
  EXPECT_EQ(swizzle128BOffset(1, 16), 128u + 0u);
  // Row 5, byte 100: chunk 6 ^ 5 = 3 -> 640 + 48 + 4.
  EXPECT_EQ(swizzle128BOffset(5, 100), 5u * 128 + 3 * 16 + 4);
  // Row 7, chunk 7 -> 0.
  EXPECT_EQ(swizzle128BOffset(7, 112), 7u * 128);
  // The pattern repeats every 8 rows (1024 bytes).
  EXPECT_EQ(swizzle128BOffset(9, 0), 1024u + swizzle128BOffset(1, 0));
  // It agrees with the tile layout codegen uses for 128-byte rows.
  ir::Kernel k = ir::fixtures::wgmmaSmall();
  KernelLayout l = planLayout(k);
  const SharedTileLayout &a = *l.shared[0];
  for (uint32_t row : {0u, 3u, 7u, 8u, 63u})
    for (uint32_t col : {0u, 8u, 37u, 63u})
      EXPECT_EQ(a.byteOffset(row, col), swizzle128BOffset(row, col * 2)) << row << "," << col;
}

TEST(HopperLayout, DescriptorBits) {
  // Address 0: only LBO = 1 (bit 16), SBO = 64 (bits 32-45), swizzle 1 (bit 62).
  EXPECT_EQ(wgmmaDescriptor128B(0), 0x4000004000010000ull);
  // Address 0x400 (1024): start field 0x40.
  EXPECT_EQ(wgmmaDescriptor128B(0x400), 0x4000004000010040ull);
  // +32 bytes per k16 step: start field +2.
  EXPECT_EQ(wgmmaDescriptor128B(0x420) - wgmmaDescriptor128B(0x400), 2u);
  // The start field is 14 bits of address bits 4..17 (0x3FFFF mask).
  EXPECT_EQ(wgmmaDescriptor128B(0x40000 + 0x10) & 0x3FFF, 1u);
  EXPECT_EQ(wgmmaDescriptor128B(0x3FFF0) & 0x3FFF, 0x3FFFu);
  // Nothing in bits 14-15, 30-31 and 46-61 (reserved, and base offset 0).
  EXPECT_EQ(wgmmaDescriptor128B(0x12340) & 0x3FFFC000C000C000ull, 0u);
}

TEST(HopperLayout, AccumulatorFragment) {
  // Thread 0: rows 0 and 8, columns 0,1 then 8,9 ...
  EXPECT_EQ(wgmmaAccumulatorCoord(0, 0), (FragmentCoord{0, 0}));
  EXPECT_EQ(wgmmaAccumulatorCoord(0, 1), (FragmentCoord{0, 1}));
  EXPECT_EQ(wgmmaAccumulatorCoord(0, 2), (FragmentCoord{8, 0}));
  EXPECT_EQ(wgmmaAccumulatorCoord(0, 3), (FragmentCoord{8, 1}));
  EXPECT_EQ(wgmmaAccumulatorCoord(0, 4), (FragmentCoord{0, 8}));
  // Lane 5 of warp 0: row 1, columns 2,3.
  EXPECT_EQ(wgmmaAccumulatorCoord(5, 0), (FragmentCoord{1, 2}));
  EXPECT_EQ(wgmmaAccumulatorCoord(5, 3), (FragmentCoord{9, 3}));
  // Thread 127 = warp 3, lane 31: row 48 + 7, columns 6,7 (+8 per quad).
  EXPECT_EQ(wgmmaAccumulatorCoord(127, 0), (FragmentCoord{55, 6}));
  EXPECT_EQ(wgmmaAccumulatorCoord(127, 127), (FragmentCoord{63, 255}));
  // The threads' registers cover a [64, 256] tile exactly once.
  std::vector<int> hits(64 * 256, 0);
  for (unsigned t = 0; t < 128; ++t)
    for (unsigned i = 0; i < 128; ++i) {
      FragmentCoord c = wgmmaAccumulatorCoord(t, i);
      ASSERT_LT(c.row, 64);
      ASSERT_LT(c.col, 256);
      ++hits[c.row * 256 + c.col];
    }
  for (int h : hits)
    ASSERT_EQ(h, 1);
}

TEST(HopperLayout, GemmArenaAndTensorMaps) {
  ir::Kernel k = ir::fixtures::hopperGemm();
  KernelLayout l = planLayout(k);
  ASSERT_TRUE(l.shared[0] && l.shared[1]);
  EXPECT_TRUE(l.alignBase1024);
  EXPECT_EQ(l.shared[0]->offsetBytes, 0u);
  EXPECT_EQ(l.shared[0]->stageBytes, 128u * 128);
  EXPECT_EQ(l.shared[1]->offsetBytes, 3u * 128 * 128);
  EXPECT_EQ(l.shared[1]->stageBytes, 256u * 128);
  EXPECT_EQ(l.shared[1]->offsetBytes % 1024, 0u);
  ASSERT_EQ(l.barrierOffsets.size(), 2u);
  EXPECT_EQ(l.barrierOffsets[0], 3u * 384 * 128);
  EXPECT_EQ(l.barrierOffsets[1], 3u * 384 * 128 + 24);
  EXPECT_EQ(l.sharedBytes, 3u * 384 * 128 + 128 + 1024);
  auto maps = planTensorMaps(k);
  ASSERT_EQ(maps.size(), 2u);
  EXPECT_EQ(maps[0], (TensorMapUse{0, ir::DType::BF16, 128, 64}));
  EXPECT_EQ(maps[1], (TensorMapUse{1, ir::DType::BF16, 256, 64}));
}
