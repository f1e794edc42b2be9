//===- Interpreter.cpp - CPU reference semantics of the tile IR ----------===//
//
// Executes a kernel block by block. Within a block all warps run in
// lockstep, op by op, which is a valid schedule for every kernel the fence
// checker accepts (every read of shared data is ordered after its write by a
// barrier, and every overwrite after the last read). Async copies complete
// immediately. Register tiles are per warp; arithmetic is done in double and
// rounded to the destination element type on every store, as the GPU does.
// Blocks run on several host threads.
//
// A kernel with a warpgroup grid runs its warpgroups as coroutines instead:
// each warpgroup executes its own op stream (its role, its loop iterations)
// until it reaches a barrier wait that is not yet satisfied, then the next
// warpgroup runs. Barriers count arrivals and transaction bytes per stage as
// mbarriers do and complete a phase when both reach zero; a TMA load copies
// at once and completes its bytes on its barrier; a wgmma computes at once
// (commit and wait have nothing left to wait for). A wait for round R of a
// stage proceeds once R + 1 phases completed (a round below 0 at once, on a
// barrier that has completed no phase); if fewer than R had completed
// when the wait began, or more than R + 1, the GPU's parity wait would not
// mean round R, and the run fails with that message, as it does when every
// remaining warpgroup waits (a deadlock).
//
//===----------------------------------------------------------------------===//
#include "reference/Interpreter.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

namespace kina::reference {

namespace {

float roundToF16(float x) {
  // IEEE half round-to-nearest-even via bit manipulation of the float.
  uint32_t bits;
  std::memcpy(&bits, &x, 4);
  uint32_t sign = bits & 0x80000000u;
  float a = std::fabs(x);
  if (!(a < 65520.0f))
    return std::isnan(x) ? x : (sign ? -INFINITY : INFINITY);
  if (a < 6.103515625e-05f) { // subnormal half: quantum 2^-24
    float q = std::nearbyint(a * 16777216.0f) / 16777216.0f;
    return sign ? -q : q;
  }
  uint32_t abits;
  std::memcpy(&abits, &a, 4);
  uint32_t lsb = (abits >> 13) & 1u;
  abits += 0x0FFFu + lsb;
  abits &= ~0x1FFFu;
  float r;
  std::memcpy(&r, &abits, 4);
  return sign ? -r : r;
}

float roundToBF16(float x) {
  if (std::isnan(x))
    return x;
  uint32_t bits;
  std::memcpy(&bits, &x, 4);
  uint32_t lsb = (bits >> 16) & 1u;
  bits += 0x7FFFu + lsb;
  bits &= 0xFFFF0000u;
  float r;
  std::memcpy(&r, &bits, 4);
  return r;
}

/// v rounded once to nearest even in a binary format with `fraction` bits
/// after the point and normal exponents from `minExp`, inf past `maxFinite`
/// (as cvt.rn does from an f64 or an integer, and arith.constant does for a
/// literal): rounding to F32 first would round twice, and a value just above
/// a 16-bit midpoint would become the midpoint and go to even.
double roundOnce(double v, int fraction, int minExp, double maxFinite) {
  if (std::isnan(v) || std::isinf(v) || v == 0)
    return v;
  double a = std::fabs(v);
  int e = std::max(std::ilogb(a), minExp);
  double q = std::ldexp(std::nearbyint(std::ldexp(a, fraction - e)), e - fraction); // exact
  if (q > maxFinite)
    q = INFINITY;
  return std::copysign(q, v);
}

} // namespace

namespace {
/// v modulo 2^bits, as a two's-complement (or, `isUnsigned`, plain) value
/// of that width: what the GPU's integer arithmetic leaves in a register.
double wrapInteger(double v, int bits, bool isUnsigned) {
  const double m = std::ldexp(1.0, bits);
  double r = std::fmod(std::nearbyint(v), m); // exact
  if (r < 0)
    r += m;
  if (!isUnsigned && r >= m / 2)
    r -= m;
  return r + 0.0; // an integer 0 is +0 (fmod keeps the sign of -0.0)
}

/// The integer element types' widths (I64 is kept as a double: exact to 2^53).
std::optional<std::pair<int, bool>> integerWidth(ir::DType t) {
  switch (t) {
  case ir::DType::I8:
    return std::pair{8, false};
  case ir::DType::U8:
    return std::pair{8, true};
  case ir::DType::I32:
    return std::pair{32, false};
  default:
    return std::nullopt;
  }
}
} // namespace

double roundTo(ir::DType t, double v) {
  switch (t) {
  case ir::DType::F16: return roundToF16(static_cast<float>(v));
  case ir::DType::BF16: return roundToBF16(static_cast<float>(v));
  case ir::DType::F32: return static_cast<float>(v);
  default:
    break;
  }
  if (auto w = integerWidth(t))
    return wrapInteger(v, w->first, w->second);
  if (t == ir::DType::I64)
    return std::nearbyint(v) + 0.0; // an integer (as a scalar is packed); no -0
  return v;
}

/// add/sub/mul of two integer elements of type t, exactly (64-bit wrapping
/// arithmetic, then t's width): a product of two I32 values needs 62 bits,
/// more than a double holds.
static double integerArithmetic(ir::DType t, char op, double x, double y) {
  auto a = static_cast<uint64_t>(static_cast<int64_t>(x));
  auto b = static_cast<uint64_t>(static_cast<int64_t>(y));
  uint64_t r = op == '+' ? a + b : op == '-' ? a - b : a * b;
  auto w = integerWidth(t);
  if (!w)
    return static_cast<double>(static_cast<int64_t>(r));
  uint64_t mask = (uint64_t{1} << w->first) - 1;
  r &= mask;
  if (!w->second && (r >> (w->first - 1)))
    return static_cast<double>(static_cast<int64_t>(r | ~mask));
  return static_cast<double>(r);
}

/// The math builtins' reference values (docs/math.md), from long double
/// libm: independent of codegen/MathAlgorithms.h, which the GPU runs. The
/// _approx kinds have the exact function's value here; their hardware
/// error is stated in docs/math.md and checked by tests/gpu/math.
static double mathUnary(ir::UnaryKind k, double v) {
  using K = ir::UnaryKind;
  long double x = v;
  const long double sqrt1_2 = 0.70710678118654752440084436210484903928L;
  const long double sqrt2OverPi = 0.79788456080286535587989211986876373695L;
  switch (k) {
  // sqrt and rsqrt are IEEE operations in F64 on the GPU (sqrt.rn; rsqrt is
  // 1 / sqrt.rn, docs/math.md), so they are here too: sqrtl rounded to
  // double rounds twice, 1 ulp off an F64 tile's sqrt.rn where the root lies
  // beside a midpoint. Narrower types then round as the GPU does.
  case K::Sqrt:
    return std::sqrt(v);
  case K::Rsqrt:
    return 1.0 / std::sqrt(v);
  case K::RsqrtApprox:
    return static_cast<double>(1 / std::sqrt(x));
  case K::Exp2:
  case K::Exp2Approx:
    return static_cast<double>(std::exp2(x));
  case K::Log:
    return static_cast<double>(std::log(x));
  case K::Log2:
    return static_cast<double>(std::log2(x));
  case K::Tanh:
  case K::TanhApprox:
    return static_cast<double>(std::tanh(x));
  case K::Erf:
    return static_cast<double>(std::erf(x));
  case K::Sigmoid:
    return static_cast<double>(1 / (1 + std::exp(-x)));
  case K::Silu:
    return static_cast<double>(x / (1 + std::exp(-x)));
  case K::Gelu:
    return static_cast<double>(0.5L * x * std::erfc(-x * sqrt1_2));
  case K::GeluTanh:
  case K::GeluTanhApprox: {
    long double u = sqrt2OverPi * (x + 0.044715L * x * x * x);
    return static_cast<double>(x / (1 + std::exp(-2 * u)));
  }
  case K::Abs:
    return std::fabs(v);
  case K::Floor:
    return std::floor(v);
  case K::Ceil:
    return std::ceil(v);
  default:
    return v;
  }
}

/// pow as docs/math.md defines it: x^y for x >= 0, 1 when y = 0, NaN for
/// x < 0 or a NaN operand otherwise.
static double mathPow(double x, double y) {
  if (y == 0)
    return 1.0;
  if (std::isnan(x) || std::isnan(y) || x < 0)
    return NAN;
  return static_cast<double>(std::pow(static_cast<long double>(x), static_cast<long double>(y)));
}

double convertTo(ir::DType t, double v) {
  if (t == ir::DType::F16)
    return roundOnce(v, 10, -14, 65504.0);
  if (t == ir::DType::BF16)
    return roundOnce(v, 7, -126, 3.3895313892515355e38);
  if (ir::isFloat(t))
    return roundTo(t, v);
  if (std::isnan(v))
    return 0.0;
  v = std::trunc(v) + 0.0; // trunc(-0.5) is -0.0; an integer 0 is +0
  switch (t) {
  case ir::DType::I8:
    return std::clamp(v, -128.0, 127.0);
  case ir::DType::U8:
    return std::clamp(v, 0.0, 255.0);
  case ir::DType::I32:
    return std::clamp(v, -2147483648.0, 2147483647.0);
  case ir::DType::I64:
    return std::clamp(v, -9223372036854775808.0, 9223372036854774784.0);
  default:
    return v;
  }
}

namespace {

struct Tile {
  std::vector<int64_t> shape;
  std::vector<double> data;
  ir::DType dtype = ir::DType::F32;
};

/// One stage of a barrier ring, as an mbarrier counts.
struct BarrierStage {
  int64_t completed = 0; ///< phases completed so far
  int64_t pending = 0;   ///< arrivals still missing in the current phase
  int64_t tx = 0;        ///< transaction bytes expected and not yet delivered
};

class BlockRun;

/// The CTAs of one cluster, when the kernel multicasts or arrives remotely:
/// each runs on its own thread, but only one at a time (the mutex is held
/// for every scheduling pass), so a peer's multicast bytes and remote
/// arrivals land between two passes, as another warpgroup's do. A CTA with
/// no progress sleeps until a peer makes some; when every live CTA of the
/// cluster is blocked, the run is a deadlock.
struct ClusterRun {
  std::vector<BlockRun *> members; ///< by cluster rank
  std::mutex lock;
  std::condition_variable changed;
  int64_t epoch = 0; ///< passes that made progress
  int alive = 0;
  /// By rank: the epoch a blocked CTA went to sleep at, -1 when not waiting.
  /// Every live CTA asleep at the current epoch = nobody can move: deadlock.
  std::vector<int64_t> asleepAt;
  bool stuck() const {
    int n = 0;
    for (int64_t e : asleepAt)
      n += e == epoch;
    return n >= alive;
  }
  bool failed = false;
  std::string firstError; ///< the first member's own failure
};

/// Executes one block.
class BlockRun {
public:
  BlockRun(const ir::Kernel &k, const std::vector<int64_t> &dims, std::vector<Buffer> &params,
           const std::vector<double> &scalars, int64_t bx, int64_t by, int64_t bz)
      : k_(k), dims_(dims), params_(params), scalars_(scalars), blockId_{bx, by, bz} {
    warpgroupMode_ = k.warpgroups > 0;
    warps_ = warpgroupMode_ ? static_cast<int>(k.warpgroups)
                            : static_cast<int>(k.warpGrid[0] * k.warpGrid[1]);
    vars_.assign(warps_, std::vector<int64_t>(k.vars.size(), 0));
    shared_.resize(k.tiles.size());
    regs_.assign(warps_, std::vector<Tile>(k.tiles.size()));
    for (size_t t = 0; t < k.tiles.size(); ++t) {
      const ir::TileDecl &d = k.tiles[t];
      int64_t n = 1;
      for (int64_t e : d.shape)
        n *= e;
      Tile tile{d.shape, std::vector<double>(n, 0.0), d.dtype};
      if (d.space == ir::MemSpace::Shared)
        shared_[t] = tile;
      else
        for (auto &w : regs_)
          w[t] = tile;
    }
    // Before any CTA of a cluster runs (a peer may multicast into them).
    for (const ir::BarrierDecl &b : k.barriers)
      barriers_.emplace_back(static_cast<size_t>(b.stages), BarrierStage{0, b.arrivals, 0});
  }

