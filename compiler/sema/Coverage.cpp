//===- Coverage.cpp - The result stores cover the result --------------------===//
//
// A kernel must write every element of its result. The old rule ("a store on
// every path", K0902) both missed half-covered tiles (2x2 warps of 64x32 in a
// 128x128 block tile store on every path) and rejected the warp-specialised
// epilogue (only warp 0 stores after a barrier). This pass proves coverage:
//
// Each store `res[s0 ..+ l0, s1 ..+ l1, ...] <- v` is a box per dimension,
// whose start is linear in the block ids, warp ids and loop variables in
// scope (`bm * 128 + wm * 64`), each of which ranges over [lo, hi) (a grid
// extent, a loop range). `if` conditions on one such variable (`w = 0`,
// `k + 1 < K/16`) narrow its range; a variable narrowed to one value is
// substituted. Per dimension, the union over the variables is computed in
// mixed radix: with the variables sorted by coefficient, the covered
// extent starts as the box length and grows to `c * n` for each variable
// whose coefficient c equals it (n values); a larger coefficient leaves a
// gap (reported with the region never written), a smaller one overlaps.
// Dimensions are independent when each variable appears in one of them, so
// the union is their product, which must be the whole result: start 0, end
// the extent (proved by the solver, e.g. `128 * (M / 128) = M`).
//
// Several stores: stores with the same box whose variable ranges are
// adjacent (an if/else on `w`, or complementary conditions) are merged, and
// so are boxes adjacent in one dimension (two halves of the columns). A
// store under a condition the pass cannot turn into a range (or a loop that
// may run zero times) counts for nothing, and the error points at that
// condition or loop (K0902). When the structure is outside this fragment,
// the error says coverage cannot be proved (K0906); it never accepts on a
// guess.
//
// Writing an element twice matters when the two writers run concurrently and
// store different values: a warp (or block) id that does not appear in the
// store's box, or whose boxes overlap, while the stored value depends on it
// (through the register tiles' data flow) is K0907. Repeated stores by one
// thread in a loop are ordered and fine.
//
//===----------------------------------------------------------------------===//
#include "sema/Analysis.h"

#include <algorithm>
#include <map>
#include <set>

namespace kina::sema {
namespace {

using syntax::BinaryOp;

enum class VarKind : uint8_t { Block, Warp, Loop };

struct Var {
  solver::AtomId atom;
  DimExpr lo, hi;
  VarKind kind;
  Span site; ///< the loop's range, for "may run zero times"
  ExprId endExpr = syntax::kNone;
  bool copies = false; ///< stands for stores that are shifted copies of one box (tryMerge)
};

struct Cond {
  ExprId expr;
  bool holds;
};

struct Store {
  StmtId stmt;
  Span span;
  std::vector<DimExpr> start;
  std::vector<int64_t> len;
  std::vector<Var> vars;   ///< in scope, outermost first
  std::vector<solver::AtomId> retired; ///< tile ids standing as their digits
  bool atomic = false;     ///< `<- atomic_add v` (CheckAtomics.cpp): combines, never duplicates
  std::vector<Cond> conds; ///< around the store
  std::vector<solver::AtomId> valueDeps;
  std::string tile; ///< a shared tile's store: its name
  // Filled by narrowing:
  bool never = false;           ///< provably never runs
  std::optional<Span> maybeNot; ///< may not run: the condition or loop why
  std::string maybeNotWhy;
  std::string maybeNotCond; ///< or: the condition it runs under (why() words it)
  bool maybeNotHolds = true;
};

class CoverageChecker {
public:
  CoverageChecker(Checker &c, const Item &item)
      : c_(c), m_(c.m), item_(item), symbolsAtStart_(c.symbols.size()) {}

  void run() {
    resultName_ = item_.resultName.valid() ? item_.resultName.name : "result";
    resultType_ = c_.resolveTypeQuiet(item_.result);
    if (!resultType_.isTensor())
      return;

    // Stores a tile function makes into the result are not followed.
    if (resultThroughTileFunction(item_.body))
      return;
    dataFlow(item_.body, {});
    collect(item_.body);
    if (stores_.empty() && !brokenStore_) {
      c_.error(DiagId::ResultNotWritten, item_.name.span,
               "kernel `" + item_.name.name + "` does not write its result `" + resultName_ +
                   "` on every path")
          .note("store a register tile into it, e.g. `" + resultName_ +
                "[i ..+ 64, j ..+ 64] <- acc`");
      return;
    }
    // After an error in the body (an inexact grid extent, a bad slice, a
    // tile of the wrong shape, a store the checker rejected) the proof would
    // mostly restate it in other words; errors about capabilities and
    // resources are independent of the stores and do not stop it.
    if (brokenStore_)
      return;
    for (Span at : inputs_)
      if (errorWithin(c_, at))
        return;
    if (c_.current && c_.current->sinkAtStart == c_.active) {
      const std::vector<Diagnostic> &ds = c_.active->diagnostics();
      for (size_t i = c_.current->diagsAtStart; i < ds.size(); ++i) {
        const DiagInfo &info = diagInfo(ds[i].id);
        if (info.severity == Severity::Error && info.diagClass != DiagClass::Capability &&
            info.diagClass != DiagClass::Resource)
          return;
      }
    }
    mergeComplementary(stores_);
    for (Store &s : stores_)
      narrow(s);
    duplicates();
    std::vector<Store> shared = sharedStores_; // before sharedDuplicates merges
    sharedDuplicates();
    sharedRaces(std::move(shared));
    cover();
  }

private:
  Checker &c_;
  const Module &m_;
  const Item &item_;
  std::string resultName_;
  Type resultType_;
  std::vector<Store> stores_;
  std::vector<Store> sharedStores_; ///< stores into shared tiles (sharedDuplicates)
  std::set<uint32_t> sharedRaceAt_; ///< stores sharedDuplicates reported (K0612 once each)
  bool brokenStore_ = false;
  /// What coverage is computed from: grid extents, loop ranges, the
  /// conditions around stores. An error in any of them means the proof would
  /// only restate it.
  std::vector<Span> inputs_;
  std::vector<Var> vars_;
  /// Tile ids that stand as their digits (pushDigits): a store that still
  /// mentions one is outside the fragment, not a constant offset.
  std::vector<solver::AtomId> retired_;
  /// The symbol table's size when the checker started on this kernel's
  /// coverage: an atom interned later is used by no index.
  size_t symbolsAtStart_ = 0;
  std::vector<Cond> conds_;
  /// Register tile symbol -> the symbols its value may depend on.
  std::map<int, std::vector<solver::AtomId>> deps_;

  std::string name(solver::AtomId a) const { return symbolName(c_, a); }

  // ------------------------------------------- stores in tile functions

  /// Whether the value of e is (a view of) the result: the result's name, a
  /// slice of it, a `let` of such, or a call with such an argument.
  bool rootedAtResult(ExprId e, int depth = 0) const {
    if (e == syntax::kNone || depth > 32)
      return false;
    const Expr &x = m_.expr(e);
    switch (x.kind) {
    case ExprKind::Paren:
    case ExprKind::Index:
      return rootedAtResult(x.children[0], depth + 1);
    case ExprKind::Name: {
      int sym = e < c_.program.exprSymbol.size() ? c_.program.exprSymbol[e] : -1;
      if (sym < 0)
        return false;
      if (c_.program.symbolInfos[sym].kind == SymbolKind::Result)
        return true;
      auto let = c_.letValues.find(sym);
      return let != c_.letValues.end() && rootedAtResult(let->second, depth + 1);
    }
    case ExprKind::Application:
      for (ExprId a : x.children)
        if (rootedAtResult(a, depth + 1))
          return true;
      return false;
    default:
      return false;
    }
  }

  /// K0906 at a call that passes the result to a tile function's `mut`
  /// parameter: which elements the function stores, and whether blocks or
  /// warps race on them (every block passing the whole result and storing
  /// its rows 0..16), is outside this proof, so it does not accept on a
  /// guess.
  bool resultThroughTileFunction(const std::vector<StmtId> &body) {
    for (StmtId id : body) {
      const Stmt &st = m_.stmt(id);
      for (ExprId e : {st.target, st.value, st.end, st.step, st.fill})
        if (callPassesResult(e))
          return true;
      if (resultThroughTileFunction(st.body) || resultThroughTileFunction(st.elseBody))
        return true;
    }
    return false;
  }
  bool callPassesResult(ExprId e) {
    if (e == syntax::kNone)
      return false;
    const Expr &x = m_.expr(e);
    if (x.kind == ExprKind::Application) {
      auto it = c_.itemsByName.find(x.name.name);
      if (it != c_.itemsByName.end() &&
          m_.items[it->second].kind == syntax::ItemKind::TileFunction) {
        const Item &callee = m_.items[it->second];
        for (size_t i = 0; i < x.children.size() && i < callee.params.size(); ++i)
          if (callee.params[i].isMutable && rootedAtResult(x.children[i])) {
            c_.error(DiagId::ResultNotCovered, m_.expr(x.children[i]).span,
                     "cannot prove the result `" + resultName_ + "` covered and written once: `" +
                         syntax::printExpr(m_, x.children[i]) +
                         "` is passed to the `mut` "
                         "parameter `" +
                         callee.params[i].name.name + "` of the tile function `" +
                         callee.name.name + "`, whose stores the proof does not follow")
                .note("store the tile function's result into `" + resultName_ +
                      "` in the kernel instead (`" + resultName_ + "[...] <- " + callee.name.name +
                      " ...`)");
            return true;
          }
      }
    }
    for (ExprId c : x.children)
      if (callPassesResult(c))
        return true;
    return false;
  }

  // ------------------------------------------------------------ data flow

