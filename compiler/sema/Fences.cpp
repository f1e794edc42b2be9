//===- Fences.cpp - Async-copy fence typestate ----------------------------===//
//
// DESIGN.md §3.4. An abstract interpretation over a kernel body that tracks,
// per shared-tile region:
//   uncommitted  cp_async issued since the last cp_async_commit
//   pending      committed groups, oldest first (cp_async_wait_group n
//                completes all but the newest n)
//   unsynced     completed for this thread, not yet visible to the block
//                (needs block_sync); also direct stores into shared tiles
//   readers      regions read since the last block_sync
// Reads of uncommitted/pending/unsynced regions and writes of regions in
// `readers` are errors. Multi-stage tiles (leading stage dimension) are
// tracked per stage as `e mod S`, so a pipelined loop that reads stage
// `k mod 3` while `(k + 2) mod 3` is in flight checks clean. Loops iterate
// to a fixpoint with the loop variable shifted by one at the back edge, so
// the back edge counts.
//
//===----------------------------------------------------------------------===//
#include "sema/Checker.h"

#include <algorithm>

namespace kina::sema {
namespace {

struct Region {
  int tile = -1;      ///< symbol index of the shared tile
  bool whole = true;  ///< false: one stage of a multi-stage tile
  DimExpr stage;      ///< stage index before `mod stages` (normalized)
  int64_t stages = 0;
  Span site;          ///< where it was written or read (not part of identity)

  bool sameAs(const Region &o) const {
    return tile == o.tile && whole == o.whole && (whole || (stages == o.stages && stage == o.stage));
  }
};

using RegionSet = std::vector<Region>;

void insertRegion(RegionSet &set, const Region &r) {
  for (const Region &x : set)
    if (x.sameAs(r))
      return;
  set.push_back(r);
}

bool sameSet(const RegionSet &a, const RegionSet &b) {
  if (a.size() != b.size())
    return false;
  for (const Region &r : a)
    if (std::none_of(b.begin(), b.end(), [&](const Region &x) { return x.sameAs(r); }))
      return false;
  return true;
}

struct FenceState {
  RegionSet uncommitted;
  std::vector<RegionSet> pending; ///< oldest first
  RegionSet unsynced;
  RegionSet readers;

  bool operator==(const FenceState &o) const {
    if (pending.size() != o.pending.size())
      return false;
    for (size_t i = 0; i < pending.size(); ++i)
      if (!sameSet(pending[i], o.pending[i]))
        return false;
    return sameSet(uncommitted, o.uncommitted) && sameSet(unsynced, o.unsynced) &&
           sameSet(readers, o.readers);
  }
};

constexpr size_t kMaxTrackedGroups = 8;

FenceState join(const FenceState &a, const FenceState &b) {
  FenceState r = a;
  for (const Region &x : b.uncommitted)
    insertRegion(r.uncommitted, x);
  for (const Region &x : b.unsynced)
    insertRegion(r.unsynced, x);
  for (const Region &x : b.readers)
    insertRegion(r.readers, x);
  // Align groups at the newest end: wait_group counts from the newest.
  size_t n = std::max(a.pending.size(), b.pending.size());
  r.pending.assign(n, {});
  for (size_t i = 0; i < a.pending.size(); ++i)
    for (const Region &x : a.pending[i])
      insertRegion(r.pending[n - a.pending.size() + i], x);
  for (size_t i = 0; i < b.pending.size(); ++i)
    for (const Region &x : b.pending[i])
      insertRegion(r.pending[n - b.pending.size() + i], x);
  return r;
}

/// Merges the oldest groups so the queue stays bounded (sound: a wait that
/// completes the merged group completes every group in it).
void boundQueue(FenceState &s) {
  while (s.pending.size() > kMaxTrackedGroups) {
    for (const Region &x : s.pending[1])
      insertRegion(s.pending[0], x);
    s.pending.erase(s.pending.begin() + 1);
  }
}

/// Applies `fix` to every region of a state (sets are re-deduplicated).
template <typename Fn> FenceState mapRegions(const FenceState &s, Fn fix) {
  auto fixSet = [&](const RegionSet &set) {
    RegionSet out;
    for (const Region &r : set)
      insertRegion(out, fix(r));
    return out;
  };
  FenceState r;
  r.uncommitted = fixSet(s.uncommitted);
  r.unsynced = fixSet(s.unsynced);
  r.readers = fixSet(s.readers);
  for (const RegionSet &g : s.pending)
    r.pending.push_back(fixSet(g));
  return r;
}

class FenceChecker {
public:
  FenceChecker(Checker &c) : c_(c), m_(c.m) {}

