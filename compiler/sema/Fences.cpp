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
// `k mod 3` while `(k + 2) mod 3` is in flight checks clean. Reads of
// regions nothing has written are SharedInit.cpp's (K0608).
//
// Loops. A loop with a small constant trip count (a prologue) is unrolled.
// Any other loop is walked with two heads: the first iteration (k = start,
// the entry state) and the later ones (k > start, the back-edge state, a
// fixpoint with the loop variable shifted by one). The walk is path
// sensitive for the loop bounds: a branch that cannot be taken in the first
// (or in a later) iteration is skipped there, and a path whose branch
// conditions imply that this is the last iteration (`if k + 1 < K/16 { ... }
// else`) does not flow into the back edge. The facts of the grids, loops and
// branches around a statement are put back into the prover (FactScope) so
// these questions, and whether a stage index is in range, can be asked.
//
// Cost. Statements that touch no shared tile and no fence are skipped
// without a walk; a loop's fixpoint is memoized by its entry state; and a
// budget on the statements walked switches to a coarser analysis (one head,
// no unrolling) that is still sound, so the work is polynomial in the
// nesting depth (it was exponential: each level walked its body twice).
//
//===----------------------------------------------------------------------===//
#include "sema/Analysis.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <set>

namespace kina::sema {
namespace {

struct Region {
  int tile = -1;     ///< symbol index of the shared tile
  bool whole = true; ///< false: one stage of a multi-stage tile
  DimExpr stage;     ///< stage index before `mod stages` (normalized)
  int64_t stages = 0;
  Span site; ///< where it was written or read (not part of identity)

