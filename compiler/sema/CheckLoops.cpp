//===- CheckLoops.cpp - Loops, strided and persistent, and their indices --===//
//
// The `for` statement (docs/language.md "Strided loops", "Persistent tile
// loop", "Index arithmetic with dimension divisors"):
//
//  * `for v in (lo .. hi)` and `for v in (lo .. hi step S)`: v is a fresh
//    symbol in [lo, hi); S must be provably >= 1 (K0131). A strided loop also
//    gets an ordinal symbol (the iteration number, >= 0), which `v / S`
//    denotes when 0 <= lo < S.
//  * `for t in (block_id d .. T step G)` with G proved equal to the extent of
//    axis d of the enclosing block_grid is a persistent tile loop: over all
//    blocks, every t in [0, T) runs exactly once (Coverage.cpp uses that);
//    `t / G` is the block's local tile ordinal.
//  * `x / E` and `x mod E` with a dimension-expression divisor: E must be
//    provably >= 1 and x >= 0 (K0130). The solver divides by constants only,
//    so each such value is a fresh symbol, shared by equal operands, with its
//    facts assumed where it is built: 0 <= x mod E <= E - 1, x / E >= 0, and
//    x / E < A when x's loop range ends at A * E. Division rounds down (x is
//    nonnegative, so it is also the truncating division codegen emits).
//
//===----------------------------------------------------------------------===//
#include "sema/Checker.h"

#include <algorithm>