  /// Runs as member `rank` of a cluster that shares memory and barriers.
  void joinCluster(ClusterRun *c, int64_t rank) {
    cluster_ = c;
    rank_ = rank;
  }

  std::string error;

  /// Serialises atomic stores across the blocks that run on other host
  /// threads (set by execute; a block run alone needs none).
  void shareAtomicLock(std::mutex *lock) { atomicLock_ = lock; }

  void run() {
    if (warpgroupMode_)
      return runWarpgroups();
    std::vector<bool> all(warps_, true);
    block(k_.body, all);
  }

private:
  const ir::Kernel &k_;
  const std::vector<int64_t> &dims_;
  std::vector<Buffer> &params_;
  const std::vector<double> &scalars_;
  int64_t blockId_[3];
  int warps_ = 1; ///< warps, or warpgroups in warpgroup mode
  bool warpgroupMode_ = false;
  std::vector<std::vector<int64_t>> vars_; ///< per warp
  std::vector<Tile> shared_;
  std::vector<std::vector<Tile>> regs_; ///< per warp

  int64_t warpCoord(int warp, unsigned axis) const {
    return axis == 0 ? warp / k_.warpGrid[1] : warp % k_.warpGrid[1];
  }

  int64_t eval(const ir::IndexExpr &e, int warp) {
    using K = ir::IndexExpr::Kind;
    switch (e.kind()) {
    case K::Const: return e.value();
    case K::Dim: return dims_[e.index()];
    case K::BlockId: return e.index() < 3 ? blockId_[e.index()] : 0;
    case K::WarpId: return warpCoord(warp, e.index());
    case K::WarpgroupId:
      return warpgroupMode_ ? warp : warp / 4;
    case K::ClusterRank: {
      // %cluster_ctarank: x fastest, then y, then z within the cluster.
      const auto &c = k_.cluster;
      return blockId_[0] % c[0] + c[0] * (blockId_[1] % c[1] + c[1] * (blockId_[2] % c[2]));
    }
    case K::Var:
      return vars_[warp][e.index()];
    case K::Not:
      return !eval(e.lhs(), warp);
    default:
      break;
    }
    int64_t a = eval(e.lhs(), warp), b = eval(e.rhs(), warp);
    switch (e.kind()) {
    case K::Add: return a + b;
    case K::Sub: return a - b;
    case K::Mul: return a * b;
    case K::Div: return b ? a / b : 0;
    case K::Mod: return b ? ((a % b) + b) % b : 0;
    case K::FloorDiv:
    case K::CeilDiv:
      return b > 0 ? *ir::IndexExpr::binary(e.kind(), ir::IndexExpr::constant(a),
                                            ir::IndexExpr::constant(b))
                          .asConstant()
                   : 0;
    case K::Eq: return a == b;
    case K::Ne: return a != b;
    case K::Lt: return a < b;
    case K::Le: return a <= b;
    case K::Gt: return a > b;
    case K::Ge: return a >= b;
    case K::And: return a && b;
    case K::Or: return a || b;
    default: return 0;
    }
  }

