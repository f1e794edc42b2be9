//===- Generator.cpp - Random valid Kina programs -------------------------===//
//
// Each kernel comes from one of a few templates a kernel author writes
// (elementwise chain, row reduction, softmax, transpose through shared
// memory, cp_async staging, single- and multi-stage tensor-core GEMM),
// filled with random shapes, warp layouts, dtypes, index spellings and a
// random body of tile expressions. Shapes are chosen so every division is
// exact (`requires` facts), every slice is in bounds, register and shared
// budgets fit, and cp_async rows are 16-byte chunks: the programs are meant
// to check clean. Constructs the backend is known not to lower yet are
// generated at a low rate and recorded as features.
//
//===----------------------------------------------------------------------===//
#include "Generator.h"
#include "GenText.h"
#include "GenerateGrid.h"
#include "GenerateBcast.h"
#include "GenerateHopper.h"
#include "GenerateMasked.h"
#include "GenerateMma.h"
#include "GenerateTune.h"

#include <algorithm>
#include <functional>
#include <numeric>
#include <sstream>
#include <vector>

namespace kina::property {

namespace {

unsigned dtypeBytes(const std::string &dt) {
  if (dt == "F64" || dt == "I64")
    return 8;
  if (dt == "F32" || dt == "I32" || dt == "TF32")
    return 4;
  if (dt == "F16" || dt == "BF16")
    return 2;
  return 1; // I8 U8 E4M3 E5M2
}

bool isFloat(const std::string &dt) {
  return dt[0] == 'F' || dt == "BF16" || dt == "TF32" || dt[0] == 'E';
}

/// An argument of an application: atoms stand alone, the rest in parens.
std::string arg(const std::string &e) {
  if (e.size() > 1 && e.front() == '(' && e.back() == ')') {
    int depth = 0;
    size_t i = 0;
    for (; i < e.size(); ++i) {
      depth += e[i] == '(';
      depth -= e[i] == ')';
      if (depth == 0)
        break;
    }
    if (i + 1 == e.size())
      return e; // already one parenthesized atom
  }
  bool atom = std::all_of(e.begin(), e.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
  });
  return atom ? e : "(" + e + ")";
}

std::string tileType(const std::string &dt, int rows, int cols, const char *space = "register") {
  std::string shape =
      cols == 0 ? std::to_string(rows) : std::to_string(rows) + ", " + std::to_string(cols);
  return "Tile[" + dt + ", [" + shape + "], on=cuda:" + space + "]";
}

// ---------------------------------------------------------------- program

struct TileVar {
  std::string name;
  std::string dtype;
  int rows = 0, cols = 0;
};

/// A generated tile function the kernels may call on [rows, cols] tiles.
struct TileFn {
  std::string name;
  std::string dtype;
  int rows = 0, cols = 0; ///< 0, 0: shape-polymorphic [R, C]
  bool takesColumn = false;
};

/// What a warp body may compute with: the tiles of one shape and dtype.
struct WarpEnv {
  std::string dtype;
  int tm = 16, tn = 64;
  std::vector<TileVar> tiles;       ///< [tm, tn] of dtype
  std::vector<TileVar> columns;     ///< [tm, 1] of dtype
  std::vector<TileVar> others;      ///< [tm, tn] of other dtypes (convert sources)
  std::vector<std::string> indices; ///< index names in scope (loop vars, lets, dims)
  std::vector<std::string> scalars; ///< scalar parameters
  std::string warpIdx;              ///< a `let` of warp_id 0, if any
};

class ProgramGen {
public:
  ProgramGen(uint64_t seed, const GeneratorOptions &o) : r_(seed), o_(o) {}

  GeneratedProgram run() {
    if (o_.family == "hopper") {
      hopper();
      if (r_.percent(10)) {
        out_.blank();
        hopper();
      }
      return finish();
    }
    unsigned kernels = 1 + (r_.percent(35) ? 1 : 0) + (r_.percent(12) ? 1 : 0);
    kernels = std::min(kernels, std::max(1u, o_.maxKernels));
    if (kernels > 1)
      feature("several-kernels");
    if (r_.percent(7))
      tileFunctions();
    for (unsigned i = 0; i < kernels; ++i) {
      if (i)
        out_.blank();
      kernel();
    }
    if (r_.percent(6))
      hostFunction();
    return finish();
  }

  GeneratedProgram finish() {
    return {std::move(out_.text()), std::move(features_), std::move(launches_), requiredTarget_};
  }

private:
  Rng r_;
  GeneratorOptions o_;
  Out out_;
  std::set<std::string> features_;
  std::vector<TileFn> tileFns_;
  std::vector<std::pair<std::string, std::string>> launches_;
  std::string requiredTarget_;
  unsigned unique_ = 0;
  /// Kernels with one input tensor, by name, for host launches.
  struct Launchable {
    std::string name, dtype, facts;
    std::vector<std::string> dims;
  };
  std::vector<Launchable> launchable_;

  void feature(const std::string &f) { features_.insert(f); }
  std::string fresh(const std::string &prefix) { return prefix + std::to_string(unique_++); }

  // ---- literals and names

  std::string lit(int v) {
    if (v >= 16 && r_.percent(4)) {
      feature("literal-hex");
      char buf[32];
      snprintf(buf, sizeof buf, "0x%x", v);
      return buf;
    }
    if (v >= 1000 && r_.percent(30)) {
      feature("literal-underscore");
      std::string s = std::to_string(v);
      return s.substr(0, s.size() - 3) + "_" + s.substr(s.size() - 3);
    }
    return std::to_string(v);
  }

  std::string floatLit() {
    switch (r_.below(9)) {
    case 0:
      return "0.5";
    case 1:
      return "2.0";
    case 2:
      return "1.5e3";
    case 3:
      feature("negative-literal");
      return "(-1.0)";
    case 4:
      return "0.125";
    case 5:
      feature("integer-scalar");
      return "2";
    case 6:
      return "1e-3";
    case 7:
      feature("negative-literal");
      return "(-0.25)";
    default:
      return "3.0";
    }
  }

  std::string dimName(const std::vector<std::string> &taken, const std::vector<std::string> &pool) {
    for (int tries = 0; tries < 8; ++tries) {
      const std::string &n = r_.pick(pool);
      if (std::find(taken.begin(), taken.end(), n) == taken.end())
        return n;
    }
    for (const std::string &n : pool)
      if (std::find(taken.begin(), taken.end(), n) == taken.end())
        return n;
    return fresh("D");
  }

  std::string pickDType() {
    unsigned p = r_.below(100);
    if (p < 62)
      return "F32";
    if (p < 74)
      return "F16";
    if (p < 82)
      return "BF16";
    if (p < 86)
      return "F64";
    if (p < 91)
      return "I32";
    if (p < 94)
      return "I8";
    if (p < 97)
      return "I64";
    static const std::vector<std::string> exotic = {"U8", "E4M3", "E5M2", "TF32"};
    std::string dt = r_.pick(exotic);
    feature("dtype-" + dt);
    return dt;
  }

  void noteDType(const std::string &dt) { feature("dtype-" + dt); }

  /// Warp layouts: (WM, WN); WN = 0 writes a 1-D warp_grid.
  std::pair<int, int> pickWarps() {
    static const std::vector<std::pair<int, int>> layouts = {
        {4, 0}, {4, 0}, {2, 0}, {1, 0}, {8, 0}, {2, 2}, {2, 4}, {4, 2}, {1, 4}, {4, 1}, {1, 2}};
    // Now and then an unusual one: odd warp counts, up to 1024 threads.
    static const std::vector<std::pair<int, int>> unusual = {{3, 0},  {6, 0}, {3, 2}, {1, 3},
                                                             {16, 0}, {8, 4}, {4, 8}, {32, 0}};
    auto w = r_.percent(8) ? r_.pick(unusual) : r_.pick(layouts);
    if (w.first * std::max(1, w.second) % 2 == 1 || w.first * std::max(1, w.second) > 8)
      feature("warp-grid-unusual");
    feature(w.second == 0 ? "warp-grid-1d" : "warp-grid-2d");
    return w;
  }

  // ---- kernel header