  void run(const Item &item) {
    FenceState s;
    report_ = true;
    s = walkBlock(item.body, s);
    if (!s.uncommitted.empty())
      c_.error(DiagId::UncommittedAtEnd, s.uncommitted.front().site,
               "`cp_async` copies are issued but never committed or waited for")
          .note("add `cp_async_commit` and a wait before the data is used");
  }

private:
  Checker &c_;
  const Module &m_;
  bool report_ = true;
  /// Loop variables of unrolled loops and their current values.
  std::vector<std::pair<solver::AtomId, DimExpr>> unrolled_;

  // ------------------------------------------------------------ regions

  /// The shared-tile region an expression denotes, if it is one.
  std::optional<Region> regionOf(ExprId id) {
    const Expr &e = m_.expr(id);
    if (e.kind == ExprKind::Paren)
      return regionOf(e.children[0]);
    ExprId baseId = e.kind == ExprKind::Index ? e.children[0] : id;
    const Expr &base = m_.expr(baseId);
    if (base.kind != ExprKind::Name)
      return std::nullopt;
    int sym = c_.program.exprSymbol[baseId];
    if (sym < 0)
      return std::nullopt;
    const SymbolInfo &info = c_.program.symbolInfos[sym];
    if (info.kind == SymbolKind::Let) {
      auto alias = c_.letValues.find(sym);
      if (alias != c_.letValues.end() && e.kind != ExprKind::Index)
        return regionOf(alias->second);
      if (alias != c_.letValues.end()) {
        auto r = regionOf(alias->second);
        if (r)
          r->whole = true, r->site = e.span;
        return r;
      }
      return std::nullopt;
    }
    if (info.kind != SymbolKind::Shared)
      return std::nullopt;
    Region r;
    r.tile = sym;
    r.site = e.span;
    const Type &t = c_.typeOf(baseId);
    if (e.kind == ExprKind::Index && t.isTensor() && t.tensor.shape.size() >= 3 &&
        e.children.size() >= 2 && m_.expr(e.children[1]).kind != ExprKind::Slice) {
      auto stages = t.tensor.shape[0].constantValue();
      auto value = c_.exprValueOrNull(e.children[1]);
      for (const auto &[atom, replacement] : unrolled_)
        if (value)
          value = c_.symbols.substitute(*value, atom, replacement);
      if (stages && *stages > 0 && value) {
        r.whole = false;
        r.stages = *stages;
        r.stage = stageOperand(*value, *stages);
      }
    }
    return r;
  }

  /// `e mod S` becomes e; constants reduce into [0, S).
  DimExpr stageOperand(DimExpr v, int64_t stages) {
    if (auto atom = v.asAtom()) {
      const solver::AtomInfo &info = c_.symbols.info(*atom);
      if (info.Kind == solver::AtomKind::Mod && info.Divisor == stages)
        v = info.Operand;
    }
    return normalize(v, stages);
  }

  static DimExpr normalize(const DimExpr &v, int64_t stages) {
    int64_t c = v.constantTerm() % stages;
    if (c < 0)
      c += stages;
    auto terms = v.terms();
    return DimExpr::fromTerms(c, std::vector<solver::Term>(terms.begin(), terms.end()));
  }

  /// May two regions overlap?
  static bool overlaps(const Region &a, const Region &b) {
    if (a.tile != b.tile)
      return false;
    if (a.whole || b.whole || a.stages != b.stages)
      return true;
    DimExpr diff = a.stage - b.stage;
    auto d = diff.constantValue();
    if (!d)
      return true;
    return ((*d % a.stages) + a.stages) % a.stages == 0;
  }

  static const Region *findOverlap(const RegionSet &set, const Region &r) {
    for (const Region &x : set)
      if (overlaps(x, r))
        return &x;
    return nullptr;
  }