  /// A resolved 2-D window into a tensor or tile.
  struct View {
    double *data = nullptr;
    ir::DType dtype = ir::DType::F32;
    int64_t rows = 1, cols = 1, rowStride = 0, base = 0;
    int64_t limit = 0;     ///< elements in the underlying storage
    int64_t colStride = 1; ///< 1 but for a view whose columns are not the last dimension
    /// The rows and columns of the view inside the underlying tensor or tile
    /// (fewer than rows/cols only for a masked access past its edges).
    int64_t validRows = 1, validCols = 1;
    double &at(int64_t r, int64_t c) const { return data[base + r * rowStride + c * colStride]; }
    bool inBounds(int64_t r, int64_t c) const {
      int64_t i = base + r * rowStride + c * colStride;
      return i >= 0 && i < limit;
    }
  };

  /// A 1-D view [N] (read as the column [N, 1]) as the row [1, N] of a
  /// row tile t (a broadcast operand): the view's N rows become one row.
  static void asRowOf(View &src, const Tile &t) {
    if (t.shape.size() == 2 && t.shape[0] == 1 && t.shape[1] > 1 && src.cols == 1 &&
        src.rows == t.shape[1]) {
      src.cols = src.rows;
      src.colStride = src.rowStride;
      src.rows = 1;
      src.validCols = src.validRows;
      src.validRows = 1;
    }
  }

  View view(const ir::Access &a, int warp) {
    View v;
    std::vector<int64_t> shape;
    if (a.kind == ir::Access::Kind::Tensor) {
      Buffer &b = params_[a.id];
      v.data = b.data.data();
      v.dtype = b.dtype;
      v.limit = static_cast<int64_t>(b.data.size());
      shape = b.shape;
    } else {
      const ir::TileDecl &d = k_.tiles[a.id];
      Tile &t = d.space == ir::MemSpace::Shared ? shared_[a.id] : regs_[warp][a.id];
      v.data = t.data.data();
      v.dtype = t.dtype;
      v.limit = static_cast<int64_t>(t.data.size());
      shape = t.shape;
    }
    // Row-major strides.
    std::vector<int64_t> strides(shape.size(), 1);
    for (size_t i = shape.size(); i-- > 1;)
      strides[i - 1] = strides[i] * shape[i];
    // The dimensions the access keeps (sliced, or all of an unsliced one),
    // with their extents; point indices drop theirs.
    std::vector<size_t> keep;
    std::vector<int64_t> sizes, valid;
    if (a.slice.empty()) {
      for (size_t i = 0; i < shape.size(); ++i) {
        keep.push_back(i);
        sizes.push_back(shape[i]);
        valid.push_back(shape[i]);
      }
    } else {
      for (size_t i = 0; i < a.slice.size() && i < shape.size(); ++i) {
        int64_t off = eval(a.slice[i].offset, warp);
        v.base += off * strides[i];
        if (!a.slice[i].point) {
          keep.push_back(i);
          sizes.push_back(a.slice[i].size);
          valid.push_back(std::clamp<int64_t>(shape[i] - off, 0, a.slice[i].size));
        }
      }
    }
    // As codegen reads it (codegen/README.md): one kept dimension is a
    // column vector [N, 1]; otherwise the last two kept dimensions are the
    // rows and columns, each with its own stride.
    size_t n = keep.size();
    if (n == 1) {
      v.rows = sizes[0];
      v.cols = 1;
      v.rowStride = strides[keep[0]];
      v.validRows = valid[0];
    } else if (n >= 2) {
      v.rows = sizes[n - 2];
      v.cols = sizes[n - 1];
      v.rowStride = strides[keep[n - 2]];
      v.colStride = strides[keep[n - 1]];
      v.validRows = valid[n - 2];
      v.validCols = valid[n - 1];
    }
    return v;
  }

  Tile &reg(ir::TileId t, int warp) {
    return k_.tiles[t].space == ir::MemSpace::Shared ? shared_[t] : regs_[warp][t];
  }

  void fail(const std::string &message) {
    if (error.empty())
      error = message;
  }

  // Warpgroup mode (defined below the class).
  void runWarpgroups();
  BarrierStage *stage(ir::BarrierId b, const ir::IndexExpr &s, int w, const char *what);
  void completeIfDone(ir::BarrierId b, BarrierStage &st);
  std::vector<std::vector<BarrierStage>> barriers_;
  ClusterRun *cluster_ = nullptr;
  std::mutex *atomicLock_ = nullptr;
  int64_t rank_ = 0;
  /// This CTA alone, or every CTA of its cluster (multicast, remote arrivals).
  std::vector<BlockRun *> targets(bool clusterWide) {
    if (clusterWide && cluster_)
      return cluster_->members;
    return {this};
  }
  /// Blocks until a peer makes progress; false on a deadlock of the cluster.
  bool waitForPeers(std::unique_lock<std::mutex> &held);

  void copy(const View &dst, const View &src, bool convert) {
    for (int64_t r = 0; r < dst.rows; ++r)
      for (int64_t c = 0; c < dst.cols; ++c) {
        if (!src.inBounds(r, c) || !dst.inBounds(r, c)) {
          fail("out-of-bounds access in the reference execution");
          return;
        }
        double v = src.at(r, c);
        dst.at(r, c) = convert || dst.dtype != src.dtype ? convertTo(dst.dtype, v) : v;
      }
  }