  bool sameAs(const Region &o) const {
    return tile == o.tile && whole == o.whole &&
           (whole || (stages == o.stages && stage == o.stage));
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

constexpr StmtId kNoWait = ~StmtId(0);

struct FenceState {
  RegionSet uncommitted;
  std::vector<RegionSet> pending; ///< oldest first
  RegionSet unsynced;
  RegionSet readers;
  /// The last wait on this path and the commits since (for the fix-it that
  /// corrects a wait count); kNoWait when none or when paths disagree. Not
  /// part of the state's identity (fixpoints and memo compare the regions).
  StmtId lastWait = kNoWait;
  int commitsSinceWait = 0;

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
  if (a.lastWait != b.lastWait || a.commitsSinceWait != b.commitsSinceWait) {
    r.lastWait = kNoWait;
    r.commitsSinceWait = 0;
  }
  return r;
}

using MaybeState = std::optional<FenceState>;

MaybeState join(const MaybeState &a, const MaybeState &b) {
  if (!a)
    return b;
  if (!b)
    return a;
  return join(*a, *b);
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
  r.lastWait = s.lastWait;
  r.commitsSinceWait = s.commitsSinceWait;
  return r;
}

/// The states at the end of a walk: `cont` continues (to the next statement,
/// or the loop's back edge), `last` is known to be in the last iteration of
/// the innermost loop (it only leaves the loop). Either may be unreachable.
struct Flow {
  MaybeState cont;
  MaybeState last;
};

/// Which iterations of the innermost (not unrolled) loop a walk stands for.
enum class Iteration : uint8_t { Any, First, Later };

class FenceChecker {
public:
  explicit FenceChecker(Checker &c) : c_(c), m_(c.m) {}
  /// The reads reported as pending or unsynchronized (K0601).
  const std::vector<Span> &readErrors() const { return readErrors_; }

  void run(const Item &item) {
    report_ = true;
    Flow f = walkBlock(item.body, Flow{FenceState{}, std::nullopt});
    // A wait that completes nothing in every walk that reached it.
    for (const auto &[id, use] : waits_) {
      if (use.covered)
        continue;
      const Stmt &st = m_.stmt(id);
      size_t keep =
          st.kind == StmtKind::WaitAll ? 0 : static_cast<size_t>(std::max<int64_t>(0, st.count));
      std::string what = st.kind == StmtKind::WaitAll
                             ? "`cp_async_wait_all` waits for no copy group: none is pending here"
                             : "`cp_async_wait_group " + std::to_string(keep) +
                                   "` waits for no copy group: at most " +
                                   std::to_string(use.pendingMax) +
                                   " group(s) are pending here, and it leaves the newest " +
                                   std::to_string(keep) + " in flight";
      c_.error(DiagId::WaitCoversNothing, st.keywordSpan, what);
    }
    if (c_.options.proofTables)
      for (const auto &[id, use] : waits_) {
        if (use.walks.empty())
          continue;
        const Stmt &st = m_.stmt(id);
        std::string md = st.kind == StmtKind::WaitAll
                             ? "**cp_async_wait_all**: completes every committed group"
                             : "**cp_async_wait_group " + std::to_string(st.count) +
                                   "**: completes all but the newest " + std::to_string(st.count) +
                                   " committed groups";
        md += " (proved by the fence typestate, per path):\n";
        for (const std::string &w : use.walks)
          md += "- " + w + "\n";
        c_.annotateProof(st.keywordSpan, md, "protocol");
      }
    MaybeState s = join(f.cont, f.last);
    if (s && !s->uncommitted.empty())
      c_.error(DiagId::UncommittedAtEnd, s->uncommitted.front().site,
               "`cp_async` copies are issued but never committed or waited for")
          .note("add `cp_async_commit` and a wait before the data is used");
  }

private:
  Checker &c_;
  const Module &m_;
  std::vector<Span> readErrors_;
  /// Per wait: did it complete a group in any walk, and the most groups
  /// pending at it (K0603 is reported once all walks are done).
  struct WaitUse {
    bool covered = false;
    size_t pendingMax = 0;
    /// For the hover (ideTables): what it completes in each walk, deduplicated.
    std::vector<std::string> walks;
  };
  std::map<StmtId, WaitUse> waits_;
  bool report_ = true;
  std::set<std::pair<int, std::pair<uint32_t, uint32_t>>> reported_;
  /// Loop variables of unrolled loops and their current values.
  std::vector<std::pair<solver::AtomId, DimExpr>> unrolled_;
  /// The innermost loop walked with two heads, and which head.
  struct LoopContext {
    solver::AtomId var;
    DimExpr start, end;
    Iteration iteration;
  };
  std::vector<LoopContext> loops_;

  // Cost control (see the file comment).
  static constexpr uint64_t kBudget = 4000;
  uint64_t work_ = 0;
  bool coarse() const { return work_ > kBudget; }
  std::unordered_map<StmtId, bool> relevant_;
  struct Memo {
    FenceState entry;
    std::vector<int64_t> context; ///< contextKey() when it was computed
    FenceState head;
    bool haveHead;
  };
  /// What besides the entry state a loop's analysis depends on: the
  /// iteration heads of the enclosing loops and the unrolled values (they
  /// decide which branches are pruned), and the analysis mode.
  /// Only the enclosing loops whose variables the loop's body mentions (in
  /// conditions, loop bounds or shared-tile indices) count: the others
  /// cannot change what the body does, and leaving them out keeps a deep
  /// nest from analysing each loop once per combination of outer heads.
  std::vector<int64_t> contextKey(StmtId loop) {
    const std::vector<solver::AtomId> &used = bodySymbols(loop);
    auto isUsed = [&](solver::AtomId a) {
      return std::find(used.begin(), used.end(), a) != used.end();
    };
    std::vector<int64_t> key{coarse() ? 1 : 0};
    for (const LoopContext &l : loops_)
      if (isUsed(l.var)) {
        key.push_back(l.var);
        key.push_back(static_cast<int64_t>(l.iteration));
      }
    for (const auto &[atom, value] : unrolled_)
      if (isUsed(atom)) {
        key.push_back(atom);
        key.push_back(value.constantValue().value_or(std::numeric_limits<int64_t>::min()));
      }
    return key;
  }
  std::unordered_map<StmtId, std::vector<solver::AtomId>> bodySymbols_;
  const std::vector<solver::AtomId> &bodySymbols(StmtId loop) {
    auto it = bodySymbols_.find(loop);
    if (it != bodySymbols_.end())
      return it->second;
    std::vector<solver::AtomId> syms;
    std::function<void(ExprId)> indices = [&](ExprId id) {
      if (id == syntax::kNone)
        return;
      const Expr &e = m_.expr(id);
      if (e.kind == ExprKind::Index)
        for (size_t i = 1; i < e.children.size(); ++i)
          symbolsOfExpr(c_, e.children[i], syms);
      for (ExprId child : e.children)
        indices(child);
    };
    std::function<void(const std::vector<StmtId> &)> walk = [&](const std::vector<StmtId> &b) {
      for (StmtId id : b) {
        const Stmt &st = m_.stmt(id);
        if (st.kind == StmtKind::If || st.kind == StmtKind::For) {
          symbolsOfExpr(c_, st.value, syms);
          symbolsOfExpr(c_, st.end, syms);
        } else {
          indices(st.value);
          indices(st.target);
        }
        walk(st.body);
        walk(st.elseBody);
      }
    };
    const Stmt &st = m_.stmt(loop);
    symbolsOfExpr(c_, st.value, syms);
    symbolsOfExpr(c_, st.end, syms);
    walk(st.body);
    return bodySymbols_[loop] = std::move(syms);
  }
  std::unordered_map<StmtId, std::vector<Memo>> memo_;

  bool once(DiagId id, Span at) {
    return reported_.insert({static_cast<int>(id), {at.begin, at.end}}).second;
  }

  // ------------------------------------------------------------ relevance

  bool exprTouchesShared(ExprId id) const {
    if (id == syntax::kNone)
      return false;
    const Expr &e = m_.expr(id);
    if (e.kind == ExprKind::Name) {
      int sym = c_.program.exprSymbol[id];
      if (sym >= 0) {
        const SymbolInfo &info = c_.program.symbolInfos[sym];
        if (info.kind == SymbolKind::Shared ||
            (info.kind == SymbolKind::Let && c_.letValues.count(sym)))
          return true;
      }
    }
    for (ExprId child : e.children)
      if (exprTouchesShared(child))
        return true;
    return false;
  }

  /// Does a statement (or anything in it) touch a shared tile or a fence?
  bool relevant(StmtId id) {
    auto it = relevant_.find(id);
    if (it != relevant_.end())
      return it->second;
    const Stmt &st = m_.stmt(id);
    bool r = false;
    switch (st.kind) {
    case StmtKind::CpAsync:
    case StmtKind::Commit:
    case StmtKind::WaitAll:
    case StmtKind::WaitGroup:
    case StmtKind::BlockSync:
      r = true;
      break;
    default:
      r = exprTouchesShared(st.value) || exprTouchesShared(st.target) || exprTouchesShared(st.end);
      for (StmtId s : st.body)
        r = relevant(s) || r;
      for (StmtId s : st.elseBody)
        r = relevant(s) || r;
    }
    relevant_[id] = r;
    return r;
  }

  // ------------------------------------------------------------ regions

  /// The shared-tile region an expression denotes, if it is one. A stage
  /// index that is not provably in range yields none: the checker reported
  /// the bounds error, and wrapping it onto another stage would only add
  /// follow-on races.
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
        if (!c_.prover.proveNonNegative(*value).proved() ||
            !c_.prover.proveLess(*value, DimExpr::constant(*stages)).proved())
          return std::nullopt;
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
      // `(k + 1) mod 2`, not `k + 1 mod 2`: a sum is parenthesised.
      name += " (stage " +
              (r.stage.asAtom() || r.stage.isConstant() ? c_.symbols.str(r.stage)
                                                        : "(" + c_.symbols.str(r.stage) + ")") +
              " mod " + std::to_string(r.stages) + ")";
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

  /// The wait count that would have completed the group holding `w`: the
  /// number of groups newer than it at the last wait.
  void fixWaitCount(Diagnostic &d, const FenceState &s, const Region &r, Span stmtSpan) {
    size_t newest = 0;
    bool found = false;
    for (size_t i = 0; i < s.pending.size(); ++i)
      if (findOverlap(s.pending[i], r))
        newest = i, found = true;
    if (!found)
      return;
    int newer = static_cast<int>(s.pending.size() - 1 - newest);
    if (s.lastWait != kNoWait && m_.stmt(s.lastWait).kind == StmtKind::WaitGroup) {
      int want = newer - s.commitsSinceWait;
      const Stmt &w = m_.stmt(s.lastWait);
      if (want >= 0 && want < w.count && !w.countSpan.empty()) {
        d.label(w.keywordSpan, "this wait leaves " + std::to_string(w.count) +
                                   " group(s) in flight, including that copy's");
        d.fix(w.countSpan, std::to_string(want),
              "wait with `cp_async_wait_group " + std::to_string(want) + "`");
        return;
      }
    }
    if (newer == 0)
      insertBefore(d, stmtSpan, {"cp_async_wait_all", "block_sync"},
                   "insert `cp_async_wait_all` and `block_sync`");
    else
      insertBefore(d, stmtSpan, {"cp_async_wait_group " + std::to_string(newer), "block_sync"},
                   "insert `cp_async_wait_group " + std::to_string(newer) + "` and `block_sync`");
  }

  // --------------------------------------------------------------- events

  void read(const Region &r, Span stmtSpan, FenceState &s) {
    if (report_) {
      size_t before = reported_.size();
      if (const Region *w = findOverlap(s.uncommitted, r)) {
        if (once(DiagId::ReadWhileCopyPending, r.site)) {
          auto &d = c_.error(DiagId::ReadWhileCopyPending, r.site,
                             "`" + tileName(r) +
                                 "` is read while a `cp_async` into it is not "
                                 "committed, waited for or synchronized");
          d.label(w->site, "copied here");
          insertBefore(d, stmtSpan, {"cp_async_commit", "cp_async_wait_all", "block_sync"},
                       "insert `cp_async_commit`, `cp_async_wait_all` and `block_sync`");
        }
      } else if (const Region *w = pendingOverlap(s, r)) {
        if (once(DiagId::ReadWhileCopyPending, r.site)) {
          auto &d = c_.error(DiagId::ReadWhileCopyPending, r.site,
                             "`" + tileName(r) +
                                 "` is read while the `cp_async` into it may "
                                 "still be in flight: no `cp_async_wait_*` covers it");
          d.label(w->site, "copied here");
          fixWaitCount(d, s, r, stmtSpan);
        }
      } else if (const Region *w = findOverlap(s.unsynced, r)) {
        if (once(DiagId::ReadWhileCopyPending, r.site)) {
          auto &d = c_.error(DiagId::ReadWhileCopyPending, r.site,
                             "`" + tileName(r) +
                                 "` is read before a `block_sync`: data "
                                 "written by other threads may not be visible yet");
          d.label(w->site, "written here");
          insertBefore(d, stmtSpan, {"block_sync"}, "insert `block_sync`");
        }
      }
      if (reported_.size() != before)
        readErrors_.push_back(r.site);
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
        if (once(DiagId::WriteWhileRead, r.site)) {
          auto &d = c_.error(DiagId::WriteWhileRead, r.site,
                             "`" + tileName(r) +
                                 "` is overwritten while other warps may still "
                                 "be reading it: no `block_sync` since the read");
          d.label(rd->site, "read here");
          insertBefore(d, stmtSpan, {"block_sync"}, "insert `block_sync`");
        }
      } else if (async) {
        const Region *w = findOverlap(s.uncommitted, r);
        if (!w)
          w = pendingOverlap(s, r);
        if (w && once(DiagId::CopyOverPending, r.site))
          c_.error(DiagId::CopyOverPending, r.site,
                   "`cp_async` into `" + tileName(r) +
                       "` while an earlier copy into it is not "
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

  // ------------------------------------------------------- path questions

  /// Is the condition (or, with holds = false, its negation) provable?
  bool provable(ExprId cond, bool holds) {
    return provableCondition(c_, cond, holds, &unrolled_);
  }

  /// Under the facts in scope, is this the last iteration of the innermost
  /// two-headed loop (k + 1 >= end)?
  bool lastIteration() {
    if (loops_.empty())
      return false;
    const LoopContext &l = loops_.back();
    return c_.prover.proveLessEqual(l.end, DimExpr::atom(l.var) + 1).proved();
  }

  // ------------------------------------------------------------ statements

  Flow walkBlock(const std::vector<StmtId> &body, Flow f) {
    for (StmtId id : body) {
      if (!f.cont && !f.last)
        break;
      if (!relevant(id))
        continue;
      f = walkStmt(id, std::move(f));
    }
    return f;
  }

  /// Applies a straight-line statement to both states of a flow.
  template <typename Fn> Flow each(Flow f, Fn fn) {
    if (f.cont)
      fn(*f.cont);
    if (f.last)
      fn(*f.last);
    return f;
  }

  Flow walkStmt(StmtId id, Flow f) {
    ++work_;
    const Stmt &st = m_.stmt(id);
    switch (st.kind) {
    case StmtKind::BlockGrid:
    case StmtKind::WarpGrid: {
      FactScope facts(c_);
      facts.grid(id);
      return walkBlock(st.body, std::move(f));
    }
    case StmtKind::Let:
      // A let of a view names it; the read happens where it is used.
      return each(std::move(f), [&](FenceState &s) {
        if (st.value != syntax::kNone && !regionOf(st.value))
          reads(st.value, st.span, s);
      });
    case StmtKind::CpAsync:
      return each(std::move(f), [&](FenceState &s) {
        reads(st.value, st.span, s);
        if (auto r = regionOf(st.target))
          write(*r, st.span, s, true);
      });
    case StmtKind::Assign:
      return each(std::move(f), [&](FenceState &s) {
        reads(st.value, st.span, s);
        const Expr &t = m_.expr(st.target);
        if (t.kind == ExprKind::Index)
          for (size_t i = 1; i < t.children.size(); ++i)
            reads(t.children[i], st.span, s);
        if (auto r = regionOf(st.target))
          write(*r, st.span, s, false);
      });
    case StmtKind::Commit:
      return each(std::move(f), [&](FenceState &s) {
        s.pending.push_back(std::move(s.uncommitted));
        s.uncommitted.clear();
        boundQueue(s);
        if (s.lastWait != kNoWait)
          ++s.commitsSinceWait;
      });
    case StmtKind::WaitAll:
    case StmtKind::WaitGroup:
      return each(std::move(f), [&](FenceState &s) { wait(id, st, s); });
    case StmtKind::BlockSync:
      return each(std::move(f), [&](FenceState &s) {
        s.unsynced.clear();
        s.readers.clear();
      });
    case StmtKind::If:
      return walkIf(st, std::move(f));
    case StmtKind::For: {
      Flow out;
      if (f.cont)
        out.cont = walkLoop(id, st, std::move(*f.cont));
      if (f.last)
        out.last = walkLoop(id, st, std::move(*f.last));
      return out;
    }
    case StmtKind::Return:
      return each(std::move(f), [&](FenceState &s) { reads(st.value, st.span, s); });
    default:
      return f;
    }
  }

  void wait(StmtId id, const Stmt &st, FenceState &s) {
    size_t keep =
        st.kind == StmtKind::WaitAll ? 0 : static_cast<size_t>(std::max<int64_t>(0, st.count));
    if (report_) {
      if (!s.uncommitted.empty()) {
        if (once(DiagId::WaitOnUncommitted, st.keywordSpan)) {
          auto &d = c_.error(DiagId::WaitOnUncommitted, st.keywordSpan,
                             "this wait does not cover the `cp_async` copies issued since the "
                             "last `cp_async_commit`");
          d.label(s.uncommitted.front().site, "not committed");
          insertBefore(d, st.span, {"cp_async_commit"}, "insert `cp_async_commit`");
        }
      }
      WaitUse &use = waits_[id];
      use.covered = use.covered || !s.uncommitted.empty() || s.pending.size() > keep;
      use.pendingMax = std::max(use.pendingMax, s.pending.size());
      if (c_.options.proofTables && use.walks.size() < 4) {
        std::string w = describeWait(s, keep);
        if (std::find(use.walks.begin(), use.walks.end(), w) == use.walks.end())
          use.walks.push_back(std::move(w));
      }
    }
    while (s.pending.size() > keep) {
      for (const Region &r : s.pending.front())
        insertRegion(s.unsynced, r);
      s.pending.erase(s.pending.begin());
    }
    s.lastWait = id;
    s.commitsSinceWait = 0;
  }

  /// One walk's view of a wait, for its hover: which committed groups it
  /// completes (oldest first) and which copies they hold.
  std::string describeWait(const FenceState &s, size_t keep) const {
    std::string where;
    if (!loops_.empty() && loops_.back().iteration == Iteration::First)
      where = "first iteration of `for " + c_.symbols.info(loops_.back().var).Name + "`: ";
    else if (!loops_.empty() && loops_.back().iteration == Iteration::Later)
      where = "later iterations of `for " + c_.symbols.info(loops_.back().var).Name + "`: ";
    auto paren = [](std::string e) { return e.find(' ') == std::string::npos ? e : "(" + e + ")"; };
    size_t n = s.pending.size();
    if (n <= keep)
      return where + "completes none of the " + std::to_string(n) + " committed group(s)";
    std::string out = where + "completes group" +
                      (n - keep == 1 ? " 1" : "s 1-" + std::to_string(n - keep)) + " of " +
                      std::to_string(n) + " committed (oldest first)";
    if (keep > 0)
      out += ", leaves the newest " + std::to_string(keep) + " in flight";
    out += ":";
    for (size_t g = 0; g < n - keep; ++g) {
      out += (g == 0 ? " " : "; ") + std::string("group ") + std::to_string(g + 1) + " = ";
      if (s.pending[g].empty())
        out += "no copies";
      for (size_t i = 0; i < s.pending[g].size(); ++i) {
        const Region &r = s.pending[g][i];
        out +=
            (i == 0 ? "`" : ", `") +
            (r.tile >= 0 ? c_.program.symbolInfos[r.tile].name : std::string("?")) +
            (r.whole ? std::string()
                     : "` stage `" + paren(c_.str(r.stage)) + " mod " + std::to_string(r.stages)) +
            "`";
      }
    }
    return out;
  }

  Flow walkIf(const Stmt &st, Flow f) {
    each(f, [&](FenceState &s) { reads(st.value, st.span, s); });
    Flow out;
    for (bool holds : {true, false}) {
      const std::vector<StmtId> &body = holds ? st.body : st.elseBody;
      if (provable(st.value, !holds))
        continue; // this branch cannot be taken here
      FactScope facts(c_);
      facts.branch(st.value, holds);
      Flow in = f;
      if (in.cont && lastIteration()) {
        in.last = join(in.last, in.cont);
        in.cont.reset();
      }
      Flow r = walkBlock(body, std::move(in));
      out.cont = join(out.cont, r.cont);
      out.last = join(out.last, r.last);
    }
    return out;
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
    auto mentionsK = [&](const DimExpr &e) {
      return mentions(c_, e, [&](solver::AtomId a) { return a == k; });
    };
    return mapRegions(s, [&](Region r) {
      if (!r.whole && mentionsK(r.stage))
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

  /// Walks the body once for one head, with the loop's facts.
  Flow walkBody(const Stmt &st, const FenceState &head, const LoopContext &l) {
    FactScope facts(c_);
    facts.lessEqual(l.start, DimExpr::atom(l.var));
    facts.lessEqual(DimExpr::atom(l.var) + 1, l.end);
    if (l.iteration == Iteration::First)
      facts.equal(DimExpr::atom(l.var), l.start);
    else if (l.iteration == Iteration::Later)
      facts.lessEqual(l.start + 1, DimExpr::atom(l.var));
    loops_.push_back(l);
    Flow out = walkBlock(st.body, Flow{head, std::nullopt});
    loops_.pop_back();
    return out;
  }

  /// The back edge: what reaches the next iteration, with k shifted.
  std::optional<FenceState> backEdge(const Flow &f, solver::AtomId k, const DimExpr &start) {
    if (!f.cont)
      return std::nullopt;
    return mapStages(*f.cont, k, DimExpr::atom(k) - 1, false, start);
  }

  FenceState walkLoop(StmtId id, const Stmt &st, FenceState entry) {
    auto var = c_.loopVarOf.find(id);
    auto atom = var == c_.loopVarOf.end() ? std::nullopt : var->second.asAtom();
    auto start = c_.exprValueOrNull(st.value);
    auto end = c_.exprValueOrNull(st.end);
    if (!atom || !start || !end) {
      bool saved = report_;
      report_ = false;
      Flow out = walkBlock(st.body, Flow{widen(entry), std::nullopt});
      report_ = saved;
      FenceState head = widen(join(entry, widen(*join(out.cont, out.last))));
      out = walkBlock(st.body, Flow{head, std::nullopt});
      MaybeState o = join(out.cont, out.last);
      return o ? join(entry, widen(*o)) : entry;
    }
    for (const auto &[a, value] : unrolled_) {
      *start = c_.symbols.substitute(*start, a, value);
      *end = c_.symbols.substitute(*end, a, value);
    }
    // A loop with a constant, small trip count (a pipeline prologue) is
    // unrolled: its stages stay exact constants.
    auto trips = (*end - *start).constantValue();
    const std::vector<solver::AtomId> &used = bodySymbols(id);
    bool bodyUsesK = std::find(used.begin(), used.end(), *atom) != used.end();
    if (trips && *trips >= 0 && *trips <= 8 && start->isConstant() && !coarse() && bodyUsesK) {
      MaybeState s = entry;
      for (int64_t i = 0; i < *trips && s; ++i) {
        FactScope facts(c_);
        facts.equal(DimExpr::atom(*atom), *start + i);
        unrolled_.push_back({*atom, *start + i});
        Flow out = walkBlock(st.body, Flow{*s, std::nullopt});
        unrolled_.pop_back();
        s = join(out.cont, out.last);
      }
      return s ? *s : entry;
    }
    DimExpr k = DimExpr::atom(*atom);
    bool mayBeEmpty = !c_.prover.proveLess(*start, *end).proved();
    FenceState first = mapStages(entry, *atom, k, true, *start);
    bool split = !coarse();
    LoopContext ctxFirst{*atom, *start, *end, split ? Iteration::First : Iteration::Any};
    LoopContext ctxLater{*atom, *start, *end, split ? Iteration::Later : Iteration::Any};

    // The later iterations' head: a fixpoint over the back edge, memoized by
    // the entry state.
    FenceState later;
    bool haveLater = false, memoHit = false;
    std::vector<int64_t> key = contextKey(id);
    for (const Memo &mm : memo_[id])
      if (mm.context == key && mm.entry == entry) {
        later = mm.head;
        haveLater = mm.haveHead;
        memoHit = true;
        break;
      }
    bool saved = report_;
    if (!memoHit) {
      report_ = false;
      Flow outFirst = walkBody(st, first, ctxFirst);
      std::optional<FenceState> head = backEdge(outFirst, *atom, *start);
      if (!split && head)
        head = join(first, *head);
      bool converged = false;
      for (int iteration = 0; head && iteration < 12; ++iteration) {
        Flow out = walkBody(st, *head, ctxLater);
        std::optional<FenceState> back = backEdge(out, *atom, *start);
        FenceState next = back ? join(*head, *back) : *head;
        if (next == *head) {
          converged = true;
          break;
        }
        head = iteration >= 8 ? widen(next) : next;
      }
      if (head && !converged)
        head = widen(*head);
      report_ = saved;
      haveLater = head.has_value();
      if (head)
        later = *head;
      memo_[id].push_back(Memo{entry, std::move(key), later, haveLater});
    }
    // The reporting walks: the first iteration, then the later ones (once
    // when the heads agree and no branch depends on the iteration).
    MaybeState exit = mayBeEmpty ? MaybeState(entry) : std::nullopt;
    auto collect = [&](const Flow &f) {
      MaybeState o = join(f.cont, f.last);
      if (o)
        exit = join(exit, forget(*o, *atom));
    };
    if (!split) {
      FenceState head = haveLater ? later : first;
      collect(walkBody(st, head, ctxFirst));
    } else if (haveLater && later == first && !conditionsMention(st.body, *atom)) {
      LoopContext any{*atom, *start, *end, Iteration::Any};
      collect(walkBody(st, first, any));
    } else {
      collect(walkBody(st, first, ctxFirst));
      if (haveLater)
        collect(walkBody(st, later, ctxLater));
    }
    return exit ? *exit : entry;
  }

  /// Does an `if` condition or inner loop bound in `body` mention k?
  bool conditionsMention(const std::vector<StmtId> &body, solver::AtomId k) {
    std::vector<solver::AtomId> syms;
    for (StmtId id : body) {
      const Stmt &s = m_.stmt(id);
      syms.clear();
      if (s.kind == StmtKind::If)
        symbolsOfExpr(c_, s.value, syms);
      if (s.kind == StmtKind::For) {
        symbolsOfExpr(c_, s.value, syms);
        symbolsOfExpr(c_, s.end, syms);
      }
      if (std::find(syms.begin(), syms.end(), k) != syms.end())
        return true;
      if (conditionsMention(s.body, k) || conditionsMention(s.elseBody, k))
        return true;
    }
    return false;
  }
};

} // namespace

std::vector<Span> checkFences(Checker &checker, const Item &item) {
  FenceChecker fences(checker);
  fences.run(item);
  return fences.readErrors();
}

} // namespace kina::sema
