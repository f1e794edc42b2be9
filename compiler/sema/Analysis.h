//===- Analysis.h - Helpers of the passes that run after the walk -*- C++ -*-===//
//
// Private to compiler/sema. The fence typestate (Fences.cpp), shared-tile
// initialisation (SharedInit.cpp), barrier divergence (Divergence.cpp) and
// result coverage (Coverage.cpp) walk a kernel body again after the checker
// has typed it. By then the checker's scopes are popped, so the facts of the
// grids, loops and branches around a statement are gone from the prover;
// FactScope puts them back while a pass walks that statement, so the pass
// can ask the same questions the checker could (is this stage index in
// range, can this branch be taken in the first iteration).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "sema/Checker.h"

#include <algorithm>

namespace kina::sema {

/// Pushes a prover scope with the facts of one grid, loop or branch; pops it
/// when destroyed.
class FactScope {
public:
  explicit FactScope(Checker &c) : c_(c) { c_.prover.push(); }
  ~FactScope() { c_.prover.pop(); }
  FactScope(const FactScope &) = delete;
  FactScope &operator=(const FactScope &) = delete;

  /// `block_id d` / `warp_id d` in [0, extent); `warpgroup_id` in a
  /// warpgroup grid or the range of a role.
  void grid(StmtId id) {
    auto g = c_.gridOf.find(id);
    if (g == c_.gridOf.end())
      return;
    for (size_t i = 0; i < g->second.ids.size(); ++i)
      c_.prover.assumeRange(g->second.ids[i],
                            i < g->second.starts.size() ? g->second.starts[i]
                                                        : DimExpr::constant(0),
                            g->second.extents[i]);
  }
  /// `start <= k < end` for `for k in (start .. end)`.
  void loop(StmtId id) {
    const Stmt &st = c_.m.stmt(id);
    auto var = c_.loopVarOf.find(id);
    auto start = c_.exprValueOrNull(st.value);
    auto end = c_.exprValueOrNull(st.end);
    if (var != c_.loopVarOf.end() && start && end)
      c_.prover.assumeRange(var->second, *start, *end);
  }
  /// The condition of an `if`, or its negation.
  void branch(ExprId cond, bool holds) { c_.prover.assumeCondition(c_.m, cond, c_, holds); }
  void equal(const DimExpr &a, const DimExpr &b) { c_.prover.assumeEqual(a, b); }
  void lessEqual(const DimExpr &a, const DimExpr &b) { c_.prover.assumeLessEqual(a, b); }

private:
  Checker &c_;
};

/// True when `e` mentions an atom for which `pred(symbol)` holds, directly or
/// inside an opaque atom (`(w + 1) mod 2`, `w * k`).
template <typename Pred> bool mentions(const Checker &c, const DimExpr &e, Pred pred) {
  for (const solver::Term &t : e.terms()) {
    const solver::AtomInfo &info = c.symbols.info(t.Atom);
    if (info.Kind == solver::AtomKind::Symbol && pred(t.Atom))
      return true;
    for (solver::AtomId sym : info.Symbols)
      if (pred(sym))
        return true;
    if (info.Kind == solver::AtomKind::Product)
      for (solver::AtomId f : info.Factors)
        if (pred(f))
          return true;
  }
  return false;
}

/// Every symbol an index expression mentions (directly or in opaque atoms).
inline void symbolsOf(const Checker &c, const DimExpr &e, std::vector<solver::AtomId> &out) {
  auto add = [&](solver::AtomId a) {
    if (std::find(out.begin(), out.end(), a) == out.end())
      out.push_back(a);
  };
  for (const solver::Term &t : e.terms()) {
    const solver::AtomInfo &info = c.symbols.info(t.Atom);
    if (info.Kind == solver::AtomKind::Symbol)
      add(t.Atom);
    for (solver::AtomId sym : info.Symbols)
      add(sym);
  }
}

/// The symbols mentioned by the index values anywhere inside an expression.
inline void symbolsOfExpr(const Checker &c, ExprId id, std::vector<solver::AtomId> &out) {
  if (id == syntax::kNone)
    return;
  if (auto v = c.exprValueOrNull(id)) {
    symbolsOf(c, *v, out);
    return;
  }
  for (ExprId child : c.m.expr(id).children)
    symbolsOfExpr(c, child, out);
}

/// Was an error reported inside `span` since the current item's check began?
/// (The proofs leave statements the checker already rejected alone.)
inline bool errorWithin(const Checker &c, Span span) {
  if (!c.current || c.current->sinkAtStart != c.active)
    return false;
  const std::vector<Diagnostic> &ds = c.active->diagnostics();
  for (size_t i = c.current->diagsAtStart; i < ds.size(); ++i)
    if (diagInfo(ds[i].id).severity == Severity::Error && ds[i].span.begin >= span.begin &&
        ds[i].span.end <= span.end)
      return true;
  return false;
}

/// Is the `if` condition `cond` (or, with holds false, its negation)
/// provable under the facts in scope? `substitute` replaces symbols first
/// (the values of unrolled loop variables). False for anything that is not a
/// comparison of index values.
inline bool provableCondition(Checker &c, ExprId cond, bool holds,
                              const std::vector<std::pair<solver::AtomId, DimExpr>> *substitute =
                                  nullptr) {
  const Expr &e = c.m.expr(cond);
  if (e.kind == ExprKind::Paren)
    return provableCondition(c, e.children[0], holds, substitute);
  if (e.kind != ExprKind::Binary)
    return false;
  auto a = c.exprValueOrNull(e.children[0]);
  auto b = c.exprValueOrNull(e.children[1]);
  if (!a || !b)
    return false;
  if (substitute)
    for (const auto &[atom, value] : *substitute) {
      *a = c.symbols.substitute(*a, atom, value);
      *b = c.symbols.substitute(*b, atom, value);
    }
  using syntax::BinaryOp;
  BinaryOp op = e.op;
  if (!holds) {
    switch (op) {
    case BinaryOp::Lt: op = BinaryOp::Ge; break;
    case BinaryOp::Le: op = BinaryOp::Gt; break;
    case BinaryOp::Gt: op = BinaryOp::Le; break;
    case BinaryOp::Ge: op = BinaryOp::Lt; break;
    case BinaryOp::Eq: op = BinaryOp::Ne; break;
    case BinaryOp::Ne: op = BinaryOp::Eq; break;
    default: return false;
    }
  }
  auto &p = c.prover;
  switch (op) {
  case BinaryOp::Lt: return p.proveLess(*a, *b).proved();
  case BinaryOp::Le: return p.proveLessEqual(*a, *b).proved();
  case BinaryOp::Gt: return p.proveLess(*b, *a).proved();
  case BinaryOp::Ge: return p.proveLessEqual(*b, *a).proved();
  case BinaryOp::Eq: return p.proveEqual(*a, *b).proved();
  case BinaryOp::Ne: return p.proveLess(*a, *b).proved() || p.proveLess(*b, *a).proved();
  default: return false;
  }
}

/// The name of a symbol as the user wrote it (`w` for a `let w = warp_id 0`).
inline std::string symbolName(const Checker &c, solver::AtomId a) { return c.symbols.info(a).Name; }

} // namespace kina::sema
