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

  enum class Op { Const, Name, Neg, Add, Sub, Mul, ExactDiv, CeilDiv, FloorDiv, Mod };
  struct Node {
    Op op;
    std::int64_t value = 0; ///< Const
    std::string name;       ///< Name
    int lhs = -1, rhs = -1; ///< operand node indices
  };

private:
  std::string text_;
  std::vector<Node> nodes_; ///< root is the last node
  friend class DimExprParser;
};

} // namespace kina::runtime
