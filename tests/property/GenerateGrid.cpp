//===- GenerateGrid.cpp - Tile walks for the property test ----------------===//
#include "GenerateGrid.h"
#include "GenText.h"

#include <string>
#include <vector>

namespace kina::property {

namespace {

/// The generators' splitmix64 (GenText.h).
using GridRng = Rng;

struct GridGen {
  GridRng r;
  GeneratedProgram &p;
  std::string text;

  void line(int indent, const std::string &s) { text += std::string(indent * 2, ' ') + s + "\n"; }
  void feature(const std::string &f) { p.features.insert(f); }
  static std::string n(int64_t v) { return std::to_string(v); }

  void kernel(unsigned id) {
    std::string name = "walk" + n(id);
    int w = r.pick(std::vector<int>{1, 2, 4});
    int tm = 16 * w; // rows of one output tile (16 per warp)
    int tn = r.pick(std::vector<int>{8, 16, 32, 64});
    // Not 1: `step 1` over a grid of one block is an ordinary loop (K0902).
    int blocks = r.pick(std::vector<int>{2, 3, 5, 8, 132});
    bool grouped = r.percent(70);
    int g = grouped ? r.pick(std::vector<int>{2, 3, 4, 8}) : 1;
    std::string dt = r.pick(std::vector<std::string>{"F32", "F16", "BF16"});
    std::string tilesN = "(N/" + n(tn) + ")";
    std::string tiles = "(M/" + n(tm) + ") * " + tilesN;
    feature("persistent-walk");
    feature(grouped ? "grouped-raster" : "row-major-walk");
    line(0, "kernel " + name);
    line(0, "    [M, N]");
    line(0, "    requires (M mod " + n(tm * g) + " = 0)");
    line(0, "    requires (N mod " + n(tn) + " = 0)");
    line(0, "    requires capability(sm_80)");
    line(0, "    (x : Tensor[" + dt + ", [M, N], on=cuda:global])");
    line(0, "    : (out : Tensor[" + dt + ", [M, N], on=cuda:global]) {");
    line(1, "block_grid [" + n(blocks) + "] {");
    line(2, "warp_grid [" + n(w) + "] {");
    line(3, "for t in (block_id 0 .. " + tiles + " step " + n(blocks) + ") {");
    if (grouped) {
      std::string band = "(" + n(g) + " * " + tilesN + ")";
      line(4, "let group = t / " + band + " in");
      line(4, "let r = t mod " + band + " in");
      // Column-major inside the band (GROUP_M), or row-major inside it.
      if (r.percent(50)) {
        feature("grouped-raster-column");
        line(4, "let bm = group * " + n(g) + " + r mod " + n(g) + " in");
        line(4, "let bn = floor_div r " + n(g) + " in");
      } else {
        feature("grouped-raster-row");
        line(4, "let bm = group * " + n(g) + " + r / " + tilesN + " in");
        line(4, "let bn = r mod " + tilesN + " in");
      }
    } else {
      line(4, "let bm = t / " + tilesN + " in");
      line(4, "let bn = t mod " + tilesN + " in");
    }
    std::string box =
        "[bm * " + n(tm) + " + warp_id 0 * 16 ..+ 16, bn * " + n(tn) + " ..+ " + n(tn) + "]";
    line(4, "register xr : Tile[" + dt + ", [16, " + n(tn) + "], on=cuda:register]");
    line(4, "xr <- x" + box);
    std::string v =
        r.pick(std::vector<std::string>{"xr", "add xr 1.0", "mul xr 0.5", "max xr (neg xr)"});
    line(4, "out" + box + " <- " + v);
    line(3, "}");
    line(2, "}");
    line(1, "}");
    line(0, "}");
    int bands = r.pick(std::vector<int>{1, 2, 3, 5});
    int cols = r.pick(std::vector<int>{1, 2, 3, 7});
    p.launches.push_back({name, "M=" + n(tm * g * bands) + ",N=" + n(tn * cols)});
  }

  /// Atomics: every block folds its rows into a [16, N] result with
  /// atomic_add / atomic_max / atomic_min (F32 or I32), over a grid of
  /// M/16 or, masked, ceil_div M 16 row blocks.
  void atomicKernel(unsigned id) {
    std::string name = "fold" + n(id);
    bool fl = r.percent(60);
    std::string dt = fl ? "F32" : "I32";
    std::string op =
        r.pick(std::vector<std::string>{"atomic_add", "atomic_add", "atomic_max", "atomic_min"});
    int tn = r.pick(std::vector<int>{8, 16, 32, 64});
    bool masked = r.percent(40);
    feature("atomic");
    feature(op + (fl ? "-f32" : "-i32"));
    if (masked)
      feature("atomic-masked");
    line(0, "kernel " + name);
    line(0, "    [M, N]");
    if (!masked)
      line(0, "    requires (M mod 16 = 0)");
    line(0, "    requires (N mod " + n(tn) + " = 0)");
    line(0, "    requires capability(sm_80)");
    line(0, "    (x : Tensor[" + dt + ", [M, N], on=cuda:global])");
    line(0, "    : (out : Tensor[" + dt + ", [16, N], on=cuda:global]) {");
    line(1, std::string("block_grid [") + (masked ? "ceil_div M 16" : "M/16") + ", N/" + n(tn) +
                "] {");
    line(2, "warp_grid [1] {");
    line(3, "register xr : Tile[" + dt + ", [16, " + n(tn) + "], on=cuda:register]");
    std::string box = "[block_id 0 * 16 ..+ 16, block_id 1 * " + n(tn) + " ..+ " + n(tn) + "]";
    line(3, std::string("xr <- ") +
                (masked ? "masked x" + box + " fill 0" + (fl ? ".0" : "") : "x" + box));
    std::string v = r.pick(std::vector<std::string>{"xr", fl ? "mul xr 0.5" : "add xr 1"});
    if (v != "xr") {
      line(3, "xr <- " + v);
    }
    line(3, std::string(masked ? "masked " : "") + "out[0 ..+ 16, block_id 1 * " + n(tn) + " ..+ " +
                n(tn) + "] <- " + op + " xr");
    line(2, "}");
    line(1, "}");
    line(0, "}");
    int m = masked ? r.pick(std::vector<int>{1, 7, 33, 100}) : 16 * r.pick(std::vector<int>{1, 3});
    p.launches.push_back({name, "M=" + n(m) + ",N=" + n(tn * r.pick(std::vector<int>{1, 2, 5}))});
  }
};

} // namespace

void appendGridKernel(GeneratedProgram &p, uint64_t seed) {
  GridGen g{GridRng(seed), p, ""};
  if (!g.r.percent(20))
    return;
  if (g.r.percent(35))
    g.atomicKernel(static_cast<unsigned>(g.r.below(1000)));
  else
    g.kernel(static_cast<unsigned>(g.r.below(1000)));
  p.text += "\n" + g.text;
}

} // namespace kina::property
