//===- Types.h - Kina semantic types ----------------------------*- C++ -*-===//
//
// Tensor and tile types carry the refinement axes of seed 003: element type,
// symbolic shape (solver DimExprs), placement, and (per kernel) capability
// requirements. Index values carry their symbolic value so bounds can be
// proved. Types print in surface syntax: `Tile[F32, [64, 64], on=cuda:register]`.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "sema/solver/DimExpr.h"
#include "sema/solver/SymbolTable.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kina::sema {

using solver::DimExpr;
using solver::SymbolTable;

enum class DType : uint8_t { F16, BF16, F32, F64, TF32, I8, U8, I32, I64, E4M3, E5M2, Bool };

std::optional<DType> parseDType(std::string_view name);
const char *dtypeName(DType t);
unsigned dtypeBytes(DType t);
bool isFloat(DType t);
/// Every dtype name, for completion and "did you mean".
const std::vector<std::string> &dtypeNames();

enum class Space : uint8_t { Host, Global, Shared, Register };

const char *spaceName(Space s); ///< `host`, `cuda:global`, ...

/// The layout of a shared tile, part of its type (`layout=swizzle_128b`):
/// TMA writes and wgmma reads it in that layout, so a mismatch is a type
/// error rather than a wrong descriptor.
enum class SharedLayout : uint8_t { None, Swizzle128B };

const char *sharedLayoutName(SharedLayout l); ///< `swizzle_128b`
std::optional<SharedLayout> parseSharedLayout(std::string_view name);

/// Issue 19: how a host-level tensor's elements lie over a mesh of devices
/// (docs/language.md "Devices, meshes and sharding"). None: one device (or
/// the host). Replicated: a whole copy on each device of `mesh`. Sharded:
/// axis `dim` split into equal contiguous blocks, block i on `mesh[i]`.
/// Partial: each device holds a partial sum of the same shape; the value is
/// their sum (what a matmul contracting over a sharded axis leaves, before
/// its all-reduce). Users write Sharded and Replicated; Partial is inferred.
enum class ShardKind : uint8_t { None, Replicated, Sharded, Partial };

struct Sharding {
  ShardKind kind = ShardKind::None;
  int dim = -1;              ///< Sharded: the axis split
  std::vector<int64_t> mesh; ///< device indices, in block order
  bool operator==(const Sharding &) const = default;
};

/// Whether host-level operation `op` computes on partial sums without
/// summing them first: `add`/`sub` of two partial sums, `mul`/`div` by a
/// scalar, `neg`, `transpose` (linear in them), and the collectives that sum
/// them. Any other use is preceded by an all_reduce, which the checker types
/// and compiler/algebraic inserts (one rule for both; sema/CheckMesh.cpp).
bool keepsPartialSums(std::string_view op, size_t tensorOperands, bool allPartial,
                      bool scalarOperand);

/// `Sharded(dim=1, mesh=[0, 1])`, `Replicated(mesh=[0, 1])`, `Partial(mesh=[0, 1])`, "" for None.
std::string shardingName(const Sharding &s);
/// `[0, 1]`.
std::string meshName(const std::vector<int64_t> &mesh);

struct TensorType {
  DType dtype = DType::F32;
  std::vector<DimExpr> shape;
  Space space = Space::Global;
  /// cuda:global(d): the device (0 for plain `cuda:global`). Meaningful on
  /// single-device host-level tensors; kernels run on their operands' device.
  int64_t device = 0;
  Sharding sharding; ///< issue 19; None except on host-level cuda:global tensors
  bool isTile = false;
  bool writable = false; ///< kernel parameters declared `mut`, results, local tiles
  SharedLayout layout = SharedLayout::None; ///< shared tiles (and their views)
  /// A register tile declared inside `warpgroup_grid`: its elements are
  /// spread over the 128 threads of a warpgroup (not over one warp's 32).
  bool warpgroup = false;
};

/// A warpgroup broadcast row [1, N] (N a multiple of 8 from 8 to 256) or
/// column [64, 1] of F32, BF16 or F16: one value per column or row of the
/// wgmma accumulator fragment (an epilogue's bias, prefetched).
bool isWarpgroupVectorShape(const std::vector<DimExpr> &shape);
bool isWarpgroupVector(const TensorType &t);

/// `Barrier[stages, arrivals=A]`: one mbarrier per stage in shared memory.
struct BarrierType {
  int64_t stages = 1;
  int64_t arrivals = 1;
};

struct Type {
  enum Kind : uint8_t {
    Error,     ///< already reported; suppresses follow-on errors
    Unit,      ///< statements
    Index,     ///< an integer index/dimension value (symbolic value in `index`)
    Scalar,    ///< a scalar of `scalar` dtype (float literal, scalar parameter)
    Splat,     ///< `fill v`: a scalar that adopts the shape of its destination
    Bool,      ///< comparisons
    Tensor,    ///< tensors and tiles (and views of them)
    DTypeName, ///< `F16` used as an argument of `convert`
    Barrier,   ///< a `shared` mbarrier ring (`barrier`)
  };
  Kind kind = Error;
  TensorType tensor;
  DimExpr index;
  DType scalar = DType::F32;
  BarrierType barrier;

  static Type error() { return {}; }
  static Type unit() { Type t; t.kind = Unit; return t; }
  static Type indexValue(DimExpr v) { Type t; t.kind = Index; t.index = std::move(v); return t; }
  static Type scalarOf(DType d) { Type t; t.kind = Scalar; t.scalar = d; return t; }
  static Type tensorOf(TensorType tt) { Type t; t.kind = Tensor; t.tensor = std::move(tt); return t; }
  bool isError() const { return kind == Error; }
  bool isTensor() const { return kind == Tensor; }
};

/// `[64, 16]` or `[M, K]`.
std::string printShape(const std::vector<DimExpr> &shape, const SymbolTable &symbols);
/// `Tile[F32, [64, 64], on=cuda:register]`.
std::string printType(const Type &type, const SymbolTable &symbols);

} // namespace kina::sema
