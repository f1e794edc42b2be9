//===- PtxasLogTest.cpp - Parsing ptxas -v output -------------------------===//
//
// The inputs are verbatim ptxas 13.0 logs (entry with cmem, sm_90a without
// cmem, a spilling kernel, and a device function).
//
//===----------------------------------------------------------------------===//
#include "target/PtxasLog.h"

#include <gtest/gtest.h>

using namespace kina::target;

namespace {

TEST(PtxasLog, EntryFunctionWithConstantBank) {
  auto log = parsePtxasVerbose(R"(ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'tile_mma' for 'sm_80'
ptxas info    : Function properties for tile_mma
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 22 registers, used 1 barriers, 6144 bytes smem, 380 bytes cmem[0]
ptxas info    : Compile time = 10.066 ms
)");
  ASSERT_EQ(log.functions.size(), 1u);
  const PtxasFunctionStats &f = log.functions[0];
  EXPECT_EQ(f.name, "tile_mma");
  EXPECT_EQ(f.target, "sm_80");
  EXPECT_TRUE(f.isEntry);
  EXPECT_EQ(f.registers, 22u);
  EXPECT_EQ(f.barriers, 1u);
  EXPECT_EQ(f.sharedBytes, 6144u);
  ASSERT_EQ(f.constBanks.size(), 1u);
  EXPECT_EQ(f.constBanks[0], (std::pair<unsigned, std::uint64_t>{0, 380}));
}

TEST(PtxasLog, SpillsAndStack) {
  auto log = parsePtxasVerbose(
      R"(ptxas info    : Overriding maximum register limit 256 for 'spilly' with  24 of maxrregcount option
ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'spilly' for 'sm_80'
ptxas info    : Function properties for spilly
    352 bytes stack frame, 372 bytes spill stores, 516 bytes spill loads
ptxas info    : Used 24 registers, used 0 barriers, 352 bytes cumulative stack size, 360 bytes cmem[0]
)");
  const PtxasFunctionStats *f = log.find("spilly");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->stackFrame, 352u);
  EXPECT_EQ(f->spillStores, 372u);
  EXPECT_EQ(f->spillLoads, 516u);
  EXPECT_EQ(f->registers, 24u);
  EXPECT_EQ(f->cumulativeStack, 352u);
  EXPECT_EQ(log.functions.size(), 1u);
}

TEST(PtxasLog, DeviceFunctionsAndSeveralKernels) {
  auto log = parsePtxasVerbose(R"(ptxas info    : 8 bytes gmem
ptxas info    : Function properties for helper
    16 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Compiling entry function 'a' for 'sm_90a'
ptxas info    : Function properties for a
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 30 registers, used 1 barriers, 8200 bytes smem
ptxas info    : Compiling entry function 'b' for 'sm_90a'
ptxas info    : Function properties for b
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 8 registers
)");
  EXPECT_EQ(log.globalBytes, 8u);
  ASSERT_EQ(log.functions.size(), 3u);
  EXPECT_FALSE(log.find("helper")->isEntry);
  EXPECT_EQ(log.find("helper")->stackFrame, 16u);
  EXPECT_EQ(log.find("a")->registers, 30u);
  EXPECT_EQ(log.find("a")->sharedBytes, 8200u);
  EXPECT_TRUE(log.find("a")->constBanks.empty());
  EXPECT_EQ(log.find("b")->registers, 8u);
  EXPECT_EQ(log.find("b")->sharedBytes, 0u);
}

TEST(PtxasLog, GarbageIsIgnored) {
  auto log = parsePtxasVerbose("Used 99 registers\n\n\x01\x02 junk 'x'\nptxas info : Used");
  EXPECT_TRUE(log.functions.empty());
}

} // namespace