  /// A scalar in its own element type (a literal as written).
  double scalar(const ir::ScalarExpr &e, int warp) {
    using K = ir::ScalarExpr::Kind;
    switch (e.kind()) {
    case K::Const: return e.value();
    case K::Param:
      return e.param() < scalars_.size() ? roundTo(e.dtype(), scalars_[e.param()]) : 0.0;
    case K::Index: return convertTo(e.dtype(), static_cast<double>(eval(e.index(), warp)));
    case K::Convert: return convertTo(e.dtype(), scalar(e.operand(), warp));
    case K::Neg: return roundTo(e.dtype(), -scalarAs(e.dtype(), e.operand(), warp));
    case K::Math:
      return roundTo(e.dtype(), mathUnary(static_cast<ir::UnaryKind>(e.mathKind()),
                                          scalarAs(e.dtype(), e.operand(), warp)));
    default: break;
    }
    double a = scalarAs(e.dtype(), e.lhs(), warp), b = scalarAs(e.dtype(), e.rhs(), warp);
    double r = 0;
    const bool isInt = !ir::isFloat(e.dtype());
    switch (e.kind()) {
    case K::Add:
      r = isInt ? integerArithmetic(e.dtype(), '+', a, b) : a + b;
      break;
    case K::Sub:
      r = isInt ? integerArithmetic(e.dtype(), '-', a, b) : a - b;
      break;
    case K::Mul:
      r = isInt ? integerArithmetic(e.dtype(), '*', a, b) : a * b;
      break;
    case K::Div:
      r = isInt ? (b != 0 ? std::trunc(a / b) : 0.0) : a / b;
      break;
    default: break;
    }
    return roundTo(e.dtype(), r);
  }

  /// A scalar as an operand of element type t: literals are rounded to t,
  /// other values converted.
  double scalarAs(ir::DType t, const ir::ScalarExpr &e, int warp) {
    if (auto c = e.asConstant()) // as codegen's arith.constant of type t: rounded once
      return convertTo(t, *c);
    double v = scalar(e, warp);
    return e.dtype() == t ? v : convertTo(t, v);
  }

  double operand(const ir::Operand &o, ir::DType type, int warp, int64_t r, int64_t c) {
    if (o.kind == ir::Operand::Kind::Scalar)
      return scalarAs(type, o.scalar, warp);
    const Tile &t = reg(o.tile, warp);
    int64_t cols = t.shape.size() >= 2 ? t.shape[1] : 1;
    if (cols == 1)
      c = 0; // [R, 1] broadcasts along the columns
    if (t.shape.size() >= 2 && t.shape[0] == 1)
      r = 0; // [1, C] (a warpgroup epilogue's row) broadcasts along the rows
    return t.data[r * cols + c];
  }

  // ---- masks and ragged edges: only the view's valid part is touched ----
  void maskedLoad(const ir::LoadOp &load, const std::vector<bool> &active) {
    for (int w = 0; w < warps_; ++w) {
      if (!active[w])
        continue;
      Tile &t = reg(load.dst, w);
      View src = view(load.src, w);
      asRowOf(src, t);
      int64_t cols = t.shape.size() > 1 ? t.shape[1] : 1;
      double fill = scalarAs(t.dtype, load.fill, w);
      for (int64_t r = 0; r < src.rows; ++r)
        for (int64_t c = 0; c < src.cols; ++c) {
          double v = fill;
          if (r < src.validRows && c < src.validCols) {
            if (!src.inBounds(r, c))
              return fail("out-of-bounds access in the reference execution");
            v = src.dtype != t.dtype ? convertTo(t.dtype, src.at(r, c)) : src.at(r, c);
          }
          t.data[r * cols + c] = v;
        }
    }
  }

  void maskedStore(const ir::StoreOp &store, const std::vector<bool> &active) {
    for (int w = 0; w < warps_; ++w) {
      if (!active[w])
        continue;
      Tile &t = reg(store.src, w);
      View dst = view(store.dst, w);
      asRowOf(dst, t);
      int64_t cols = t.shape.size() > 1 ? t.shape[1] : 1;
      for (int64_t r = 0; r < dst.validRows; ++r)
        for (int64_t c = 0; c < dst.validCols; ++c) {
          if (!dst.inBounds(r, c))
            return fail("out-of-bounds access in the reference execution");
          double v = t.data[r * cols + c];
          dst.at(r, c) = store.convert || dst.dtype != t.dtype ? convertTo(dst.dtype, v) : v;
        }
    }
  }

  /// `out[...] <- atomic_add v` (max, min): each element of the box inside
  /// the tensor is combined with the tile's, warp after warp (the GPU's
  /// order differs; F32 sums then round differently, within tolerance).
  void atomicStore(const ir::StoreOp &store, const std::vector<bool> &active) {
    // Other blocks update the same elements from other host threads: each
    // read-modify-write below must see their results (without the lock,
    // updates were lost and `kina run --check` blamed correct GPU results).
    std::unique_lock<std::mutex> guard;
    if (atomicLock_)
      guard = std::unique_lock<std::mutex>(*atomicLock_);
    for (int w = 0; w < warps_; ++w) {
      if (!active[w])
        continue;
      Tile &t = reg(store.src, w);
      View dst = view(store.dst, w);
      int64_t cols = t.shape.size() > 1 ? t.shape[1] : 1;
      int64_t rows = store.masked ? dst.validRows : dst.rows;
      int64_t ncols = store.masked ? dst.validCols : dst.cols;
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < ncols; ++c) {
          if (!dst.inBounds(r, c))
            return fail("out-of-bounds access in the reference execution");
          double v = t.data[r * cols + c];
          double &old = dst.at(r, c);
          double y = store.atomic == ir::AtomicKind::Add   ? old + v
                     : store.atomic == ir::AtomicKind::Max ? std::fmax(old, v)
                                                           : std::fmin(old, v);
          old = roundTo(dst.dtype, y);
        }
    }
  }

  void select(const ir::SelectOp &sel, const std::vector<bool> &active) {
    for (int w = 0; w < warps_; ++w) {
      if (!active[w])
        continue;
      // The comparison's element type: that of its tile operand(s).
      const ir::Operand &tileSide = sel.lhs.kind == ir::Operand::Kind::Tile ? sel.lhs : sel.rhs;
      ir::DType cmpType = reg(tileSide.tile, w).dtype;
      Tile &dst = reg(sel.dst, w);
      int64_t cols = dst.shape.size() > 1 ? dst.shape[1] : 1;
      std::vector<double> out(dst.data.size());
      for (int64_t i = 0; i < static_cast<int64_t>(out.size()); ++i) {
        int64_t r = i / cols, c = i % cols;
        bool holds = ir::compareHolds(sel.cmp, operand(sel.lhs, cmpType, w, r, c),
                                      operand(sel.rhs, cmpType, w, r, c));
        out[i] = roundTo(dst.dtype, operand(holds ? sel.onTrue : sel.onFalse, dst.dtype, w, r, c));
      }
      dst.data = std::move(out);
    }
  }

  void block(const ir::Block &b, const std::vector<bool> &active) {
    for (const ir::Op &op : b.ops) {
      if (!error.empty())
        return;
      execute(op, active);
    }
  }

  int firstActive(const std::vector<bool> &active) const {
    for (int w = 0; w < warps_; ++w)
      if (active[w])
        return w;
    return -1;
  }

