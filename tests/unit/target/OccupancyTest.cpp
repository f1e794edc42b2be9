//===- OccupancyTest.cpp - The occupancy calculator -----------------------===//
//
// Expected values were worked out by hand from the registry limits with the
// occupancy calculator's rules (see Occupancy.h).
//
//===----------------------------------------------------------------------===//
#include "target/Occupancy.h"

#include <gtest/gtest.h>

using namespace kina::target;

namespace {

TargetId id(std::string_view n) { return lookupTarget(n)->id; }

bool binds(const OccupancyResult &r, OccupancyLimit l) {
  return std::find(r.binding.begin(), r.binding.end(), l) != r.binding.end();
}

TEST(Occupancy, ThreadsBindForSmallKernels) {
  // sm_80, 128 threads, 22 regs, 6 KiB smem: regs -> 768/warp, 21 warps per
  // partition -> 84 warps -> 21 blocks; smem -> 7168 -> 23 blocks; threads ->
  // 64/4 = 16 blocks; block limit 32.
  auto r = computeOccupancy(id("sm_80"), {128, 22, 6144});
  EXPECT_TRUE(r.error.empty());
  EXPECT_EQ(r.warpsPerBlock, 4u);
  EXPECT_EQ(r.blocksByRegisters, 21u);
  EXPECT_EQ(r.blocksBySharedMemory, 23u);
  EXPECT_EQ(r.blocksByThreads, 16u);
  EXPECT_EQ(r.blocksByBlockLimit, 32u);
  EXPECT_EQ(r.blocksPerSM, 16u);
  EXPECT_EQ(r.warpsPerSM, 64u);
  EXPECT_DOUBLE_EQ(r.occupancy, 1.0);
  EXPECT_EQ(r.binding, std::vector<OccupancyLimit>{OccupancyLimit::Threads});
}

TEST(Occupancy, RegistersBind) {
  // 128 regs -> 4096 per warp -> 4 warps per partition -> 16 warps -> 2 blocks of 8 warps.
  auto r = computeOccupancy(id("sm_80"), {256, 128, 0});
  EXPECT_EQ(r.blocksByRegisters, 2u);
  EXPECT_EQ(r.blocksPerSM, 2u);
  EXPECT_EQ(r.warpsPerSM, 16u);
  EXPECT_TRUE(binds(r, OccupancyLimit::Registers));
  EXPECT_DOUBLE_EQ(r.occupancy, 0.25);
}

TEST(Occupancy, SharedMemoryBinds) {
  // 48 KiB + 1 KiB reserved = 50176 -> 167936 / 50176 = 3 blocks on sm_80;
  // on sm_90 (228 KiB) 233472 / 50176 = 4.
  auto a = computeOccupancy(id("sm_80"), {128, 32, 48 * 1024});
  EXPECT_EQ(a.blocksPerSM, 3u);
  EXPECT_EQ(a.binding, std::vector<OccupancyLimit>{OccupancyLimit::SharedMemory});
  auto h = computeOccupancy(id("sm_90a"), {128, 32, 48 * 1024});
  EXPECT_EQ(h.blocksPerSM, 4u);
}

TEST(Occupancy, BlockLimitBindsForTinyBlocks) {
  auto r = computeOccupancy(id("sm_86"), {32, 16, 0});
  EXPECT_EQ(r.blocksPerSM, 16u); // sm_86 allows 16 blocks per SM
  EXPECT_TRUE(binds(r, OccupancyLimit::Blocks));
  EXPECT_EQ(r.warpsPerSM, 16u);
}

TEST(Occupancy, ImpossibleConfigurations) {
  EXPECT_FALSE(computeOccupancy(id("sm_80"), {2048, 32, 0}).error.empty());
  EXPECT_FALSE(computeOccupancy(id("sm_80"), {128, 300, 0}).error.empty());
  EXPECT_FALSE(computeOccupancy(id("sm_86"), {128, 32, 150 * 1024}).error.empty());
  EXPECT_FALSE(computeOccupancy(id("sm_80"), {0, 32, 0}).error.empty());
  // 1024 threads x 255 registers needs more than the register file.
  auto r = computeOccupancy(id("sm_80"), {1024, 255, 0});
  EXPECT_FALSE(r.error.empty());
  EXPECT_EQ(r.blocksPerSM, 0u);
}

} // namespace