  void addAll(std::vector<solver::AtomId> &to, const std::vector<solver::AtomId> &from) {
    for (solver::AtomId a : from)
      if (std::find(to.begin(), to.end(), a) == to.end())
        to.push_back(a);
  }

  /// What an expression's value may depend on: index values in it and the
  /// register tiles it reads.
  void valueDeps(ExprId id, std::vector<solver::AtomId> &out) {
    if (id == syntax::kNone)
      return;
    const Expr &e = m_.expr(id);
    if (auto v = c_.exprValueOrNull(id)) {
      symbolsOf(c_, *v, out);
      return;
    }
    if (e.kind == ExprKind::Name) {
      int sym = c_.program.exprSymbol[id];
      if (sym >= 0) {
        auto d = deps_.find(sym);
        if (d != deps_.end())
          addAll(out, d->second);
      }
    }
    for (ExprId child : e.children)
      valueDeps(child, out);
  }

  /// Flow-insensitive: iterate to a fixpoint over the assignments to
  /// register tiles, with the symbols of the conditions and loop bounds
  /// around each (control dependence).
  void dataFlow(const std::vector<StmtId> &body, std::vector<solver::AtomId> control) {
    bool changed = true;
    for (int round = 0; changed && round < 16; ++round) {
      changed = false;
      flowBlock(body, control, changed);
    }
  }
  void flowBlock(const std::vector<StmtId> &body, const std::vector<solver::AtomId> &control,
                 bool &changed) {
    for (StmtId id : body) {
      const Stmt &st = m_.stmt(id);
      switch (st.kind) {
      case StmtKind::If: {
        std::vector<solver::AtomId> inner = control;
        symbolsOfExpr(c_, st.value, inner);
        flowBlock(st.body, inner, changed);
        flowBlock(st.elseBody, inner, changed);
        break;
      }
      case StmtKind::For: {
        std::vector<solver::AtomId> inner = control;
        symbolsOfExpr(c_, st.value, inner);
        symbolsOfExpr(c_, st.end, inner);
        flowBlock(st.body, inner, changed);
        break;
      }
      case StmtKind::BlockGrid:
      case StmtKind::WarpGrid:
      case StmtKind::WarpgroupGrid:
      case StmtKind::Role:
        flowBlock(st.body, control, changed);
        break;
      case StmtKind::Wgmma: {
        // The accumulator depends on itself and on the operands' slices.
        const Expr &t = m_.expr(st.target);
        int sym = t.kind == ExprKind::Name ? c_.program.exprSymbol[st.target] : -1;
        if (sym < 0)
          break;
        std::vector<solver::AtomId> d = control;
        for (ExprId x : {st.value, st.operandA, st.operandB, st.zeroWhen})
          if (x != syntax::kNone)
            valueDeps(x, d);
        std::vector<solver::AtomId> &cur = deps_[sym];
        size_t before = cur.size();
        addAll(cur, d);
        changed = changed || cur.size() != before;
        break;
      }
      case StmtKind::CpAsync:
      case StmtKind::TmaLoad:
      case StmtKind::Assign: {
        ExprId base = st.target;
        while (m_.expr(base).kind == ExprKind::Index || m_.expr(base).kind == ExprKind::Paren)
          base = m_.expr(base).children[0];
        int sym = m_.expr(base).kind == ExprKind::Name ? c_.program.exprSymbol[base] : -1;
        // Shared tiles carry what was stored or copied into them (cp_async,
        // tma_load), so a value read back from one (an MMA operand) depends
        // on the block ids of the slice it came from: four split-K blocks
        // storing their partial products into one tile are K0907.
        if (sym < 0 || (c_.program.symbolInfos[sym].kind != SymbolKind::Register &&
                        c_.program.symbolInfos[sym].kind != SymbolKind::Shared))
          break;
        std::vector<solver::AtomId> d = control;
        valueDeps(st.value, d);
        valueDeps(st.fill, d); // a masked load's elements past the edge are the fill
        std::vector<solver::AtomId> &cur = deps_[sym];
        size_t before = cur.size();
        addAll(cur, d);
        changed = changed || cur.size() != before;
        break;
      }
      default:
        break;
      }
    }
  }

  // ------------------------------------------------------------- stores

  void collect(const std::vector<StmtId> &body) {
    for (StmtId id : body)
      collectStmt(id);
  }

  /// Pushes a tile id v over [0, n * H) as its two digits `floor_div v n`
  /// over [0, H) and `v mod n` over [0, n) when both are in use (a grouped
  /// rasterization's `r mod 8` and `floor_div r 8`, docs/language.md
  /// "Grouped rasterization"): v = n * (floor_div v n) + v mod n is a
  /// bijection, so the pair covers what v would. The digits may split again.
  void pushDigits(const Var &v, int depth = 0) {
    std::optional<solver::AtomId> div, mod;
    int64_t n = 0;
    DimExpr operand = DimExpr::atom(v.atom);
    // A dimension divisor: `v / E` (bounded by H with v < H * E, CheckLoops.cpp)
    // beside `v mod E` (`r / (N/32)`, `r mod (N/32)`: row-major in a band).
    for (const Checker::IndexQuotient &q : c_.quotients) {
      // The bound came from v's own range [0, H * E) (its loop's end or the
      // remainder's divisor), so the digits cover that range exactly.
      if (q.mod || !q.bound || !(q.dividend == operand) || depth >= 4 ||
          v.lo.constantValue() != std::optional<int64_t>(0) ||
          !c_.prover.proveEqual(c_.symbols.mul(*q.bound, q.divisor), v.hi).proved())
        continue;
      for (const Checker::IndexQuotient &m : c_.quotients)
        if (m.mod && m.dividend == operand && m.divisor == q.divisor) {
          retired_.push_back(v.atom);
          pushDigits(Var{q.atom, DimExpr::constant(0), *q.bound, v.kind, v.site, v.endExpr},
                     depth + 1);
          pushDigits(Var{m.atom, DimExpr::constant(0), m.divisor, v.kind, v.site, v.endExpr},
                     depth + 1);
          return;
        }
    }
    for (size_t a = 0; a < c_.symbols.size() && depth < 4; ++a) {
      const solver::AtomInfo &info = c_.symbols.info(static_cast<solver::AtomId>(a));
      if (info.Kind != solver::AtomKind::FloorDiv || !(info.Operand == operand))
        continue;
      auto m = c_.symbols.mod(operand, info.Divisor).asAtom();
      if (!m || !used(*m))
        continue;
      div = static_cast<solver::AtomId>(a);
      mod = *m;
      n = info.Divisor;
      break;
    }
    if (div && v.lo.isConstant() && v.lo.constantValue() == 0 &&
        c_.prover.proveDivisible(v.hi, n).proved()) {
      DimExpr h = c_.symbols.exactDiv(v.hi, n);
      if (h.isValid()) {
        retired_.push_back(v.atom);
        pushDigits(Var{*div, DimExpr::constant(0), h, v.kind, v.site, v.endExpr}, depth + 1);
        pushDigits(Var{*mod, DimExpr::constant(0), DimExpr::constant(n), v.kind, v.site, v.endExpr},
                   depth + 1);
        return;
      }
    }
    vars_.push_back(v);
  }
  /// Whether the atom was interned before coverage ran (some index uses it).
  bool used(solver::AtomId a) const { return a < symbolsAtStart_; }

