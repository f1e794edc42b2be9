//===- GenerateMasked.cpp - Masked kernels for the property test ----------===//
#include "GenerateMasked.h"
#include "GenText.h"

#include <string>
#include <vector>

namespace kina::property {

namespace {

/// The generators' splitmix64 (GenText.h).
using MaskRng = Rng;

struct MaskedGen {
  MaskRng r;
  GeneratedProgram &p;
  std::string text;

  void line(int indent, const std::string &s) { text += std::string(indent * 2, ' ') + s + "\n"; }
  void feature(const std::string &f) { p.features.insert(f); }

  std::string fillFor(const std::string &dt) {
    if (dt == "I32")
      return r.pick(std::vector<std::string>{"0", "(-7)", "3"});
    return r.pick(std::vector<std::string>{"0.0", "(-3.0e38)", "1.5", "(-2.0)"});
  }

  /// An elementwise value of `xr` (element type dt), sometimes through a
  /// select on index tiles or on the data.
  std::string value(const std::string &dt, bool haveIndex) {
    bool fl = dt != "I32";
    std::string lit = fl ? "0.5" : "2";
    std::vector<std::string> vs = {"xr", "add xr " + lit, "max xr (mul xr " + lit + ")"};
    if (fl)
      vs.push_back("exp (neg (mul xr xr))");
    std::string v = r.pick(vs);
    unsigned s = r.below(100);
    if (haveIndex && s < 45) {
      feature("select-index");
      std::string cmp = r.pick(std::vector<std::string>{"<=", "<", ">=", "!=", "="});
      v = "select (kj " + cmp + " qi) (" + v + ") " + (fl ? "(-1.0)" : "(-1)");
    } else if (s < 70) {
      feature("select-data");
      std::string cmp = r.pick(std::vector<std::string>{">", "<=", "="});
      v = "select (xr " + cmp + " " + (fl ? "0.0" : "0") + ") (" + v + ") xr";
    }
    return v;
  }

  void kernel(unsigned n) {
    std::string name = "masked" + std::to_string(n);
    std::string dt = r.pick(std::vector<std::string>{"F32", "F32", "F16", "BF16", "I32"});
    std::string odt = dt;
    if (dt != "I32" && dt != "F32" && r.percent(30))
      odt = "F32";
    int tm = r.pick(std::vector<int>{16, 32});
    int tn = r.pick(std::vector<int>{16, 32, 64});
    int w = r.pick(std::vector<int>{1, 2, 4});
    bool index = r.percent(50);
    bool raggedN = r.percent(75);
    // A third stage the block's tile in shared memory with a masked
    // cp_async (zero fill): the rows must be 16-byte chunks.
    bool staged = r.percent(33);
    int perChunk = 16 / (dt == "F32" || dt == "I32" ? 4 : 2);
    feature("masked-load");
    feature("masked-store");
    feature("ragged-grid");
    if (index)
      feature("index-tile");
    line(0, "kernel " + name);
    line(0, "    [M, N]");
    if (!raggedN)
      line(0, "    requires (N mod " + std::to_string(tn) + " = 0)");
    else if (staged)
      line(0, "    requires (N mod " + std::to_string(perChunk) + " = 0)");
    line(0, staged ? "    requires capability(sm_80, cp_async)" : "    requires capability(sm_80)");
    line(0, "    (x : Tensor[" + dt + ", [M, N], on=cuda:global])");
    line(0, "    : (out : Tensor[" + odt + ", [M, N], on=cuda:global]) {");
    std::string gridN = raggedN ? "ceil_div N " + std::to_string(tn) : "N/" + std::to_string(tn);
    line(1, "block_grid [ceil_div M " + std::to_string(tm * w) + ", " + gridN + "] {");
    if (staged) {
      feature("masked-cp-async");
      line(2, "shared st : Tile[" + dt + ", [" + std::to_string(tm * w) + ", " +
                  std::to_string(tn) + "], on=cuda:shared]");
    }
    line(2, "warp_grid [" + std::to_string(w) + "] {");
    line(3, "let row = block_id 0 * " + std::to_string(tm * w) + " + warp_id 0 * " +
                std::to_string(tm) + " in");
    line(3, "let col = block_id 1 * " + std::to_string(tn) + " in");
    std::string shape = "[" + std::to_string(tm) + ", " + std::to_string(tn) + "]";
    line(3, "register xr : Tile[" + dt + ", " + shape + ", on=cuda:register]");
    if (index) {
      line(3, "register qi : Tile[I32, [" + std::to_string(tm) + ", 1], on=cuda:register]");
      line(3, "register kj : Tile[I32, " + shape + ", on=cuda:register]");
      line(3, "qi <- row_index");
      line(3, "qi <- add qi (convert I32 row)");
      line(3, "kj <- col_index");
      line(3, "kj <- add kj (convert I32 col)");
    }
    std::string box = "[row ..+ " + std::to_string(tm) + ", col ..+ " + std::to_string(tn) + "]";
    if (staged) {
      line(3, "cp_async st <- masked x[block_id 0 * " + std::to_string(tm * w) + " ..+ " +
                  std::to_string(tm * w) + ", col ..+ " + std::to_string(tn) + "]");
      line(3, "cp_async_commit");
      line(3, "cp_async_wait_all");
      line(3, "block_sync");
      line(3, "xr <- st[warp_id 0 * " + std::to_string(tm) + " ..+ " + std::to_string(tm) +
                  ", 0 ..+ " + std::to_string(tn) + "]");
    } else {
      line(3, "xr <- masked x" + box + " fill " + fillFor(dt));
    }
    std::string v = value(dt, index);
    if (odt != dt)
      v = "convert " + odt + " (" + v + ")";
    line(3, "masked out" + box + " <- " + v);
    line(2, "}");
    line(1, "}");
    line(0, "}");
    int m = r.pick(std::vector<int>{1, 7, 33, 100, 1000});
    int nn =
        raggedN ? r.pick(std::vector<int>{1, 7, 33, 130}) : tn * (1 + static_cast<int>(r.below(3)));
    if (raggedN && staged)
      nn = perChunk * r.pick(std::vector<int>{1, 5, 17});
    p.launches.push_back({name, "M=" + std::to_string(m) + ",N=" + std::to_string(nn)});
  }
};

} // namespace

void appendMaskedKernel(GeneratedProgram &p, uint64_t seed) {
  MaskedGen g{MaskRng(seed), p, ""};
  if (!g.r.percent(25))
    return;
  g.kernel(static_cast<unsigned>(g.r.below(1000)));
  p.text += "\n" + g.text;
}

} // namespace kina::property
