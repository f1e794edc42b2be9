//===- Prover.h - The checker's view of the refinement solver --*- C++ -*-===//
//
// A solver::Context plus the translations from Kina syntax into facts:
// comparisons from `requires` and `if` conditions, positivity of dims.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "sema/solver/Context.h"
#include "syntax/Ast.h"

namespace kina::sema {

class Checker;

class Prover : public solver::Context {
public:
  explicit Prover(solver::SymbolTable &symbols) : solver::Context(symbols) {}

  /// Dimension variables are positive.
  void assumeDim(const solver::DimExpr &dim) { assumePositive(dim); }
  /// Adds `lhs op rhs` (from `requires`); false when it is not a usable fact.
  bool assumeComparison(syntax::BinaryOp op, const solver::DimExpr &lhs,
                        const solver::DimExpr &rhs);
  /// Adds the condition of an `if` (or its negation) when it is a comparison
  /// of index expressions already typed by the checker.
  void assumeCondition(const syntax::Module &m, syntax::ExprId cond, const Checker &checker,
                       bool holds);
};

} // namespace kina::sema