  void collectStmt(StmtId id) {
    const Stmt &st = m_.stmt(id);
    switch (st.kind) {
    case StmtKind::Role: {
      // A role narrows `warpgroup_id` (a variable of its warpgroup grid).
      auto g = c_.gridOf.find(id);
      std::vector<std::pair<size_t, Var>> saved;
      if (g != c_.gridOf.end() && !g->second.ids.empty() && !g->second.starts.empty())
        if (auto a = g->second.ids[0].asAtom())
          for (size_t i = 0; i < vars_.size(); ++i)
            if (vars_[i].atom == *a) {
              saved.push_back({i, vars_[i]});
              vars_[i].lo = g->second.starts[0];
              vars_[i].hi = g->second.extents[0];
            }
      collect(st.body);
      for (auto &[i, v] : saved)
        vars_[i] = v;
      return;
    }
    case StmtKind::BlockGrid:
    case StmtKind::WarpGrid:
    case StmtKind::WarpgroupGrid: {
      size_t n = vars_.size();
      inputs_.push_back(st.keywordSpan);
      if (!st.shapeSpan.empty())
        inputs_.push_back(st.shapeSpan);
      if (auto g = c_.gridOf.find(id); g != c_.gridOf.end())
        for (size_t i = 0; i < g->second.ids.size(); ++i)
          if (auto a = g->second.ids[i].asAtom())
            vars_.push_back(Var{*a, DimExpr::constant(0), g->second.extents[i],
                                st.kind != StmtKind::BlockGrid ? VarKind::Warp : VarKind::Block,
                                st.keywordSpan});
      collect(st.body);
      vars_.resize(n);
      return;
    }
    case StmtKind::For: {
      auto var = c_.loopVarOf.find(id);
      auto start = c_.exprValueOrNull(st.value);
      auto end = c_.exprValueOrNull(st.end);
      size_t n = vars_.size();
      if (st.value != syntax::kNone && st.end != syntax::kNone)
        inputs_.push_back(Span{m_.expr(st.value).span.begin, m_.expr(st.end).span.end});
      auto strided = c_.stridedLoops.find(id);
      if (strided != c_.stridedLoops.end() && strided->second.persistent) {
        // A persistent tile loop: over all blocks t takes every value of
        // [0, end) once, so it replaces the block id it starts at; a pair
        // `t / E`, `t mod E` with end = A * E stands for it as two ids.
        const Checker::StridedLoop &loop = strided->second;
        Span range{m_.expr(st.value).span.begin, m_.expr(st.end).span.end};
        std::vector<Var> saved = vars_;
        auto blockAtom = loop.blockId.asAtom();
        vars_.erase(std::remove_if(vars_.begin(), vars_.end(),
                                   [&](const Var &v) { return blockAtom && v.atom == *blockAtom; }),
                    vars_.end());
        auto tAtom = loop.var.asAtom();
        // A tile pair p = t / n with n | G (a cluster's pair of tiles,
        // CheckLoops.cpp): t = n * p + (block_id d mod n), so p over
        // [0, T / n) and `block_id d mod n` (the cluster rank) over [0, n)
        // stand for t; p may split further as below.
        DimExpr tile = loop.var;
        DimExpr tileEnd = loop.end;
        std::optional<Var> rankVar;
        for (const auto &[atom, tp] : c_.tilePairs) {
          auto r = c_.loopRanges.find(atom);
          if (tp.first != id || r == c_.loopRanges.end() || rankVar)
            continue;
          auto rank = c_.symbols.mod(loop.blockId, tp.second).asAtom();
          if (!rank)
            continue;
          tile = DimExpr::atom(atom);
          tileEnd = r->second.second;
          rankVar =
              Var{*rank, DimExpr::constant(0), DimExpr::constant(tp.second), VarKind::Block, range};
        }
        if (rankVar) {
          vars_.push_back(*rankVar);
          tAtom = tile.asAtom();
        }
        bool split = false;
        for (const Checker::IndexQuotient &q : c_.quotients) {
          if (q.mod || !q.bound || !(q.dividend == tile))
            continue;
          for (const Checker::IndexQuotient &r : c_.quotients)
            if (r.mod && r.dividend == tile && r.divisor == q.divisor && !split) {
              pushDigits(Var{q.atom, DimExpr::constant(0), *q.bound, VarKind::Block, range});
              pushDigits(Var{r.atom, DimExpr::constant(0), r.divisor, VarKind::Block, range});
              split = true;
            }
        }
        size_t retiredBefore = retired_.size();
        if (split && tAtom)
          retired_.push_back(*tAtom);
        if (!split && tAtom)
          vars_.push_back(Var{*tAtom, DimExpr::constant(0), tileEnd, VarKind::Block, range});
        collect(st.body);
        vars_ = std::move(saved);
        retired_.resize(retiredBefore);
        return;
      }
      // A strided loop's variable skips values: it is no variable of the
      // fragment (a store it moves is not proved to cover). Its ordinal
      // (`t / S`) is, over [0, ceil((end - start) / S)) when S is a
      // constant; a variable that no store mentions, over [start, end),
      // stands for "may run zero times".
      if (strided != c_.stridedLoops.end() && start && end) {
        const Checker::StridedLoop &loop = strided->second;
        Span range{m_.expr(st.value).span.begin, m_.expr(st.end).span.end};
        if (auto s = loop.step.constantValue(); s && *s > 0)
          if (auto a = loop.ordinal.asAtom()) {
            DimExpr trips = c_.symbols.ceilDiv(*end - *start, *s);
            if (trips.isValid())
              vars_.push_back(Var{*a, DimExpr::constant(0), trips, VarKind::Loop, range, st.end});
          }
        solver::AtomId runs = c_.symbols.newSymbol("(the loop runs)", solver::SymbolKind::Other);
        vars_.push_back(Var{runs, *start, *end, VarKind::Loop, range, st.end});
      } else if (var != c_.loopVarOf.end() && start && end)
        if (auto a = var->second.asAtom()) {
          Span range{m_.expr(st.value).span.begin, m_.expr(st.end).span.end};
          vars_.push_back(Var{*a, *start, *end, VarKind::Loop, range, st.end});
        }
      collect(st.body);
      vars_.resize(n);
      return;
    }
    case StmtKind::If:
      if (st.value != syntax::kNone)
        inputs_.push_back(m_.expr(st.value).span);
      conds_.push_back({st.value, true});
      collect(st.body);
      conds_.back().holds = false;
      collect(st.elseBody);
      conds_.pop_back();
      return;
    case StmtKind::TmaStore: // a box of the result, like a store
    case StmtKind::Assign: {
      const Expr &t = m_.expr(st.target);
      ExprId base = t.kind == ExprKind::Index ? t.children[0] : st.target;
      if (m_.expr(base).kind != ExprKind::Name)
        return;
      int sym = c_.program.exprSymbol[base];
      if (sym >= 0 && st.kind == StmtKind::Assign &&
          c_.program.symbolInfos[sym].kind == SymbolKind::Shared) {
        collectSharedStore(id, st, t);
        return;
      }
      if (sym < 0 || c_.program.symbolInfos[sym].kind != SymbolKind::Result)
        return;
      Store s;
      s.stmt = id;
      s.span = st.span;
      if (st.kind == StmtKind::Assign) {
        const Expr &v = m_.expr(st.value);
        s.atomic = v.kind == ExprKind::Application &&
                   (v.name.name == "atomic_add" || v.name.name == "atomic_max" ||
                    v.name.name == "atomic_min");
      }
      size_t rank = resultType_.tensor.shape.size();
      if (errorWithin(c_, st.span)) {
        brokenStore_ = true;
        return;
      }
      brokenStore_ = true; // until the box is known
      if (t.kind != ExprKind::Index) {
        for (size_t i = 0; i < rank; ++i) {
          s.start.push_back(DimExpr::constant(0));
          s.len.push_back(-1); // the whole extent
        }
      } else {
        if (t.children.size() != rank + 1)
          return;
        for (size_t i = 0; i < rank; ++i) {
          const Expr &ix = m_.expr(t.children[i + 1]);
          std::optional<DimExpr> start;
          int64_t len = 1;
          if (ix.kind == ExprKind::Slice) {
            start = c_.exprValueOrNull(ix.children[0]);
            auto l = c_.exprValueOrNull(ix.children[1]);
            if (!l || !l->constantValue())
              return;
            len = *l->constantValue();
          } else {
            start = c_.exprValueOrNull(t.children[i + 1]);
          }
          if (!start)
            return;
          s.start.push_back(*start);
          s.len.push_back(len);
        }
      }
      brokenStore_ = false;
      s.vars = vars_;
      s.retired = retired_;
      s.conds = conds_;
      // The conditions around the store decide whether it runs, not what it
      // stores (a merged if/else adds its condition: mergeComplementary).
      valueDeps(st.value, s.valueDeps);
      stores_.push_back(std::move(s));
      return;
    }
    default:
      return;
    }
  }

  /// Whether b stores a's box over the same variables: each of b's variables
  /// is a's at that position, or a loop of its own (`for j` in each branch)
  /// whose range equals a's once b's earlier variables are renamed to a's;
  /// then b's start, renamed likewise, must equal a's.
  bool sameBox(const Store &a, const Store &b) {
    if (a.start.size() != b.start.size())
      return false;
    std::vector<std::pair<solver::AtomId, DimExpr>> renames;
    auto rename = [&](DimExpr e) {
      for (const auto &[from, to] : renames)
        e = c_.symbols.substitute(e, from, to);
      return e;
    };
    for (size_t v = 0; v < a.vars.size(); ++v) {
      const Var &x = a.vars[v], &y = b.vars[v];
      if (x.atom == y.atom)
        continue;
      if (x.kind != VarKind::Loop || y.kind != VarKind::Loop || !(rename(y.lo) == x.lo) ||
          !(rename(y.hi) == x.hi))
        return false;
      renames.emplace_back(y.atom, DimExpr::atom(x.atom));
    }
    for (size_t d = 0; d < a.start.size(); ++d)
      if (!(rename(b.start[d]) == a.start[d]))
        return false;
    return true;
  }

  /// A store into a shared tile: its box's starts, the variables and
  /// conditions around it and what its value depends on, for
  /// sharedDuplicates.
  void collectSharedStore(StmtId id, const Stmt &st, const Expr &t) {
    if (errorWithin(c_, st.span))
      return;
    Store s;
    s.stmt = id;
    s.span = st.span;
    s.tile = syntax::printExpr(m_, t.kind == ExprKind::Index ? t.children[0] : st.target);
    if (t.kind == ExprKind::Index)
      for (size_t i = 1; i < t.children.size(); ++i) {
        const Expr &ix = m_.expr(t.children[i]);
        auto start =
            c_.exprValueOrNull(ix.kind == ExprKind::Slice ? ix.children[0] : t.children[i]);
        if (!start)
          return;
        int64_t len = 1;
        if (ix.kind == ExprKind::Slice) {
          auto l = c_.exprValueOrNull(ix.children[1]);
          if (!l || !l->constantValue())
            return;
          len = *l->constantValue();
        }
        s.start.push_back(*start);
        s.len.push_back(len);
      }
    s.vars = vars_;
    s.conds = conds_;
    valueDeps(st.value, s.valueDeps);
    sharedStores_.push_back(std::move(s));
  }

  // ----------------------------------- races between shared-store statements

  /// A shared store that may still be running in another warp: no
  /// `block_sync` on some path since it. `carried` holds the loops whose back
  /// edge it crossed: it may be from another iteration of each.
  struct OpenStore {
    size_t store;
    std::vector<solver::AtomId> carried;
  };
  using OpenSet = std::vector<OpenStore>;

  static constexpr uint64_t kRaceBudget = 20000;
  struct RaceWalk {
    std::vector<Store> stores; ///< sharedStores_, narrowed (before merging)
    std::map<StmtId, size_t> byStmt;
    std::set<size_t> reported;
    uint64_t work = 0;
  };