namespace kina::sema {

namespace {

/// The factors of a monomial's atom (a product's factors, or the atom).
std::vector<solver::AtomId> factorsOf(solver::SymbolTable &symbols, solver::AtomId a) {
  const solver::AtomInfo &info = symbols.info(a);
  if (info.Kind == solver::AtomKind::Product)
    return info.Factors;
  return {a};
}

/// `end / e` when `end` is a product with `e`'s factors among its factors
/// (`(M/128) * (N/256)` over `N/256`), checked by multiplying back. A
/// constant coefficient of `e` (`8 * (N/256)`, a grouped rasterization's
/// band of 8 tile rows) divides the rest when the facts prove it divisible
/// (`M mod 1024 = 0` makes `M/128` a multiple of 8): the quotient is then
/// `(M/128) / 8`, which equals `end / e` as an integer though it does not
/// multiply back syntactically.
std::optional<DimExpr> factorOut(solver::SymbolTable &symbols, Prover &prover, const DimExpr &end,
                                 const DimExpr &e, bool *inexact = nullptr) {
  if (end.terms().size() != 1 || end.constantTerm() != 0 || e.terms().size() != 1 ||
      e.constantTerm() != 0 || e.terms()[0].Coeff < 1)
    return std::nullopt;
  const solver::Term &t = end.terms()[0];
  const solver::Term &d = e.terms()[0];
  std::vector<solver::AtomId> rest = factorsOf(symbols, t.Atom);
  for (solver::AtomId f : factorsOf(symbols, d.Atom)) {
    auto it = std::find(rest.begin(), rest.end(), f);
    if (it == rest.end())
      return std::nullopt;
    rest.erase(it);
  }
  DimExpr q = DimExpr::constant(t.Coeff);
  for (solver::AtomId f : rest)
    q = symbols.mul(q, DimExpr::atom(f));
  if (!q.isValid())
    return std::nullopt;
  if (d.Coeff == 1 || t.Coeff % d.Coeff == 0) {
    q = d.Coeff == 1 ? q : symbols.exactDiv(q, d.Coeff);
    if (!q.isValid() || !(symbols.mul(q, e) == end))
      return std::nullopt;
    return q;
  }
  if (!prover.proveDivisible(q, d.Coeff).proved()) {
    // Not provably a multiple: x / e < ceil(q / c) still holds (a fact for
    // the bounds proofs, whose suggestions then find the divisibility that
    // makes the band fit), but it is no exact digit range for the coverage.
    if (inexact)
      *inexact = true;
    q = symbols.ceilDiv(q, d.Coeff);
    return q.isValid() ? std::optional<DimExpr>(q) : std::nullopt;
  }
  q = symbols.exactDiv(q, d.Coeff);
  if (!q.isValid())
    return std::nullopt;
  return q;
}

} // namespace

bool Checker::requirePositive(const DimExpr &e, Span span, DiagId id, const std::string &what) {
  solver::Proof p = prover.proveLessEqual(DimExpr::constant(1), e);
  if (p.proved())
    return true;
  auto &d = error(id, span,
                  what + " `" + str(e) + "` must be at least 1: cannot prove " + str(e) + " >= 1");
  // The fact itself reads best (`N - 256 >= 1`); the solver's suggestions
  // are stronger facts that imply it (`N mod 257 = 0`).
  if (!e.isConstant() && symbols.onlyDims(e))
    addRequiresFix(d, str(e) + " >= 1");
  return false;
}

void Checker::checkFor(StmtId id, const Stmt &s) {
  auto start = indexValue(s.value);
  auto end = indexValue(s.end);
  std::optional<DimExpr> step;
  bool stepOk = true;
  if (s.step != syntax::kNone) {
    step = indexValue(s.step);
    stepOk = step && requirePositive(*step, m.expr(s.step).span, DiagId::LoopStepNotPositive,
                                     "the loop step");
  }
  if (start && end && prover.proveLess(*start, *end, solver::ProofOptions{false}).proved())
    program.loopsThatRun.push_back(id);
  pushScope();
  DimExpr var = symbols.newSymbolExpr(s.name.name, solver::SymbolKind::LoopVar);
  if (start && end) {
    Origin from(*this, [&] {
      return "`" + str(*start) + " <= " + s.name.name + " < " + str(*end) + "` (`for " +
             s.name.name + "`)";
    });
    prover.assumeRange(var, *start, *end);
    if (auto a = var.asAtom())
      loopRanges[*a] = {*start, *end};
  }
  if (step && stepOk && start && end && !(step->constantValue() == std::optional<int64_t>(1))) {
    StridedLoop loop;
    loop.var = var;
    loop.start = *start;
    loop.end = *end;
    loop.step = *step;
    bool fromZero = start->constantValue() == std::optional<int64_t>(0);
    loop.ordinal = symbols.newSymbolExpr(
        (fromZero ? s.name.name : "(" + s.name.name + " - " + str(*start) + ")") + " / " +
            str(*step),
        solver::SymbolKind::LoopVar);
    Origin from(*this, [&] {
      return "`" + s.name.name + "` = `" + str(*start) + "`, + `" + str(*step) + "`, ... below `" +
             str(*end) + "` (`for " + s.name.name + "`, strided)";
    });
    prover.assumeNonNegative(loop.ordinal);
    // lo + S * i < hi: the iteration's value is in the range.
    DimExpr at = *start + symbols.mul(*step, loop.ordinal);
    if (at.isValid())
      prover.assumeLess(at, *end);
    // i < ceil((hi - lo) / S), the trip count, when S is a constant.
    if (auto n = step->constantValue(); n && *n > 0) {
      DimExpr trips = symbols.ceilDiv(*end - *start, *n);
      if (trips.isValid())
        prover.assumeLess(loop.ordinal, trips);
    }
    // A persistent tile loop: starts at a block id and steps by its extent.
    if (auto a = start->asAtom()) {
      for (size_t axis = 0; axis < grid.blockIds.size(); ++axis)
        if (grid.blockIds[axis] == *start && grid.inBlockGrid &&
            prover.proveEqual(*step, grid.blockGrid[axis]).proved()) {
          loop.persistent = true;
          loop.axis = axis;
          loop.blockId = *start;
          loop.grid = grid.blockGridStmt;
        }
      (void)a;
    }
    if (options.ideTables) {
      TypeAnnotation hover;
      hover.span = s.keywordSpan;
      hover.type = "protocol";
      hover.markdown = loop.persistent
                           ? "**persistent tile loop**: this block runs `" + s.name.name + "` = `" +
                                 str(*start) + "`, + " + str(*step) + ", ... below `" + str(*end) +
                                 "`; over all " + str(*step) + " blocks every value of [0, " +
                                 str(*end) + ") runs once. `" + s.name.name + " / " + str(*step) +
                                 "` is this block's local tile number."
                           : "**strided loop**: `" + s.name.name + "` = `" + str(*start) + "`, + " +
                                 str(*step) + ", ... below `" + str(*end) + "` (ceil((" +
                                 str(*end) + " - " + str(*start) + ") / " + str(*step) +
                                 ") iterations, maybe none).";
      program.annotations.push_back(std::move(hover));
    }
    stridedLoops[id] = std::move(loop);
  }
  Binding b{BindingKind::LoopVar, defineSymbol(s.name, SymbolKind::LoopVar, "Index (loop)"),
            Type::indexValue(var)};
  bind(s.name, std::move(b));
  loopVars.push_back({id, var});
  loopVarOf[id] = var;
  for (StmtId c : s.body)
    checkStmt(c);
  loopVars.pop_back();
  popScope();
}

std::optional<DimExpr> Checker::tilePair(StmtId loopStmt, const StridedLoop &loop, int64_t n) {
  // A symbol q = floor(t / n) with its facts, assumed again wherever it is
  // built (the scopes of the facts end with the statement that built it).
  solver::AtomId atom = 0;
  bool found = false;
  for (const auto &[a, p] : tilePairs)
    if (p.first == loopStmt && p.second == n) {
      atom = a;
      found = true;
    }
  if (!found) {
    atom =
        symbols.newSymbol(str(loop.var) + " / " + std::to_string(n), solver::SymbolKind::LoopVar);
    tilePairs[atom] = {loopStmt, n};
  }
  DimExpr q = DimExpr::atom(atom);
  int64_t g = *loop.step.constantValue();
  DimExpr exact =
      symbols.floorDiv(loop.blockId, n) + symbols.mul(DimExpr::constant(g / n), loop.ordinal);
  if (!exact.isValid())
    return std::nullopt;
  prover.assumeEqual(q, exact);
  prover.assumeNonNegative(q);
  prover.assumeLessEqual(q * n, loop.var);
  prover.assumeLess(loop.var, q * n + n);
  // q < T / n: T's one term with a factor (or coefficient) divisible by n.
  const DimExpr &end = loop.end;
  std::optional<DimExpr> bound;
  if (end.terms().size() == 1 && end.constantTerm() == 0) {
    const solver::Term &t = end.terms()[0];
    const solver::AtomInfo &info = symbols.info(t.Atom);
    if (t.Coeff % n == 0) {
      bound = DimExpr::atom(t.Atom, t.Coeff / n);
    } else if (info.Kind == solver::AtomKind::Product) {
      for (size_t i = 0; i < info.Factors.size() && !bound; ++i) {
        DimExpr f = DimExpr::atom(info.Factors[i]);
        if (!prover.proveDivisible(f, n).proved())
          continue;
        DimExpr rest = DimExpr::constant(t.Coeff);
        for (size_t j = 0; j < info.Factors.size(); ++j)
          rest =
              symbols.mul(rest, j == i ? symbols.exactDiv(f, n) : DimExpr::atom(info.Factors[j]));
        if (rest.isValid())
          bound = rest;
      }
    } else if (prover.proveDivisible(DimExpr::atom(t.Atom), n).proved()) {
      bound = symbols.exactDiv(DimExpr::atom(t.Atom, t.Coeff), n);
    }
  }
  if (bound && bound->isValid()) {
    prover.assumeLess(q, *bound);
    loopRanges[atom] = {DimExpr::constant(0), *bound};
  }
  return q;
}

std::optional<Type> Checker::indexQuotient(ExprId id, const Expr &e, const DimExpr &a,
                                           const DimExpr &b) {
  bool mod = e.op == syntax::BinaryOp::Mod;
  if (auto n = b.constantValue()) {
    if (mod || *n <= 0 || floorDivision)
      return std::nullopt;
    // `t / S` on a strided loop variable: the iteration's ordinal.
    auto atom = a.asAtom();
    if (!atom)
      return std::nullopt;
    for (const auto &[stmt, loop] : stridedLoops) {
      // `t / D` on a persistent tile variable t = b + G * j with D | G:
      // floor(b / D) + (G / D) * j exactly (the tile pair of a 2x1 cluster,
      // docs/language.md "Cluster multicast").
      auto g = loop.step.constantValue();
      if (loop.var == a && loop.persistent && g && *n < *g && *g % *n == 0)
        if (auto q = tilePair(stmt, loop, *n))
          return Type::indexValue(*q);
      if (!(loop.var == a) || !(loop.step == b))
        continue;
      if (prover.proveDivisible(a, *n).proved())
        return std::nullopt; // exact anyway
      if (!prover.proveNonNegative(loop.start).proved() ||
          !prover.proveLess(loop.start, b).proved()) {
        auto &d = error(DiagId::StridedLoopDivision, e.span,
                        "`" + syntax::printExpr(m, id) + "` is not exact, and the loop's start `" +
                            str(loop.start) + "` is not provably in [0, " + std::to_string(*n) +
                            "), so it is not the iteration's ordinal either");
        // The usual slip: a step other than the extent of the block id the
        // loop starts at (`block_id 0 .. T step 131` in `block_grid [132]`).
        for (size_t axis = 0; axis < grid.blockIds.size() && axis < grid.blockGrid.size(); ++axis)
          if (loop.start == grid.blockIds[axis] && !(grid.blockGrid[axis] == b))
            d.note("the step must equal the block_grid's extent: the loop starts at `block_id " +
                   std::to_string(axis) + "`, which ranges over [0, " + str(grid.blockGrid[axis]) +
                   "), but steps by " + std::to_string(*n));
        d.note("a persistent tile loop is written `for t in (block_id 0 .. T step G)` with G "
               "the block_grid's extent");
        return Type::error();
      }
      return Type::indexValue(loop.ordinal);
    }
    return std::nullopt;
  }
  // A dimension-expression divisor.
  std::string text = syntax::printExpr(m, id);
  if (!symbols.onlyDims(b)) {
    error(DiagId::DivisorNotPositive, m.expr(e.children[1]).span,
          "the divisor of `" + text + "` is `" + str(b) +
              "`: a divisor is a positive constant or an expression of the kernel's dims "
              "(launch-invariant, such as `N/256`)");
    return Type::error();
  }
  bool ok = requirePositive(b, m.expr(e.children[1]).span, DiagId::DivisorNotPositive,
                            std::string("the divisor of `") + text + "`,");
  if (ok && !prover.proveNonNegative(a).proved()) {
    error(DiagId::DivisorNotPositive, m.expr(e.children[0]).span,
          "`" + text +
              "` divides by a dimension expression, which needs a dividend provably >= 0; "
              "cannot prove " +
              str(a) + " >= 0");
    ok = false;
  }
  if (!ok)
    return Type::error();
  const IndexQuotient *found = nullptr;
  for (const IndexQuotient &q : quotients)
    if (q.mod == mod && q.dividend == a && q.divisor == b) {
      found = &q;
      break;
    }
  if (!found) {
    IndexQuotient q;
    q.atom = symbols.newSymbol(text, solver::SymbolKind::Other);
    q.dividend = a;
    q.divisor = b;
    q.mod = mod;
    quotients.push_back(std::move(q));
    found = &quotients.back();
  }
  DimExpr v = DimExpr::atom(found->atom);
  prover.assumeNonNegative(v);
  if (mod) {
    prover.assumeLess(v, b);
    prover.assumeLessEqual(v, a);
    return Type::indexValue(v);
  }
  prover.assumeLessEqual(v, a);
  // x < A * E (x's loop ends there, or x = y mod (A * E)) gives x / E < A;
  // factorOut's A * E equals the end as an integer.
  std::optional<DimExpr> bound, end;
  if (auto xa = a.asAtom()) {
    if (auto r = loopRanges.find(*xa); r != loopRanges.end())
      end = r->second.second;
    else if (const IndexQuotient *xq = quotientOf(*xa); xq && xq->mod)
      end = xq->divisor;
  }
  bool inexact = false;
  if (end)
    bound = factorOut(symbols, prover, *end, b, &inexact);
  if (bound && inexact) {
    if (prover.proveLess(a, *end).proved())
      prover.assumeLess(v, *bound);
  } else if (bound) {
    if (prover.proveLess(a, *end).proved()) {
      prover.assumeLess(v, *bound);
      quotients[found - quotients.data()].bound = bound;
    }
  }
  return Type::indexValue(v);
}

void Checker::boundFloorDiv(const DimExpr &x, int64_t n, const DimExpr &q) {
  auto xa = x.asAtom();
  if (!xa || n <= 1 || !q.isValid())
    return;
  std::optional<DimExpr> end;
  if (auto r = loopRanges.find(*xa); r != loopRanges.end())
    end = r->second.second;
  else if (const IndexQuotient *xq = quotientOf(*xa); xq && xq->mod)
    end = xq->divisor;
  if (!end || !prover.proveNonNegative(x).proved() || !prover.proveLess(x, *end).proved() ||
      !prover.proveDivisible(*end, n).proved())
    return;
  DimExpr h = symbols.exactDiv(*end, n);
  if (h.isValid())
    prover.assumeLess(q, h);
}

} // namespace kina::sema
