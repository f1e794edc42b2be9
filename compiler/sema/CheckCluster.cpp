//===- CheckCluster.cpp - TMA multicast and cluster arrivals --------------===//
//
// The statement rules of cluster multicast (docs/language.md "Cluster
// multicast"): `tma_load dst <- src multicast completes B[s]` and
// `arrive B[s] cluster`. Both act on every CTA of the block's cluster, and
// every CTA runs the same statement with its own `cluster_rank`, so what
// is checked here is what makes that symmetric picture true:
//  - a cluster launch (C >= 2 CTAs) and the capabilities (K0150, K05xx);
//  - obligation 2: the peers' multicast boxes tile the destination stage
//    without overlap, rank r writing [r*E, (r+1)*E) of one dimension of
//    extent C*E (K0151);
//  - obligation 4: every loop and `if` around a cluster operation runs the
//    same way in every CTA of the cluster (K0152).
// The byte counts and arrival counts that follow from the symmetry
// (obligations 1 and 3) are the protocol pass's (ProtocolExtract.cpp,
// ProtocolEngine.cpp), which models one CTA and counts each multicast copy
// C times and each cluster arrive C times.
//
//===----------------------------------------------------------------------===//
#include "sema/Checker.h"

#include <functional>
#include <set>
#include <unordered_map>