  /// One entry per store and "from this iteration or not": another
  /// iteration's entries of one store merge their loops (a dimension that
  /// moves with any of them keeps no warps apart), so the set stays at most
  /// twice the stores however deep the loops nest.
  static void addOpen(OpenSet &set, OpenStore e) {
    for (OpenStore &x : set)
      if (x.store == e.store && x.carried.empty() == e.carried.empty()) {
        for (solver::AtomId a : e.carried)
          if (std::find(x.carried.begin(), x.carried.end(), a) == x.carried.end())
            x.carried.push_back(a);
        std::sort(x.carried.begin(), x.carried.end());
        return;
      }
    std::sort(e.carried.begin(), e.carried.end());
    set.push_back(std::move(e));
  }

  /// Two different statements storing into one shared tile with no
  /// `block_sync` between them run concurrently in different warps (a warp
  /// may be one statement ahead, or a loop iteration); when some element may
  /// be written by both, from different warps, the value that stays is a
  /// race (K0612). A later store by the same warps over the same box under
  /// the same conditions replaces the earlier one (each warp's last write is
  /// the later one), so that pair is fine.
  void sharedRaces(std::vector<Store> stores) {
    if (stores.size() < 2)
      return;
    RaceWalk w;
    w.stores = std::move(stores);
    for (size_t i = 0; i < w.stores.size(); ++i) {
      narrow(w.stores[i]);
      w.byStmt[w.stores[i].stmt] = i;
    }
    raceBlock(item_.body, {}, w);
  }

  OpenSet raceBlock(const std::vector<StmtId> &body, OpenSet open, RaceWalk &w) {
    for (StmtId id : body)
      open = raceStmt(id, std::move(open), w);
    return open;
  }

  OpenSet raceStmt(StmtId id, OpenSet open, RaceWalk &w) {
    const Stmt &st = m_.stmt(id);
    ++w.work;
    switch (st.kind) {
    case StmtKind::BlockSync:
      return {};
    case StmtKind::BlockGrid:
    case StmtKind::WarpGrid:
    case StmtKind::WarpgroupGrid:
    case StmtKind::Role:
      return raceBlock(st.body, std::move(open), w);
    case StmtKind::If: {
      OpenSet a = raceBlock(st.body, open, w);
      OpenSet b = raceBlock(st.elseBody, std::move(open), w);
      for (OpenStore &e : b)
        addOpen(a, std::move(e));
      return a;
    }
    case StmtKind::For: {
      // Twice: the second walk starts from what the first left open, as
      // from another iteration.
      auto var = c_.loopVarOf.find(id);
      auto atom = var == c_.loopVarOf.end() ? std::nullopt : var->second.asAtom();
      OpenSet once = raceBlock(st.body, open, w);
      // Cost control: the second walk doubles the work per nesting level;
      // past the budget loops are walked once (another iteration's stores
      // are then not compared, a documented limit).
      if (w.work > kRaceBudget) {
        for (OpenStore &e : once)
          addOpen(open, std::move(e));
        return open;
      }
      OpenSet head = open;
      for (OpenStore e : once) {
        if (atom && std::find(e.carried.begin(), e.carried.end(), *atom) == e.carried.end())
          e.carried.push_back(*atom);
        addOpen(head, std::move(e));
      }
      OpenSet twice = raceBlock(st.body, std::move(head), w);
      for (OpenStore &e : once)
        addOpen(open, std::move(e));
      for (OpenStore &e : twice)
        addOpen(open, std::move(e));
      return open;
    }
    case StmtKind::Assign: {
      auto it = w.byStmt.find(id);
      if (it == w.byStmt.end())
        return open;
      size_t b = it->second;
      const Store &later = w.stores[b];
      if (later.never)
        return open;
      // Earlier stores this one replaces in every warp that ran them.
      open.erase(std::remove_if(open.begin(), open.end(),
                                [&](const OpenStore &e) {
                                  return e.store != b && e.carried.empty() &&
                                         replaces(later, w.stores[e.store]);
                                }),
                 open.end());
      w.work += open.size();
      for (const OpenStore &e : open) {
        if (w.stores[e.store].tile != later.tile)
          continue;
        // The same statement in another iteration: its warps write the same
        // box each time (a value that differs by warp is sharedDuplicates'),
        // unless which warps run it changes with the iteration.
        if (e.store == b && !condsMention(later, e.carried))
          continue;
        std::string why = crossWarpOverlap(w.stores[e.store], e.carried, later);
        if (why.empty() || sharedRaceAt_.count(later.span.begin) ||
            !w.reported.insert(b).second)
          continue;
        const Store &earlier = w.stores[e.store];
        c_.error(DiagId::SharedWrittenByWarps, later.span,
                 "this store and an earlier one into the shared tile `" + later.tile +
                     "` may run at once in different warps and write the same elements: " +
                     why + "; which value stays is a race")
            .label(earlier.span, "earlier store, no `block_sync` between")
            .note("put a `block_sync` between the two stores (where every warp of the block "
                  "reaches it), give each warp its own elements, or let one warp store both");
        break;
      }
      addOpen(open, OpenStore{b, {}});
      return open;
    }
    default:
      return open;
    }
  }

  /// Whether `later` runs in the same warps under the same conditions as
  /// `earlier` and over the same box: then each of those warps overwrites
  /// what it stored before.
  bool replaces(const Store &later, const Store &earlier) {
    if (later.len != earlier.len || later.vars.size() != earlier.vars.size() ||
        later.conds.size() != earlier.conds.size() || later.maybeNot)
      return false;
    for (size_t i = 0; i < later.conds.size(); ++i)
      if (later.conds[i].expr != earlier.conds[i].expr ||
          later.conds[i].holds != earlier.conds[i].holds)
        return false;
    for (size_t i = 0; i < later.vars.size(); ++i)
      if (later.vars[i].atom != earlier.vars[i].atom)
        return false;
    return sameBox(earlier, later);
  }

  /// Do the conditions around s mention one of the loop variables?
  bool condsMention(const Store &s, const std::vector<solver::AtomId> &loops) {
    std::vector<solver::AtomId> syms;
    for (const Cond &cnd : s.conds)
      symbolsOfExpr(c_, cnd.expr, syms);
    for (solver::AtomId k : loops)
      for (solver::AtomId a : syms)
        if (a == k || dependsOnAtom(DimExpr::atom(a), k))
          return true;
    return false;
  }

  /// Does e depend on atom k (directly, inside a division or remainder, or
  /// through a quotient symbol `k / n` of the index analysis)?
  bool dependsOnAtom(const DimExpr &e, solver::AtomId k, int depth = 0) const {
    if (depth > 8)
      return true;
    return mentions(c_, e, [&](solver::AtomId a) {
      if (a == k)
        return true;
      const Checker::IndexQuotient *q = c_.quotientOf(a);
      return q && dependsOnAtom(q->dividend, k, depth + 1);
    });
  }

  /// Why two stores (a from the iterations `carried` of its loops) may write
  /// one element from two different warps; empty when no two different
  /// warps can. Sufficient conditions only: for each warp id that may differ
  /// between the two writers, some dimension must keep their boxes apart.
  std::string crossWarpOverlap(const Store &a, const std::vector<solver::AtomId> &carried,
                               const Store &b) {
    struct WarpRange {
      solver::AtomId atom;
      std::optional<DimExpr> pinA, pinB; ///< the single value, when narrowed to one
    };
    std::vector<WarpRange> warps;
    auto pinOf = [&](const Store &s, solver::AtomId atom) -> std::optional<DimExpr> {
      for (const Var &v : s.vars)
        if (v.atom == atom)
          return pinned(v) ? std::optional<DimExpr>(v.lo) : std::nullopt;
      return std::nullopt;
    };
    for (const Store *s : {&a, &b})
      for (const Var &v : s->vars)
        if (v.kind == VarKind::Warp &&
            std::none_of(warps.begin(), warps.end(),
                         [&](const WarpRange &x) { return x.atom == v.atom; }))
          warps.push_back(WarpRange{v.atom, pinOf(a, v.atom), pinOf(b, v.atom)});
    if (warps.empty())
      return ""; // one thread group runs both, in order
    bool sameWarp = true;
    for (const WarpRange &x : warps)
      sameWarp = sameWarp && x.pinA && x.pinB && c_.prover.proveEqual(*x.pinA, *x.pinB).proved();
    if (sameWarp)
      return "";
    auto pinAll = [&](DimExpr e, bool first) {
      for (const WarpRange &x : warps)
        if (const auto &p = first ? x.pinA : x.pinB)
          e = c_.symbols.substitute(e, x.atom, *p);
      return e;
    };
    auto isWarp = [&](solver::AtomId atom) {
      return std::any_of(warps.begin(), warps.end(),
                         [&](const WarpRange &x) { return x.atom == atom; });
    };
    size_t dims = std::min(a.start.size(), b.start.size());
    // Per dimension: a's start and b's, with the pinned warp ids substituted;
    // unusable when a's start moves with a loop it may be another iteration of.
    std::vector<std::optional<std::pair<DimExpr, DimExpr>>> starts(dims);
    for (size_t d = 0; d < dims; ++d) {
      bool moves = std::any_of(carried.begin(), carried.end(), [&](solver::AtomId k) {
        return dependsOnAtom(a.start[d], k);
      });
      if (!moves)
        starts[d] = {pinAll(a.start[d], true), pinAll(b.start[d], false)};
    }
    // A dimension apart whatever the warps: no element in common at all.
    for (size_t d = 0; d < dims; ++d) {
      if (!starts[d])
        continue;
      const auto &[sa, sb] = *starts[d];
      if (mentions(c_, sa, isWarp) || mentions(c_, sb, isWarp))
        continue;
      if (c_.prover.proveLessEqual(sa + a.len[d], sb).proved() ||
          c_.prover.proveLessEqual(sb + b.len[d], sa).proved())
        return "";
    }
    for (const WarpRange &x : warps) {
      if (x.pinA && x.pinB && c_.prover.proveEqual(*x.pinA, *x.pinB).proved())
        continue; // the two writers agree on this id
      bool apart = false;
      for (size_t d = 0; d < dims && !apart; ++d) {
        if (!starts[d] || (x.pinA && x.pinB))
          continue;
        // start = c * v + rest in both, rest free of warp ids and the same
        // up to a constant delta: warps m >= 1 apart in v are c * m + delta
        // apart, which clears both boxes when |c| + delta >= len(b) and
        // delta - |c| <= -len(a). A store narrowed to v = p reads as
        // c * v + (start - c * p) at v = p.
        const auto &[sa, sb] = *starts[d];
        int64_t ca = sa.coeffOf(x.atom), cb = sb.coeffOf(x.atom);
        if (x.pinA)
          ca = cb;
        if (x.pinB)
          cb = ca;
        if (ca == 0 || ca != cb)
          continue;
        DimExpr ra = x.pinA ? sa - *x.pinA * ca : sa - DimExpr::atom(x.atom, ca);
        DimExpr rb = x.pinB ? sb - *x.pinB * cb : sb - DimExpr::atom(x.atom, cb);
        if (mentions(c_, ra, isWarp) || mentions(c_, rb, isWarp))
          continue;
        auto delta = (ra - rb).constantValue();
        int64_t c = std::abs(ca);
        apart = delta && c + *delta >= b.len[d] && *delta - c <= -a.len[d];
      }
      if (!apart)
        return "two warps with different `" + name(x.atom) + "` store overlapping boxes";
    }
    return "";
  }

