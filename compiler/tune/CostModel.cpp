//===- CostModel.cpp - Seed 002's axes, a time model, the frontier --------===//
#include "tune/CostModel.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace kina::tune {

namespace {

double param(const PointResult &p, const char *name, double fallback) {
  auto it = p.point.find(name);
  return it == p.point.end() ? fallback : static_cast<double>(it->second);
}

double dim(const std::map<std::string, int64_t> &shape, const char *name) {
  auto it = shape.find(name);
  return it == shape.end() ? 0 : static_cast<double>(it->second);
}

} // namespace

Features estimate(const PointResult &p, const std::map<std::string, int64_t> &shape, int elemBytes,
                  const Machine &machine) {
  Features f;
  double bm = param(p, "BM", 0), bn = param(p, "BN", 0);
  double M = dim(shape, "M"), N = dim(shape, "N"), K = dim(shape, "K");
  double stages = param(p, "STAGES", 2);
  f.depth = stages;
  int threads = std::max<unsigned>(p.threadsPerBlock, 32);
  int bySmem = p.sharedBytes ? static_cast<int>(machine.smemPerSM / p.sharedBytes) : 1;
  int byWarps = machine.maxWarpsPerSM / std::max(1, threads / 32);
  f.ctasPerSM = std::max(0, std::min(bySmem, byWarps));
  f.occupancy = static_cast<double>(f.ctasPerSM) * threads / 32.0 / machine.maxWarpsPerSM;
  if (bm <= 0 || bn <= 0 || M <= 0 || N <= 0 || K <= 0) {
    // Without a block tile the model orders by occupancy only.
    f.modelSeconds = f.occupancy > 0 ? 1.0 / f.occupancy : 1e9;
    return f;
  }
  f.known = true;
  double e = elemBytes;
  double tilesM = std::ceil(M / bm), tilesN = std::ceil(N / bn);
  double tiles = tilesM * tilesN;
  double cluster = std::max<int64_t>(p.clusterSize, 1);
  f.globalBytes = M * K * e * tilesN + N * K * e * tilesM / cluster + M * N * e;
  double consumers = std::max(1.0, bm / 64);
  f.sharedBytes = tiles * (K / 64) * (bm * 64 + consumers * bn * 64) * e;
  // Tile slots: a persistent grid of G blocks gives ceil(T / G) rounds of G
  // slots; a grid of one block per tile (G = 0: not constant) gives the SM
  // waves.
  double slotsPerWave = static_cast<double>(machine.sms) * std::max(1, f.ctasPerSM);
  double g = static_cast<double>(p.gridBlocks);
  double slots;
  if (g > 0 && g < tiles) {
    double rounds = std::ceil(tiles / g);
    double gridWaves = std::ceil(g / slotsPerWave);
    slots = rounds * gridWaves * slotsPerWave;
  } else {
    slots = std::ceil(tiles / slotsPerWave) * slotsPerWave;
  }
  f.waveEfficiency = slots > 0 ? tiles / slots : 0;
  double flops = 2 * M * N * K;
  double t = std::max({flops / machine.peakFlops, f.globalBytes / machine.dramBytesPerS,
                       f.sharedBytes / machine.smemBytesPerS});
  double stall = stages > 1 ? 0.5 / ((stages - 1) * (stages - 1)) : 1.0;
  f.modelSeconds = t / std::max(f.waveEfficiency, 1e-6) * (1 + stall);
  return f;
}

std::vector<double> axes(const Features &f) {
  return {f.globalBytes, f.sharedBytes, -f.occupancy, -f.waveEfficiency, -f.depth};
}

std::vector<size_t> paretoFrontier(const std::vector<std::vector<double>> &rows, double tol) {
  std::vector<size_t> keep;
  for (size_t p = 0; p < rows.size(); ++p) {
    bool dominated = false;
    for (size_t q = 0; q < rows.size() && !dominated; ++q) {
      if (q == p || rows[q].size() != rows[p].size())
        continue;
      bool noWorse = true, better = false;
      for (size_t a = 0; a < rows[p].size(); ++a) {
        double x = rows[p][a], y = rows[q][a];
        if (y > x)
          noWorse = false;
        if (y < x - tol * std::fabs(x))
          better = true;
      }
      dominated = noWorse && better;
    }
    if (!dominated)
      keep.push_back(p);
  }
  return keep;
}

namespace {
std::vector<double> ranks(const std::vector<double> &v) {
  std::vector<size_t> order(v.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
  std::vector<double> r(v.size());
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]])
      ++j;
    double avg = (i + j) / 2.0 + 1;
    for (size_t k = i; k <= j; ++k)
      r[order[k]] = avg;
    i = j + 1;
  }
  return r;
}
} // namespace

double spearman(const std::vector<double> &a, const std::vector<double> &b) {
  if (a.size() != b.size() || a.size() < 2)
    return 0;
  std::vector<double> ra = ranks(a), rb = ranks(b);
  double n = static_cast<double>(a.size());
  double ma = std::accumulate(ra.begin(), ra.end(), 0.0) / n;
  double mb = std::accumulate(rb.begin(), rb.end(), 0.0) / n;
  double sab = 0, saa = 0, sbb = 0;
  for (size_t i = 0; i < ra.size(); ++i) {
    sab += (ra[i] - ma) * (rb[i] - mb);
    saa += (ra[i] - ma) * (ra[i] - ma);
    sbb += (rb[i] - mb) * (rb[i] - mb);
  }
  if (saa == 0 || sbb == 0)
    return 0;
  return sab / std::sqrt(saa * sbb);
}

} // namespace kina::tune