  std::string tileName(const Region &r) const {
    std::string name = c_.program.symbolInfos[r.tile].name;
    if (!r.whole)
      name += " (stage " + c_.symbols.str(r.stage) + " mod " + std::to_string(r.stages) + ")";
    return name;
  }

  // -------------------------------------------------------------- fix-its

  std::string indentBefore(Span span) const {
    std::string_view text = c_.options.sourceText;
    if (span.begin > text.size())
      return "";
    size_t lineStart = text.rfind('\n', span.begin == 0 ? 0 : span.begin - 1);
    lineStart = lineStart == std::string_view::npos ? 0 : lineStart + 1;
    std::string indent;
    for (size_t i = lineStart; i < span.begin && (text[i] == ' ' || text[i] == '\t'); ++i)
      indent += text[i];
    return indent;
  }

  void insertBefore(Diagnostic &d, Span stmt, const std::vector<std::string> &lines,
                    const std::string &title) {
    if (c_.options.sourceText.empty())
      return;
    std::string indent = indentBefore(stmt);
    std::string text;
    for (const std::string &l : lines)
      text += l + "\n" + indent;
    d.fix(Span{stmt.begin, stmt.begin}, text, title);
  }

  // --------------------------------------------------------------- events

  void read(const Region &r, Span stmtSpan, FenceState &s) {
    if (report_) {
      if (const Region *w = findOverlap(s.uncommitted, r)) {
        auto &d = c_.error(DiagId::ReadWhileCopyPending, r.site,
                           "`" + tileName(r) + "` is read while a `cp_async` into it is not "
                           "committed, waited for or synchronized");
        d.label(w->site, "copied here");
        insertBefore(d, stmtSpan, {"cp_async_commit", "cp_async_wait_all", "block_sync"},
                     "insert `cp_async_commit`, `cp_async_wait_all` and `block_sync`");
      } else if (const Region *w = pendingOverlap(s, r)) {
        auto &d = c_.error(DiagId::ReadWhileCopyPending, r.site,
                           "`" + tileName(r) + "` is read while the `cp_async` into it may still "
                           "be in flight: no `cp_async_wait_*` covers it");
        d.label(w->site, "copied here");
        insertBefore(d, stmtSpan, {"cp_async_wait_all", "block_sync"},
                     "insert `cp_async_wait_all` and `block_sync`");
      } else if (const Region *w = findOverlap(s.unsynced, r)) {
        auto &d = c_.error(DiagId::ReadWhileCopyPending, r.site,
                           "`" + tileName(r) + "` is read before a `block_sync`: data written "
                           "by other threads may not be visible yet");
        d.label(w->site, "written here");
        insertBefore(d, stmtSpan, {"block_sync"}, "insert `block_sync`");
      }
    }
    insertRegion(s.readers, r);
  }

  const Region *pendingOverlap(const FenceState &s, const Region &r) const {
    for (const RegionSet &g : s.pending)
      if (const Region *w = findOverlap(g, r))
        return w;
    return nullptr;
  }

  void write(const Region &r, Span stmtSpan, FenceState &s, bool async) {
    if (report_) {
      if (const Region *rd = findOverlap(s.readers, r)) {
        auto &d = c_.error(DiagId::WriteWhileRead, r.site,
                           "`" + tileName(r) + "` is overwritten while other warps may still be "
                           "reading it: no `block_sync` since the read");
        d.label(rd->site, "read here");
        insertBefore(d, stmtSpan, {"block_sync"}, "insert `block_sync`");
      } else if (async) {
        const Region *w = findOverlap(s.uncommitted, r);
        if (!w)
          w = pendingOverlap(s, r);
        if (w)
          c_.error(DiagId::CopyOverPending, r.site,
                   "`cp_async` into `" + tileName(r) + "` while an earlier copy into it is not "
                   "waited for")
              .label(w->site, "earlier copy here");
      }
    }
    insertRegion(async ? s.uncommitted : s.unsynced, r);
  }

  /// Every shared-tile read inside an expression.
  void reads(ExprId id, Span stmtSpan, FenceState &s) {
    if (id == syntax::kNone)
      return;
    const Expr &e = m_.expr(id);
    if (e.kind == ExprKind::Index || e.kind == ExprKind::Name) {
      if (auto r = regionOf(id)) {
        read(*r, stmtSpan, s);
        return;
      }
    }
    for (ExprId child : e.children)
      reads(child, stmtSpan, s);
  }

