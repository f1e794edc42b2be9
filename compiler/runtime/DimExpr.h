//===- DimExpr.h - Integer formulas over a kernel's dims --------*- C++ -*-===//
//
// Launch metadata describes grids, tensor shapes and `requires` facts as
// small integer formulas over the kernel's named dims, written as text:
//
//   expr   := term (('+' | '-') term)*
//   term   := unary (('*' | '/' | 'mod' | 'cdiv' | 'floordiv') unary)*
//   unary  := '-' unary | INT | NAME | '(' expr ')'
//
// `/` is exact division, as in Kina (DESIGN.md §3.2): evaluating `M/128`
// with M = 1000 is an error, not 7. `cdiv` rounds up, `floordiv` rounds
// down, `mod` is non-negative for a positive divisor. Divisors must be
// positive. Evaluation checks for 64-bit overflow. Nothing here throws.
//
// Formulas can also be built node by node (DimExpr::Builder), which is how
// the JSON-tree form of codegen's metadata arrives; that form adds the
// comparisons and connectives of `requires` conditions (value 1 or 0).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "runtime/RuntimeError.h"

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace kina::runtime {

using DimValues = std::map<std::string, std::int64_t>;

class DimExpr {
public:
  /// Parses `text`; syntax errors are InvalidMetadata with the column.
  static Result<DimExpr> parse(const std::string &text);
  /// The constant `value`.
  static DimExpr constant(std::int64_t value);

  /// Evaluates with `dims`; an unbound name, an inexact `/`, a zero divisor
  /// or overflow is an InvalidDims error naming the formula.
  Result<std::int64_t> evaluate(const DimValues &dims) const;

  /// The text it was parsed from (or the constant's digits).
  const std::string &text() const { return text_; }
  /// Names the formula refers to.
  std::set<std::string> names() const;
  /// True when the formula is a single name.
  bool isName() const;

  enum class Op {
    Const, Name, Neg, Add, Sub, Mul, ExactDiv, CeilDiv, FloorDiv, Mod,
    Eq, Ne, Lt, Le, Gt, Ge, And, Or, Not
  };
  struct Node {
    Op op;
    std::int64_t value = 0; ///< Const
    std::string name;       ///< Name
    int lhs = -1, rhs = -1; ///< operand node indices
  };
  const std::vector<Node> &nodes() const { return nodes_; }
  /// Index of the root node (the last one).
  int root() const { return int(nodes_.size()) - 1; }

  /// Builds a formula bottom-up; each call returns the new node's index.
  /// The last node added is the root.
  class Builder {
  public:
    int constant(std::int64_t v) { return add({Op::Const, v, "", -1, -1}); }
    int name(std::string n) { return add({Op::Name, 0, std::move(n), -1, -1}); }
    int unary(Op op, int operand) { return add({op, 0, "", operand, -1}); }
    int binary(Op op, int lhs, int rhs) { return add({op, 0, "", lhs, rhs}); }
    /// The formula, displayed as `text`. Fails when nothing was added.
    Result<DimExpr> finish(std::string text);

  private:
    int add(Node n) {
      nodes_.push_back(std::move(n));
      return int(nodes_.size()) - 1;
    }
    std::vector<Node> nodes_;
  };

private:
  std::string text_;
  std::vector<Node> nodes_; ///< root is the last node
  friend class DimExprParser;
};

} // namespace kina::runtime