  /// Every warp runs a store into a shared tile at the same moment: when its
  /// box does not depend on a warp id but its value does, the warps write
  /// different values into the same elements and which one stays is a race
  /// (K0612), whatever barriers come before or after.
  void sharedDuplicates() {
    // `if w = 0 { s[b] <- x } else { s[b] <- y }` is one store of a value
    // that depends on w: both warps write the box at once.
    mergeComplementary(sharedStores_);
    for (Store &s : sharedStores_) {
      narrow(s);
      if (s.never || s.maybeNot)
        continue;
      for (const Var &v : s.vars) {
        if (v.kind != VarKind::Warp || pinned(v) || !dependsOn(s, v.atom))
          continue;
        // Two warps that differ by one in v (and agree on the other ids)
        // write boxes shifted by v's coefficient in each dimension that
        // mentions it: they overlap when every such shift is below the box's
        // length there (v inside a division or remainder: left alone).
        auto isV = [&](solver::AtomId x) { return x == v.atom; };
        bool overlap = true, plain = true;
        for (size_t d = 0; d < s.start.size() && overlap; ++d) {
          if (!mentions(c_, s.start[d], isV))
            continue;
          plain = false;
          int64_t c = s.start[d].coeffOf(v.atom);
          if (c == 0 || mentions(c_, s.start[d] - DimExpr::atom(v.atom, c), isV) ||
              std::abs(c) >= s.len[d])
            overlap = false;
        }
        if (!overlap)
          continue;
        sharedRaceAt_.insert(s.span.begin);
        c_.error(DiagId::SharedWrittenByWarps, s.span,
                 "warps with different `" + name(v.atom) +
                     "` store different values into the same elements of the shared tile `" +
                     s.tile + "`: " +
                     (plain ? "this store does not depend on `" + name(v.atom) +
                                  "`, but the stored value does"
                            : "the boxes of warps one `" + name(v.atom) +
                                  "` apart overlap, and the stored value depends on it"))
            .note("give each warp its own rows (a start with `" + name(v.atom) +
                  " * length`), or let one warp store, e.g. `if " + name(v.atom) +
                  " = 0 { ... }`, then `block_sync`");
        break; // one error per store
      }
    }
  }

  /// `if c { res[b] <- x } else { res[b] <- y }`: the same box under
  /// complementary conditions is one unconditional store.
  void mergeComplementary(std::vector<Store> &stores) {
    for (bool merged = true; merged;) {
      merged = false;
      for (size_t i = 0; i < stores.size() && !merged; ++i)
        for (size_t j = i + 1; j < stores.size() && !merged; ++j) {
          Store &a = stores[i], &b = stores[j];
          if (a.len != b.len || a.conds.size() != b.conds.size() ||
              a.vars.size() != b.vars.size() || !sameBox(a, b))
            continue;
          int differ = -1;
          bool ok = true;
          for (size_t k = 0; k < a.conds.size() && ok; ++k) {
            if (a.conds[k].expr != b.conds[k].expr)
              ok = false;
            else if (a.conds[k].holds != b.conds[k].holds) {
              if (differ >= 0)
                ok = false;
              differ = static_cast<int>(k);
            }
          }
          if (!ok || differ < 0)
            continue;
          // The two branches store different values: the merged store's value
          // depends on the condition.
          symbolsOfExpr(c_, a.conds[differ].expr, a.valueDeps);
          a.conds.erase(a.conds.begin() + differ);
          addAll(a.valueDeps, b.valueDeps);
          stores.erase(stores.begin() + static_cast<std::ptrdiff_t>(j));
          merged = true;
        }
    }
  }

  // ----------------------------------------------------------- narrowing

  Var *varOf(Store &s, solver::AtomId a) {
    for (Var &v : s.vars)
      if (v.atom == a)
        return &v;
    return nullptr;
  }

  bool isVar(const Store &s, solver::AtomId a) const {
    for (const Var &v : s.vars)
      if (v.atom == a)
        return true;
    return false;
  }

  /// Narrows the variables' ranges by the conditions around the store, and
  /// decides whether it provably runs.
  void narrow(Store &s) {
    for (const Cond &cnd : s.conds) {
      if (!narrowBy(s, cnd)) {
        if (!s.maybeNot) {
          s.maybeNot = m_.expr(cnd.expr).span;
          std::string text = syntax::printExpr(m_, cnd.expr);
          s.maybeNotCond = text;
          s.maybeNotHolds = cnd.holds;
        }
      }
      if (s.never)
        return;
    }
    for (const Var &v : s.vars) {
      if (v.kind != VarKind::Loop)
        continue; // grids have at least one block and one warp per axis
      if (c_.prover.proveLessEqual(v.hi, v.lo).proved()) {
        s.never = true;
        return;
      }
      if (!c_.prover.proveLess(v.lo, v.hi).proved() && !s.maybeNot) {
        s.maybeNot = v.site;
        s.maybeNotWhy = "`" + resultName_ +
                        "` is written only inside this loop, which may run "
                        "zero times: cannot prove " +
                        c_.str(v.lo) + " < " + c_.str(v.hi);
      }
    }
  }

  /// Why a store may not run: its loop's message, or its condition, worded
  /// by whether other stores exist (they did not cover the other case).
  std::string maybeNotWhy(const Store &s) const {
    if (s.maybeNotCond.empty())
      return s.maybeNotWhy;
    std::string when =
        s.maybeNotHolds ? "`" + s.maybeNotCond + "`" : "`" + s.maybeNotCond + "` does not hold";
    std::string otherwise = stores_.size() == 1
                                ? (s.maybeNotHolds ? "nothing writes it when the condition does "
                                                     "not hold"
                                                   : "nothing writes it when it does")
                                : "the stores on the other path do not cover it";
    return "`" + resultName_ + "` is stored " + (stores_.size() == 1 ? "" : "in full ") +
           "only when " + when + ": " + otherwise;
  }

  /// Applies one condition; false when it cannot be expressed as a range.
  bool narrowBy(Store &s, const Cond &cnd) {
    const Expr &e0 = m_.expr(cnd.expr);
    const Expr *e = &e0;
    while (e->kind == ExprKind::Paren)
      e = &m_.expr(e->children[0]);
    if (e->kind != ExprKind::Binary)
      return false;
    auto a = c_.exprValueOrNull(e->children[0]);
    auto b = c_.exprValueOrNull(e->children[1]);
    if (!a || !b)
      return false;
    BinaryOp op = e->op;
    if (!cnd.holds) {
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
        break;
      case BinaryOp::Eq:
        op = BinaryOp::Ne;
        break;
      default:
        return false;
      }
    }
    // d op 0 with d = a - b.
    DimExpr d = *a - *b;
    std::optional<solver::AtomId> only;
    int64_t coeff = 0;
    for (const solver::Term &t : d.terms()) {
      const solver::AtomInfo &info = c_.symbols.info(t.Atom);
      bool mentionsVar = false;
      for (solver::AtomId sym : info.Symbols)
        mentionsVar = mentionsVar || isVar(s, sym);
      if (!mentionsVar)
        continue;
      if (info.Kind != solver::AtomKind::Symbol || only)
        return false;
      only = t.Atom;
      coeff = t.Coeff;
    }
    if (!only) {
      // A fact about the dims and outer values only: it holds or it does not.
      solver::Proof p = op == BinaryOp::Lt   ? c_.prover.proveLess(*a, *b)
                        : op == BinaryOp::Le ? c_.prover.proveLessEqual(*a, *b)
                        : op == BinaryOp::Gt ? c_.prover.proveLess(*b, *a)
                        : op == BinaryOp::Ge ? c_.prover.proveLessEqual(*b, *a)
                        : op == BinaryOp::Eq ? c_.prover.proveEqual(*a, *b)
                                             : solver::Proof{};
      return p.proved();
    }
    if (coeff != 1 && coeff != -1)
      return false;
    // v op' bound, with v's coefficient made +1.
    DimExpr rest = d - DimExpr::atom(*only, coeff); // d = coeff*v + rest
    DimExpr bound = coeff == 1 ? -rest : rest;      // v op bound  (or v flipped op bound)
    if (coeff == -1) {
      switch (op) {
      case BinaryOp::Lt:
        op = BinaryOp::Gt;
        break;
      case BinaryOp::Le:
        op = BinaryOp::Ge;
        break;
      case BinaryOp::Gt:
        op = BinaryOp::Lt;
        break;
      case BinaryOp::Ge:
        op = BinaryOp::Le;
        break;
      default:
        break;
      }
    }
    Var *v = varOf(s, *only);
    if (!v)
      return false;
    auto lowerTo = [&](const DimExpr &hi) { // hi := min(hi, bound)
      if (c_.prover.proveLessEqual(v->hi, hi).proved())
        return true;
      if (c_.prover.proveLessEqual(hi, v->hi).proved()) {
        v->hi = hi;
        return true;
      }
      return false;
    };
    auto raiseTo = [&](const DimExpr &lo) {
      if (c_.prover.proveLessEqual(lo, v->lo).proved())
        return true;
      if (c_.prover.proveLessEqual(v->lo, lo).proved()) {
        v->lo = lo;
        return true;
      }
      return false;
    };
    switch (op) {
    case BinaryOp::Lt:
      return lowerTo(bound);
    case BinaryOp::Le:
      return lowerTo(bound + 1);
    case BinaryOp::Gt:
      return raiseTo(bound + 1);
    case BinaryOp::Ge:
      return raiseTo(bound);
    case BinaryOp::Eq:
      return raiseTo(bound) && lowerTo(bound + 1);
    case BinaryOp::Ne:
      // Only an end of the range can be taken out and leave an interval.
      if (c_.prover.proveEqual(bound, v->lo).proved()) {
        v->lo = v->lo + 1;
        return true;
      }
      if (c_.prover.proveEqual(bound, v->hi - 1).proved()) {
        v->hi = v->hi - 1;
        return true;
      }
      return false;
    default:
      return false;
    }
  }

