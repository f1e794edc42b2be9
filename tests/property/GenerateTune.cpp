//===- GenerateTune.cpp - Tunable kernels for the property test -----------===//
#include "GenerateTune.h"

#include <string>
#include <vector>

namespace kina::property {

void appendTunedKernel(GeneratedProgram &p, uint64_t seed) {
  // splitmix64: the generator's own deterministic stream.
  auto next = [&] {
    uint64_t z = (seed += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  };
  if (next() % 5 != 0 || !p.requiredTarget.empty())
    return;
  const std::vector<int> warps = {1, 2, 4}, cols = {32, 64, 128};
  int w = warps[next() % warps.size()], c = cols[next() % cols.size()];
  const std::vector<std::string> ops = {"relu xr", "add xr xr", "mul xr 0.5"};
  std::string op = ops[next() % ops.size()];
  std::string name = "tuned_p";
  std::string t;
  t += "\nkernel " + name + "\n    [M, N]\n";
  t += "    tune WARPS in {1, 2, 4} = " + std::to_string(w) + "\n";
  t += "    tune COLS in {32, 64, 128} = " + std::to_string(c) + "\n";
  t += "    requires (M mod (16 * WARPS) = 0)\n    requires (N mod COLS = 0)\n";
  t += "    requires capability(sm_80)\n";
  t += "    (x : Tensor[F32, [M, N], on=cuda:global])\n";
  t += "    : (out : Tensor[F32, [M, N], on=cuda:global]) {\n";
  t += "  block_grid [M / (16 * WARPS), N / COLS] {\n";
  t += "    let bm = block_id 0 in\n    let bn = block_id 1 in\n";
  t += "    warp_grid [WARPS] {\n";
  t += "      let row = bm * (16 * WARPS) + warp_id 0 * 16 in\n";
  t += "      register xr : Tile[F32, [16, COLS], on=cuda:register]\n";
  t += "      xr <- x[row ..+ 16, bn * COLS ..+ COLS]\n";
  t += "      out[row ..+ 16, bn * COLS ..+ COLS] <- " + op + "\n";
  t += "    }\n  }\n}\n";
  p.text += t;
  p.features.insert("tune-params");
  p.launches.push_back({name, "M=" + std::to_string(16 * w * 2) + ",N=" + std::to_string(c * 2)});
}

} // namespace kina::property