  struct Header {
    std::string name;
    std::vector<std::string> dims;
    std::vector<std::string> facts; ///< conditions, without `requires (...)`
    std::vector<std::string> caps;
    std::vector<std::string> params; ///< `(x : ...)`
    std::string result;              ///< `: (out : ...)` or `: Tensor[...]`
  };

  /// Dims that satisfy the facts: a multiple of every `mod` divisor, twice
  /// the least one, raised to every lower bound.
  std::string launchDims(const Header &h) {
    std::string out;
    for (const std::string &d : h.dims) {
      int64_t step = 1, atLeast = 1;
      for (const std::string &f : h.facts) {
        std::vector<std::string> w;
        std::stringstream ss(f);
        for (std::string t; ss >> t;)
          w.push_back(t);
        if (w.size() < 3 || w[0] != d)
          continue;
        auto num = [](std::string t) {
          t.erase(std::remove(t.begin(), t.end(), '_'), t.end());
          return static_cast<int64_t>(std::strtoll(t.c_str(), nullptr, 0));
        };
        if (w[1] == "mod" && w.size() == 5)
          step = std::lcm(step, num(w[2]));
        else if (w[1] == ">=")
          atLeast = std::max(atLeast, num(w[2]));
        else if (w[1] == ">")
          atLeast = std::max(atLeast, num(w[2]) + 1);
      }
      int64_t v = step * 2;
      while (v < atLeast)
        v += step;
      out += (out.empty() ? "" : ",") + d + "=" + std::to_string(v);
    }
    return out;
  }

  void emitHeader(const Header &h) {
    launches_.push_back({h.name, launchDims(h)});
    out_.line("kernel " + h.name);
    std::string dims;
    for (size_t i = 0; i < h.dims.size(); ++i)
      dims += (i ? ", " : "") + h.dims[i];
    if (!dims.empty())
      out_.line("    [" + dims + "]");
    for (const std::string &c : h.facts)
      out_.line("    requires (" + c + ")");
    std::string caps = "sm_80";
    for (const std::string &c : h.caps)
      caps += ", " + c;
    out_.line("    requires capability(" + caps + ")");
    for (const std::string &p : h.params)
      out_.line("    " + p);
    out_.open("    " + h.result);
  }

  std::string globalTensor(const std::string &dt, const std::string &shape) {
    std::string placement = "cuda:global";
    if (r_.percent(3)) {
      feature("global-device");
      placement = "cuda:global(0)";
    }
    return "Tensor[" + dt + ", [" + shape + "], on=" + placement + "]";
  }

  /// `: (out : T)`, sometimes the unnamed form (`result`).
  std::string resultDecl(const std::string &type, std::string &name) {
    if (r_.percent(10)) {
      feature("unnamed-result");
      name = "result";
      return ": " + type;
    }
    return ": (" + name + " : " + type + ")";
  }

  /// Extra facts that do not change what is provable but exercise the
  /// comparison forms of `requires`.
  void extraRequires(Header &h, const std::string &dim, int atLeast) {
    if (!r_.percent(15))
      return;
    feature("requires-compare");
    switch (r_.below(4)) {
    case 0:
      h.facts.push_back(dim + " >= " + lit(atLeast));
      break;
    case 1:
      h.facts.push_back(dim + " > 0");
      break;
    case 2:
      h.facts.push_back(dim + " < " + lit(1048576));
      break;
    default:
      h.facts.push_back(dim + " <= " + lit(1048576));
      break;
    }
  }

  void maybeComment() {
    if (r_.percent(15)) {
      feature("comment");
      out_.line("// " + fresh("step "));
    }
  }

  // ---- expressions over a warp environment

  std::string tileLeaf(const WarpEnv &env) { return r_.pick(env.tiles).name; }

  std::string scalarOperand(const WarpEnv &env) {
    if (!env.scalars.empty() && r_.percent(50))
      return r_.pick(env.scalars);
    if (!env.indices.empty() && r_.percent(3)) {
      // Shared decision 1: an index used as a scalar operand; today it is
      // lowered to 0.0 (a silent miscompile), checked clean.
      feature("index-as-scalar");
      return r_.pick(env.indices);
    }
    if (!env.indices.empty() && r_.percent(2)) {
      feature("convert-index");
      return "(convert " + env.dtype + " " + arg(r_.pick(env.indices)) + ")";
    }
    return floatLit();
  }

  std::string columnExpr(WarpEnv &env, unsigned depth) {
    if (!env.columns.empty() && (depth == 0 || r_.percent(40)))
      return r_.pick(env.columns).name;
    if (depth == 0)
      return "row_sum " + arg(tileLeaf(env));
    switch (r_.below(4)) {
    case 0:
      feature("row_max");
      return "row_max " + arg(tileExpr(env, depth - 1));
    case 1:
      if (!env.columns.empty()) {
        feature("column-arith");
        return "mul " + arg(r_.pick(env.columns).name) + " " + arg(scalarOperand(env));
      }
      [[fallthrough]];
    default:
      feature("row_sum");
      return "row_sum " + arg(tileExpr(env, depth - 1));
    }
  }

  /// A tile expression that is not a bare name (an assignment that computes).
  std::string tileOp(WarpEnv &env, unsigned depth) {
    for (int tries = 0; tries < 8; ++tries) {
      std::set<std::string> saved = features_; // a discarded try uses nothing
      std::string e = tileExpr(env, std::max(1u, depth), true);
      if (e.find(' ') != std::string::npos)
        return e;
      features_ = std::move(saved);
    }
    feature("relu");
    return "relu " + tileLeaf(env);
  }

  std::string tileExpr(WarpEnv &env, unsigned depth, bool top = false) {
    if (depth == 0 || (!top && r_.percent(25)))
      return tileLeaf(env);
    static const std::vector<std::string> unary = {"relu", "exp", "neg"};
    static const std::vector<std::string> binary = {"add", "sub", "mul", "div", "max", "min"};
    unsigned choice = r_.below(100);
    if (choice < 18) {
      std::string f = r_.pick(unary);
      feature(f);
      return f + " " + arg(tileExpr(env, depth - 1));
    }
    if (choice < 50) {
      std::string f = r_.pick(binary);
      feature(f);
      feature("binary-tile");
      return f + " " + arg(tileExpr(env, depth - 1)) + " " + arg(tileExpr(env, depth - 1));
    }
    if (choice < 66) {
      std::string f = r_.pick(binary);
      feature(f);
      feature("broadcast-column");
      return f + " " + arg(tileExpr(env, depth - 1)) + " " + arg(columnExpr(env, depth - 1));
    }
    if (choice < 80) {
      std::string f = r_.pick(binary);
      feature(f);
      feature("broadcast-scalar");
      return f + " " + arg(tileExpr(env, depth - 1)) + " " + arg(scalarOperand(env));
    }
    if (choice < 86 && !env.others.empty()) {
      feature("convert");
      return "convert " + env.dtype + " " + arg(r_.pick(env.others).name);
    }
    if (choice < 90 && env.tm == env.tn) {
      feature("transpose");
      return "transpose " + arg(tileExpr(env, depth - 1));
    }
    if (choice < 93 && isFloat(env.dtype) && env.dtype != "F32") {
      feature("convert-roundtrip");
      return "convert " + env.dtype + " (convert F32 " + arg(tileExpr(env, depth - 1)) + ")";
    }
    if (choice < 97) {
      for (const TileFn &f : tileFns_)
        if (f.dtype == env.dtype && ((f.rows == env.tm && f.cols == env.tn) || f.rows == 0)) {
          feature(f.rows == 0 ? "tile-call-polymorphic" : "tile-call");
          std::string call = f.name + " " + arg(tileExpr(env, depth - 1));
          if (f.takesColumn)
            call += " " + arg(columnExpr(env, 0));
          return call;
        }
    }
    return tileLeaf(env);
  }

  // ---- warp-body statements

  std::string declareTile(WarpEnv &env, const std::string &prefix, const std::string &dt, int rows,
                          int cols) {
    std::string n = fresh(prefix);
    out_.line("register " + n + " : " + tileType(dt, rows, cols));
    TileVar t{n, dt, rows, cols};
    if (cols == 1 && dt == env.dtype && rows == env.tm)
      env.columns.push_back(t);
    else if (dt == env.dtype && rows == env.tm && cols == env.tn)
      env.tiles.push_back(t);
    else if (rows == env.tm && cols == env.tn)
      env.others.push_back(t);
    return n;
  }

