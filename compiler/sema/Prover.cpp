//===- Prover.cpp - The checker's view of the refinement solver -----------===//
#include "sema/Prover.h"
#include "sema/Checker.h"

namespace kina::sema {

using syntax::BinaryOp;

bool Prover::assumeComparison(BinaryOp op, const solver::DimExpr &lhs, const solver::DimExpr &rhs) {
  switch (op) {
  case BinaryOp::Eq: {
    // `e mod n = 0` is a divisibility fact; anything else an equality.
    const solver::SymbolTable &syms = symbols();
    if (rhs.isConstant() && *rhs.constantValue() == 0) {
      if (auto atom = lhs.asAtom()) {
        const solver::AtomInfo &info = syms.info(*atom);
        if (info.Kind == solver::AtomKind::Mod) {
          assumeDivisible(info.Operand, info.Divisor);
          return true;
        }
      }
    }
    assumeEqual(lhs, rhs);
    return true;
  }
  case BinaryOp::Le:
    assumeLessEqual(lhs, rhs);
    return true;
  case BinaryOp::Lt:
    assumeLess(lhs, rhs);
    return true;
  case BinaryOp::Ge:
    assumeLessEqual(rhs, lhs);
    return true;
  case BinaryOp::Gt:
    assumeLess(rhs, lhs);
    return true;
  default:
    return false;
  }
}

void Prover::assumeCondition(const syntax::Module &m, syntax::ExprId cond, const Checker &checker,
                             bool holds) {
  const syntax::Expr &e = m.expr(cond);
  if (e.kind == syntax::ExprKind::Paren) {
    assumeCondition(m, e.children[0], checker, holds);
    return;
  }
  if (e.kind != syntax::ExprKind::Binary)
    return;
  auto a = checker.exprValueOrNull(e.children[0]);
  auto b = checker.exprValueOrNull(e.children[1]);
  if (!a || !b)
    return;
  BinaryOp op = e.op;
  if (!holds) {
    switch (op) {
    case BinaryOp::Lt:
      op = BinaryOp::Ge;
      break;
    case BinaryOp::Le:
      op = BinaryOp::Gt;
      break;
    case BinaryOp::Gt:
      op = BinaryOp::Le;
      break;
    case BinaryOp::Ge:
      op = BinaryOp::Lt;
      break;
    case BinaryOp::Ne:
      op = BinaryOp::Eq;
      break; // not `!=` is `=`
    default:
      return; // negated `=` carries no linear fact
    }
  }
  if (op != BinaryOp::Ne)
    assumeComparison(op, *a, *b);
}

} // namespace kina::sema
