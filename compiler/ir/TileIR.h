//===- TileIR.h - The typed tile IR: kernels and structured ops -*- C++ -*-===//
//
// The tile IR is what the checker hands to code generation: one Kernel per
// `kernel` item, as plain C++ data. Memory spaces are explicit (global
// tensors, per-block shared tiles, per-warp register tiles), async copies
// carry explicit group tokens from cp_async to the commit that closes the
// group, and control flow is structured (`for`, `if` own their regions).
// It knows nothing of the AST: spans are the only link back to the source.
//
// Build kernels with ir::KernelBuilder (Builder.h), check them with
// ir::verify (Verifier.h), print them with ir::print (Printer.h).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "diag/Source.h"
#include "ir/IndexExpr.h"
#include "ir/ScalarExpr.h"
#include "ir/Types.h"

#include <array>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace kina::ir {

using ParamId = uint32_t;   ///< index into Kernel::params
using TileId = uint32_t;    ///< index into Kernel::tiles
using TokenId = uint32_t;   ///< an async-copy group, 0 .. Kernel::numTokens-1
using BarrierId = uint32_t; ///< index into Kernel::barriers

/// A dimension parameter `[M, N, K]`: a positive integer known at launch.
struct Dim {
  std::string name;
  Span span;
};

/// A tensor parameter in global memory: row-major, contiguous, with a shape
/// given by expressions over the dims. The result tensor is a parameter with
/// isResult (and writable) set; it is passed as an extra pointer.
struct TensorParam {
  std::string name;
  DType dtype = DType::F32;
  std::vector<IndexExpr> shape;
  bool writable = false;
  bool isResult = false;
  Span span;
  /// Atomics (Atomics.cpp): a result updated by atomic stores starts at zero
  /// (the launch metadata's `"init": "zero"`; the caller zero-fills it).
  bool zeroInit = false;
};

/// A scalar kernel parameter `(eps : F32)`, passed by value after the
/// tensor pointers (see Kernel::scalars and the launch metadata).
struct ScalarParam {
  std::string name;
  DType dtype = DType::F32;
  Span span;
};

/// How a shared tile's rows are laid out. None: codegen's own XOR layout
/// (codegen/Layout.h). Swizzle128B: the 128-byte swizzle that TMA writes
/// and wgmma descriptors read (PTX ISA 9.7.9.3 "Tensor" swizzling modes;
/// each stage 1024-byte aligned). A tile whose rows are wider than 128
/// bytes is stored as column panels of 128 bytes, panel-major: panel p of
/// a stage [R, C] holds columns [64p, 64p + 64) (16-bit types) as an
/// [R, 64] block, itself 1024-byte aligned and 128B-swizzled.
enum class SharedLayout : uint8_t { None, Swizzle128B };

/// Who owns a register tile's elements. Warp: each warp holds its own copy
/// of the tile, spread over its 32 lanes. Warpgroup: one tile per warpgroup
/// of 4 consecutive warps, spread over its 128 threads in the wgmma
/// accumulator layout ([64, N] F32 costs N/2 registers per thread). A
/// 16-bit warpgroup tile [64, K] (a register A operand of wgmma) uses the
/// same element placement, two elements packed per 32-bit register.
enum class RegisterScope : uint8_t { Warp, Warpgroup };

/// A shared (per block) or register (per warp) tile with a static shape.
/// Shared tiles may carry leading stage dimensions, e.g. [3, 128, 32].
/// Register tiles are 2-D (use [R, 1] for a column of row values; a 1-D
/// source tile [N] is lowered to [N, 1]).
struct TileDecl {
  std::string name;
  DType dtype = DType::F32;
  MemSpace space = MemSpace::Register;
  std::vector<int64_t> shape;
  Span span;
  SharedLayout layout = SharedLayout::None;  ///< shared tiles only
  RegisterScope scope = RegisterScope::Warp; ///< register tiles only
};

/// `shared NAME : Barrier[S, arrivals=A]`: S mbarriers (one per stage) in
/// shared memory; each completes a phase when A arrivals and all expected
/// transaction bytes of the phase happened. Codegen initialises them before
/// the body.
struct BarrierDecl {
  std::string name;
  int64_t stages = 1;
  int64_t arrivals = 1;
  Span span;
};

/// A `requires` fact the launch must check, e.g. `M mod 128 = 0`.
struct Requirement {
  IndexExpr condition; ///< boolean IndexExpr over the dims
  std::string text;    ///< source spelling, for messages
  Span span;
};