  /// A few random compute statements; `scratch` receives values.
  void computeStatements(WarpEnv &env, const std::string &blockIdx, unsigned count) {
    for (unsigned i = 0; i < count; ++i) {
      maybeComment();
      unsigned p = r_.below(100);
      if (p < 50) {
        const TileVar &t = r_.pick(env.tiles);
        out_.line(t.name + " <- " + tileOp(env, 1 + r_.below(o_.maxDepth)));
      } else if (p < 62) {
        // The value first: a new column is not an operand of its own first value.
        std::string f = r_.percent(50) ? "row_sum" : "row_max";
        feature(f);
        std::string value = f + " " + arg(tileExpr(env, r_.below(o_.maxDepth)));
        std::string c;
        if (env.columns.empty() || r_.percent(40))
          c = declareTile(env, "col", env.dtype, env.tm, 1);
        else
          c = r_.pick(env.columns).name;
        out_.line(c + " <- " + value);
      } else if (p < 70) {
        feature("fill");
        const TileVar &t = r_.pick(env.tiles);
        out_.line(t.name + " <- fill " + (r_.percent(30) ? "(-3.0e38)" : floatLit()));
      } else if (p < 80 && !blockIdx.empty()) {
        ifOnBlockId(env, blockIdx);
      } else if (p < 84 && !env.warpIdx.empty()) {
        // Warp-dependent control without a block_sync in it is fine.
        feature("if-warp-id");
        out_.open("if " + env.warpIdx + (r_.percent(50) ? " = 0" : " < 1"));
        const TileVar &t = r_.pick(env.tiles);
        out_.line(t.name + " <- " + tileOp(env, 1));
        out_.close();
      } else if (p < 88) {
        feature("for-constant");
        std::string v = fresh("r");
        out_.open("for " + v + " in (0 .. " + std::to_string(r_.range(1, 3)) + ")");
        env.indices.push_back(v);
        const TileVar &t = r_.pick(env.tiles);
        out_.line(t.name + " <- " + tileOp(env, 1 + r_.below(2)));
        env.indices.pop_back();
        out_.close();
      } else if (p < 90) {
        // A let of a tile expression names a value (language.md `let x = e in`).
        feature("let-tile-expression");
        std::string v = fresh("v");
        out_.line("let " + v + " = " + tileOp(env, 1) + " in");
        const TileVar &t = r_.pick(env.tiles);
        out_.line(t.name + " <- mul " + arg(v) + " " + floatLit());
      } else {
        const TileVar &t = r_.pick(env.tiles);
        out_.line(t.name + " <- " + tileOp(env, o_.maxDepth));
      }
    }
  }

  std::string blockCondition(const std::string &blockIdx) {
    static const std::vector<std::string> ops = {"=", "!=", "<", "<=", ">", ">="};
    std::string op = r_.pick(ops);
    feature("if-compare-" + op);
    if (r_.percent(10)) {
      feature("if-mod");
      return blockIdx + " mod 2 " + (op == "=" ? "=" : "!=") + " 0";
    }
    if (r_.percent(30))
      return blockIdx + " + 1 " + op + " " + std::to_string(r_.range(1, 4));
    return blockIdx + " " + op + " " + std::to_string(r_.range(0, 3));
  }

  void ifOnBlockId(WarpEnv &env, const std::string &blockIdx) {
    feature("if-block-id");
    out_.open("if " + blockCondition(blockIdx));
    const TileVar &t = r_.pick(env.tiles);
    out_.line(t.name + " <- " + tileOp(env, 1 + r_.below(2)));
    if (r_.percent(50)) {
      if (r_.percent(30)) {
        feature("else-if");
        out_.reopen("else if " + blockCondition(blockIdx));
        out_.line(t.name + " <- " + tileOp(env, 1));
      }
      feature("else");
      out_.reopen("else");
      out_.line(t.name + " <- " + tileOp(env, 1 + r_.below(2)));
    }
    out_.close();
  }

  /// Register budget: the tile sizes shrink until `tiles` of them fit.
  void fitRegisters(int &tm, int &tn, const std::string &dt, int tiles) {
    auto regs = [&] { return tm * tn * static_cast<int>(dtypeBytes(dt)) / 128 * tiles; };
    while (regs() > 160 && tn > 16)
      tn /= 2;
    while (regs() > 160 && tm > 16)
      tm /= 2;
  }

  // ---------------------------------------------------------- templates

  void kernel() {
    unsigned p = r_.below(100);
    if (p < 38)
      elementwise();
    else if (p < 50)
      rowReduction();
    else if (p < 55)
      softmax();
    else if (p < 63)
      transposeShared();
    else if (p < 75)
      cpAsyncStaging();
    else if (p < 97)
      gemm();
    else
      hopper();
  }

  /// A Hopper GEMM (GenerateHopper.h); the file then needs sm_90a.
  void hopper() {
    generateHopperKernel({r_, out_, features_, launches_}, fresh("hopper"));
    requiredTarget_ = kHopperTarget;
  }

