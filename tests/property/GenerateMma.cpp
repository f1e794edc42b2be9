//===- GenerateMma.cpp - MMA operand kernels for the property test --------===//
#include "GenerateMma.h"
#include "GenText.h"

#include <string>
#include <vector>

namespace kina::property {

namespace {

/// The generators' splitmix64 (GenText.h).
using MmaRng = Rng;

std::string str(int v) { return std::to_string(v); }

struct MmaGen {
  MmaRng r;
  GeneratedProgram &p;
  std::string text;

  void line(int indent, const std::string &s) { text += std::string(indent * 2, ' ') + s + "\n"; }
  void feature(const std::string &f) { p.features.insert(f); }

  static std::string tile(const std::string &dt, int rows, int cols, const std::string &where) {
    return "Tile[" + dt + ", [" + str(rows) + ", " + str(cols) + "], on=cuda:" + where + "]";
  }
  static std::string tensor(const std::string &dt, const std::string &rows, int cols) {
    return "Tensor[" + dt + ", [" + rows + ", " + str(cols) + "], on=cuda:global]";
  }

  void kernel(unsigned n) {
    std::string name = "mmaop" + str(static_cast<int>(n));
    std::string dt = r.pick(std::vector<std::string>{"BF16", "F16"});
    bool f16Acc = dt == "F16" && r.percent(30);
    std::string acc = f16Acc ? "F16" : "F32";
    int warps = r.pick(std::vector<int>{1, 2, 4});
    int k = r.pick(std::vector<int>{16, 32, 64});
    int nn = r.pick(std::vector<int>{16, 32, 64});
    bool registerA = r.percent(75);
    bool transB = r.percent(60);
    bool chain = r.percent(50);
    int n2 = r.pick(std::vector<int>{16, 32, 64});
    int bm = 16 * warps;
    std::string lower = dt == "BF16" ? "bf16" : "f16";
    std::string cap = "mma_m16n16k16_" + lower + "_" + lower + "_" + (f16Acc ? "f16" : "f32");
    feature(f16Acc ? "mma-f16-acc" : "mma-f32-acc");

    line(0, "kernel " + name);
    line(2, "[M]");
    line(2, "requires (M mod " + str(bm) + " = 0)");
    line(2, "requires capability(sm_80, " + cap + ", cp_async)");
    line(2, "(a : " + tensor(dt, "M", k) + ")");
    // B is [K, N], or [N, K] read as its transpose.
    int br = transB ? nn : k, bc = transB ? k : nn;
    line(2, "(b : " + tensor(dt, str(br), bc) + ")");
    if (chain)
      line(2, "(w : " + tensor(dt, str(nn), n2) + ")");
    int outCols = chain ? n2 : nn;
    // A chain rounds its first product to 16 bits; the GPU and the
    // interpreter may round an element differently (their F32 sums differ in
    // order), so its result is stored in 16 bits too, compared at that
    // precision (a GPU batch of the property compares them).
    std::string outT = chain ? dt : acc;
    line(2, ": (c : " + tensor(outT, "M", outCols) + ") {");
    line(1, "block_grid [M/" + str(bm) + "] {");
    line(2, "shared b_s : " + tile(dt, br, bc, "shared"));
    if (chain)
      line(2, "shared w_s : " + tile(dt, nn, n2, "shared"));
    if (!registerA)
      line(2, "shared a_s : " + tile(dt, bm, k, "shared"));
    line(2, "warp_grid [" + str(warps) + "] {");
    line(3, "let r = block_id 0 * " + str(bm) + " + warp_id 0 * 16 in");
    line(3, "register s : " + tile(acc, 16, nn, "register"));
    if (registerA)
      line(3, "register ar : " + tile(dt, 16, k, "register"));
    if (chain)
      line(3, "register o : " + tile(acc, 16, n2, "register"));
    line(3, "cp_async b_s[0 ..+ " + str(br) + ", 0 ..+ " + str(bc) + "] <- b[0 ..+ " + str(br) +
                ", 0 ..+ " + str(bc) + "]");
    if (chain)
      line(3, "cp_async w_s[0 ..+ " + str(nn) + ", 0 ..+ " + str(n2) + "] <- w[0 ..+ " + str(nn) +
                  ", 0 ..+ " + str(n2) + "]");
    if (!registerA)
      line(3, "cp_async a_s[0 ..+ " + str(bm) + ", 0 ..+ " + str(k) + "] <- a[block_id 0 * " +
                  str(bm) + " ..+ " + str(bm) + ", 0 ..+ " + str(k) + "]");
    line(3, "cp_async_commit");
    line(3, "cp_async_wait_all");
    line(3, "block_sync");
    line(3, "s <- fill 0.0");
    std::string aExpr;
    if (registerA) {
      feature("mma-register-a");
      line(3, "ar <- a[r ..+ 16, 0 ..+ " + str(k) + "]");
      unsigned form = r.below(3);
      aExpr = form == 0   ? "ar"
              : form == 1 ? "(relu ar)"
                          : "(convert " + dt + " (mul (convert F32 ar) 0.5))";
      if (form != 0)
        feature("mma-register-a-expr");
    } else {
      aExpr = "a_s[warp_id 0 * 16 ..+ 16, 0 ..+ " + str(k) + "]";
    }
    std::string bExpr = "b_s[0 ..+ " + str(br) + ", 0 ..+ " + str(bc) + "]";
    if (transB) {
      feature("mma-transposed-b");
      bExpr = "(transpose " + bExpr + ")";
    }
    std::string accExpr = "s";
    if (r.percent(40)) {
      feature("mma-acc-expr");
      accExpr = r.pick(std::vector<std::string>{"(mul s 0.5)", "(add s 1.0)", "(relu s)"});
    }
    line(3, "s <- wmma_mma " + accExpr + " " + aExpr + " " + bExpr);
    std::string result = "s";
    if (chain) {
      feature("mma-chain");
      line(3, "o <- fill 0.0");
      std::string p = f16Acc ? "s" : "(convert " + dt + " s)";
      line(3, "o <- wmma_mma o " + p + " w_s[0 ..+ " + str(nn) + ", 0 ..+ " + str(n2) + "]");
      result = "o";
    }
    if (outT != acc)
      result = "convert " + outT + " " + result;
    line(3, "c[r ..+ 16, 0 ..+ " + str(outCols) + "] <- " + result);
    line(2, "}");
    line(1, "}");
    line(0, "}");
    p.launches.push_back({name, "M=" + str(bm * (1 + static_cast<int>(r.below(3))))});
  }
};

} // namespace

void appendMmaKernel(GeneratedProgram &p, uint64_t seed) {
  MmaGen g{MmaRng(seed), p, ""};
  if (!g.r.percent(25))
    return;
  g.kernel(g.r.below(1000));
  p.text += "\n" + g.text;
}

} // namespace kina::property