/// A variable bound by `for` or `let`.
struct Var {
  std::string name;
};

/// One dimension of a slice: `offset ..+ size`, or a point index that drops
/// the dimension (`a_smem[k mod 3, ...]`).
struct SliceDim {
  IndexExpr offset;
  int64_t size = 1; ///< static extent; 1 for a point
  bool point = false;

  static SliceDim range(IndexExpr offset, int64_t size) {
    return SliceDim{std::move(offset), size, false};
  }
  static SliceDim at(IndexExpr index) { return SliceDim{std::move(index), 1, true}; }
};

/// A reference to memory: a tensor parameter or a tile, optionally sliced.
/// An empty slice means the whole tensor/tile. A non-empty slice has one
/// SliceDim per dimension of the referenced object.
struct Access {
  enum class Kind : uint8_t { Tensor, Tile };
  Kind kind = Kind::Tile;
  uint32_t id = 0; ///< ParamId or TileId
  std::vector<SliceDim> slice;

  static Access tensor(ParamId p, std::vector<SliceDim> s = {}) {
    return Access{Kind::Tensor, p, std::move(s)};
  }
  static Access tile(TileId t, std::vector<SliceDim> s = {}) {
    return Access{Kind::Tile, t, std::move(s)};
  }
};

/// An operand of an elementwise op: a register tile or a scalar (a literal
/// or a run-time value, ScalarExpr.h) broadcast to every element.
struct Operand {
  enum class Kind : uint8_t { Tile, Scalar };
  Kind kind = Kind::Tile;
  TileId tile = 0;
  ScalarExpr scalar;

  static Operand ofTile(TileId t) { return Operand{Kind::Tile, t, ScalarExpr()}; }
  static Operand ofScalar(ScalarExpr v) { return Operand{Kind::Scalar, 0, std::move(v)}; }
};

struct Op;
/// A straight-line sequence of ops (a region).
struct Block {
  std::vector<Op> ops;
};

/// The math kinds after Convert (docs/math.md) take floating-point tiles
/// (Abs any element type); Sqrt, Rsqrt, Abs, Floor and Ceil also F64, the
/// others F16, BF16 and F32 (computed in F64 and rounded once). The *Approx
/// kinds are the hardware approximations (ex2/rsqrt/tanh.approx.f32;
/// GeluTanhApprox: x / (1 + ex2.approx(-2 log2(e) u)) in F32).
enum class UnaryKind : uint8_t {
  Copy,
  Neg,
  Relu,
  Exp,
  Convert,
  Sqrt,
  Rsqrt,
  Exp2,
  Log,
  Log2,
  Tanh,
  Erf,
  Sigmoid,
  Silu,
  Gelu,
  GeluTanh,
  Abs,
  Floor,
  Ceil,
  Exp2Approx,
  RsqrtApprox,
  TanhApprox,
  GeluTanhApprox,
};
/// Pow: x^y for x >= 0 (pow 0 0 = 1), NaN for x < 0 (docs/math.md).
enum class BinaryKind : uint8_t { Add, Sub, Mul, Div, Max, Min, Pow };

/// Whether a unary kind is one of the math functions (Sqrt .. TanhApprox).
inline bool isMathKind(UnaryKind k) { return k >= UnaryKind::Sqrt; }
/// Whether a math kind also takes F64 tiles.
inline bool mathKindTakesF64(UnaryKind k) {
  return k == UnaryKind::Sqrt || k == UnaryKind::Rsqrt || k == UnaryKind::Abs ||
         k == UnaryKind::Floor || k == UnaryKind::Ceil;
}
enum class ReduceKind : uint8_t { Sum, Max };