  /// Elementwise chain over [M, N] (or [B, M, N] with a point index).
  void elementwise() {
    feature("template-elementwise");
    Header h;
    h.name = fresh("ew");
    std::string dt = pickDType();
    noteDType(dt);
    auto [wm, wn] = pickWarps();
    int wnn = wn == 0 ? 1 : wn;
    int tm = r_.pick(std::vector<int>{16, 16, 32, 64});
    int tn = r_.pick(std::vector<int>{16, 32, 64, 64, 128});
    if (r_.percent(3)) {
      feature("odd-tile-shape");
      tm = r_.pick(std::vector<int>{8, 24, 48});
      tn = r_.pick(std::vector<int>{8, 24, 40});
    }
    int inputs = r_.range(1, 3);
    fitRegisters(tm, tn, dt, inputs + 3);
    int bm = wm * tm, bn = wnn * tn;
    std::string M = dimName({}, {"M", "M", "R", "Rows"});
    std::string N = dimName({M}, {"N", "N", "C", "Cols"});
    // Grid shape: 2-D over tiles, 1-D with a loop over column blocks, a
    // batch dimension walked by a loop (point index) or a 3-D grid.
    unsigned g = r_.below(100);
    bool loopCols = g >= 55 && g < 85;
    bool batch = g >= 85; // [B, M, N]: a loop over B, or a 3-D grid
    bool grid3 = batch && r_.percent(35);
    std::string B;
    if (batch) {
      B = dimName({M, N}, {"B", "Batch", "L"});
      h.dims.push_back(B);
      feature("point-index");
    }
    // Constant extents: [M, 128] or a kernel with no dims at all.
    bool constN = !batch && r_.percent(8);
    bool constM = constN && r_.percent(40);
    if (constN) {
      feature("constant-extent");
      N = std::to_string(bn * r_.range(1, 2));
    }
    if (constM) {
      feature("no-dims");
      M = std::to_string(bm * r_.range(1, 2));
    }
    if (!constM)
      h.dims.push_back(M);
    if (!constN)
      h.dims.push_back(N);
    if (!constM) {
      h.facts.push_back(M + " mod " + lit(bm) + " = 0");
      extraRequires(h, M, bm);
    }
    if (!constN)
      h.facts.push_back(N + " mod " + lit(bn) + " = 0");
    std::string shape = (batch ? B + ", " : "") + M + ", " + N;
    std::vector<std::string> ins;
    std::vector<std::string> inTypes;
    for (int i = 0; i < inputs; ++i) {
      std::string n = fresh("x");
      std::string idt = dt;
      if (i > 0 && r_.percent(15)) {
        idt = !isFloat(dt)  ? "F32"
              : dt == "F32" ? r_.pick(std::vector<std::string>{"F16", "I32"})
                            : "F32";
        feature("mixed-dtype");
        noteDType(idt);
      }
      ins.push_back(n);
      inTypes.push_back(idt);
      h.params.push_back("(" + n + " : " + globalTensor(idt, shape) + ")");
    }
    bool column = !batch && r_.percent(20);
    std::string bias;
    if (column) {
      feature("column-input");
      bias = fresh("bias");
      h.params.push_back("(" + bias + " : " + globalTensor(dt, M + ", 1") + ")");
    }
    std::string scalar;
    if (r_.percent(4)) {
      feature("scalar-param");
      scalar = fresh("alpha");
      h.params.push_back("(" + scalar + " : " + (isFloat(dt) ? dt : std::string("F32")) + ")");
    }
    std::string mutName;
    if (r_.percent(8)) {
      feature("mut-param");
      mutName = fresh("io");
      h.params.push_back("(" + mutName + " : mut " + globalTensor(dt, shape) + ")");
    }
    std::string odt = dt;
    if (isFloat(dt) && r_.percent(15)) {
      odt = dt == "F32" ? r_.pick(std::vector<std::string>{"F16", "BF16"}) : "F32";
      feature("convert-store");
      noteDType(odt);
    }
    std::string out = "out";
    h.result = resultDecl(globalTensor(odt, shape), out);
    emitHeader(h);

    bool inlineIds = r_.percent(20);
    if (inlineIds)
      feature("inline-grid-ids");
    std::string grid = M + "/" + lit(bm);
    if (!loopCols)
      grid += ", " + N + "/" + lit(bn);
    if (grid3) {
      feature("grid-3d");
      grid = M + "/" + lit(bm) + ", " + N + "/" + lit(bn) + ", " + B;
    }
    feature(grid3 ? "grid-3d" : !loopCols ? "block-grid-2d" : "block-grid-1d");
    out_.open("block_grid [" + grid + "]");
    std::string bmI = inlineIds ? "block_id 0" : fresh("bm");
    if (!inlineIds)
      out_.line("let " + bmI + " = block_id 0 in");
    std::string bnI;
    if (!loopCols) {
      bnI = inlineIds ? "block_id 1" : fresh("bn");
      if (!inlineIds)
        out_.line("let " + bnI + " = block_id 1 in");
    }
    bool staged =
        !batch && r_.percent(15) && bm * bn * static_cast<int>(dtypeBytes(dt)) <= 48 * 1024;
    std::string st;
    if (staged) {
      feature("shared-store");
      st = fresh("st");
      out_.line("shared " + st + " : " + tileType(dt, bm, bn, "shared"));
    }
    std::string warps = std::to_string(wm) + (wn ? ", " + std::to_string(wn) : "");
    out_.open("warp_grid [" + warps + "]");
    std::string wmI = inlineIds ? "warp_id 0" : fresh("wm");
    if (!inlineIds)
      out_.line("let " + wmI + " = warp_id 0 in");
    std::string wnI = "0";
    if (wn) {
      wnI = inlineIds ? "warp_id 1" : fresh("wn");
      if (!inlineIds)
        out_.line("let " + wnI + " = warp_id 1 in");
    }
    // The warp's row count, spelled as an author might.
    std::string tmE = lit(tm);
    unsigned spelling = r_.below(100);
    if (spelling < 8) {
      feature("exact-div-index");
      tmE = "(" + lit(bm) + " / " + std::to_string(wm) + ")";
    } else if (spelling < 10) {
      feature("floor-div-index");
      std::string per = fresh("per_warp");
      out_.line("let " + per + " = floor_div " + lit(bm) + " " + std::to_string(wm) + " in");
      tmE = per;
    }
    std::string rowE;
    if (!inlineIds || r_.percent(50)) {
      std::string row = fresh("row");
      out_.line("let " + row + " = " + bmI + " * " + lit(bm) + " + " + wmI + " * " + tmE + " in");
      rowE = row;
      if (r_.percent(8)) {
        feature("let-alias");
        std::string alias = fresh("r");
        out_.line("let " + alias + " = " + row + " in");
        rowE = alias;
      }
    } else {
      rowE = bmI + " * " + lit(bm) + " + " + wmI + " * " + tmE;
    }
    WarpEnv env;
    env.dtype = dt;
    env.tm = tm;
    env.tn = tn;
    if (!constM) // a literal extent is an integer scalar, not an index value
      env.indices.push_back(M);
    if (!inlineIds) {
      env.indices.push_back(bmI);
      env.warpIdx = wmI;
    }
    if (!scalar.empty())
      env.scalars.push_back(scalar);

    // Tiles.
    std::vector<std::string> xr;
    for (int i = 0; i < inputs; ++i)
      xr.push_back(declareTile(env, "xr", inTypes[i], tm, tn));
    std::string acc = declareTile(env, "t", dt, tm, tn);
    TileVar accVar = env.tiles.back();
    env.tiles.pop_back(); // not an operand before its first assignment
    std::string br;
    if (column)
      br = declareTile(env, "br", dt, tm, 1);
    std::string mr;
    if (!mutName.empty())
      mr = declareTile(env, "mr", dt, tm, tn);
    bool oneD = r_.percent(3);
    std::string flat;
    if (oneD) {
      feature("tile-1d");
      flat = fresh("flat");
      out_.line("register " + flat + " : " + tileType(dt, tm * tn, 0));
    }

    std::string loopVar, batchVar, colBase;
    if (loopCols) {
      feature("for-dim");
      loopVar = fresh("j");
      if (r_.percent(15)) {
        // for j in (1 .. N/bn + 1) over column block j - 1.
        feature("for-shifted");
        out_.open("for " + loopVar + " in (1 .. " + N + "/" + lit(bn) + " + 1)");
        colBase = loopVar + " - 1";
      } else {
        out_.open("for " + loopVar + " in (0 .. " + N + "/" + lit(bn) + ")");
        colBase = loopVar;
      }
      env.indices.push_back(loopVar);
    }
    if (batch && !grid3) {
      feature("for-dim");
      batchVar = fresh("b");
      out_.open("for " + batchVar + " in (0 .. " + B + ")");
      env.indices.push_back(batchVar);
    }
    if (grid3) {
      batchVar = fresh("bb");
      out_.line("let " + batchVar + " = block_id 2 in");
    }
    if (!loopCols)
      colBase = bnI.empty() ? "0" : bnI;
    std::string colE =
        "(" + colBase + ") * " + lit(bn) + (wn ? " + (" + wnI + ") * " + lit(tn) : "");
    if (colBase.find(' ') == std::string::npos)
      colE = colBase + " * " + lit(bn) + (wn ? " + " + wnI + " * " + lit(tn) : "");
    if (!batch && !bnI.empty() && r_.percent(40)) {
      std::string col = fresh("col");
      out_.line("let " + col + " = " + colE + " in");
      colE = col;
    }
    std::string prefix = batch ? batchVar + ", " : "";
    auto window = [&](const std::string &name, int cols = -1) {
      return name + "[" + prefix + rowE + " ..+ " + lit(tm) + ", " +
             (cols == 1 ? "0 ..+ 1" : colE + " ..+ " + lit(tn)) + "]";
    };
    for (int i = 0; i < inputs; ++i) {
      if (r_.percent(12)) {
        feature("let-view");
        std::string v = fresh("view");
        out_.line("let " + v + " = " + window(ins[i]) + " in");
        out_.line(xr[i] + " <- " + v);
      } else {
        out_.line(xr[i] + " <- " + window(ins[i]));
      }
    }
    if (column)
      out_.line(br + " <- " + bias + "[" + rowE + " ..+ " + lit(tm) + ", 0 ..+ 1]");
    if (!batch && inTypes[0] == dt && r_.percent(10)) {
      // One column of an input as an [R, 1] operand.
      feature("column-slice");
      std::string cs = fresh("cs");
      out_.line("register " + cs + " : " + tileType(dt, tm, 1));
      out_.line(cs + " <- " + ins[0] + "[" + rowE + " ..+ " + lit(tm) + ", " + colE + " ..+ 1]");
      env.columns.push_back({cs, dt, tm, 1});
    }
    if (!mr.empty())
      out_.line(mr + " <- " + window(mutName));
    out_.line(acc + " <- " + tileExpr(env, 1));
    env.tiles.push_back(accVar);
    if (oneD) {
      out_.line(flat + " <- fill 1.0");
    }
    computeStatements(env, inlineIds ? "" : bmI, r_.range(0, o_.maxStatements));

    std::string value = r_.percent(50) ? tileExpr(env, 1 + r_.below(2)) : acc;
    if (staged) {
      std::string win = st + "[" + wmI + " * " + lit(tm) + " ..+ " + lit(tm) + ", " +
                        (wn ? wnI + " * " + lit(tn) : "0") + " ..+ " + lit(tn) + "]";
      out_.line(win + " <- " + value);
      out_.line("block_sync");
      out_.line(acc + " <- " + win);
      if (loopCols) // the next iteration overwrites what this one read
        out_.line("block_sync");
      value = acc;
      feature("block_sync");
    }
    if (!mr.empty()) {
      out_.line(window(mutName) + " <- " + arg(value));
      value = mr;
    }
    if (odt != dt)
      value = "convert " + odt + " " + arg(value);
    if (r_.percent(10) && !inlineIds) {
      feature("if-store");
      out_.open("if " + blockCondition(bmI));
      out_.line(window(out) + " <- " + value);
      out_.reopen("else");
      out_.line(window(out) + " <- " + (odt != dt ? "convert " + odt + " " + arg(acc) : acc));
      out_.close();
    } else {
      out_.line(window(out) + " <- " + value);
    }
    if (batch && !grid3)
      out_.close();
    if (loopCols)
      out_.close();
    out_.close(); // warp_grid
    out_.close(); // block_grid
    out_.close(); // kernel
    if (inputs == 1 && !column && scalar.empty() && mutName.empty() && !batch && !constN &&
        dt == odt && dt == inTypes[0])
      launchable_.push_back({h.name, dt, "", {M, N}});
    if (launchable_.size() && launchable_.back().name == h.name) {
      std::string req;
      for (const std::string &c : h.facts)
        req += "    requires (" + c + ")\n";
      launchable_.back().facts = req;
    }
  }