  // ---------------------------------------------------------- duplicates

  bool dependsOn(const Store &s, solver::AtomId a) const {
    return std::find(s.valueDeps.begin(), s.valueDeps.end(), a) != s.valueDeps.end();
  }

  bool pinned(const Var &v) { return c_.prover.proveEqual(v.hi, v.lo + 1).proved(); }

  bool inStart(const Store &s, solver::AtomId a) const {
    for (const DimExpr &e : s.start)
      if (mentions(c_, e, [&](solver::AtomId x) { return x == a; }))
        return true;
    return false;
  }

  void duplicates() {
    // Atomics combine the values of every block and warp into an element;
    // a plain store into the same result would race with them (K0670).
    const Store *atomic = nullptr, *plain = nullptr;
    for (const Store &s : stores_)
      (s.atomic ? atomic : plain) = &s;
    if (atomic && plain) {
      c_.error(DiagId::AtomicMixedStores, plain->span,
               "`" + resultName_ + "` is updated with atomics and also written by this store")
          .label(atomic->span, "an atomic update of `" + resultName_ + "`")
          .note("a result updated with atomics starts at zero; write it with atomics only");
      return;
    }
    for (Store &s : stores_) {
      if (s.never || s.atomic)
        continue;
      for (const Var &v : s.vars) {
        if (v.kind == VarKind::Loop || inStart(s, v.atom) || pinned(v) || !dependsOn(s, v.atom))
          continue;
        std::string who = v.kind == VarKind::Warp ? "warps" : "blocks";
        c_.error(DiagId::ResultWrittenTwice, s.span,
                 who + " with different `" + name(v.atom) +
                     "` store different values into the "
                     "same elements of `" +
                     resultName_ + "`: this store does not depend on `" + name(v.atom) +
                     "`, but the stored value does")
            .note("give each " + std::string(v.kind == VarKind::Warp ? "warp" : "block") +
                  " its own region (a start with `" + name(v.atom) +
                  " * length`), or let one store, e.g. `if " + name(v.atom) + " = 0 { ... }`");
        break; // one error per store
      }
    }
  }

  // ------------------------------------------------------------ coverage

  /// One dimension's union: [base, base + ext), or why it is not an interval.
  struct DimUnion {
    DimExpr base, ext;
    bool ok = false;
    std::string gap;                       ///< the region never written, as `start ..+ length`
    std::string unknown;                   ///< why the union cannot be computed
    std::optional<solver::AtomId> overlap; ///< a block/warp var whose boxes overlap
  };

  DimUnion dimUnion(const Store &s, size_t d, const std::vector<Var> &vars) {
    DimUnion u;
    const DimExpr &start = s.start[d];
    DimExpr extent = resultType_.tensor.shape[d];
    DimExpr rest = start;
    struct Piece {
      const Var *var;
      int64_t coeff;
    };
    std::vector<Piece> pieces;
    for (const solver::Term &t : start.terms()) {
      const solver::AtomInfo &info = c_.symbols.info(t.Atom);
      const Var *v = nullptr;
      for (const Var &x : vars)
        if (x.atom == t.Atom)
          v = &x;
      bool mentionsVar = v != nullptr; // a variable itself (a cluster rank is a mod atom)
      for (solver::AtomId sym : info.Symbols)
        for (const Var &x : vars)
          mentionsVar = mentionsVar || x.atom == sym;
      for (solver::AtomId r : s.retired)
        if (!v && (t.Atom == r ||
                   std::find(info.Symbols.begin(), info.Symbols.end(), r) != info.Symbols.end())) {
          u.unknown = "the start `" + c_.str(start) + "` of dimension " + std::to_string(d + 1) +
                      " uses `" + name(r) +
                      "`, which the proof reads as its quotient and remainder";
          return u;
        }
      if (!mentionsVar)
        continue;
      if (!v) {
        u.unknown = "the start `" + c_.str(start) + "` of dimension " + std::to_string(d + 1) +
                    " is not a sum of constants times block ids, warp ids and loop variables";
        return u;
      }
      if (t.Coeff <= 0) {
        u.unknown = "the start `" + c_.str(start) + "` of dimension " + std::to_string(d + 1) +
                    " decreases with `" + name(t.Atom) + "`";
        return u;
      }
      pieces.push_back({v, t.Coeff});
      rest = rest - DimExpr::atom(t.Atom, t.Coeff);
    }
    std::sort(pieces.begin(), pieces.end(),
              [](const Piece &a, const Piece &b) { return a.coeff < b.coeff; });
    DimExpr base = rest;
    for (const Piece &p : pieces)
      base = base + p.var->lo * p.coeff;
    DimExpr ext = s.len[d] < 0 ? extent : DimExpr::constant(s.len[d]);
    std::string inner; // the part of the start below the current piece
    for (size_t i = 0; i < pieces.size(); ++i) {
      const Piece &p = pieces[i];
      DimExpr c = DimExpr::constant(p.coeff);
      DimExpr n = p.var->hi - p.var->lo;
      if (c_.prover.proveEqual(c, ext).proved()) {
        ext = c_.symbols.mul(c, n);
      } else if (c_.prover.proveLess(c, ext).proved()) {
        if (p.var->kind != VarKind::Loop && !u.overlap)
          u.overlap = p.var->atom;
        ext = c_.symbols.mul(c, n - 1) + ext;
      } else if (c_.prover.proveLess(ext, c).proved()) {
        // A gap of c - ext after each step of this variable.
        DimExpr gapStart = base + ext;
        for (size_t j = i; j < pieces.size(); ++j)
          gapStart = gapStart + DimExpr::atom(pieces[j].var->atom, pieces[j].coeff) -
                     pieces[j].var->lo * pieces[j].coeff;
        u.gap = c_.str(gapStart) + " ..+ " + c_.str(c - ext);
        return u;
      } else {
        u.unknown = "cannot compare the step " + std::to_string(p.coeff) + " of `" +
                    name(p.var->atom) + "` with the extent `" + c_.str(ext) +
                    "` covered below it in dimension " + std::to_string(d + 1);
        return u;
      }
      if (!ext.isValid()) {
        u.unknown = "the covered extent of dimension " + std::to_string(d + 1) + " overflows";
        return u;
      }
    }
    u.base = base;
    u.ext = ext;
    u.ok = true;
    return u;
  }

  /// `start ..+ length`, in the simplest form the facts allow: a constant
  /// length, and then the start counted back from the extent (`M - 64`).
  std::string region(const DimExpr &start, const DimExpr &length, const DimExpr &extent) {
    std::optional<int64_t> constant;
    solver::Interval len = c_.prover.bounds(length);
    if (len.isSingleton())
      constant = len.Lo;
    else if (c_.prover.proveEqual(length, DimExpr::constant(length.constantTerm())).proved())
      constant = length.constantTerm(); // `M - (M / 64) * 64 + 64` is 64
    if (constant) {
      DimExpr back = extent - *constant;
      std::string from = c_.prover.proveEqual(start, back).proved() ? c_.str(back) : c_.str(start);
      return from + " ..+ " + std::to_string(*constant);
    }
    return c_.str(start) + " ..+ " + c_.str(length);
  }

  std::string slice(size_t d, const std::string &region) const {
    std::string r = resultName_ + "[";
    for (size_t i = 0; i < resultType_.tensor.shape.size(); ++i)
      r += (i ? ", " : "") + (i == d ? region : std::string(".."));
    return r + "]";
  }

  std::string describe(const Store &s, const std::vector<Var> &vars) const {
    std::string r = "this store writes `" + resultName_ + "[";
    for (size_t i = 0; i < s.start.size(); ++i)
      r += (i ? ", " : "") + c_.str(s.start[i]) + " ..+ " +
           (s.len[i] < 0 ? c_.str(resultType_.tensor.shape[i]) : std::to_string(s.len[i]));
    r += "]`";
    bool first = true;
    for (const Var &v : vars) {
      if (!inStart(s, v.atom))
        continue;
      r += (first ? " for " : ", ") + name(v.atom) + " in [" + c_.str(v.lo) + ", " + c_.str(v.hi) +
           ")";
      first = false;
    }
    return r;
  }

