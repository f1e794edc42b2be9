//===- CostModel.h - Seed 002's axes, a time model, the frontier -*- C++ -*-===//
//
// For each legal point of a tile GEMM (parameters BM and BN name the block
// tile; STAGES, when present, the pipeline depth; the cluster and grid come
// from the instance's block_grid) the model computes seed 002's physical axes
// and a modelled time (docs/architecture.md "kina tune: cost model"):
//   global traffic  bytes moved from L2/DRAM into shared memory plus the
//                   output: A is read once per column of tiles, B once per row
//                   of tiles (once per cluster when the cluster's CTAs share
//                   it by multicast), C written once
//   shared traffic  bytes the tensor cores read from shared memory: each of
//                   the BM/64 consumer warpgroups reads its 64 rows of A and
//                   all of B per K step
//   occupancy       resident warps per SM / 64 (CTAs per SM from shared
//                   memory and threads)
//   wave efficiency tiles / (tile slots the grid provides): quantization of
//                   the tiles over the persistent grid and the grid over SMs
//   depth           STAGES (latency hiding)
// The modelled time is max(flops / peak, global / DRAM bandwidth, shared /
// shared bandwidth) / wave efficiency * (1 + 0.5 / (STAGES - 1)^2).
// The frontier keeps the points no other point dominates by more than a
// relative tolerance on every axis; the GPU then crowns the winner.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tune/Lattice.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace kina::tune {

/// The machine the model assumes (H200 by default; `kina tune` fills the
/// SM count and L2 from the device when there is one).
struct Machine {
  int sms = 132;
  double peakFlops = 790e12;     ///< dense BF16 wgmma, measured (AUTOTUNE-FUSION.md)
  double dramBytesPerS = 4.3e12; ///< HBM3e
  double smemBytesPerS = 33e12;  ///< 132 SMs x 128 B/clk x ~1.98 GHz
  uint64_t smemPerSM = 233472;   ///< 228 KiB
  int maxWarpsPerSM = 64;
};

struct Features {
  double globalBytes = 0;
  double sharedBytes = 0;
  double occupancy = 0;
  double waveEfficiency = 0;
  double depth = 0;
  double modelSeconds = 0;
  int ctasPerSM = 0;
  bool known = false; ///< false: the point lacks BM/BN, only its facts rank it
};

/// The model for one legal point at shape (M, N, K) with `elemBytes` inputs.
Features estimate(const PointResult &p, const std::map<std::string, int64_t> &shape, int elemBytes,
                  const Machine &machine);

/// Axis vector of a point, every axis to be minimised (maximised axes
/// negated): global, shared, -occupancy, -waveEfficiency, -depth.
std::vector<double> axes(const Features &f);

/// Indices of the non-dominated rows of `rows` (each row: axes to minimise).
/// Row q dominates row p when q <= p on every axis and q < p / (1 + tol) (a
/// margin relative to |p|) on at least one; points within the tolerance of
/// each other both stay. The result is in input order.
std::vector<size_t> paretoFrontier(const std::vector<std::vector<double>> &rows, double tol);

/// Spearman's rank correlation (average ranks for ties); 0 for fewer than
/// two values or a constant series.
double spearman(const std::vector<double> &a, const std::vector<double> &b);

} // namespace kina::tune