  /// out[i, 0] = reduction over j of f(x[i, j]), walking the row in chunks.
  void rowReduction() {
    feature("template-row-reduction");
    Header h;
    h.name = fresh("rowred");
    std::string dt = r_.percent(80) ? "F32" : pickDType();
    noteDType(dt);
    int wm = r_.pick(std::vector<int>{1, 2, 4, 4, 8});
    int tm = r_.pick(std::vector<int>{16, 16, 32});
    int tn = r_.pick(std::vector<int>{32, 64, 128, 128});
    fitRegisters(tm, tn, dt, 3);
    int bm = wm * tm;
    std::string M = "M", N = "N";
    h.dims = {M, N};
    h.facts = {M + " mod " + lit(bm) + " = 0", N + " mod " + lit(tn) + " = 0"};
    extraRequires(h, N, tn);
    h.params.push_back("(x : " + globalTensor(dt, M + ", " + N) + ")");
    std::string out = "out";
    h.result = resultDecl(globalTensor(dt, M + ", 1"), out);
    emitHeader(h);
    out_.open("block_grid [" + M + "/" + lit(bm) + "]");
    feature("block-grid-1d");
    out_.line("let bm = block_id 0 in");
    out_.open("warp_grid [" + std::to_string(wm) + "]");
    feature("warp-grid-1d");
    out_.line("let row = bm * " + lit(bm) + " + warp_id 0 * " + lit(tm) + " in");
    WarpEnv env;
    env.dtype = dt;
    env.tm = tm;
    env.tn = tn;
    std::string acc = declareTile(env, "acc", dt, tm, 1);
    std::string xr = declareTile(env, "xr", dt, tm, tn);
    bool isMax = r_.percent(40);
    feature(isMax ? "row_max" : "row_sum");
    out_.line(acc + " <- fill " + (isMax ? "(-3.0e38)" : "0.0"));
    feature("fill");
    feature("for-dim");
    std::string j = fresh("j");
    out_.open("for " + j + " in (0 .. " + N + "/" + lit(tn) + ")");
    out_.line(xr + " <- x[row ..+ " + lit(tm) + ", " + j + " * " + lit(tn) + " ..+ " + lit(tn) +
              "]");
    env.columns.clear(); // the accumulator is not an operand inside the chunk
    std::string f = isMax ? "row_max" : "row_sum";
    std::string combine = isMax ? "max" : "add";
    out_.line(acc + " <- " + combine + " " + acc + " (" + f + " " +
              arg(tileExpr(env, r_.below(3))) + ")");
    out_.close();
    std::string value = acc;
    if (r_.percent(30)) {
      feature("column-arith");
      value = "mul " + acc + " " + floatLit();
    }
    out_.line(out + "[row ..+ " + lit(tm) + ", 0 ..+ 1] <- " + value);
    out_.close();
    out_.close();
    out_.close();
  }

  /// Row softmax in three passes (stdlib/softmax.kina's shape).
  void softmax() {
    feature("template-softmax");
    Header h;
    h.name = fresh("softmax");
    int wm = r_.pick(std::vector<int>{2, 4, 4});
    int tm = 16;
    int tn = r_.pick(std::vector<int>{64, 128});
    int bm = wm * tm;
    h.dims = {"M", "N"};
    h.facts = {"M mod " + lit(bm) + " = 0", "N mod " + lit(tn) + " = 0"};
    h.params.push_back("(x : " + globalTensor("F32", "M, N") + ")");
    std::string out = "out";
    h.result = resultDecl(globalTensor("F32", "M, N"), out);
    emitHeader(h);
    noteDType("F32");
    out_.open("block_grid [M/" + lit(bm) + "]");
    out_.line("let bm = block_id 0 in");
    out_.open("warp_grid [" + std::to_string(wm) + "]");
    out_.line("let row = bm * " + lit(bm) + " + warp_id 0 * 16 in");
    out_.line("register mx : " + tileType("F32", 16, 1));
    out_.line("register total : " + tileType("F32", 16, 1));
    out_.line("register xr : " + tileType("F32", 16, tn));
    std::string win = "x[row ..+ 16, j * " + lit(tn) + " ..+ " + lit(tn) + "]";
    out_.line("mx <- fill (-3.0e38)");
    out_.open("for j in (0 .. N/" + lit(tn) + ")");
    out_.line("xr <- " + win);
    out_.line("mx <- max mx (row_max xr)");
    out_.close();
    out_.line("total <- fill 0.0");
    out_.open("for j in (0 .. N/" + lit(tn) + ")");
    out_.line("xr <- " + win);
    out_.line("total <- add total (row_sum (exp (sub xr mx)))");
    out_.close();
    out_.open("for j in (0 .. N/" + lit(tn) + ")");
    out_.line("xr <- " + win);
    out_.line(out + "[row ..+ 16, j * " + lit(tn) + " ..+ " + lit(tn) +
              "] <- div (exp (sub xr mx)) total");
    out_.close();
    out_.close();
    out_.close();
    out_.close();
    for (const char *f : {"row_max", "row_sum", "exp", "sub", "div", "max", "add", "fill",
                          "for-dim", "broadcast-column", "block-grid-1d", "warp-grid-1d"})
      feature(f);
  }

  /// Transpose through a shared tile: warps store rows, sync, read columns.
  void transposeShared() {
    feature("template-transpose");
    feature("transpose");
    feature("shared-store");
    feature("block_sync");
    Header h;
    h.name = fresh("transpose");
    std::string dt =
        r_.percent(75) ? "F32" : r_.pick(std::vector<std::string>{"F16", "BF16", "I32"});
    noteDType(dt);
    int b = r_.pick(std::vector<int>{32, 64, 64, 128});
    std::vector<int> warpsFor;
    for (int w : {1, 2, 4, 8})
      if (b / w >= 16 && b * (b / w) * static_cast<int>(dtypeBytes(dt)) / 128 * 2 <= 200)
        warpsFor.push_back(w);
    if (warpsFor.empty()) {
      b = 64;
      warpsFor = {4};
    }
    int w = r_.pick(warpsFor);
    int tm = b / w;
    h.dims = {"M", "N"};
    h.facts = {"M mod " + lit(b) + " = 0", "N mod " + lit(b) + " = 0"};
    h.params.push_back("(x : " + globalTensor(dt, "M, N") + ")");
    std::string out = "out";
    h.result = resultDecl(globalTensor(dt, "N, M"), out);
    emitHeader(h);
    out_.open("block_grid [M/" + lit(b) + ", N/" + lit(b) + "]");
    feature("block-grid-2d");
    out_.line("let bm = block_id 0 in");
    out_.line("let bn = block_id 1 in");
    out_.line("shared staged : " + tileType(dt, b, b, "shared"));
    out_.open("warp_grid [" + std::to_string(w) + "]");
    feature("warp-grid-1d");
    out_.line("let w = warp_id 0 in");
    out_.line("register rows : " + tileType(dt, tm, b));
    out_.line("register cols : " + tileType(dt, b, tm));
    out_.line("rows <- x[bm * " + lit(b) + " + w * " + lit(tm) + " ..+ " + lit(tm) + ", bn * " +
              lit(b) + " ..+ " + lit(b) + "]");
    std::string staged = "rows";
    if (r_.percent(30) && isFloat(dt)) {
      staged = "relu rows";
      feature("relu");
    }
    out_.line("staged[w * " + lit(tm) + " ..+ " + lit(tm) + ", 0 ..+ " + lit(b) + "] <- " + staged);
    out_.line("block_sync");
    out_.line("cols <- staged[0 ..+ " + lit(b) + ", w * " + lit(tm) + " ..+ " + lit(tm) + "]");
    out_.line(out + "[bn * " + lit(b) + " + w * " + lit(tm) + " ..+ " + lit(tm) + ", bm * " +
              lit(b) + " ..+ " + lit(b) + "] <- transpose cols");
    out_.close();
    out_.close();
    out_.close();
  }

