//===- IndexExpr.h - Index expressions of the tile IR -----------*- C++ -*-===//
//
// Index expressions are the integer (and boolean) scalar expressions of a
// kernel: slice offsets, loop bounds, grid sizes, `if` conditions and the
// `requires` facts. They are immutable trees with shared structure (copying
// an IndexExpr is cheap). Leaves are constants, dimension parameters, block
// and warp ids, the block's rank in its cluster, and variables bound by
// `for`/`let` ops. Division and `mod` take a positive constant or a
// launch-invariant expression over the dims (`t / (N/256)`) on the right
// (the verifier enforces the form, the checker proved the divisor > 0);
// `/` truncates, which is floor division on the non-negative operands the
// checker proved.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace kina::ir {

using DimId = uint32_t; ///< index into Kernel::dims
using VarId = uint32_t; ///< index into Kernel::vars (loop variables, lets)

class IndexExpr {
public:
  enum class Kind : uint8_t {
    // leaves
    Const,       ///< integer literal (value())
    Dim,         ///< dimension parameter (index() = DimId)
    BlockId,     ///< block id along axis index() (0 = x, 1 = y)
    WarpId,      ///< warp coordinate along warp-grid axis index()
    WarpgroupId, ///< the warpgroup's index in the warpgroup grid (0 .. G-1)
    ClusterRank, ///< the block's rank in its cluster (0 .. C0*C1*C2-1)
    Var,         ///< loop variable or let binding (index() = VarId)
    // integer binary operators
    Add,
    Sub,
    Mul,
    Div,      ///< division by a positive constant or dim expression
    Mod,      ///< remainder by a positive constant or dim expression
    FloorDiv, ///< floor division by a positive constant (`floor_div e n`)
    CeilDiv,  ///< ceiling division by a positive constant (`ceil_div e n`)
    // boolean operators (conditions and `requires` facts)
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
    Not, ///< unary: lhs() only
  };

  /// A default-constructed IndexExpr is the constant 0.
  IndexExpr();
  static IndexExpr constant(int64_t v);
  static IndexExpr dim(DimId d);
  static IndexExpr blockId(unsigned axis);
  static IndexExpr warpId(unsigned axis);
  static IndexExpr warpgroupId();
  static IndexExpr clusterRank();
  static IndexExpr var(VarId v);
  static IndexExpr binary(Kind k, IndexExpr lhs, IndexExpr rhs);
  static IndexExpr logicalNot(IndexExpr e);

  Kind kind() const;
  bool isLeaf() const;
  bool isBoolean() const;       ///< Eq..Not
  int64_t value() const;        ///< Const only
  unsigned index() const;       ///< Dim, BlockId, WarpId, Var (0 for WarpgroupId, ClusterRank)
  const IndexExpr &lhs() const; ///< operators only
  const IndexExpr &rhs() const; ///< binary operators only

  /// The value when the expression folds to a constant.
  std::optional<int64_t> asConstant() const;
  /// True when some leaf satisfies pred.
  bool anyLeaf(const std::function<bool(const IndexExpr &)> &pred) const;
  bool structurallyEqual(const IndexExpr &other) const;

private:
  struct Node;
  explicit IndexExpr(std::shared_ptr<const Node> n) : node_(std::move(n)) {}
  std::shared_ptr<const Node> node_;
};

IndexExpr operator+(IndexExpr a, IndexExpr b);
IndexExpr operator-(IndexExpr a, IndexExpr b);
IndexExpr operator*(IndexExpr a, IndexExpr b);
IndexExpr operator+(IndexExpr a, int64_t b);
IndexExpr operator*(IndexExpr a, int64_t b);
/// Exact division by a constant.
IndexExpr exactDiv(IndexExpr a, int64_t divisor);
IndexExpr mod(IndexExpr a, int64_t divisor);
/// Division and remainder by a run-time divisor (a dim expression proved > 0).
IndexExpr div(IndexExpr a, IndexExpr divisor);
IndexExpr mod(IndexExpr a, IndexExpr divisor);
IndexExpr floorDiv(IndexExpr a, int64_t divisor);
IndexExpr ceilDiv(IndexExpr a, int64_t divisor);

/// True when `e` is >= 0 wherever it is evaluated: constants >= 0, dims and
/// grid ids, `mod` (the non-negative remainder by a positive divisor), sums,
/// products and quotients of such, and the variables `varNonNegative` names.
/// Backends use it to pick unsigned division and remainder.
bool provablyNonNegative(const IndexExpr &e, const std::function<bool(unsigned)> &varNonNegative);

/// Spelling of an operator kind ("+", "mod", "<=", "and", ...).
const char *indexKindSpelling(IndexExpr::Kind k);

} // namespace kina::ir
