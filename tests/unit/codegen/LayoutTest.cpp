//===- LayoutTest.cpp - Shared swizzle, register layout, legality ---------===//
#include "Fixtures.h"
#include "codegen/Layout.h"
#include "ir/Builder.h"

#include <gtest/gtest.h>
#include <set>

using namespace kina;
using namespace kina::codegen;

namespace {

SharedTileLayout layoutOf(ir::DType t, int64_t rows, int64_t cols) {
  ir::KernelBuilder b("k");
  b.addSharedTile("s", t, {rows, cols});
  auto k = b.finish();
  EXPECT_TRUE(static_cast<bool>(k));
  return *planLayout(*k).shared[0];
}

/// Bank (4-byte word mod 32) groups touched by one ldmatrix phase: 8 rows x
/// 16 bytes at column `col` starting at `row0`.
bool ldmatrixConflictFree(const SharedTileLayout &l, int64_t row0, int64_t col) {
  std::set<uint64_t> chunks; // 16-byte chunk position within a 128-byte line
  for (int64_t r = row0; r < row0 + 8; ++r)
    chunks.insert((l.byteOffset(r, col) % 128) / 16);
  return chunks.size() == 8;
}

} // namespace

TEST(SharedLayout, SwizzleIsABijectionPerStage) {
  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{128, 16}, {128, 32}, {32, 128}, {16, 128},
                            {64, 64}, {32, 256}}) {
    SharedTileLayout l = layoutOf(ir::DType::F16, rows, cols);
    EXPECT_TRUE(l.swizzled);
    std::set<uint64_t> seen;
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c) {
        uint64_t off = l.byteOffset(r, c);
        EXPECT_LT(off, static_cast<uint64_t>(rows * cols * 2));
        EXPECT_EQ(off % 2, 0u);
        seen.insert(off);
      }
    EXPECT_EQ(seen.size(), static_cast<size_t>(rows * cols)) << rows << "x" << cols;
  }
}

TEST(SharedLayout, LdmatrixPhasesAreConflictFree) {
  // A tiles [BM, BK] read as 16x16 (8 rows per phase) and B tiles [BK, BN]
  // read transposed, for the block shapes the GEMMs use.
  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{128, 16}, {128, 32}, {128, 64},
                            {16, 128}, {32, 128}, {32, 256}}) {
    SharedTileLayout l = layoutOf(ir::DType::F16, rows, cols);
    for (int64_t r0 = 0; r0 + 8 <= rows; r0 += 8)
      for (int64_t c = 0; c < cols; c += 8)
        EXPECT_TRUE(ldmatrixConflictFree(l, r0, c)) << rows << "x" << cols << " at " << r0 << ","
                                                    << c;
  }
}

TEST(SharedLayout, ChunksStayContiguousAndStagesAreAligned) {
  ir::KernelBuilder b("k");
  b.addSharedTile("a", ir::DType::F16, {3, 128, 32});
  b.addSharedTile("odd", ir::DType::F32, {3, 5});
  b.addRegisterTile("r", ir::DType::F32, {16, 8});
  auto k = b.finish();
  ASSERT_TRUE(static_cast<bool>(k));
  KernelLayout layout = planLayout(*k);
  const auto &a = *layout.shared[0];
  EXPECT_EQ(a.stages, 3);
  EXPECT_EQ(a.stageBytes, 128u * 32 * 2);
  // 8 consecutive f16 of a chunk stay together (16-byte cp.async target).
  for (int64_t c = 0; c < 32; c += 8)
    for (int64_t i = 0; i < 8; ++i)
      EXPECT_EQ(a.byteOffset(5, c + i), a.byteOffset(5, c) + 2 * i);
  const auto &odd = *layout.shared[1];
  EXPECT_FALSE(odd.swizzled);
  EXPECT_EQ(odd.offsetBytes % 128, 0u);
  EXPECT_FALSE(layout.shared[2].has_value());
  EXPECT_EQ(layout.sharedBytes % 128, 0u);
}

TEST(SharedLayout, PipelinedGemmArenaSize) {
  KernelLayout l = planLayout(ir::fixtures::pipelinedGemm());
  EXPECT_EQ(l.sharedBytes, 3u * (128 * 32 * 2 + 32 * 128 * 2)); // 48 KiB
}

TEST(RegisterLayout, SlotCounts) {
  EXPECT_EQ(registerSlots({64, 64}), 128);
  EXPECT_EQ(registerSlots({16, 8}), 4);
  EXPECT_EQ(registerSlots({16, 1}), 2);
  EXPECT_EQ(registerSlots({64, 1}), 8);
  // A row [1, C]: the columns of one fragment row (C/4 per lane).
  EXPECT_EQ(registerSlots({1, 64}), 16);
  EXPECT_EQ(registerSlots({1, 8}), 2);
}

TEST(KnownMultiple, UsesRequiresFacts) {
  ir::Kernel k = ir::fixtures::seedGemm();
  using E = ir::IndexExpr;
  EXPECT_EQ(knownMultiple(k, E::dim(1)), 128);                    // N mod 128 = 0
  EXPECT_EQ(knownMultiple(k, E::dim(2)), 16);                     // K mod 16 = 0
  EXPECT_EQ(knownMultiple(k, E::blockId(0) * 64 + E::constant(6)), 2);
  EXPECT_EQ(knownMultiple(k, E::warpId(0) * 64 * E::dim(1)), 64 * 128);
  EXPECT_EQ(knownMultiple(k, E::warpId(0) + E::constant(1)), 1);
}

TEST(Legality, UnsupportedShapesAndSharedLimit) {
  ir::KernelBuilder b("k");
  b.addRegisterTile("r", ir::DType::F32, {24, 8});
  b.addSharedTile("big", ir::DType::F32, {512, 512});
  auto k = b.finish();
  ASSERT_TRUE(static_cast<bool>(k));
  DiagnosticSink sink;
  EXPECT_FALSE(checkLowerable(*k, planLayout(*k), 232448, sink));
  ASSERT_EQ(sink.diagnostics().size(), 2u);
  EXPECT_EQ(sink.diagnostics()[0].info().code, "K1206");
  EXPECT_NE(sink.diagnostics()[0].message.find("'r': a register tile [24, 8] cannot be spread over a warp"),
            std::string::npos);
  EXPECT_EQ(sink.diagnostics()[1].info().code, "K1207");
  EXPECT_NE(sink.diagnostics()[1].message.find("needs 1048576 bytes"), std::string::npos);
}