  /// Result of proving one (merged) store covers the result.
  struct Verdict {
    bool covered = false;
    std::vector<solver::AtomId> overlaps; ///< grid ids whose boxes overlap
    std::string uncovered;                ///< the region never written
    std::string unknown;                  ///< or why it cannot be decided
  };

  /// The region one (merged) store writes, per dimension `[lo, hi)`.
  struct Box {
    std::vector<DimExpr> lo, hi;
  };

  /// The union of a store's boxes over its variables, when it has no gap;
  /// otherwise v says why (a gap, or a structure outside the fragment).
  std::optional<Box> unionBox(const Store &s, Verdict &v) {
    // Pinned variables are constants.
    std::vector<Var> vars;
    Store t = s;
    for (const Var &x : s.vars) {
      if (pinned(x)) {
        for (DimExpr &e : t.start)
          e = c_.symbols.substitute(e, x.atom, x.lo);
        continue;
      }
      vars.push_back(x);
    }
    // Each variable in at most one dimension.
    for (const Var &x : vars) {
      int dims = 0;
      for (const DimExpr &e : t.start)
        dims += mentions(c_, e, [&](solver::AtomId a) { return a == x.atom; }) ? 1 : 0;
      if (dims > 1) {
        v.unknown = "`" + name(x.atom) + "` appears in more than one dimension of the store";
        return std::nullopt;
      }
    }
    Box box;
    for (size_t d = 0; d < t.start.size(); ++d) {
      DimUnion u = dimUnion(t, d, vars);
      if (!u.unknown.empty()) {
        v.unknown = u.unknown;
        return std::nullopt;
      }
      if (u.overlap)
        v.overlaps.push_back(*u.overlap);
      if (!u.gap.empty()) {
        v.uncovered = "`" + slice(d, u.gap) + "` is never written";
        return std::nullopt;
      }
      box.lo.push_back(u.base);
      box.hi.push_back(u.base + u.ext);
    }
    return box;
  }

  /// Whether the box is the whole result; otherwise v says what is missing.
  bool coversResult(const Box &box, Verdict &v) {
    for (size_t d = 0; d < box.lo.size(); ++d) {
      DimExpr extent = resultType_.tensor.shape[d];
      if (!c_.prover.proveEqual(box.lo[d], DimExpr::constant(0)).proved()) {
        if (c_.prover.proveLess(DimExpr::constant(0), box.lo[d]).proved())
          v.uncovered = "`" + slice(d, "0 ..+ " + c_.str(box.lo[d])) + "` is never written";
        else
          v.unknown = "cannot prove that dimension " + std::to_string(d + 1) +
                      " is covered from 0: the stores start at `" + c_.str(box.lo[d]) + "`";
        return false;
      }
      const DimExpr &end = box.hi[d];
      if (!c_.prover.proveLessEqual(extent, end).proved()) {
        if (c_.prover.proveLess(end, extent).proved())
          v.uncovered = "`" + slice(d, region(end, extent - end, extent)) + "` is never written";
        else
          v.unknown = "cannot prove that the stores reach the end of dimension " +
                      std::to_string(d + 1) + ": they cover up to `" + c_.str(end) + "` of `" +
                      c_.str(extent) + "`";
        return false;
      }
    }
    return true;
  }

  Verdict coverOne(const Store &s) {
    Verdict v;
    if (std::optional<Box> box = unionBox(s, v))
      v.covered = coversResult(*box, v);
    return v;
  }

  /// Stores with different variables (a loop over six chunks, then two
  /// chunks in their own register tiles) that no tryMerge joins: their
  /// gap-free regions, joined where they agree in all dimensions but one and
  /// one starts where the other ends in it. Returns the stores whose union is the result.
  /// Otherwise, where two joined regions leave a gap that no other region
  /// touches, `gap` words it, or where two overlap, `overlap` does; and
  /// `gapStore` is the store after it.
  std::optional<std::vector<size_t>> coverByRegions(const std::vector<Store> &sure,
                                                    std::string &gap, std::string &overlap,
                                                    size_t &gapStore) {
    struct Region {
      Box box;
      std::vector<size_t> stores;
    };
    std::vector<Region> regions;
    for (size_t i = 0; i < sure.size(); ++i) {
      Verdict v;
      if (std::optional<Box> box = unionBox(sure[i], v))
        regions.push_back({std::move(*box), {i}});
    }
    auto same = [&](const DimExpr &x, const DimExpr &y) {
      return x == y || c_.prover.proveEqual(x, y).proved();
    };
    // The one dimension in which a and b differ, or -1.
    auto differing = [&](const Box &a, const Box &b) {
      int dim = -1;
      for (size_t d = 0; d < a.lo.size(); ++d) {
        if (same(a.lo[d], b.lo[d]) && same(a.hi[d], b.hi[d]))
          continue;
        if (dim >= 0)
          return -1;
        dim = static_cast<int>(d);
      }
      return dim;
    };
    auto join = [&](const Box &a, const Box &b, Box &out) {
      int dim = differing(a, b);
      // b starts exactly where a ends. Overlapping regions are not joined:
      // different stores writing one element from different blocks would be
      // a race that the per-store overlap check (K0907) cannot see.
      if (dim >= 0 && same(b.lo[dim], a.hi[dim])) {
        out = a;
        out.hi[dim] = b.hi[dim];
        return true;
      }
      return false;
    };
    for (bool joined = true; joined && regions.size() > 1;) {
      joined = false;
      for (size_t i = 0; i < regions.size() && !joined; ++i)
        for (size_t j = 0; j < regions.size() && !joined; ++j) {
          Box out;
          if (i == j || !join(regions[i].box, regions[j].box, out))
            continue;
          regions[i].box = std::move(out);
          regions[i].stores.insert(regions[i].stores.end(), regions[j].stores.begin(),
                                   regions[j].stores.end());
          regions.erase(regions.begin() + static_cast<std::ptrdiff_t>(j));
          joined = true;
        }
    }
    for (const Region &r : regions) {
      Verdict v;
      if (r.stores.size() > 1 && coversResult(r.box, v))
        return r.stores;
    }
    for (const Region &a : regions)
      for (const Region &b : regions) {
        int dim = &a == &b ? -1 : differing(a.box, b.box);
        if (dim < 0 || !c_.prover.proveLess(a.box.hi[dim], b.box.lo[dim]).proved())
          continue;
        bool untouched = true;
        for (const Region &r : regions)
          if (&r != &a && &r != &b && differing(a.box, r.box) == dim &&
              !c_.prover.proveLessEqual(r.box.hi[dim], a.box.hi[dim]).proved() &&
              !c_.prover.proveLessEqual(b.box.lo[dim], r.box.lo[dim]).proved())
            untouched = false;
        if (!untouched)
          continue;
        gap = "`" +
              slice(static_cast<size_t>(dim),
                    region(a.box.hi[dim], b.box.lo[dim] - a.box.hi[dim],
                           resultType_.tensor.shape[static_cast<size_t>(dim)])) +
              "` is never written";
        gapStore = b.stores.front();
        return std::nullopt;
      }
    for (const Region &a : regions)
      for (const Region &b : regions) {
        int dim = &a == &b ? -1 : differing(a.box, b.box);
        if (dim < 0 || !c_.prover.proveLess(a.box.lo[dim], b.box.lo[dim]).proved() ||
            !c_.prover.proveLess(b.box.lo[dim], a.box.hi[dim]).proved())
          continue;
        overlap = "the stores of different statements overlap in `" +
                  slice(static_cast<size_t>(dim),
                        region(b.box.lo[dim], a.box.hi[dim] - b.box.lo[dim],
                               resultType_.tensor.shape[static_cast<size_t>(dim)])) +
                  "`, and regions are joined only where one ends and the next begins (two "
                  "blocks could write one element); store each element from one statement";
        gapStore = b.stores.front();
        return std::nullopt;
      }
    return std::nullopt;
  }