  bool containsSync(const std::vector<StmtId> &body) const {
    for (StmtId id : body) {
      const Stmt &s = m_.stmt(id);
      if (s.kind == StmtKind::BlockSync || containsSync(s.body) || containsSync(s.elseBody))
        return true;
    }
    return false;
  }

  bool warpDependent(ExprId cond) const {
    const Expr &e = m_.expr(cond);
    for (ExprId child : e.children) {
      if (warpDependent(child))
        return true;
    }
    auto v = c_.exprValueOrNull(cond);
    if (!v)
      return false;
    for (const solver::Term &t : v->terms()) {
      const solver::AtomInfo &info = c_.symbols.info(t.Atom);
      if (info.Kind == solver::AtomKind::Symbol && info.SymKind == solver::SymbolKind::WarpId)
        return true;
      for (solver::AtomId sym : info.Symbols)
        if (c_.symbols.info(sym).SymKind == solver::SymbolKind::WarpId)
          return true;
    }
    return false;
  }

  // ------------------------------------------------------------ statements

  FenceState walkBlock(const std::vector<StmtId> &body, FenceState s) {
    for (StmtId id : body)
      s = walkStmt(id, std::move(s));
    return s;
  }

  FenceState walkStmt(StmtId id, FenceState s) {
    const Stmt &st = m_.stmt(id);
    switch (st.kind) {
    case StmtKind::BlockGrid:
    case StmtKind::WarpGrid:
      return walkBlock(st.body, std::move(s));
    case StmtKind::Let:
      // A let of a view names it; the read happens where it is used.
      if (st.value != syntax::kNone && !regionOf(st.value))
        reads(st.value, st.span, s);
      return s;
    case StmtKind::CpAsync:
      reads(st.value, st.span, s);
      if (auto r = regionOf(st.target))
        write(*r, st.span, s, true);
      return s;
    case StmtKind::Assign: {
      reads(st.value, st.span, s);
      const Expr &t = m_.expr(st.target);
      if (t.kind == ExprKind::Index)
        for (size_t i = 1; i < t.children.size(); ++i)
          reads(t.children[i], st.span, s);
      if (auto r = regionOf(st.target))
        write(*r, st.span, s, false);
      return s;
    }
    case StmtKind::Commit:
      s.pending.push_back(std::move(s.uncommitted));
      s.uncommitted.clear();
      boundQueue(s);
      return s;
    case StmtKind::WaitAll:
    case StmtKind::WaitGroup: {
      size_t keep = st.kind == StmtKind::WaitAll ? 0 : static_cast<size_t>(std::max<int64_t>(0, st.count));
      if (report_) {
        if (!s.uncommitted.empty()) {
          auto &d = c_.error(DiagId::WaitOnUncommitted, st.keywordSpan,
                             "this wait does not cover the `cp_async` copies issued since the "
                             "last `cp_async_commit`");
          d.label(s.uncommitted.front().site, "not committed");
          insertBefore(d, st.span, {"cp_async_commit"}, "insert `cp_async_commit`");
        } else if (s.pending.size() <= keep) {
          std::string what = st.kind == StmtKind::WaitAll
                                 ? "`cp_async_wait_all` waits for no copy group: none is pending here"
                                 : "`cp_async_wait_group " + std::to_string(keep) +
                                       "` waits for no copy group: at most " +
                                       std::to_string(s.pending.size()) +
                                       " group(s) are pending here, and it leaves the newest " +
                                       std::to_string(keep) + " in flight";
          c_.error(DiagId::WaitCoversNothing, st.keywordSpan, what);
        }
      }
      while (s.pending.size() > keep) {
        for (const Region &r : s.pending.front())
          insertRegion(s.unsynced, r);
        s.pending.erase(s.pending.begin());
      }
      return s;
    }
    case StmtKind::BlockSync:
      s.unsynced.clear();
      s.readers.clear();
      return s;
    case StmtKind::If: {
      reads(st.value, st.span, s);
      if (report_ && warpDependent(st.value) && (containsSync(st.body) || containsSync(st.elseBody)))
        c_.error(DiagId::SyncInDivergentCode, m_.expr(st.value).span,
                 "this condition depends on `warp_id`, but the branch contains `block_sync`: "
                 "warps that skip it deadlock the block");
      FenceState a = walkBlock(st.body, s);
      FenceState b = walkBlock(st.elseBody, s);
      return join(a, b);
    }
    case StmtKind::For:
      return walkLoop(id, st, std::move(s));
    case StmtKind::Return:
      reads(st.value, st.span, s);
      return s;
    default:
      return s;
    }
  }