/// `let x = value in ...`: binds var for the rest of the enclosing block.
struct LetOp {
  VarId var;
  IndexExpr value;
};
/// `dst <- fill value` (register tile).
struct FillOp {
  TileId dst;
  ScalarExpr value;
};
/// `cp_async dst <- src`: block-cooperative async copy global -> shared of a
/// 2-D region, split into 16-byte chunks over all threads of the block. The
/// copy joins async group `group`, which a later CpAsyncCommitOp closes.
struct CpAsyncOp {
  Access dst; ///< shared tile (staged tiles: point index on the stages)
  Access src; ///< global tensor slice
  TokenId group;
  /// Masks and ragged edges: src may end past the tensor's extents; the
  /// elements outside are written as zeros (cp.async's src-size form).
  bool masked = false;
};
/// `cp_async_commit`: closes the group `group` (all copies issued with it).
struct CpAsyncCommitOp {
  TokenId group;
};
/// `cp_async_wait_group pending` (`cp_async_wait_all` = pending 0): waits
/// until at most `pending` committed groups are still in flight. `completes`
/// lists the groups known complete afterwards (informational; the builder
/// fills it for straight-line code).
struct CpAsyncWaitOp {
  unsigned pending = 0;
  std::vector<TokenId> completes;
};
/// `block_sync` (bar.sync 0).
struct BlockSyncOp {};
/// `dst <- wmma_mma acc a b`: per-warp dst[MxN] = acc[MxN] + a[MxK] * b[KxN];
/// a, b are F16/BF16 slices of shared tiles (row-major), acc and dst F32
/// register tiles (dst may equal acc).
/// MMA operands (issue 14 part 4): a may instead be Access::tile of a whole
/// 16-bit register tile [M, K] (its accumulator-layout fragments are the A
/// fragments, no shared memory); with transB, b is a shared slice [N, K]
/// and the B operand is its transpose (`wmma_mma acc q (transpose k_s)`,
/// ldmatrix without .trans); acc and dst may be F16 with F16 a and b.
/// int8: I8 a and b (shared, transB) with I32 acc and dst are mma.sync
/// m16n8k32 s8.s8.s32, or with dp4a set dp4a.s32.s32 per accumulator
/// element (`dp4a_mma`); the I32 sums wrap modulo 2^32.
struct MmaOp {
  TileId dst;
  TileId acc;
  Access a;
  Access b;
  bool transB = false;
  bool dp4a = false;
};
/// `dst <- src[...]`: per-warp load from global or shared into a register
/// tile. With a warpgroup-scope 16-bit dst [64, K], src is a [64, K] slice
/// of a stage of a Swizzle128B shared tile within one panel: the ldmatrix
/// load of a register A operand.
struct LoadOp {
  TileId dst;
  Access src;
  /// Masks and ragged edges: src is a slice of a global tensor that may end
  /// past the tensor's extents (its starts are >= 0); elements outside read
  /// as `fill` (converted to dst's element type).
  bool masked = false;
  ScalarExpr fill = ScalarExpr(0.0);
};
/// `out[...] <- atomic_add v` (atomic_max, atomic_min): F32 or I32 elements.
enum class AtomicKind : uint8_t { None, Add, Max, Min };
/// `dst[...] <- src`: per-warp store of a register tile to global or shared.
/// With convert set, elements are converted to the destination dtype
/// (`convert F16 c_reg`); otherwise the dtypes must match. A warpgroup-scope
/// src goes to global memory (each thread its fragments) or to a whole
/// stage [64, N] of a 16-bit Swizzle128B shared tile (stmatrix; generic
/// proxy writes of all 128 threads).
struct StoreOp {
  Access dst;
  TileId src;
  bool convert = false;
  /// Masks and ragged edges: dst is a slice of a global tensor that may end
  /// past its extents; only the elements inside are written.
  bool masked = false;
  /// Atomics (Atomics.cpp): dst is a global tensor slice; each element is
  /// combined into it with one relaxed atomic read-modify-write.
  AtomicKind atomic = AtomicKind::None;
};
/// `dst <- relu x` etc. (register tiles; Convert changes dtype). Warpgroup
/// tiles take part when every tile operand is a warpgroup tile of the same
/// shape (elementwise on the fragments; `a_r <- convert BF16 acc2`).
struct UnaryOp {
  UnaryKind kind;
  TileId dst;
  Operand src;
};
/// `dst <- add x y` etc. An [R, 1] operand broadcasts along the columns of
/// an [R, C] one, a [1, C] operand along its rows; a scalar broadcasts
/// everywhere.
struct BinaryOp {
  BinaryKind kind;
  TileId dst;
  Operand lhs;
  Operand rhs;
};
/// `dst <- row_sum x` / `row_max x`: [R, C] -> [R, 1].
/// With columns set, `col_sum x` / `col_max x`: [R, C] -> [1, C].
struct ReduceOp {
  ReduceKind kind;
  TileId dst;
  TileId src;
  bool columns = false;
};
/// `dst <- transpose x`: [R, C] -> [C, R] (register tiles).
struct TransposeOp {
  TileId dst;
  TileId src;
};
/// `for var in (lower .. upper step S) { body }`: var = lower, lower + S,
/// ... while var < upper (upper exclusive; no iteration when lower >=
/// upper). step is a positive constant or a dim expression the checker
/// proved > 0; it defaults to 1.
struct ForOp {
  VarId var;
  IndexExpr lower;
  IndexExpr upper;
  Block body;
  IndexExpr step = IndexExpr::constant(1);
  /// The checker proved lower < upper: the body runs at least once. Lets
  /// codegen treat a tile the body overwrites before any read as dead at
  /// the body's entry (ir/DeadOnEntry.h).
  bool runsAtLeastOnce = false;
};
/// `if cond { thenBody } else { elseBody }`.
struct IfOp {
  IndexExpr cond;
  Block thenBody;
  Block elseBody;
};

