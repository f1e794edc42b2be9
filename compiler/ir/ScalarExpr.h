//===- ScalarExpr.h - Run-time scalar operands of the tile IR --*- C++ -*-===//
//
// A scalar operand of an elementwise op or a `fill`: a literal, a scalar
// kernel parameter (`(eps : F32)`), an index expression converted to an
// element type (`convert F32 i`), or arithmetic over those. Like IndexExpr it
// is an immutable tree with shared structure. Every node has the element
// type it is computed in; a literal (Const) takes the element type of the
// place that uses it, so `add x 1.0` on an F16 tile adds an F16 one.
// Where a node's type differs from what its user needs, the value is
// converted (float to integer truncates toward zero and saturates).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "ir/IndexExpr.h"
#include "ir/Types.h"

#include <memory>

namespace kina::ir {

using ScalarId = uint32_t; ///< index into Kernel::scalars

class ScalarExpr {
public:
  enum class Kind : uint8_t {
    Const,   ///< a literal (value())
    Param,   ///< scalar kernel parameter param()
    Index,   ///< index() evaluated as an integer, converted to dtype()
    Convert, ///< operand() converted to dtype()
    Neg,     ///< -operand()
    Add,
    Sub,
    Mul,
    Div,
    Math, ///< a math builtin of operand(): mathKind() is an ir::UnaryKind (TileIR.h)
  };

  /// The constant 0.0.
  ScalarExpr();
  /// A literal (implicit, so `fill(t, 0.0)` and `FillOp{t, 1.0}` read naturally).
  ScalarExpr(double value);
  static ScalarExpr constant(double value) { return ScalarExpr(value); }
  static ScalarExpr param(ScalarId id, DType dtype);
  static ScalarExpr index(IndexExpr e, DType dtype);
  static ScalarExpr convert(ScalarExpr e, DType dtype);
  static ScalarExpr neg(ScalarExpr e, DType dtype);
  static ScalarExpr binary(Kind k, ScalarExpr lhs, ScalarExpr rhs, DType dtype);
  /// `sqrt eps` etc.: `unaryKind` is the ir::UnaryKind of the builtin
  /// (stored as its number: TileIR.h includes this header).
  static ScalarExpr math(uint8_t unaryKind, ScalarExpr e, DType dtype);

  Kind kind() const;
  DType dtype() const;
  double value() const;              ///< Const
  ScalarId param() const;            ///< Param
  const IndexExpr &index() const;    ///< Index
  const ScalarExpr &operand() const; ///< Convert, Neg, Math
  uint8_t mathKind() const;          ///< Math: an ir::UnaryKind
  const ScalarExpr &lhs() const;     ///< Add..Div
  const ScalarExpr &rhs() const;     ///< Add..Div

  /// The literal value when the whole tree is one Const node.
  std::optional<double> asConstant() const;
  bool isBinary() const { return kind() >= Kind::Add && kind() <= Kind::Div; }
  /// The same for every copy of this node (a key for memoizing a DAG).
  const void *identity() const { return node_.get(); }

private:
  struct Node;
  explicit ScalarExpr(std::shared_ptr<const Node> n) : node_(std::move(n)) {}
  std::shared_ptr<const Node> node_;
};

/// "+", "-", "*", "/", "neg", "convert", ...
const char *scalarKindSpelling(ScalarExpr::Kind k);

} // namespace kina::ir