  void execute(const ir::Op &op, const std::vector<bool> &active) {
    if (auto *let = op.as<ir::LetOp>()) {
      for (int w = 0; w < warps_; ++w)
        if (active[w])
          vars_[w][let->var] = eval(let->value, w);
    } else if (auto *fill = op.as<ir::FillOp>()) {
      for (int w = 0; w < warps_; ++w)
        if (active[w]) {
          Tile &t = reg(fill->dst, w);
          std::fill(t.data.begin(), t.data.end(), scalarAs(t.dtype, fill->value, w));
        }
    } else if (auto *cp = op.as<ir::CpAsyncOp>()) {
      // Block-cooperative: performed once, by the block.
      int w = firstActive(active);
      if (w >= 0 && cp->masked) {
        // Zeros past the tensor's edges (cp.async's src-size form).
        View dst = view(cp->dst, w), src = view(cp->src, w);
        for (int64_t r = 0; r < dst.rows; ++r)
          for (int64_t c = 0; c < dst.cols; ++c) {
            bool inside = r < src.validRows && c < src.validCols;
            if (!dst.inBounds(r, c) || (inside && !src.inBounds(r, c)))
              return fail("out-of-bounds access in the reference execution");
            dst.at(r, c) = inside ? src.at(r, c) : 0.0;
          }
      } else if (w >= 0) {
        copy(view(cp->dst, w), view(cp->src, w), false);
      }
    } else if (op.as<ir::CpAsyncCommitOp>() || op.as<ir::CpAsyncWaitOp>() ||
               op.as<ir::BlockSyncOp>()) {
      // Copies complete immediately; lockstep execution orders everything.
    } else if (auto *mma = op.as<ir::MmaOp>()) {
      for (int w = 0; w < warps_; ++w) {
        if (!active[w])
          continue;
        View a = view(mma->a, w), bv = view(mma->b, w);
        Tile &acc = reg(mma->acc, w);
        Tile &dst = reg(mma->dst, w);
        // transB: b is [N, K] and the operand is its transpose.
        int64_t M = a.rows, K = a.cols, N = mma->transB ? bv.rows : bv.cols;
        std::vector<double> out(M * N);
        if (dst.dtype == ir::DType::I32) {
          // int8 (mma.sync s8.s8.s32 or dp4a): exact integer sums that wrap
          // modulo 2^32 as the hardware's .s32 adds do (no .satfinite).
          for (int64_t i = 0; i < M; ++i)
            for (int64_t j = 0; j < N; ++j) {
              uint32_t s = static_cast<uint32_t>(static_cast<int64_t>(acc.data[i * N + j]));
              for (int64_t kk = 0; kk < K; ++kk) {
                auto x = static_cast<int64_t>(a.at(i, kk));
                auto y = static_cast<int64_t>(mma->transB ? bv.at(j, kk) : bv.at(kk, j));
                s += static_cast<uint32_t>(x * y);
              }
              out[i * N + j] = static_cast<double>(static_cast<int32_t>(s));
            }
          dst.data = std::move(out);
          continue;
        }
        for (int64_t i = 0; i < M; ++i)
          for (int64_t j = 0; j < N; ++j) {
            double s = acc.data[i * N + j];
            for (int64_t kk = 0; kk < K; ++kk)
              s += a.at(i, kk) * (mma->transB ? bv.at(j, kk) : bv.at(kk, j));
            out[i * N + j] = roundTo(dst.dtype, s);
          }
        dst.data = std::move(out);
      }
    } else if (auto *load = op.as<ir::LoadOp>(); load && load->masked) {
      maskedLoad(*load, active);
    } else if (auto *store = op.as<ir::StoreOp>(); store && store->atomic != ir::AtomicKind::None) {
      atomicStore(*store, active); // atomics: combine, masked or not
    } else if (auto *store = op.as<ir::StoreOp>(); store && store->masked) {
      maskedStore(*store, active);
    } else if (auto *it = op.as<ir::IndexTileOp>()) {
      for (int w = 0; w < warps_; ++w)
        if (active[w]) {
          Tile &t = reg(it->dst, w);
          int64_t cols = t.shape.size() > 1 ? t.shape[1] : 1;
          for (int64_t i = 0; i < static_cast<int64_t>(t.data.size()); ++i)
            t.data[i] = static_cast<double>(it->axis == 0 ? i / cols : i % cols);
        }
    } else if (auto *sel = op.as<ir::SelectOp>()) {
      select(*sel, active);
    } else if (auto *load = op.as<ir::LoadOp>()) {
      for (int w = 0; w < warps_; ++w)
        if (active[w]) {
          Tile &t = reg(load->dst, w);
          View dst{t.data.data(), t.dtype, t.shape[0], t.shape.size() > 1 ? t.shape[1] : 1,
                   t.shape.size() > 1 ? t.shape[1] : 1, 0, static_cast<int64_t>(t.data.size())};
          View src = view(load->src, w);
          // A 1-D slice loaded as a row [1, N] (a broadcast operand): the
          // view's N rows of one column become one row.
          asRowOf(src, t);
          copy(dst, src, false);
        }
    } else if (auto *store = op.as<ir::StoreOp>()) {
      for (int w = 0; w < warps_; ++w)
        if (active[w]) {
          Tile &t = reg(store->src, w);
          View src{t.data.data(), t.dtype, t.shape[0], t.shape.size() > 1 ? t.shape[1] : 1,
                   t.shape.size() > 1 ? t.shape[1] : 1, 0, static_cast<int64_t>(t.data.size())};
          View dst = view(store->dst, w);
          asRowOf(dst, t);
          copy(dst, src, store->convert);
        }
    } else if (auto *u = op.as<ir::UnaryOp>()) {
      for (int w = 0; w < warps_; ++w) {
        if (!active[w])
          continue;
        Tile &dst = reg(u->dst, w);
        int64_t cols = dst.shape.size() > 1 ? dst.shape[1] : 1;
        std::vector<double> out(dst.data.size());
        for (int64_t i = 0; i < static_cast<int64_t>(out.size()); ++i) {
          // The operand in its own type; convert changes it to dst's.
          ir::DType srcType = u->src.kind == ir::Operand::Kind::Tile
                                  ? reg(u->src.tile, w).dtype
                                  : (u->kind == ir::UnaryKind::Convert ? u->src.scalar.dtype()
                                                                       : dst.dtype);
          double x = operand(u->src, srcType, w, i / cols, i % cols);
          double y = u->kind == ir::UnaryKind::Neg    ? -x
                     : u->kind == ir::UnaryKind::Relu ? std::fmax(x, 0.0)
                     : u->kind == ir::UnaryKind::Exp  ? std::exp(x)
                     : ir::isMathKind(u->kind)        ? mathUnary(u->kind, x)
                                                      : x;
          // Integer abs wraps like the GPU's (abs of the minimum is itself).
          if (u->kind == ir::UnaryKind::Abs && !ir::isFloat(dst.dtype) &&
              roundTo(dst.dtype, y) != y)
            y = x;
          out[i] = u->kind == ir::UnaryKind::Convert ? convertTo(dst.dtype, y)
                                                     : roundTo(dst.dtype, y);
        }
        dst.data = std::move(out);
      }
    } else if (auto *bin = op.as<ir::BinaryOp>()) {
      for (int w = 0; w < warps_; ++w) {
        if (!active[w])
          continue;
        Tile &dst = reg(bin->dst, w);
        int64_t cols = dst.shape.size() > 1 ? dst.shape[1] : 1;
        std::vector<double> out(dst.data.size());
        for (int64_t i = 0; i < static_cast<int64_t>(out.size()); ++i) {
          double x = operand(bin->lhs, dst.dtype, w, i / cols, i % cols);
          double y = operand(bin->rhs, dst.dtype, w, i / cols, i % cols);
          double z = 0;
          const bool isInt = !ir::isFloat(dst.dtype);
          switch (bin->kind) {
          case ir::BinaryKind::Add:
            z = isInt ? integerArithmetic(dst.dtype, '+', x, y) : x + y;
            break;
          case ir::BinaryKind::Sub:
            z = isInt ? integerArithmetic(dst.dtype, '-', x, y) : x - y;
            break;
          case ir::BinaryKind::Mul:
            z = isInt ? integerArithmetic(dst.dtype, '*', x, y) : x * y;
            break;
          case ir::BinaryKind::Div:
            z = ir::isFloat(dst.dtype) ? x / y : (y != 0 ? std::trunc(x / y) : 0.0);
            break;
          // fmax/fmin: a NaN operand yields the other one, as llvm.maxnum
          // does on the GPU (so clamp of a NaN is lo on both).
          case ir::BinaryKind::Max:
            z = std::fmax(x, y);
            break;
          case ir::BinaryKind::Min:
            z = std::fmin(x, y);
            break;
          case ir::BinaryKind::Pow:
            z = mathPow(x, y);
            break;
          }
          out[i] = roundTo(dst.dtype, z);
        }
        dst.data = std::move(out);
      }
    } else if (auto *red = op.as<ir::ReduceOp>()) {
      for (int w = 0; w < warps_; ++w) {
        if (!active[w])
          continue;
        Tile &src = reg(red->src, w);
        Tile &dst = reg(red->dst, w);
        int64_t rows = src.shape[0], cols = src.shape.size() > 1 ? src.shape[1] : 1;
        if (red->columns) {
          // col_sum / col_max: [R, C] -> [1, C].
          std::vector<double> out(cols);
          for (int64_t c = 0; c < cols; ++c) {
            // max starts from NaN, fmax's identity: NaN elements are
            // skipped and an all-NaN column is NaN, as llvm.maxnum gives.
            double acc = red->kind == ir::ReduceKind::Sum ? 0.0 : NAN;
            for (int64_t r = 0; r < rows; ++r) {
              double v = src.data[r * cols + c];
              acc = red->kind == ir::ReduceKind::Sum ? acc + v : std::fmax(acc, v);
            }
            out[c] = roundTo(dst.dtype, acc);
          }
          dst.data = std::move(out);
          continue;
        }
        std::vector<double> out(rows);
        for (int64_t r = 0; r < rows; ++r) {
          double acc = red->kind == ir::ReduceKind::Sum ? 0.0 : NAN; // as col_max
          for (int64_t c = 0; c < cols; ++c) {
            double v = src.data[r * cols + c];
            acc = red->kind == ir::ReduceKind::Sum ? acc + v : std::fmax(acc, v);
          }
          out[r] = roundTo(dst.dtype, acc);
        }
        dst.data = std::move(out);
      }
    } else if (auto *tr = op.as<ir::TransposeOp>()) {
      for (int w = 0; w < warps_; ++w) {
        if (!active[w])
          continue;
        Tile &src = reg(tr->src, w);
        Tile &dst = reg(tr->dst, w);
        int64_t rows = src.shape[0], cols = src.shape[1];
        std::vector<double> out(rows * cols);
        for (int64_t r = 0; r < rows; ++r)
          for (int64_t c = 0; c < cols; ++c)
            out[c * rows + r] = src.data[r * cols + c];
        dst.data = std::move(out);
      }
    } else if (auto *f = op.as<ir::ForOp>()) {
      // Warp-uniform bounds (the checker's grids make them so); take warp 0's.
      int w0 = firstActive(active);
      if (w0 < 0)
        return;
      int64_t lo = eval(f->lower, w0), hi = eval(f->upper, w0), step = eval(f->step, w0);
      if (step < 1) {
        fail("a loop step below 1 in the reference execution");
        return;
      }
      for (int64_t i = lo; i < hi && error.empty(); i += step) {
        for (int w = 0; w < warps_; ++w)
          vars_[w][f->var] = i;
        block(f->body, active);
      }
    } else if (auto *iff = op.as<ir::IfOp>()) {
      std::vector<bool> thenActive(warps_), elseActive(warps_);
      for (int w = 0; w < warps_; ++w) {
        bool c = active[w] && eval(iff->cond, w);
        thenActive[w] = active[w] && c;
        elseActive[w] = active[w] && !c;
      }
      block(iff->thenBody, thenActive);
      block(iff->elseBody, elseActive);
    }
  }
};

// ------------------------------------------------- warpgroups as coroutines

void BlockRun::runWarpgroups() {
  struct Frame {
    const ir::Block *block;
    size_t pc = 0;
    const ir::ForOp *loop = nullptr;
    int64_t hi = 0;
    int64_t step = 1;
  };
  // TMA stores per warpgroup: the open bulk group and the committed ones,
  // oldest first. A store reads its shared stage as late as the program
  // allows (when a tma_store_wait retires its group, or at the warpgroup's
  // end), so a stage rewritten before that wait changes the result, as the
  // hardware's asynchronous read may.
  struct PendingStore {
    View dst, src;
  };
  std::vector<std::vector<PendingStore>> openStores(warps_);
  std::vector<std::deque<std::vector<PendingStore>>> committedStores(warps_);
  auto performStores = [&](const std::vector<PendingStore> &group) {
    for (const PendingStore &p : group)
      copy(p.dst, p.src, false);
  };
  std::vector<std::vector<Frame>> stacks(warps_);
  for (auto &st : stacks)
    st.push_back(Frame{&k_.body});
  // Runs warpgroup w until it finishes or blocks; true when it made progress.
  auto runUnit = [&](int w) {
    std::vector<bool> only(warps_, false);
    only[w] = true;
    std::vector<Frame> &stack = stacks[w];
    bool progress = false;
    while (!stack.empty() && error.empty()) {
      Frame &f = stack.back();
      if (f.pc >= f.block->ops.size()) {
        if (f.loop && (vars_[w][f.loop->var] += f.step) < f.hi) {
          f.pc = 0;
          continue;
        }
        stack.pop_back();
        if (stack.empty()) {
          // The end of the warpgroup's code: every store completes (the
          // compiler's final cp.async.bulk.wait_group 0).
          for (const auto &group : committedStores[w])
            performStores(group);
          committedStores[w].clear();
          performStores(openStores[w]);
          openStores[w].clear();
        }
        progress = true;
        continue;
      }
      const ir::Op &op = f.block->ops[f.pc];
      if (auto *role = op.as<ir::RoleOp>()) {
        ++f.pc;
        if (w >= role->firstWarpgroup && w <= role->lastWarpgroup)
          stack.push_back(Frame{&role->body});
      } else if (auto *loop = op.as<ir::ForOp>()) {
        ++f.pc;
        int64_t lo = eval(loop->lower, w), hi = eval(loop->upper, w);
        int64_t step = eval(loop->step, w);
        if (step < 1) {
          fail("a loop step below 1 in the reference execution");
          return progress;
        }
        if (lo < hi) {
          vars_[w][loop->var] = lo;
          stack.push_back(Frame{&loop->body, 0, loop, hi, step});
        }
      } else if (auto *iff = op.as<ir::IfOp>()) {
        ++f.pc;
        stack.push_back(Frame{eval(iff->cond, w) ? &iff->thenBody : &iff->elseBody});
      } else if (auto *wait = op.as<ir::BarrierWaitOp>()) {
        BarrierStage *b = stage(wait->barrier, wait->stage, w, "wait");
        if (!b)
          return progress;
        int64_t round = eval(wait->round, w);
        // A round below 0 is satisfied at once on a fresh barrier (codegen
        // waits for parity 1, the phase before the first); round R >= 0
        // completes with the (R+1)-th phase.
        int64_t done = round < 0 ? 0 : round + 1;
        if (round >= 0 && b->completed == round)
          return progress; // blocked: another warpgroup runs
        if (b->completed != done) {
          fail("barrier `" + k_.barriers[wait->barrier].name + "` stage " +
               std::to_string(eval(wait->stage, w)) + ": warpgroup " + std::to_string(w) +
               " waits for round " + std::to_string(round) + " when " +
               std::to_string(b->completed) +
               " phases have completed; the GPU's parity wait cannot tell these rounds apart");
          return progress;
        }
        ++f.pc;
      } else if (auto *arrive = op.as<ir::BarrierArriveOp>()) {
        ++f.pc;
        // `cluster`: the same stage of the barrier in every CTA of the cluster.
        BarrierStage *own = stage(arrive->barrier, arrive->stage, w, "arrive");
        if (!own)
          return progress;
        size_t at = static_cast<size_t>(own - barriers_[arrive->barrier].data());
        for (BlockRun *peer : targets(arrive->cluster)) {
          BarrierStage *b = &peer->barriers_[arrive->barrier][at];
          b->tx += arrive->expectTxBytes;
          if (--b->pending < 0) {
            fail("barrier `" + k_.barriers[arrive->barrier].name +
                 "`: more arrivals in one phase "
                 "than its count " +
                 std::to_string(k_.barriers[arrive->barrier].arrivals) +
                 (arrive->cluster ? " (cluster arrivals count in every CTA of the cluster)" : ""));
            return progress;
          }
          peer->completeIfDone(arrive->barrier, *b);
        }
      } else if (auto *tma = op.as<ir::TmaLoadOp>()) {
        ++f.pc;
        // `multicast`: the box lands at the same offset, and its bytes
        // count on the same barrier stage, in every CTA of the cluster.
        View dst = view(tma->dst, w), src = view(tma->src, w);
        BarrierStage *own = stage(tma->barrier, tma->stage, w, "tma_load");
        if (!own)
          return progress;
        size_t at = static_cast<size_t>(own - barriers_[tma->barrier].data());
        for (BlockRun *peer : targets(tma->multicast)) {
          View pd = dst;
          pd.data = peer->shared_[tma->dst.id].data.data();
          copy(pd, src, false);
          BarrierStage *b = &peer->barriers_[tma->barrier][at];
          b->tx -= dst.rows * dst.cols * static_cast<int64_t>(ir::dtypeBytes(dst.dtype));
          peer->completeIfDone(tma->barrier, *b);
        }
      } else if (auto *mma = op.as<ir::WgmmaOp>()) {
        ++f.pc;
        View a = view(mma->a, w), bv = view(mma->b, w);
        Tile &acc = reg(mma->acc, w);
        int64_t M = a.rows, K = a.cols, N = bv.rows;
        bool zero = eval(mma->zeroWhen, w) != 0;
        for (int64_t i = 0; i < M; ++i)
          for (int64_t j = 0; j < N; ++j) {
            double sum = zero ? 0.0 : acc.data[i * N + j];
            for (int64_t kk = 0; kk < K; ++kk)
              sum += a.at(i, kk) * bv.at(j, kk);
            acc.data[i * N + j] = roundTo(acc.dtype, sum);
          }
      } else if (auto *st = op.as<ir::TmaStoreOp>()) {
        ++f.pc;
        openStores[w].push_back({view(st->dst, w), view(st->src, w)});
      } else if (op.as<ir::TmaStoreCommitOp>()) {
        ++f.pc;
        committedStores[w].push_back(std::move(openStores[w]));
        openStores[w].clear();
      } else if (auto *sw = op.as<ir::TmaStoreWaitOp>()) {
        ++f.pc;
        while (committedStores[w].size() > sw->pending) {
          performStores(committedStores[w].front());
          committedStores[w].pop_front();
        }
      } else if (op.as<ir::WgmmaCommitOp>() || op.as<ir::WgmmaWaitOp>() ||
                 op.as<ir::FenceProxyAsyncOp>()) {
        ++f.pc; // the wgmma above has completed; nothing is in flight
      } else {
        ++f.pc;
        execute(op, only);
      }
      progress = true;
    }
    return progress;
  };
  std::unique_lock<std::mutex> held;
  if (cluster_)
    held = std::unique_lock<std::mutex>(cluster_->lock);
  // Leaving: a peer blocked on this CTA learns that it ended or failed.
  auto leave = [&] {
    if (!cluster_)
      return;
    --cluster_->alive;
    if (!error.empty() && !cluster_->failed)
      cluster_->firstError = error;
    cluster_->failed = cluster_->failed || !error.empty();
    cluster_->changed.notify_all();
  };
  for (;;) {
    bool live = false, progress = false;
    for (int w = 0; w < warps_ && error.empty(); ++w) {
      if (stacks[w].empty())
        continue;
      progress = runUnit(w) || progress;
      live = live || !stacks[w].empty();
    }
    // Before leaving too: the last pass may have delivered bytes or
    // arrivals to a peer that sleeps.
    if (cluster_ && progress) {
      ++cluster_->epoch;
      cluster_->changed.notify_all();
    }
    if (!error.empty() || !live)
      return leave();
    if (!progress && cluster_ && waitForPeers(held))
      continue;
    if (!progress) {
      std::string waiting;
      for (int w = 0; w < warps_; ++w)
        if (!stacks[w].empty()) {
          const auto &f = stacks[w].back();
          auto *wait = f.block->ops[f.pc].as<ir::BarrierWaitOp>();
          if (!waiting.empty())
            waiting += "; ";
          waiting += "warpgroup " + std::to_string(w);
          if (wait)
            waiting += " waits for round " + std::to_string(eval(wait->round, w)) + " of `" +
                       k_.barriers[wait->barrier].name + "`[" +
                       std::to_string(eval(wait->stage, w)) + "]";
        }
      fail("deadlock in the reference execution: " +
           (cluster_ ? "CTA rank " + std::to_string(rank_) + ": " : std::string()) + waiting);
      return leave();
    }
  }
}

bool BlockRun::waitForPeers(std::unique_lock<std::mutex> &held) {
  ClusterRun &c = *cluster_;
  int64_t seen = c.epoch;
  auto r = static_cast<size_t>(rank_);
  c.asleepAt[r] = seen;
  c.changed.notify_all();
  c.changed.wait(held, [&] { return c.epoch != seen || c.failed || c.stuck(); });
  bool moved = c.epoch != seen;
  c.asleepAt[r] = -1;
  if (c.failed && !moved) {
    fail("a CTA of the cluster failed in the reference execution");
    return true; // the caller's loop sees the error and leaves
  }
  return moved;
}

BarrierStage *BlockRun::stage(ir::BarrierId b, const ir::IndexExpr &s, int w, const char *what) {
  int64_t i = eval(s, w);
  if (b >= barriers_.size() || i < 0 || i >= static_cast<int64_t>(barriers_[b].size())) {
    fail(std::string(what) + ": barrier stage out of range in the reference execution");
    return nullptr;
  }
  return &barriers_[b][static_cast<size_t>(i)];
}

void BlockRun::completeIfDone(ir::BarrierId b, BarrierStage &st) {
  if (st.pending == 0 && st.tx == 0) {
    ++st.completed;
    st.pending = k_.barriers[b].arrivals;
  }
}

} // namespace