  /// Global -> shared with cp_async, commit, wait, block_sync, then compute:
  /// one block tile, a loop accumulating row sums, or a double buffer.
  void cpAsyncStaging() {
    feature("template-cp-async");
    feature("cp_async");
    feature("cp_async_commit");
    feature("block_sync");
    Header h;
    h.name = fresh("staged");
    std::string dt = r_.pick(std::vector<std::string>{"F32", "F32", "F16", "BF16"});
    noteDType(dt);
    unsigned variant = r_.below(3); // 0 single, 1 loop, 2 double buffer
    auto [wm, wn] = pickWarps();
    if (variant != 0)
      wn = 0; // a warp reduces whole chunk rows
    int wnn = wn == 0 ? 1 : wn;
    int tm = r_.pick(std::vector<int>{16, 32});
    int tn = r_.pick(std::vector<int>{16, 32, 64});
    fitRegisters(tm, tn, dt, 4);
    int stageCount = variant == 2 ? 2 : 1;
    while (wm * tm * wnn * tn * static_cast<int>(dtypeBytes(dt)) * stageCount > 48 * 1024 &&
           (tn > 16 || tm > 16)) {
      if (tn > 16)
        tn /= 2;
      else
        tm /= 2;
    }
    int bm = wm * tm, bn = wnn * tn;
    h.dims = {"M", "N"};
    h.facts = {"M mod " + lit(bm) + " = 0", "N mod " + lit(bn) + " = 0"};
    if (variant == 2)
      h.facts.push_back("N >= " + lit(bn));
    h.caps.push_back("cp_async");
    h.params.push_back("(x : " + globalTensor(dt, "M, N") + ")");
    std::string out = "out";
    bool reduce = variant != 0;
    h.result = resultDecl(globalTensor(dt, reduce ? "M, 1" : "M, N"), out);
    emitHeader(h);
    out_.open(variant == 0 ? "block_grid [M/" + lit(bm) + ", N/" + lit(bn) + "]"
                           : "block_grid [M/" + lit(bm) + "]");
    feature(variant == 0 ? "block-grid-2d" : "block-grid-1d");
    out_.line("let bm = block_id 0 in");
    if (variant == 0)
      out_.line("let bn = block_id 1 in");
    int stages = variant == 2 ? 2 : 1;
    if (variant == 2)
      feature("shared-stages");
    std::string stShape = variant == 2 ? "2, " + std::to_string(bm) + ", " + std::to_string(bn)
                                       : std::to_string(bm) + ", " + std::to_string(bn);
    out_.line("shared st : Tile[" + dt + ", [" + stShape + "], on=cuda:shared]");
    std::string warps = std::to_string(wm) + (wn ? ", " + std::to_string(wn) : "");
    out_.open("warp_grid [" + warps + "]");
    out_.line("let wm = warp_id 0 in");
    std::string wnE = "0";
    if (wn) {
      out_.line("let wn = warp_id 1 in");
      wnE = "wn * " + lit(tn);
    }
    WarpEnv env;
    env.dtype = dt;
    env.tm = tm;
    env.tn = tn;
    std::string t = declareTile(env, "t", dt, tm, tn);
    auto wait = [&](unsigned keep) {
      if (keep == 0 && r_.percent(50)) {
        feature("cp_async_wait_all");
        out_.line("cp_async_wait_all");
      } else {
        feature("cp_async_wait_group");
        out_.line("cp_async_wait_group " + std::to_string(keep));
      }
    };
    std::string mine = "wm * " + lit(tm) + " ..+ " + lit(tm) + ", " + wnE + " ..+ " + lit(tn);
    if (variant == 0) {
      bool whole = wm == 1 && wnn == 1 && r_.percent(50);
      out_.line("cp_async st <- x[bm * " + lit(bm) + " ..+ " + lit(bm) + ", bn * " + lit(bn) +
                " ..+ " + lit(bn) + "]");
      out_.line("cp_async_commit");
      wait(0);
      out_.line("block_sync");
      if (whole) {
        feature("unsliced-shared-load");
        out_.line(t + " <- st");
      } else {
        out_.line(t + " <- st[" + mine + "]");
      }
      computeStatements(env, "bm", r_.range(0, 3));
      std::string value = r_.percent(50) ? tileExpr(env, 1 + r_.below(2)) : t;
      out_.line(out + "[bm * " + lit(bm) + " + wm * " + lit(tm) + " ..+ " + lit(tm) + ", bn * " +
                lit(bn) + (wn ? " + wn * " + lit(tn) : "") + " ..+ " + lit(tn) + "] <- " + value);
    } else {
      std::string acc = declareTile(env, "acc", dt, tm, 1);
      env.columns.clear();
      out_.line(acc + " <- fill 0.0");
      feature("row_sum");
      feature("for-dim");
      if (variant == 1) {
        out_.open("for j in (0 .. N/" + lit(bn) + ")");
        out_.line("cp_async st <- x[bm * " + lit(bm) + " ..+ " + lit(bm) + ", j * " + lit(bn) +
                  " ..+ " + lit(bn) + "]");
        out_.line("cp_async_commit");
        wait(0);
        out_.line("block_sync");
        out_.line(t + " <- st[" + mine + "]");
      } else {
        out_.line("cp_async st[0, 0 ..+ " + lit(bm) + ", 0 ..+ " + lit(bn) + "] <- x[bm * " +
                  lit(bm) + " ..+ " + lit(bm) + ", 0 ..+ " + lit(bn) + "]");
        out_.line("cp_async_commit");
        out_.open("for j in (0 .. N/" + lit(bn) + ")");
        out_.open("if j + 1 < N/" + lit(bn));
        out_.line("cp_async st[(j + 1) mod 2, 0 ..+ " + lit(bm) + ", 0 ..+ " + lit(bn) +
                  "] <- x[bm * " + lit(bm) + " ..+ " + lit(bm) + ", (j + 1) * " + lit(bn) +
                  " ..+ " + lit(bn) + "]");
        out_.close();
        out_.line("cp_async_commit");
        wait(1);
        out_.line("block_sync");
        out_.line(t + " <- st[j mod " + std::to_string(stages) + ", " + mine + "]");
      }
      out_.line(acc + " <- add " + acc + " (row_sum " + arg(tileExpr(env, r_.below(2))) + ")");
      out_.line("block_sync");
      out_.close();
      out_.line(out + "[bm * " + lit(bm) + " + wm * " + lit(tm) + " ..+ " + lit(tm) +
                ", 0 ..+ 1] <- " + acc);
    }
    out_.close();
    out_.close();
    out_.close();
  }

