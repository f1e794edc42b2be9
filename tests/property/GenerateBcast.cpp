//===- GenerateBcast.cpp - Broadcast kernels for the property test --------===//
#include "GenerateBcast.h"
#include "GenText.h"

#include <string>
#include <vector>

namespace kina::property {

namespace {

/// The generators' splitmix64 (GenText.h).
using BcastRng = Rng;

struct BcastGen {
  BcastRng r;
  GeneratedProgram &p;
  std::string text;

  void line(int indent, const std::string &s) { text += std::string(indent * 2, ' ') + s + "\n"; }
  void feature(const std::string &f) { p.features.insert(f); }

  /// A broadcast operand of the [tm, tn] tile `xr`: a row, a column or a
  /// residual, from registers or a global slice.
  std::string operand(int tm, int tn) {
    std::string sm = std::to_string(tm), sn = std::to_string(tn);
    switch (r.below(7)) {
    case 0:
      feature("bcast-col-sum");
      return "(col_sum xr)";
    case 1:
      feature("bcast-col-max");
      return "(col_max xr)";
    case 2:
      feature("bcast-global-row");
      return "v[col ..+ " + sn + "]";
    case 3:
      feature("bcast-global-row-bf16");
      return "vb[col ..+ " + sn + "]";
    case 4:
      feature("bcast-global-column");
      return "cb[row ..+ " + sm + ", 0 ..+ 1]";
    case 5:
      feature("bcast-residual");
      return "x[row ..+ " + sm + ", col ..+ " + sn + "]";
    default:
      feature("bcast-row-sum");
      return "(row_sum xr)";
    }
  }

  void kernel(unsigned n) {
    std::string name = "bcast" + std::to_string(n);
    int tm = r.pick(std::vector<int>{16, 32});
    int tn = r.pick(std::vector<int>{8, 16, 32, 64});
    int w0 = r.pick(std::vector<int>{1, 2});
    int w1 = r.pick(std::vector<int>{1, 2, 4});
    bool block = r.percent(50);
    std::string sm = std::to_string(tm), sn = std::to_string(tn);
    std::string bm = std::to_string(tm * w0), bn = std::to_string(tn * w1);
    line(0, "kernel " + name);
    line(0, "    [M, N]");
    line(0, "    requires (M mod " + bm + " = 0)");
    line(0, "    requires (N mod " + bn + " = 0)");
    line(0, "    requires capability(sm_80)");
    line(0, "    (x : Tensor[F32, [M, N], on=cuda:global])");
    line(0, "    (v : Tensor[F32, [N], on=cuda:global])");
    line(0, "    (vb : Tensor[BF16, [N], on=cuda:global])");
    line(0, "    (cb : Tensor[F32, [M, 1], on=cuda:global])");
    line(0, "    : (out : Tensor[F32, [M, N], on=cuda:global]) {");
    line(1, "block_grid [M/" + bm + ", N/" + bn + "] {");
    line(2, "warp_grid [" + std::to_string(w0) + ", " + std::to_string(w1) + "] {");
    line(3, "let row = block_id 0 * " + bm + " + warp_id 0 * " + sm + " in");
    line(3, "let col = block_id 1 * " + bn + " + warp_id 1 * " + sn + " in");
    std::string shape = "[" + sm + ", " + sn + "]";
    line(3, "register xr : Tile[F32, " + shape + ", on=cuda:register]");
    line(3, "xr <- x[row ..+ " + sm + ", col ..+ " + sn + "]");
    std::string op = r.pick(std::vector<std::string>{"add", "sub", "mul", "max", "min"});
    std::string v = op + " xr " + operand(tm, tn);
    if (r.percent(40)) {
      std::string op2 = r.pick(std::vector<std::string>{"add", "mul", "sub"});
      v = op2 + " (" + v + ") " + operand(tm, tn);
    }
    if (r.percent(25)) {
      feature("bcast-select-row");
      v = "select (xr > (col_max xr)) (" + v + ") xr";
    }
    if (block) {
      std::string red = r.percent(50) ? "block_sum" : "block_max";
      feature("bcast-" + red);
      std::string what = r.pick(std::vector<std::string>{"(row_sum xr)", "(col_sum xr)", "xr"});
      if (what == "(row_sum xr)")
        line(3, "register red : Tile[F32, [" + sm + ", 1], on=cuda:register]");
      else if (what == "(col_sum xr)")
        line(3, "register red : Tile[F32, [1, " + sn + "], on=cuda:register]");
      else
        line(3, "register red : Tile[F32, " + shape + ", on=cuda:register]");
      line(3, "red <- " + red + " " + what);
      v = "add (" + v + ") red";
    }
    line(3, "out[row ..+ " + sm + ", col ..+ " + sn + "] <- " + v);
    line(2, "}");
    line(1, "}");
    line(0, "}");
    int m = tm * w0 * (1 + static_cast<int>(r.below(3)));
    int nn = tn * w1 * (1 + static_cast<int>(r.below(3)));
    p.launches.push_back({name, "M=" + std::to_string(m) + ",N=" + std::to_string(nn)});
  }
};

} // namespace

void appendBcastKernel(GeneratedProgram &p, uint64_t seed) {
  BcastGen g{BcastRng(seed), p, ""};
  if (!g.r.percent(25))
    return;
  g.kernel(static_cast<unsigned>(g.r.below(1000)));
  p.text += "\n" + g.text;
}

} // namespace kina::property