  /// Substitutes the loop variable in every stage expression.
  FenceState mapStages(const FenceState &s, solver::AtomId k, const DimExpr &replacement,
                       bool constantsToLoop, const DimExpr &start) {
    auto fix = [&](Region r) {
      if (r.whole)
        return r;
      if (constantsToLoop && r.stage.isConstant())
        r.stage = normalize(DimExpr::atom(k) - start + r.stage, r.stages);
      else
        r.stage = normalize(c_.symbols.substitute(r.stage, k, replacement), r.stages);
      if (!r.stage.isValid())
        r.whole = true;
      return r;
    };
    return mapRegions(s, fix);
  }

  /// Regions whose stage mentions the loop variable become whole tiles.
  FenceState forget(const FenceState &s, solver::AtomId k) {
    auto mentions = [&](const DimExpr &e) {
      for (const solver::Term &t : e.terms()) {
        if (t.Atom == k)
          return true;
        const auto &syms = c_.symbols.info(t.Atom).Symbols;
        if (std::find(syms.begin(), syms.end(), k) != syms.end())
          return true;
      }
      return false;
    };
    return mapRegions(s, [&](Region r) {
      if (!r.whole && mentions(r.stage))
        r.whole = true;
      return r;
    });
  }

  FenceState widen(const FenceState &s) {
    return mapRegions(s, [](Region r) {
      r.whole = true;
      return r;
    });
  }

  FenceState walkLoop(StmtId id, const Stmt &st, FenceState entry) {
    auto var = c_.loopVarOf.find(id);
    auto atom = var == c_.loopVarOf.end() ? std::nullopt : var->second.asAtom();
    auto start = c_.exprValueOrNull(st.value);
    auto end = c_.exprValueOrNull(st.end);
    if (!atom || !start) {
      bool saved = report_;
      report_ = false;
      FenceState out = walkBlock(st.body, widen(entry));
      report_ = saved;
      FenceState head = widen(join(entry, out));
      out = walkBlock(st.body, head);
      return join(entry, widen(out));
    }
    // A loop with a constant, small trip count (a pipeline prologue) is
    // unrolled: its stages stay exact constants.
    auto trips = end ? (*end - *start).constantValue() : std::nullopt;
    if (trips && *trips >= 0 && *trips <= 8 && start->isConstant()) {
      FenceState s = entry;
      for (int64_t i = 0; i < *trips; ++i) {
        s = walkBlockAt(st.body, std::move(s), *atom, *start + i);
      }
      return s;
    }
    DimExpr k = DimExpr::atom(*atom);
    FenceState head = mapStages(entry, *atom, k, true, *start);
    bool saved = report_;
    report_ = false;
    bool converged = false;
    for (int iteration = 0; iteration < 12; ++iteration) {
      FenceState out = walkBlock(st.body, head);
      FenceState next = join(head, mapStages(out, *atom, k - 1, false, *start));
      if (next == head) {
        converged = true;
        break;
      }
      head = iteration >= 8 ? widen(next) : next;
    }
    if (!converged)
      head = widen(head);
    report_ = saved;
    FenceState out = walkBlock(st.body, head);
    return join(entry, forget(out, *atom));
  }

  /// Walks a body with the loop variable fixed to a constant (unrolling).
  FenceState walkBlockAt(const std::vector<StmtId> &body, FenceState s, solver::AtomId k,
                         const DimExpr &value) {
    unrolled_.push_back({k, value});
    FenceState out = walkBlock(body, std::move(s));
    unrolled_.pop_back();
    return out;
  }
};

} // namespace

void checkFences(Checker &checker, const Item &item) {
  FenceChecker fences(checker);
  fences.run(item);
}

} // namespace kina::sema
