// The cost model's axes and the Pareto frontier on a fixed synthetic table.
#include "tune/CostModel.h"

#include <gtest/gtest.h>

using namespace kina;

TEST(Frontier, SyntheticTable) {
  // Columns: global bytes, shared bytes, -occupancy (all minimised).
  std::vector<std::vector<double>> rows = {
      {10, 10, -0.5},   // 0 frontier
      {12, 12, -0.5},   // 1 dominated by 0
      {8, 20, -0.5},    // 2 frontier (least global)
      {10, 10, -0.6},   // 3 frontier; dominates 0 on occupancy
      {20, 5, -0.1},    // 4 frontier (least shared)
      {10.1, 10, -0.6}, // 5 within 2% of 3: kept with tolerance, dropped without
  };
  EXPECT_EQ(tune::paretoFrontier(rows, 0.02), (std::vector<size_t>{2, 3, 4, 5}));
  EXPECT_EQ(tune::paretoFrontier(rows, 0.0), (std::vector<size_t>{2, 3, 4}));
  // Identical rows never dominate each other.
  EXPECT_EQ(tune::paretoFrontier({{1, 1}, {1, 1}}, 0.0), (std::vector<size_t>{0, 1}));
}

TEST(Frontier, Spearman) {
  EXPECT_DOUBLE_EQ(tune::spearman({1, 2, 3, 4}, {10, 20, 30, 40}), 1.0);
  EXPECT_DOUBLE_EQ(tune::spearman({1, 2, 3, 4}, {4, 3, 2, 1}), -1.0);
  EXPECT_NEAR(tune::spearman({1, 2, 3, 4, 5}, {2, 1, 4, 3, 5}), 0.8, 1e-12);
  EXPECT_EQ(tune::spearman({1}, {1}), 0.0);
}

TEST(CostModel, GemmAxes) {
  tune::PointResult p;
  p.point = {{"BM", 128}, {"BN", 256}, {"STAGES", 3}};
  p.sharedBytes = 3 * (128 + 256) * 128 + 2 * 64 * 256 * 2;
  p.threadsPerBlock = 384;
  p.gridBlocks = 132;
  std::map<std::string, int64_t> shape = {{"M", 4096}, {"N", 4096}, {"K", 4096}};
  tune::Machine h200;
  tune::Features f = tune::estimate(p, shape, 2, h200);
  ASSERT_TRUE(f.known);
  // 32 x 16 = 512 tiles over 132 persistent blocks: 4 rounds of 132 slots.
  EXPECT_NEAR(f.waveEfficiency, 512.0 / 528.0, 1e-12);
  // A is read 16 times (N / BN), B 32 times (M / BM), C written once.
  double e = 2, M = 4096, N = 4096, K = 4096;
  EXPECT_DOUBLE_EQ(f.globalBytes, M * K * e * 16 + N * K * e * 32 + M * N * e);
  EXPECT_EQ(f.ctasPerSM, 1);
  // A 2-CTA cluster halves B's reads.
  p.clusterSize = 2;
  tune::Features g = tune::estimate(p, shape, 2, h200);
  EXPECT_DOUBLE_EQ(g.globalBytes, M * K * e * 16 + N * K * e * 16 + M * N * e);
  EXPECT_LT(g.modelSeconds, f.modelSeconds + 1e-15);
  // More stages model faster at equal traffic.
  p.clusterSize = 1;
  p.point["STAGES"] = 5;
  EXPECT_LT(tune::estimate(p, shape, 2, h200).modelSeconds, f.modelSeconds);
}