  /// Two stores with the same box whose ranges of one variable are
  /// adjacent, or boxes adjacent in one dimension, become one.
  bool tryMerge(const Store &a, const Store &b, Store &out) {
    if (a.start.size() == b.start.size() && a.len == b.len &&
        (extendCopies(a, b, out) || extendCopies(b, a, out)))
      return true;
    if (a.vars.size() != b.vars.size() || a.start.size() != b.start.size())
      return false;
    for (size_t i = 0; i < a.vars.size(); ++i)
      if (a.vars[i].atom != b.vars[i].atom)
        return false;
    // `if w = 0 { res[bm * 64 ..+ 16] } else { res[bm * 64 + w * 16 ..+ 16] }`:
    // a store whose variable is pinned to one value c has the other's box
    // when that box at c is its own; it then merges like the same box.
    if (!(a.start == b.start) && a.len == b.len) {
      for (int pass = 0; pass < 2; ++pass) {
        const Store &p = pass == 0 ? a : b, &q = pass == 0 ? b : a;
        for (size_t i = 0; i < p.vars.size(); ++i) {
          const Var &x = p.vars[i];
          if (!pinned(x) || pinned(q.vars[i]))
            continue;
          bool same = true;
          for (size_t d = 0; d < p.start.size() && same; ++d)
            same = c_.symbols.substitute(p.start[d], x.atom, x.lo) ==
                   c_.symbols.substitute(q.start[d], x.atom, x.lo);
          if (!same)
            continue;
          Store moved = p;
          moved.start = q.start;
          return pass == 0 ? tryMerge(moved, q, out) : tryMerge(q, moved, out);
        }
      }
    }
    // Same box, one variable's ranges adjacent.
    if (a.start == b.start && a.len == b.len) {
      int differing = -1;
      for (size_t i = 0; i < a.vars.size(); ++i) {
        bool same = a.vars[i].lo == b.vars[i].lo && a.vars[i].hi == b.vars[i].hi;
        if (same)
          continue;
        if (differing >= 0)
          return false;
        differing = static_cast<int>(i);
      }
      if (differing < 0) {
        out = a;
        return true;
      }
      const Var &x = a.vars[differing], &y = b.vars[differing];
      out = a;
      if (c_.prover.proveEqual(x.hi, y.lo).proved()) {
        out.vars[differing].hi = y.hi;
        return true;
      }
      if (c_.prover.proveEqual(y.hi, x.lo).proved()) {
        out.vars[differing].lo = y.lo;
        return true;
      }
      return false;
    }
    // Same ranges, boxes adjacent in exactly one dimension.
    for (size_t i = 0; i < a.vars.size(); ++i)
      if (!(a.vars[i].lo == b.vars[i].lo && a.vars[i].hi == b.vars[i].hi))
        return false;
    int dim = -1;
    for (size_t d = 0; d < a.start.size(); ++d) {
      if (a.start[d] == b.start[d] && a.len[d] == b.len[d])
        continue;
      if (dim >= 0 || a.len[d] < 0 || b.len[d] < 0)
        return false;
      dim = static_cast<int>(d);
    }
    if (dim < 0)
      return false;
    const Store *lo = &a, *hi = &b;
    if (!(a.start[dim] + a.len[dim] == b.start[dim])) {
      std::swap(lo, hi);
      if (!(lo->start[dim] + lo->len[dim] == hi->start[dim]))
        return shiftedCopies(a, b, dim, out);
    }
    out = *lo;
    out.len[dim] = lo->len[dim] + hi->len[dim];
    return true;
  }

  /// `y[r, w * 64 ..+ 64] <- v0` and `y[r, 512 + w * 64 ..+ 64] <- v1`
  /// (unrolled chunks held in separate register tiles): the same box over the
  /// same ranges, shifted by a positive constant in one dimension. Their
  /// union is exactly the box with one more variable `c` in [0, 2) of that
  /// coefficient, which dimUnion then proves gap-free or not like any other.
  bool shiftedCopies(const Store &a, const Store &b, int dim, Store &out) {
    for (size_t d = 0; d < a.start.size(); ++d)
      if (static_cast<int>(d) != dim && !(a.start[d] == b.start[d] && a.len[d] == b.len[d]))
        return false;
    if (a.len[dim] != b.len[dim] || a.len[dim] < 0)
      return false;
    std::optional<int64_t> shift = (b.start[dim] - a.start[dim]).constantValue();
    if (!shift || *shift == 0)
      return false;
    // Only copies whose unions touch: merging copies 0 and 2 of three first
    // would leave a gap that copy 1 can no longer fill.
    Verdict v;
    std::optional<Box> box = unionBox(a, v);
    if (!box || !c_.prover
                     .proveEqual(box->hi[dim] - box->lo[dim],
                                 DimExpr::constant(*shift > 0 ? *shift : -*shift))
                     .proved())
      return false;
    const Store &first = *shift > 0 ? a : b;
    Var copy;
    copy.atom = c_.symbols.newSymbol("(copy index)", solver::SymbolKind::Other);
    copy.lo = DimExpr::constant(0);
    copy.hi = DimExpr::constant(2);
    copy.kind = VarKind::Loop; // one thread's stores in program order: no race
    copy.site = first.span;
    copy.copies = true;
    out = first;
    out.start[dim] = first.start[dim] + DimExpr::atom(copy.atom, *shift > 0 ? *shift : -*shift);
    out.vars.push_back(copy);
    out.valueDeps.insert(out.valueDeps.end(), b.valueDeps.begin(), b.valueDeps.end());
    if (&first == &b)
      out.valueDeps.insert(out.valueDeps.end(), a.valueDeps.begin(), a.valueDeps.end());
    return true;
  }

  /// A merged run of shifted copies (`a`, its last variable the copy index
  /// in [lo, hi)) takes one more copy `b` placed at index hi or lo - 1.
  bool extendCopies(const Store &a, const Store &b, Store &out) {
    if (a.vars.empty() || !a.vars.back().copies || a.vars.size() != b.vars.size() + 1)
      return false;
    for (size_t i = 0; i < b.vars.size(); ++i)
      if (a.vars[i].atom != b.vars[i].atom || !(a.vars[i].lo == b.vars[i].lo) ||
          !(a.vars[i].hi == b.vars[i].hi))
        return false;
    const Var &c = a.vars.back();
    for (int side = 0; side < 2; ++side) {
      DimExpr at = side == 0 ? c.hi : c.lo - 1;
      bool same = true;
      for (size_t d = 0; d < a.start.size() && same; ++d)
        same = c_.symbols.substitute(a.start[d], c.atom, at) == b.start[d];
      if (!same)
        continue;
      out = a;
      if (side == 0)
        out.vars.back().hi = c.hi + 1;
      else
        out.vars.back().lo = at;
      out.valueDeps.insert(out.valueDeps.end(), b.valueDeps.begin(), b.valueDeps.end());
      return true;
    }
    return false;
  }

  /// K0907 for a store whose neighbouring grid ids write overlapping boxes
  /// with values that depend on them.
  void reportOverlaps(const Store &s, const Verdict &v) {
    for (solver::AtomId a : v.overlaps)
      if (!s.atomic && dependsOn(s, a)) {
        bool warp = false;
        for (const Var &x : s.vars)
          warp = warp || (x.atom == a && x.kind == VarKind::Warp);
        c_.error(DiagId::ResultWrittenTwice, s.span,
                 std::string(warp ? "warps" : "blocks") + " with neighbouring `" + name(a) +
                     "` store overlapping boxes of `" + resultName_ +
                     "` with different values: the step of `" + name(a) +
                     "` is smaller than the box it stores")
            .note(describe(s, s.vars));
        return;
      }
  }

  void cover() {
    std::vector<Store> sure;
    const Store *firstMaybe = nullptr;
    for (const Store &s : stores_) {
      if (s.never)
        continue;
      if (s.maybeNot) {
        if (!firstMaybe)
          firstMaybe = &s;
        continue;
      }
      sure.push_back(s);
    }
    // Merge until nothing changes.
    for (bool merged = true; merged && sure.size() > 1;) {
      merged = false;
      for (size_t i = 0; i < sure.size() && !merged; ++i)
        for (size_t j = i + 1; j < sure.size() && !merged; ++j) {
          Store out;
          if (tryMerge(sure[i], sure[j], out)) {
            sure[i] = std::move(out);
            sure.erase(sure.begin() + static_cast<std::ptrdiff_t>(j));
            merged = true;
          }
        }
    }
    const Store *best = nullptr;
    Verdict bestVerdict;
    for (const Store &s : sure) {
      Verdict v = coverOne(s);
      if (v.covered) {
        reportOverlaps(s, v);
        return;
      }
      if (!best || (bestVerdict.uncovered.empty() && !v.uncovered.empty())) {
        best = &s;
        bestVerdict = v;
      }
    }
    std::string gap, overlap;
    size_t gapStore = 0;
    if (std::optional<std::vector<size_t>> parts = coverByRegions(sure, gap, overlap, gapStore)) {
      for (size_t i : *parts) {
        Verdict v;
        unionBox(sure[i], v);
        reportOverlaps(sure[i], v);
      }
      return;
    }
    if (!gap.empty() || !overlap.empty()) {
      best = &sure[gapStore];
      bestVerdict = Verdict();
      bestVerdict.uncovered = gap;
      bestVerdict.unknown = overlap;
    }
    if (!best && firstMaybe) {
      // Every store may be skipped: point at the condition or loop.
      c_.error(DiagId::ResultNotWritten, *firstMaybe->maybeNot,
               "kernel `" + item_.name.name + "` does not write its result `" + resultName_ +
                   "` on every path: " + maybeNotWhy(*firstMaybe))
          .label(firstMaybe->span,
                 stores_.size() == 1
                     ? std::string("the only store")
                     : "one of " + std::to_string(stores_.size()) + " stores that may not run")
          .note(stores_.size() == 1
                    ? std::string("store the whole result on every path, or cover the other case "
                                  "too")
                    : "the stores under the other branch do not cover `" + resultName_ +
                          "` by themselves (branches merge only when they store the same box "
                          "over the same ranges); store the whole result on every path");
      return;
    }
    if (!best) {
      c_.error(DiagId::ResultNotWritten, item_.name.name.empty() ? item_.span : item_.name.span,
               "kernel `" + item_.name.name + "` does not write its result `" + resultName_ +
                   "` on every path");
      return;
    }
    std::vector<Var> vars;
    for (const Var &x : best->vars)
      if (!pinned(x))
        vars.push_back(x);
    if (!bestVerdict.uncovered.empty()) {
      auto &d = c_.error(DiagId::ResultNotCovered, best->span,
                         "the stores into `" + resultName_ +
                             "` do not cover it: " + bestVerdict.uncovered);
      d.note(describe(*best, vars));
      if (sure.size() > 1)
        d.note("the other stores do not fill the gap either");
    } else {
      c_.error(DiagId::ResultNotCovered, best->span,
               "cannot prove that the stores into `" + resultName_ +
                   "` cover it: " + bestVerdict.unknown)
          .note(describe(*best, vars));
    }
  }
};

} // namespace

void checkResultCoverage(Checker &checker, const Item &item) {
  if (item.result == syntax::kNone)
    return;
  CoverageChecker c(checker, item);
  c.run();
}

} // namespace kina::sema