/// `role NAME (warpgroup first .. last) registers R { body }`: a region run
/// only by warpgroups first..last (inclusive) of the warpgroup grid; with
/// registers != 0 those warpgroups first set their per-thread register
/// budget to R (setmaxnreg). Roles sit at the top level of the kernel body.
struct RoleOp {
  std::string name;
  int64_t firstWarpgroup = 0;
  int64_t lastWarpgroup = 0;
  int64_t registers = 0; ///< 0 = keep the launch's allocation
  Block body;
};
/// `arrive B[stage]` (expectTxBytes = 0) or `arrive B[stage] expect_tx E`:
/// one arrival per warpgroup executing it, made by one elected thread after
/// the warpgroup's earlier work.
/// With cluster = true (`arrive B[stage] cluster`, expectTxBytes = 0) the
/// warpgroup makes one arrival on B[stage] in every CTA of the cluster
/// (remote arrives through mapa), so a peer's multicast producer may
/// refill the stage only after this CTA's consumers released it.
struct BarrierArriveOp {
  BarrierId barrier = 0;
  IndexExpr stage;
  int64_t expectTxBytes = 0;
  bool cluster = false;
};
/// `wait B[stage] round R`: waits until round R of the stage completed
/// (round r = the (r+1)-th phase completion; parity = floor(R) mod 2). A
/// negative round is satisfied at once.
struct BarrierWaitOp {
  BarrierId barrier = 0;
  IndexExpr stage;
  IndexExpr round;
};
/// `tma_load dst <- src completes B[stage]`: bulk tensor copy of a 2-D box
/// global -> shared issued by one elected thread of the warpgroup; its
/// bytes are transaction bytes of B[stage].
/// With multicast = true (`tma_load ... multicast completes B[stage]`) the
/// box lands at the same shared offset in every CTA of the cluster (ctaMask
/// = all CTAs) and its bytes count on B[stage] of every CTA of the cluster.
struct TmaLoadOp {
  Access dst; ///< Swizzle128B shared tile: point stage index, rows/cols whole or sliced
  Access src; ///< 2-D global tensor slice of the same shape
  BarrierId barrier = 0;
  IndexExpr stage;
  bool multicast = false;
};
/// `acc <- wgmma acc a b zero_when (cond)`: asynchronous warpgroup MMA,
/// acc[64, N] (+)= a[64, K] * transpose(b[N, K]) with a, b slices of
/// Swizzle128B shared tiles (F16 or BF16; one panel wide), acc a warpgroup
/// F32 tile. a may instead be Access::tile of a whole 16-bit warpgroup
/// tile [64, K] (register A). When zeroWhen holds, acc is overwritten
/// (scale-d = 0). Joins the open group.
struct WgmmaOp {
  TileId acc = 0;
  Access a;
  Access b;
  IndexExpr zeroWhen; ///< boolean; constant false when absent
};
/// `wgmma_commit`: closes the open wgmma group.
struct WgmmaCommitOp {};
/// `wgmma_wait N`: waits until at most N committed groups are in flight.
struct WgmmaWaitOp {
  unsigned pending = 0;
};
/// `fence_proxy_async`: fence.proxy.async.shared::cta (orders generic-proxy
/// shared-memory writes before later async-proxy reads: wgmma, TMA).
struct FenceProxyAsyncOp {};
/// `tma_store dst <- src`: bulk tensor copy shared -> global of a 2-D box
/// (one box per 128-byte panel), issued by thread 0 of the warpgroup after
/// a warpgroup barrier; joins the warpgroup's open bulk group.
struct TmaStoreOp {
  Access dst; ///< 2-D slice `r ..+ R, c ..+ C` of a writable global tensor
  Access src; ///< Swizzle128B shared tile: point stage index, rows/cols whole
};
/// `tma_store_commit`: closes the open bulk group (cp.async.bulk.commit_group).
struct TmaStoreCommitOp {};
/// `tma_store_wait N`: waits until at most N committed bulk groups are still
/// reading shared memory (cp.async.bulk.wait_group.read N), then a
/// warpgroup barrier.
struct TmaStoreWaitOp {
  unsigned pending = 0;
};