namespace kina::sema {

namespace {

const Expr *baseOf(const Module &m, ExprId id) {
  while (id != syntax::kNone) {
    const Expr &e = m.expr(id);
    if (e.kind == ExprKind::Name)
      return &e;
    if ((e.kind != ExprKind::Index && e.kind != ExprKind::Paren) || e.children.empty())
      return nullptr;
    id = e.children[0];
  }
  return nullptr;
}

} // namespace

int64_t Checker::clusterSize() const {
  int64_t c = 1;
  for (int64_t e : grid.cluster)
    c *= e;
  return c;
}

bool Checker::mentionsAtom(const DimExpr &e, solver::AtomId a) const {
  if (!e.isValid())
    return true;
  for (const solver::Term &t : e.terms()) {
    if (t.Atom == a)
      return true;
    const solver::AtomInfo &info = symbols.info(t.Atom);
    for (solver::AtomId s : info.Symbols)
      if (s == a)
        return true;
    if (info.Kind != solver::AtomKind::Symbol && mentionsAtom(info.Operand, a))
      return true;
    if (const IndexQuotient *q = quotientOf(t.Atom))
      if (mentionsAtom(q->dividend, a))
        return true;
  }
  return false;
}

bool Checker::checkClusterClause(const Stmt &s) {
  bool multicast = s.kind == StmtKind::TmaLoad;
  const char *clause = multicast ? "multicast" : "cluster";
  if (multicast)
    useCapability("tma_multicast", s.clauseSpan);
  if (clusterSize() >= 2 && !grid.clusterRank.asAtom()) {
    // The symmetry proofs name the rank as one atom (block_id d mod C).
    error(DiagId::ClusterClauseWithoutCluster, s.clauseSpan,
          std::string("`") + clause +
              "` needs a cluster along one block_grid axis in this version (`cluster [C]` or "
              "`cluster [C, 1]`); this cluster spans several axes");
    return false;
  }
  if (clusterSize() >= 2)
    return true;
  std::string what = multicast ? "`tma_load ... multicast` lands its box in every CTA of the "
                                 "block's cluster"
                               : "`arrive ... cluster` arrives on the stage in every CTA of the "
                                 "block's cluster";
  auto &d = error(DiagId::ClusterClauseWithoutCluster, s.clauseSpan,
                  what + ", but the block_grid " +
                      (grid.cluster.empty() ? std::string("has no cluster launch")
                                            : "has clusters of one CTA") +
                      ": write `block_grid [G] cluster [2]` (or drop `" + clause + "`)");
  // A fix-it when a 2-CTA cluster fits the grid (one axis, provably even)
  // and the target has clusters.
  bool targetHasClusters = true;
  if (target)
    if (auto cap = target::parseCapabilityName("clusters"))
      targetHasClusters = target::hasCapability(target->id, *cap);
  if (targetHasClusters && grid.blockGridStmt != syntax::kNone && grid.cluster.empty() &&
      grid.blockGrid.size() == 1 && prover.proveDivisible(grid.blockGrid[0], 2).proved()) {
    const Stmt &g = m.stmt(grid.blockGridStmt);
    if (g.shapeSpan.end)
      d.fix(Span{g.shapeSpan.end, g.shapeSpan.end}, " cluster [2]",
            "launch the blocks in clusters of 2");
  }
  return false;
}

void Checker::checkMulticastDestination(const Stmt &s) {
  auto rankAtom = grid.clusterRank.asAtom();
  if (!rankAtom)
    return;
  int64_t c = clusterSize();
  const Expr &dst = m.expr(s.target);
  const Expr *base = baseOf(m, s.target);
  const Binding *b = base ? lookup(base->name.name) : nullptr;
  if (!b || !b->type.isTensor())
    return;
  const std::vector<DimExpr> &extents = b->type.tensor.shape;
  std::string name = base->name.name;
  auto fail = [&](Span at, const std::string &why) {
    error(DiagId::MulticastDestination, at,
          "the " + std::to_string(c) +
              " CTAs of the cluster run this multicast copy with their "
              "own `cluster_rank` and each box lands in all of them: " +
              why)
        .note("write the destination `" + name + "[s, cluster_rank * E ..+ E, ...]` with " +
              std::to_string(c) +
              " * E the extent of that dimension, so rank r fills [r*E, (r+1)*E) of the stage");
  };
  // The barrier stage: the same in every CTA.
  const Expr &bar = m.expr(s.barrier);
  if (bar.kind == ExprKind::Index && bar.children.size() == 2)
    if (auto v = exprValueOrNull(bar.children[1]); v && mentionsAtom(*v, *rankAtom))
      return fail(m.expr(bar.children[1]).span,
                  "the barrier stage `" + str(*v) +
                      "` depends on `cluster_rank`, so the peers' bytes count on different "
                      "stages");
  int rankSlices = 0;
  if (dst.kind == ExprKind::Index)
    for (size_t i = 1; i < dst.children.size(); ++i) {
      const Expr &x = m.expr(dst.children[i]);
      size_t dim = i - 1;
      if (x.kind != ExprKind::Slice) {
        if (auto v = exprValueOrNull(dst.children[i]); v && mentionsAtom(*v, *rankAtom))
          return fail(x.span, "the index `" + str(*v) +
                                  "` depends on `cluster_rank`, so the peers write different "
                                  "stages of every CTA");
        continue;
      }
      auto start = exprValueOrNull(x.children[0]);
      auto len = exprValueOrNull(x.children[1]);
      if (!start || !len || !len->constantValue())
        return;
      int64_t coeff = start->coeffOf(*rankAtom);
      DimExpr rest = coeff == 0 ? *start : *start - DimExpr::atom(*rankAtom, coeff);
      if (mentionsAtom(rest, *rankAtom))
        return fail(x.span, "the slice start `" + str(*start) +
                                "` depends on `cluster_rank` other than through `cluster_rank * "
                                "E`");
      if (coeff == 0)
        continue;
      ++rankSlices;
      int64_t e = *len->constantValue();
      if (coeff != e)
        return fail(x.span, "rank r writes `" + str(*start) + " ..+ " + std::to_string(e) +
                                "`, which steps by " + std::to_string(coeff) + " per rank but is " +
                                std::to_string(e) + " long, so the peers' boxes " +
                                (coeff < e ? "overlap" : "leave gaps"));
      if (dim < extents.size()) {
        DimExpr whole = DimExpr::constant(c * e);
        if (!(extents[dim] == whole))
          return fail(x.span, "the " + std::to_string(c) + " boxes of " + std::to_string(e) +
                                  " cover " + std::to_string(c * e) + " of the extent " +
                                  str(extents[dim]) + " of dimension " + std::to_string(dim + 1) +
                                  " of `" + name + "`, not the whole stage");
      }
      if (!rest.isConstant() || rest.constantTerm() != 0)
        return fail(x.span, "the slice starts at `" + str(*start) + "`, not at `cluster_rank * " +
                                std::to_string(e) + "`, so the boxes do not tile the stage");
    }
  if (rankSlices == 0)
    return fail(dst.span, "every CTA writes the same region `" + syntax::printExpr(m, s.target) +
                              "`, so the peers' boxes overlap");
  if (rankSlices > 1)
    return fail(dst.span, "more than one slice of `" + syntax::printExpr(m, s.target) +
                              "` depends on `cluster_rank`");
}

// ------------------------------------------------------------ uniformity

void Checker::checkClusterUniform(const Stmt &blockGrid) {
  // Run at the end of the block_grid (Check.cpp), on the recorded types.
  auto rankAtom = grid.clusterRank.asAtom();
  if (!rankAtom || clusterSize() < 2)
    return;
  // Atoms that differ between the CTAs of a cluster as written (block ids,
  // cluster_rank) and the persistent tile loops' variables (block-like: t =
  // block_id d + G * j with G a multiple of the cluster extent).
  std::unordered_map<solver::AtomId, int64_t> blockLike; // atom -> cluster extent of its axis
  for (size_t axis = 0; axis < grid.blockIds.size(); ++axis)
    if (auto a = grid.blockIds[axis].asAtom())
      blockLike[*a] = axis < grid.cluster.size() ? grid.cluster[axis] : 1;
  std::set<solver::AtomId> varying{*rankAtom};
  std::function<bool(const DimExpr &)> uniform = [&](const DimExpr &e) -> bool {
    if (!e.isValid())
      return false;
    for (const solver::Term &t : e.terms()) {
      if (varying.count(t.Atom))
        return false;
      if (auto bl = blockLike.find(t.Atom); bl != blockLike.end()) {
        if (bl->second != 1)
          return false;
        continue;
      }
      if (auto tp = tilePairs.find(t.Atom); tp != tilePairs.end()) {
        // floor(t / n) of a persistent tile variable: the same in the CTAs
        // of a cluster when n is a multiple of the cluster extent.
        auto sl = stridedLoops.find(tp->second.first);
        size_t axis = sl != stridedLoops.end() ? sl->second.axis : 0;
        int64_t cx = axis < grid.cluster.size() ? grid.cluster[axis] : 1;
        if (tp->second.second % cx != 0)
          return false;
        continue;
      }
      const solver::AtomInfo &info = symbols.info(t.Atom);
      if (const IndexQuotient *q = quotientOf(t.Atom)) {
        if (!uniform(q->dividend))
          return false;
        continue;
      }
      switch (info.Kind) {
      case solver::AtomKind::Symbol:
        continue;
      case solver::AtomKind::Product:
        for (solver::AtomId f : info.Factors)
          if (!uniform(DimExpr::atom(f)))
            return false;
        continue;
      case solver::AtomKind::Mod:
      case solver::AtomKind::CeilDiv:
        if (!uniform(info.Operand))
          return false;
        continue;
      case solver::AtomKind::ExactDiv:
      case solver::AtomKind::FloorDiv: {
        if (uniform(info.Operand))
          continue;
        // floor((X + u) / D) is the same for X = C q + r, 0 <= r < C, when D
        // and u are multiples of C and u is uniform.
        const DimExpr &op = info.Operand;
        bool ok = false;
        for (const solver::Term &x : op.terms()) {
          auto bl = blockLike.find(x.Atom);
          if (bl == blockLike.end() || x.Coeff != 1)
            continue;
          int64_t cx = bl->second;
          DimExpr u = op - DimExpr::atom(x.Atom);
          bool mult = info.Divisor % cx == 0 && u.constantTerm() % cx == 0;
          for (const solver::Term &y : u.terms())
            mult = mult && y.Coeff % cx == 0;
          ok = mult && uniform(u);
          break;
        }
        if (!ok)
          return false;
        continue;
      }
      }
    }
    return true;
  };
  // Every Index-typed subexpression of a condition or bound.
  std::function<const Expr *(ExprId)> firstVarying = [&](ExprId id) -> const Expr * {
    if (id == syntax::kNone)
      return nullptr;
    const Expr &e = m.expr(id);
    const Type &t = typeOf(id);
    if (t.kind == Type::Index) {
      // A uniform value is uniform whatever it is built from: `t / G` of a
      // persistent tile loop is the tile ordinal although `t` differs.
      if (!uniform(t.index))
        return &e;
      return nullptr;
    }
    for (ExprId c : e.children)
      if (const Expr *v = firstVarying(c))
        return v;
    return nullptr;
  };
  struct Enclosing {
    const Stmt *stmt;
    const Expr *varying; ///< a bound or condition that differs between peers
    std::string why;
  };
  std::vector<Enclosing> stack;
  std::set<const Stmt *> reported; // one error per enclosing statement
  std::function<void(const std::vector<StmtId> &)> walk = [&](const std::vector<StmtId> &body) {
    for (StmtId id : body) {
      const Stmt &st = m.stmt(id);
      switch (st.kind) {
      case StmtKind::For: {
        Enclosing enc{&st, nullptr, ""};
        auto sl = stridedLoops.find(id);
        auto var = loopVarOf.find(id);
        if (sl != stridedLoops.end() && sl->second.persistent) {
          int64_t cx = sl->second.axis < grid.cluster.size() ? grid.cluster[sl->second.axis] : 1;
          if (cx > 1) {
            bool stepOk = prover.proveDivisible(sl->second.step, cx).proved();
            bool endOk =
                uniform(sl->second.end) && prover.proveDivisible(sl->second.end, cx).proved();
            if (!stepOk || !endOk) {
              enc.varying = &m.expr(stepOk ? st.end : st.step);
              enc.why = "the persistent tile loop runs ceil((T - b) / G) times for block b, the "
                        "same in every CTA of a cluster only when T = `" +
                        str(sl->second.end) + "` and G = `" + str(sl->second.step) +
                        "` are provably multiples of the cluster extent " + std::to_string(cx);
            }
          }
          if (var != loopVarOf.end())
            if (auto a = var->second.asAtom())
              blockLike[*a] = cx;
        } else {
          for (ExprId x : {st.value, st.end, st.step})
            if (const Expr *v = firstVarying(x)) {
              enc.varying = v;
              enc.why = "the loop bound `" + syntax::printExpr(m, x) +
                        "` differs between the CTAs of a cluster, so they run different trip "
                        "counts";
              break;
            }
          if (var != loopVarOf.end()) {
            if (auto a = var->second.asAtom()) {
              if (enc.varying)
                varying.insert(*a);
            }
          }
        }
        stack.push_back(enc);
        walk(st.body);
        stack.pop_back();
        break;
      }
      case StmtKind::If: {
        Enclosing enc{&st, firstVarying(st.value), ""};
        if (enc.varying)
          enc.why = "the condition `" + syntax::printExpr(m, st.value) +
                    "` may differ between the CTAs of a cluster";
        stack.push_back(enc);
        walk(st.body);
        walk(st.elseBody);
        stack.pop_back();
        break;
      }
      case StmtKind::WarpgroupGrid:
      case StmtKind::Role:
        walk(st.body);
        break;
      case StmtKind::TmaLoad:
      case StmtKind::Arrive: {
        if (!(st.kind == StmtKind::TmaLoad ? st.multicast : st.clusterArrive))
          break;
        for (auto it = stack.rbegin(); it != stack.rend(); ++it) {
          if (!it->varying)
            continue;
          if (!reported.insert(it->stmt).second)
            break;
          error(DiagId::ClusterNonUniform, it->varying->span,
                it->why + ", but it encloses `" +
                    (st.kind == StmtKind::TmaLoad ? std::string("tma_load ... multicast")
                                                  : "arrive ... cluster") +
                    "`: a CTA would wait for bytes or arrivals a peer never sends")
              .label(st.clauseSpan, st.kind == StmtKind::TmaLoad
                                        ? "lands in every CTA of the cluster"
                                        : "arrives in every CTA of the cluster")
              .note("bounds and conditions around a cluster operation may use `block_id d` only "
                    "through `block_id d / C` (C the cluster extent) or a persistent tile loop "
                    "whose tile count and step are multiples of C, and not `cluster_rank`");
          break;
        }
        break;
      }
      default:
        break;
      }
    }
  };
  walk(blockGrid.body);
}

} // namespace kina::sema
