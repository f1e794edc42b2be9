//===- Divergence.cpp - Block-wide operations under warp-dependent control ===//
//
// `block_sync` is a barrier for every thread of the block, and `cp_async` is
// block-cooperative (codegen splits the copy into 16-byte chunks over all the
// block's threads, codegen/mlir/TileToMLIR.cpp). Both must therefore be
// executed by every warp the same number of times. This pass finds the
// control that can make warps differ:
//   - an `if` whose condition depends on a warp id (K0606 for block_sync,
//     K0610 for cp_async);
//   - a `for` whose start or end depends on a warp id, so the trip count
//     differs between warps (K0609 / K0610);
// where "depends on a warp id" is transitive through `let`s (their values
// are the solver expressions themselves) and through loop variables whose
// range depends on a warp id. A `cp_async` whose destination or source
// address depends on the warp (each warp would copy a different region with
// the chunks of its own threads) is K0610 too.
//
// One error per construct, at the outermost divergent construct around the
// operation; block-dependent control (`block_id`, dims, loop variables of
// uniform loops) is uniform within a block and fine.
//
//===----------------------------------------------------------------------===//
#include "sema/Analysis.h"

#include <set>

namespace kina::sema {
namespace {

class DivergenceChecker {
public:
  explicit DivergenceChecker(Checker &c) : c_(c), m_(c.m) {}

  void run(const Item &item) { walk(item.body, false); }

private:
  Checker &c_;
  const Module &m_;
  /// Loop variables whose range depends on a warp id.
  std::set<solver::AtomId> divergentVars_;

  bool warpDependent(const DimExpr &e) const {
    return mentions(c_, e, [&](solver::AtomId a) {
      const solver::AtomInfo &info = c_.symbols.info(a);
      return (info.Kind == solver::AtomKind::Symbol &&
              info.SymKind == solver::SymbolKind::WarpId) ||
             divergentVars_.count(a) > 0;
    });
  }

  /// The first warp-dependent index value inside an expression, if any.
  std::optional<DimExpr> warpDependentPart(ExprId id) const {
    if (id == syntax::kNone)
      return std::nullopt;
    if (auto v = c_.exprValueOrNull(id))
      return warpDependent(*v) ? v : std::nullopt;
    for (ExprId child : m_.expr(id).children)
      if (auto v = warpDependentPart(child))
        return v;
    return std::nullopt;
  }

  struct Contents {
    bool sync = false;
    bool copy = false;
    bool reduction = false; ///< a `block_sum`/`block_max` (CheckBroadcast.cpp)
  };
  static void merge(Contents &a, Contents b) {
    a.sync |= b.sync;
    a.copy |= b.copy;
    a.reduction |= b.reduction;
  }
  Contents contents(const std::vector<StmtId> &body) const {
    Contents r;
    for (StmtId id : body) {
      const Stmt &s = m_.stmt(id);
      if (stmtHasBlockReduction(m_, s))
        r.reduction = true;
      if (s.kind == StmtKind::BlockSync)
        r.sync = true;
      else if (s.kind == StmtKind::CpAsync)
        r.copy = true;
      merge(r, contents(s.body));
      merge(r, contents(s.elseBody));
    }
    return r;
  }

  /// `reported`: an enclosing construct was already reported for this body.
  void walk(const std::vector<StmtId> &body, bool reported) {
    for (StmtId id : body)
      walkStmt(id, reported);
  }

  void walkStmt(StmtId id, bool reported) {
    const Stmt &st = m_.stmt(id);
    switch (st.kind) {
    case StmtKind::BlockGrid:
    case StmtKind::WarpGrid:
      walk(st.body, reported);
      return;
    case StmtKind::If: {
      bool divergent = false;
      if (!reported && warpDependentPart(st.value)) {
        Contents in = contents(st.body);
        merge(in, contents(st.elseBody));
        Span at = m_.expr(st.value).span;
        if (in.sync) {
          c_.error(DiagId::SyncInDivergentCode, at,
                   "this condition depends on `warp_id`, but the branch contains `block_sync`: "
                   "warps that skip it deadlock the block");
          divergent = true;
        } else if (in.copy) {
          c_.error(DiagId::CopyInDivergentCode, at,
                   "this condition depends on `warp_id`, but the branch contains `cp_async`, "
                   "which every thread of the block must execute: only some warps would copy "
                   "their share of the tile");
          divergent = true;
        } else if (in.reduction) {
          c_.error(DiagId::BlockReductionDivergent, at,
                   "this condition depends on `warp_id`, but the branch evaluates a block "
                   "reduction (`block_sum`/`block_max`), which waits at barriers for every "
                   "warp of the block: warps that skip it deadlock the block")
              .note("reduce in every warp, outside the condition, and use the result inside it");
          divergent = true;
        }
      }
      walk(st.body, reported || divergent);
      walk(st.elseBody, reported || divergent);
      return;
    }
    case StmtKind::For: {
      auto start = c_.exprValueOrNull(st.value);
      auto end = c_.exprValueOrNull(st.end);
      bool startDep = start && warpDependent(*start), endDep = end && warpDependent(*end);
      bool divergent = false;
      if (startDep || endDep) {
        if (auto var = c_.loopVarOf.find(id); var != c_.loopVarOf.end())
          if (auto atom = var->second.asAtom())
            divergentVars_.insert(*atom);
        if (!reported) {
          Contents in = contents(st.body);
          ExprId bound = endDep ? st.end : st.value;
          std::string text = syntax::printExpr(m_, bound);
          Span at = m_.expr(bound).span;
          if (in.sync) {
            c_.error(DiagId::SyncInDivergentLoop, at,
                     "the trip count of this loop depends on `warp_id` (`" + text +
                         "`), but its body contains `block_sync`: warps run it different "
                         "numbers of times and the barrier diverges");
            divergent = true;
          } else if (in.copy) {
            c_.error(DiagId::CopyInDivergentCode, at,
                     "the trip count of this loop depends on `warp_id` (`" + text +
                         "`), but its body contains `cp_async`, which every thread of the "
                         "block must execute the same number of times");
            divergent = true;
          } else if (in.reduction) {
            c_.error(DiagId::BlockReductionDivergent, at,
                     "the trip count of this loop depends on `warp_id` (`" + text +
                         "`), but its body evaluates a block reduction (`block_sum`/"
                         "`block_max`), which every warp must reach the same number of times");
            divergent = true;
          }
        }
      }
      walk(st.body, reported || divergent);
      return;
    }
    case StmtKind::CpAsync: {
      const Type &dst = c_.typeOf(st.target);
      if (reported || !dst.isTensor() || dst.tensor.space != Space::Shared)
        return;
      for (ExprId side : {st.target, st.value}) {
        if (auto v = warpDependentPart(side)) {
          c_.error(DiagId::CopyInDivergentCode, m_.expr(side).span,
                   "`cp_async` is block-cooperative: the block's threads split the copy, so its "
                   "addresses must be the same for every warp, but `" +
                       c_.str(*v) + "` depends on `warp_id`")
              .note("copy the whole block tile once, outside warp-specific code, and let each "
                    "warp read its part");
          return;
        }
      }
      return;
    }
    default:
      return;
    }
  }
};

} // namespace

void checkDivergence(Checker &checker, const Item &item) {
  DivergenceChecker d(checker);
  d.run(item);
}

} // namespace kina::sema