/// Masks and ragged edges. `dst <- row_index` (axis 0) / `col_index`
/// (axis 1): element (i, j) of the 2-D I32 register tile becomes i / j.
struct IndexTileOp {
  TileId dst;
  unsigned axis = 0;
};
/// The comparison of a SelectOp: floats ordered (NaN false except Ne), U8
/// unsigned, other integers signed.
enum class CompareKind : uint8_t { Eq, Ne, Lt, Le, Gt, Ge };
/// `dst <- select (lhs CMP rhs) onTrue onFalse`, elementwise over register
/// tiles with the broadcasts of BinaryOp ([R, 1] columns, scalars). lhs and
/// rhs have one element type (a scalar converted to the other side's);
/// onTrue and onFalse are converted to dst's (both the same type).
struct SelectOp {
  TileId dst;
  CompareKind cmp = CompareKind::Lt;
  Operand lhs;
  Operand rhs;
  Operand onTrue;
  Operand onFalse;
};

struct Op {
  using Node =
      std::variant<LetOp, FillOp, CpAsyncOp, CpAsyncCommitOp, CpAsyncWaitOp, BlockSyncOp, MmaOp,
                   LoadOp, StoreOp, UnaryOp, BinaryOp, ReduceOp, TransposeOp, ForOp, IfOp, RoleOp,
                   BarrierArriveOp, BarrierWaitOp, TmaLoadOp, WgmmaOp, WgmmaCommitOp, WgmmaWaitOp,
                   FenceProxyAsyncOp, TmaStoreOp, TmaStoreCommitOp, TmaStoreWaitOp,
                   IndexTileOp, SelectOp>;
  Node node;
  Span span;

  template <typename T> const T *as() const { return std::get_if<T>(&node); }
  template <typename T> T *as() { return std::get_if<T>(&node); }
};

/// One kernel of the tile IR.
struct Kernel {
  std::string name;
  Span span;
  std::vector<Dim> dims;
  std::vector<TensorParam> params;  ///< inputs in order, then the result
  std::vector<ScalarParam> scalars; ///< scalar parameters in declaration order
  std::vector<Requirement> requirements;
  std::vector<std::string> capabilities; ///< capability names from `requires capability(...)`
  /// `block_grid [G0, G1, G2]`: expressions over the dims (1 for the axes
  /// a grid of lower rank does not have); CUDA grid x, y, z.
  std::array<IndexExpr, 3> blockGrid{IndexExpr::constant(1), IndexExpr::constant(1),
                                     IndexExpr::constant(1)};
  /// `warp_grid [W0, W1]`: W0 * W1 warps per block, warp = id0 * W1 + id1.
  std::array<int64_t, 2> warpGrid{1, 1};
  /// `warpgroup_grid [G]`: G warpgroups of 4 consecutive warps; 0 = none
  /// (a kernel has a warp grid or a warpgroup grid, not both).
  int64_t warpgroups = 0;
  /// `block_grid [...] cluster [C0, C1]`: CTAs per cluster along x, y, z
  /// ({1, 1, 1} = no cluster launch). Each grid extent is a multiple of its
  /// cluster extent (the checker proved it; the runtime checks it).
  std::array<int64_t, 3> cluster{1, 1, 1};
  std::vector<TileDecl> tiles;
  std::vector<BarrierDecl> barriers;
  std::vector<Var> vars;
  uint32_t numTokens = 0;
  Block body;

  int64_t clusterSize() const { return cluster[0] * cluster[1] * cluster[2]; }
  unsigned threadsPerBlock() const {
    if (warpgroups > 0)
      return static_cast<unsigned>(warpgroups * 128);
    return static_cast<unsigned>(warpGrid[0] * warpGrid[1] * 32);
  }
};

std::string_view unaryKindName(UnaryKind k);
std::string_view binaryKindName(BinaryKind k);
std::string_view reduceKindName(ReduceKind k);
std::string_view colReduceKindName(ReduceKind k);
std::string_view compareKindName(CompareKind k); ///< "lt", "le", ...
/// Whether the comparison holds for a and b compared as doubles (the
/// reference interpreter's; integers are exact in a double up to 2^53).
bool compareHolds(CompareKind k, double a, double b);

} // namespace kina::ir
