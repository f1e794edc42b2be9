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

using ParamId = uint32_t; ///< index into Kernel::params
using TileId = uint32_t;  ///< index into Kernel::tiles
using TokenId = uint32_t; ///< an async-copy group, 0 .. Kernel::numTokens-1

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
};

/// A scalar kernel parameter `(eps : F32)`, passed by value after the
/// tensor pointers (see Kernel::scalars and the launch metadata).
struct ScalarParam {
  std::string name;
  DType dtype = DType::F32;
  Span span;
};

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

enum class UnaryKind : uint8_t { Copy, Neg, Relu, Exp, Convert };
enum class BinaryKind : uint8_t { Add, Sub, Mul, Div, Max, Min };
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
struct MmaOp {
  TileId dst;
  TileId acc;
  Access a;
  Access b;
};
/// `dst <- src[...]`: per-warp load from global or shared into a register tile.
struct LoadOp {
  TileId dst;
  Access src;
};
/// `dst[...] <- src`: per-warp store of a register tile to global or shared.
/// With convert set, elements are converted to the destination dtype
/// (`convert F16 c_reg`); otherwise the dtypes must match.
struct StoreOp {
  Access dst;
  TileId src;
  bool convert = false;
};
/// `dst <- relu x` etc. (register tiles; Convert changes dtype).
struct UnaryOp {
  UnaryKind kind;
  TileId dst;
  Operand src;
};
/// `dst <- add x y` etc. An [R, 1] operand broadcasts along the columns of
/// an [R, C] one; a scalar broadcasts everywhere.
struct BinaryOp {
  BinaryKind kind;
  TileId dst;
  Operand lhs;
  Operand rhs;
};
/// `dst <- row_sum x` / `row_max x`: [R, C] -> [R, 1].
struct ReduceOp {
  ReduceKind kind;
  TileId dst;
  TileId src;
};
/// `dst <- transpose x`: [R, C] -> [C, R] (register tiles).
struct TransposeOp {
  TileId dst;
  TileId src;
};
/// `for var in (lower .. upper) { body }` (upper exclusive, step 1).
struct ForOp {
  VarId var;
  IndexExpr lower;
  IndexExpr upper;
  Block body;
};
/// `if cond { thenBody } else { elseBody }`.
struct IfOp {
  IndexExpr cond;
  Block thenBody;
  Block elseBody;
};

struct Op {
  using Node = std::variant<LetOp, FillOp, CpAsyncOp, CpAsyncCommitOp, CpAsyncWaitOp,
                            BlockSyncOp, MmaOp, LoadOp, StoreOp, UnaryOp, BinaryOp,
                            ReduceOp, TransposeOp, ForOp, IfOp>;
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
  std::vector<TensorParam> params; ///< inputs in order, then the result
  std::vector<ScalarParam> scalars; ///< scalar parameters in declaration order
  std::vector<Requirement> requirements;
  std::vector<std::string> capabilities; ///< capability names from `requires capability(...)`
  /// `block_grid [G0, G1, G2]`: expressions over the dims (1 for the axes
  /// a grid of lower rank does not have); CUDA grid x, y, z.
  std::array<IndexExpr, 3> blockGrid{IndexExpr::constant(1), IndexExpr::constant(1),
                                     IndexExpr::constant(1)};
  /// `warp_grid [W0, W1]`: W0 * W1 warps per block, warp = id0 * W1 + id1.
  std::array<int64_t, 2> warpGrid{1, 1};
  std::vector<TileDecl> tiles;
  std::vector<Var> vars;
  uint32_t numTokens = 0;
  Block body;

  unsigned threadsPerBlock() const {
    return static_cast<unsigned>(warpGrid[0] * warpGrid[1] * 32);
  }
};

std::string_view unaryKindName(UnaryKind k);
std::string_view binaryKindName(BinaryKind k);
std::string_view reduceKindName(ReduceKind k);

} // namespace kina::ir