  /// Tensor-core GEMM: single stage (stdlib/gemm_tc.kina) or an S-stage
  /// cp.async pipeline (stdlib/gemm_f16_pipelined.kina), with an epilogue.
  void gemm() {
    feature("template-gemm");
    feature("wmma_mma");
    feature("cp_async");
    feature("block_sync");
    Header h;
    h.name = fresh("gemm");
    std::string in = r_.percent(75) ? "F16" : "BF16";
    std::string accT = "F32";
    if (in == "F16" && r_.percent(8)) {
      accT = "F16";
      feature("mma-f16-accumulator");
    }
    // int8 (docs/language.md "int8 MMA"): I8 x I8 -> I32, B stored [N, K]
    // and read as `transpose b_s[...]`, by mma.sync m16n8k32 or dp4a_mma.
    bool int8 = r_.percent(12);
    bool dp4a = int8 && r_.percent(35);
    if (int8) {
      in = "I8";
      accT = "I32";
      feature(dp4a ? "dp4a_mma" : "mma-int8");
    }
    std::string mmaOp = dp4a ? "dp4a_mma" : "wmma_mma";
    noteDType(in);
    noteDType(accT);
    std::string lc = in == "F16" ? "f16" : "bf16";
    std::string cap = "mma_m16n16k16_" + lc + "_" + lc + "_" + (accT == "F32" ? "f32" : "f16");
    if (int8)
      cap = dp4a ? "dp4a" : "mma_m16n8k32_s8_s8_s32";
    static const std::vector<std::pair<int, int>> layouts = {{2, 2}, {2, 4}, {4, 2}, {1, 4}, {4, 1},
                                                             {2, 1}, {1, 1}, {2, 0}, {4, 0}};
    static const std::vector<std::pair<int, int>> unusual = {{3, 0}, {1, 3}, {3, 2},
                                                             {8, 2}, {4, 4}, {8, 0}};
    auto [wm, wn] = r_.percent(10) ? r_.pick(unusual) : r_.pick(layouts);
    if (wm * std::max(1, wn) % 2 == 1 || wm * std::max(1, wn) > 8)
      feature("warp-grid-unusual");
    feature(wn == 0 ? "warp-grid-1d" : "warp-grid-2d");
    int wnn = wn == 0 ? 1 : wn;
    int tm = r_.pick(std::vector<int>{16, 32, 64, 64, 128});
    int tn = r_.pick(std::vector<int>{16, 32, 64, 128});
    while (tm * tn * static_cast<int>(dtypeBytes(accT)) / 128 > 128)
      tn /= 2;
    int bk = r_.pick(std::vector<int>{16, 32, 32, 64, 128});
    int stages = r_.percent(55) ? 1 : r_.range(2, 4);
    int bm = wm * tm, bn = wnn * tn;
    // An int8 wmma_mma steps k by 32 (m16n8k32).
    int minBk = int8 && !dp4a ? 32 : 16;
    bk = std::max(bk, minBk);
    while (stages * (bm * bk + bk * bn) * 2 > 96 * 1024 && bk > minBk)
      bk /= 2;
    h.dims = {"M", "N", "K"};
    h.facts = {"M mod " + lit(bm) + " = 0", "N mod " + lit(bn) + " = 0",
               "K mod " + lit(bk) + " = 0"};
    if (stages > 1) {
      h.facts.push_back("K >= " + lit((stages - 1) * bk));
      feature("shared-stages");
      feature("pipeline");
    }
    // Single-stage variant without cp_async: each warp loads a slab of A and
    // of B into registers and stores it into the shared tiles.
    int warpsTotal = wm * wnn;
    bool regStaged = stages == 1 && (bm / warpsTotal) % 16 == 0 && bm % warpsTotal == 0 &&
                     bn % warpsTotal == 0 && (bn / warpsTotal) % (int8 ? 16 : 8) == 0 &&
                     r_.percent(30);
    h.caps = {cap};
    if (!regStaged)
      h.caps.push_back("cp_async");
    h.params.push_back("(a : " + globalTensor(in, "M, K") + ")");
    h.params.push_back("(b : " + globalTensor(in, int8 ? "N, K" : "K, N") + ")");
    bool bias = !int8 && r_.percent(15);
    if (bias) {
      feature("column-input");
      h.params.push_back("(bias : " + globalTensor(accT, "M, 1") + ")");
    }
    std::string odt = accT;
    if (accT == "F32" && r_.percent(15)) {
      odt = "F16";
      feature("convert-store");
    }
    std::string out = "c";
    h.result = resultDecl(globalTensor(odt, "M, N"), out);
    emitHeader(h);
    out_.open("block_grid [M/" + lit(bm) + ", N/" + lit(bn) + "]");
    feature("block-grid-2d");
    out_.line("let block_m = block_id 0 in");
    out_.line("let block_n = block_id 1 in");
    std::string sa = stages > 1 ? std::to_string(stages) + ", " : "";
    out_.line("shared a_s : Tile[" + in + ", [" + sa + std::to_string(bm) + ", " +
              std::to_string(bk) + "], on=cuda:shared]");
    out_.line("shared b_s : Tile[" + in + ", [" + sa +
              (int8 ? std::to_string(bn) + ", " + std::to_string(bk)
                    : std::to_string(bk) + ", " + std::to_string(bn)) +
              "], on=cuda:shared]");
    std::string warps = std::to_string(wm) + (wn ? ", " + std::to_string(wn) : "");
    out_.open("warp_grid [" + warps + "]");
    out_.line("let warp_m = warp_id 0 in");
    std::string wnE = "0";
    if (wn) {
      out_.line("let warp_n = warp_id 1 in");
      wnE = "warp_n * " + lit(tn);
    }
    out_.line("register acc : " + tileType(accT, tm, tn));
    out_.line(int8 ? "acc <- fill 0" : "acc <- fill 0.0");
    feature("fill");
    std::string aWin = "warp_m * " + lit(tm) + " ..+ " + lit(tm) + ", 0 ..+ " + lit(bk);
    std::string bWin = int8 ? wnE + " ..+ " + lit(tn) + ", 0 ..+ " + lit(bk)
                            : "0 ..+ " + lit(bk) + ", " + wnE + " ..+ " + lit(tn);
    // The B operand: `b_s[...]`, or for int8 `(transpose b_s[...])`.
    auto bOperand = [&](const std::string &stage) {
      std::string v = "b_s[" + stage + bWin + "]";
      return int8 ? "(transpose " + v + ")" : v;
    };
    std::string accIn = "acc";
    if (!int8 && r_.percent(8)) {
      feature("mma-expression-accumulator");
      accIn = "(mul acc 1.0)";
    }
    auto copies = [&](const std::string &stage, const std::string &kExpr) {
      std::string st = stage.empty() ? "" : stage + ", ";
      out_.line("cp_async a_s" +
                (stage.empty() ? std::string()
                               : "[" + st + "0 ..+ " + lit(bm) + ", 0 ..+ " + lit(bk) + "]") +
                " <- a[block_m * " + lit(bm) + " ..+ " + lit(bm) + ", " + kExpr + " ..+ " +
                lit(bk) + "]");
      if (int8) {
        out_.line("cp_async b_s" +
                  (stage.empty() ? std::string()
                                 : "[" + st + "0 ..+ " + lit(bn) + ", 0 ..+ " + lit(bk) + "]") +
                  " <- b[block_n * " + lit(bn) + " ..+ " + lit(bn) + ", " + kExpr + " ..+ " +
                  lit(bk) + "]");
        return;
      }
      out_.line("cp_async b_s" +
                (stage.empty() ? std::string()
                               : "[" + st + "0 ..+ " + lit(bk) + ", 0 ..+ " + lit(bn) + "]") +
                " <- b[" + kExpr + " ..+ " + lit(bk) + ", block_n * " + lit(bn) + " ..+ " +
                lit(bn) + "]");
    };
    if (regStaged) {
      feature("shared-store-mma");
      feature("shared-store");
      int ra = bm / warpsTotal, cb = bn / warpsTotal;
      std::string w = wn ? "warp_m * " + std::to_string(wn) + " + warp_n" : "warp_m";
      out_.line("let w = " + w + " in");
      out_.line("register a_r : " + tileType(in, ra, bk));
      out_.line("register b_r : " + (int8 ? tileType(in, cb, bk) : tileType(in, bk, cb)));
      out_.open("for k in (0 .. K/" + lit(bk) + ")");
      out_.line("a_r <- a[block_m * " + lit(bm) + " + w * " + lit(ra) + " ..+ " + lit(ra) +
                ", k * " + lit(bk) + " ..+ " + lit(bk) + "]");
      if (int8)
        out_.line("b_r <- b[block_n * " + lit(bn) + " + w * " + lit(cb) + " ..+ " + lit(cb) +
                  ", k * " + lit(bk) + " ..+ " + lit(bk) + "]");
      else
        out_.line("b_r <- b[k * " + lit(bk) + " ..+ " + lit(bk) + ", block_n * " + lit(bn) +
                  " + w * " + lit(cb) + " ..+ " + lit(cb) + "]");
      out_.line("a_s[w * " + lit(ra) + " ..+ " + lit(ra) + ", 0 ..+ " + lit(bk) + "] <- a_r");
      if (int8)
        out_.line("b_s[w * " + lit(cb) + " ..+ " + lit(cb) + ", 0 ..+ " + lit(bk) + "] <- b_r");
      else
        out_.line("b_s[0 ..+ " + lit(bk) + ", w * " + lit(cb) + " ..+ " + lit(cb) + "] <- b_r");
      out_.line("block_sync");
      out_.line("acc <- " + mmaOp + " " + accIn + " a_s[" + aWin + "] " + bOperand(""));
      out_.line("block_sync");
      out_.close();
    } else if (stages == 1) {
      out_.open("for k in (0 .. K/" + lit(bk) + ")");
      copies("", "k * " + lit(bk));
      out_.line("cp_async_commit");
      if (r_.percent(50)) {
        feature("cp_async_wait_all");
        out_.line("cp_async_wait_all");
      } else {
        feature("cp_async_wait_group");
        out_.line("cp_async_wait_group 0");
      }
      out_.line("block_sync");
      out_.line("acc <- " + mmaOp + " " + accIn + " a_s[" + aWin + "] " + bOperand(""));
      out_.line("block_sync");
      out_.close();
    } else {
      feature("cp_async_wait_group");
      if (r_.percent(50)) {
        out_.open("for s in (0 .. " + std::to_string(stages - 1) + ")");
        copies("s", "s * " + lit(bk));
        out_.line("cp_async_commit");
        out_.close();
      } else {
        feature("prologue-unrolled");
        for (int s = 0; s < stages - 1; ++s) {
          copies(std::to_string(s), std::to_string(s * bk));
          out_.line("cp_async_commit");
        }
      }
      std::string S = std::to_string(stages);
      out_.open("for k in (0 .. K/" + lit(bk) + ")");
      out_.line("cp_async_wait_group " + std::to_string(stages - 2));
      out_.line("block_sync");
      out_.line("acc <- " + mmaOp + " " + accIn + " a_s[k mod " + S + ", " + aWin + "] " +
                bOperand("k mod " + S + ", "));
      std::string ahead = std::to_string(stages - 1);
      out_.open("if k + " + ahead + " < K/" + lit(bk));
      copies("(k + " + ahead + ") mod " + S, "(k + " + ahead + ") * " + lit(bk));
      out_.close();
      out_.line("cp_async_commit");
      out_.close();
    }
    std::string value = "acc";
    unsigned epi = r_.below(100);
    if (bias) {
      out_.line("register br : " + tileType(accT, tm, 1));
      out_.line("br <- bias[block_m * " + lit(bm) + " + warp_m * " + lit(tm) + " ..+ " + lit(tm) +
                ", 0 ..+ 1]");
      value = "add acc br";
      feature("broadcast-column");
    } else if (epi < 20) {
      value = "relu acc";
      feature("relu");
    } else if (epi < 35 && !int8) {
      value = "mul acc " + floatLit();
      feature("broadcast-scalar");
    }
    if (odt != accT)
      value = "convert " + odt + " " + arg(value);
    out_.line(out + "[block_m * " + lit(bm) + " + warp_m * " + lit(tm) + " ..+ " + lit(tm) +
              ", block_n * " + lit(bn) + (wn ? " + warp_n * " + lit(tn) : "") + " ..+ " + lit(tn) +
              "] <- " + value);
    out_.close();
    out_.close();
    out_.close();
  }