std::optional<std::string> execute(const ir::Kernel &kernel, const std::vector<int64_t> &dims,
                                   std::vector<Buffer> &params, unsigned threads,
                                   const std::vector<double> &scalars) {
  if (dims.size() != kernel.dims.size())
    return "the kernel has " + std::to_string(kernel.dims.size()) + " dims, " +
           std::to_string(dims.size()) + " given";
  if (params.size() != kernel.params.size())
    return "the kernel has " + std::to_string(kernel.params.size()) + " tensors, " +
           std::to_string(params.size()) + " given";
  if (scalars.size() != kernel.scalars.size())
    return "the kernel has " + std::to_string(kernel.scalars.size()) + " scalar parameters, " +
           std::to_string(scalars.size()) + " given";
  int64_t grid[3];
  auto evalGrid = [&](const ir::IndexExpr &e) {
    // Grid expressions mention only dims.
    std::function<int64_t(const ir::IndexExpr &)> ev = [&](const ir::IndexExpr &x) -> int64_t {
      using K = ir::IndexExpr::Kind;
      switch (x.kind()) {
      case K::Const: return x.value();
      case K::Dim: return dims[x.index()];
      case K::Add: return ev(x.lhs()) + ev(x.rhs());
      case K::Sub: return ev(x.lhs()) - ev(x.rhs());
      case K::Mul: return ev(x.lhs()) * ev(x.rhs());
      case K::Div: return ev(x.rhs()) ? ev(x.lhs()) / ev(x.rhs()) : 0;
      case K::Mod:
        return ev(x.rhs()) ? ((ev(x.lhs()) % ev(x.rhs())) + ev(x.rhs())) % ev(x.rhs()) : 0;
      case K::FloorDiv:
      case K::CeilDiv: {
        int64_t a = ev(x.lhs()), b = ev(x.rhs());
        return b > 0 ? *ir::IndexExpr::binary(x.kind(), ir::IndexExpr::constant(a),
                                              ir::IndexExpr::constant(b))
                            .asConstant()
                     : 0;
      }
      default: return 1;
      }
    };
    return ev(e);
  };
  grid[0] = evalGrid(kernel.blockGrid[0]);
  grid[1] = evalGrid(kernel.blockGrid[1]);
  grid[2] = evalGrid(kernel.blockGrid[2]);
  int64_t blocks = grid[0] * grid[1] * grid[2];
  std::atomic<int64_t> next{0};
  std::string firstError;
  std::mutex errorLock;
  std::mutex atomicLock; // one for every block of this execution
  // A kernel whose CTAs multicast or arrive on each other's barriers runs
  // cluster by cluster, the CTAs of one cluster together (ClusterRun).
  std::function<bool(const ir::Block &)> shares = [&](const ir::Block &blk) {
    for (const ir::Op &op : blk.ops) {
      if (auto *t = op.as<ir::TmaLoadOp>(); t && t->multicast)
        return true;
      if (auto *a = op.as<ir::BarrierArriveOp>(); a && a->cluster)
        return true;
      if (auto *f = op.as<ir::ForOp>(); f && shares(f->body))
        return true;
      if (auto *r = op.as<ir::RoleOp>(); r && shares(r->body))
        return true;
      if (auto *i = op.as<ir::IfOp>(); i && (shares(i->thenBody) || shares(i->elseBody)))
        return true;
    }
    return false;
  };
  const auto &cl = kernel.cluster;
  if (kernel.clusterSize() > 1 && kernel.warpgroups > 0 && shares(kernel.body)) {
    if (grid[0] % cl[0] || grid[1] % cl[1] || grid[2] % cl[2])
      return "the grid is not a multiple of the cluster in the reference execution";
    int64_t size = kernel.clusterSize(), gx = grid[0] / cl[0], gy = grid[1] / cl[1];
    int64_t clusters = blocks / size;
    auto clusterWorker = [&] {
      for (int64_t ci = next++; ci < clusters; ci = next++) {
        int64_t ux = ci % gx, uy = (ci / gx) % gy, uz = ci / (gx * gy);
        ClusterRun cr;
        std::vector<std::unique_ptr<BlockRun>> runs;
        for (int64_t r = 0; r < size; ++r) {
          int64_t rx = r % cl[0], ry = (r / cl[0]) % cl[1], rz = r / (cl[0] * cl[1]);
          runs.push_back(std::make_unique<BlockRun>(kernel, dims, params, scalars, ux * cl[0] + rx,
                                                    uy * cl[1] + ry, uz * cl[2] + rz));
          cr.members.push_back(runs.back().get());
          runs.back()->joinCluster(&cr, r);
          runs.back()->shareAtomicLock(&atomicLock);
        }
        cr.alive = static_cast<int>(size);
        cr.asleepAt.assign(static_cast<size_t>(size), -1);
        std::vector<std::thread> members;
        for (auto &run : runs)
          members.emplace_back([&run] { run->run(); });
        for (auto &m : members)
          m.join();
        if (cr.failed) {
          std::lock_guard<std::mutex> lock(errorLock);
          if (firstError.empty())
            firstError = cr.firstError;
          return;
        }
      }
    };
    unsigned n = std::max(1u, std::min<unsigned>(threads, static_cast<unsigned>(clusters)));
    std::vector<std::thread> pool;
    for (unsigned i = 1; i < n; ++i)
      pool.emplace_back(clusterWorker);
    clusterWorker();
    for (auto &t : pool)
      t.join();
    if (!firstError.empty())
      return firstError;
    return std::nullopt;
  }
  auto worker = [&] {
    for (int64_t b = next++; b < blocks; b = next++) {
      BlockRun run(kernel, dims, params, scalars, b % grid[0], (b / grid[0]) % grid[1],
                   b / (grid[0] * grid[1]));
      run.shareAtomicLock(&atomicLock);
      run.run();
      if (!run.error.empty()) {
        std::lock_guard<std::mutex> lock(errorLock);
        if (firstError.empty())
          firstError = run.error;
        return;
      }
    }
  };
  unsigned n = std::max(1u, std::min<unsigned>(threads, static_cast<unsigned>(blocks)));
  std::vector<std::thread> pool;
  for (unsigned i = 1; i < n; ++i)
    pool.emplace_back(worker);
  worker();
  for (auto &t : pool)
    t.join();
  if (!firstError.empty())
    return firstError;
  return std::nullopt;
}

} // namespace kina::reference