  // ---------------------------------------------------- other items

  /// Register-only tile functions (docs/language.md's scale_rows and a
  /// monomorphic one), called from elementwise bodies.
  void tileFunctions() {
    feature("tile-function");
    std::string dt = "F32";
    if (r_.percent(50)) {
      TileFn f{fresh("scale_rows"), dt, 0, 0, true};
      out_.line("tile " + f.name + " [R, C]");
      out_.line("    requires (R mod 16 = 0)");
      out_.line("    (x : Tile[" + dt + ", [R, C], on=cuda:register])");
      out_.line("    (s : Tile[" + dt + ", [R, 1], on=cuda:register])");
      out_.open("    : Tile[" + dt + ", [R, C], on=cuda:register]");
      out_.line("return mul x s");
      out_.close();
      tileFns_.push_back(f);
    } else {
      int tm = 16, tn = r_.pick(std::vector<int>{16, 32, 64});
      TileFn f{fresh("twice"), dt, tm, tn, false};
      out_.line("tile " + f.name);
      out_.line("    (t : " + tileType(dt, tm, tn) + ")");
      out_.open("    : " + tileType(dt, tm, tn));
      out_.line(r_.percent(50) ? "return add t t" : "return relu (mul t 2.0)");
      out_.close();
      tileFns_.push_back(f);
      if (r_.percent(40)) {
        // A tile function calling a tile function (capabilities and
        // requires flow through both).
        feature("tile-call-nested");
        out_.blank();
        TileFn g{fresh("quad"), dt, tm, tn, false};
        out_.line("tile " + g.name);
        out_.line("    (t : " + tileType(dt, tm, tn) + ")");
        out_.open("    : " + tileType(dt, tm, tn));
        out_.line("let u = " + f.name + " t in");
        out_.line("return " + f.name + " u");
        out_.close();
        tileFns_.insert(tileFns_.begin(), g);
      }
    }
    out_.blank();
  }

  /// A host function: algebraic code, or a launch of a generated kernel.
  void hostFunction() {
    out_.blank();
    feature("host-function");
    if (!launchable_.empty() && r_.percent(60)) {
      feature("host-launch");
      const Launchable &k = launchable_.back();
      std::string shape = k.dims[0] + ", " + k.dims[1];
      out_.line("fn " + fresh("run_") + "_" + k.name);
      out_.line("    [" + shape + "]");
      out_.text() += k.facts;
      out_.line("    (x : Tensor[" + k.dtype + ", [" + shape + "], on=host])");
      out_.open("    : Tensor[" + k.dtype + ", [" + shape + "], on=host]");
      out_.line("return copy_to_host (" + k.name + " (copy_to_device x))");
      out_.close();
      return;
    }
    out_.line("fn " + fresh("forward") +
              " [M] (x : Tensor[F32, [M, M], on=host]) : Tensor[F32, [M, "
              "M], on=host] {");
    out_.line("  let d = copy_to_device x in");
    out_.line("  return copy_to_host (matmul d d)");
    out_.line("}");
  }
};

} // namespace

GeneratedProgram generateProgram(uint64_t seed, uint64_t index, const GeneratorOptions &options) {
  // Program i of a run does not depend on how many came before it.
  Rng mix(seed ^ (index * 0x9e3779b97f4a7c15ULL));
  ProgramGen gen(mix.next(), options);
  GeneratedProgram p = gen.run();
  appendMaskedKernel(p, mix.next()); // GenerateMasked.cpp (masks and ragged edges)
  appendGridKernel(p, mix.next());   // GenerateGrid.cpp (persistent tile walks)
  appendBcastKernel(p, mix.next());  // GenerateBcast.cpp (broadcasts, block reductions)
  appendMmaKernel(p, mix.next());    // GenerateMma.cpp (MMA operands)
  appendTunedKernel(p, mix.next());  // GenerateTune.cpp (tune parameters)
  p.text = "// kina-property seed=" + std::to_string(seed) + " index=" + std::to_string(index) +
           "\n" + p.text;
  return p;
}

const std::set<std::string> &allFeatures() {
  static const std::set<std::string> all = [] {
    std::set<std::string> s;
    // Run the generator over a fixed sample: every feature it can emit
    // appears within a few thousand programs.
    GeneratorOptions o;
    for (uint64_t i = 0; i < 4000; ++i)
      for (const std::string &f : generateProgram(1, i, o).features)
        s.insert(f);
    return s;
  }();
  return all;
}

} // namespace kina::property
