//===- SharedInit.cpp - Reads of shared memory nothing has written --------===//
//
// The fence typestate (Fences.cpp) knows what is *pending*; this pass knows
// what has been *written at all*. A read of a shared tile (or of one stage)
// that no store and no `cp_async` has written before, on some path, reads
// uninitialised memory (K0608): a pipeline prologue one stage short, a stage
// index that skips a stage, warps that fill only part of a tile.
//
// Written-ness is monotone (once written, an element stays written), so the
// state is a list of guarded boxes: "the box `start ..+ length` (per
// dimension) of tile T has been written if every guard holds". A guard is a
// comparison from the branches and loop iterations around the write, with
// the values of unrolled loop variables substituted. At a branch the boxes
// written inside get the branch condition as a guard; nothing is ever
// dropped, so the join is exact.
//
// Writers and readers are warps: a write by warp w' under `if w = 0` stands
// for the box of warp 0 only, and a read by warp w must be covered by the
// union over all writing warps (after `block_sync`, which Fences.cpp
// checks). The check therefore enumerates the warp ids (at most 32 warps):
// for each reading warp, the read box is compared with the boxes of every
// writing warp whose guards are provable, first for one box containing it,
// then element by element on the read box.
//
// Loops. A constant trip count up to 8 is unrolled. Otherwise the first C
// iterations are walked with k fixed (k = start, start + 1, ...), where C is
// the largest stage count of a staged tile whose stage index mentions k (so
// a four-stage pipeline is followed through its first four iterations, and
// the prologue-one-short bug shows in iteration 2), or 1 when anything else
// in the body mentions k; then one symbolic iteration k >= start + C stands
// for all later ones, starting from what the first C wrote (monotone). Each
// fixed iteration's writes are guarded by `start + i < end`. A budget on the
// statements walked switches to one symbolic iteration per loop (C = 0, no
// unrolling): sound (later iterations see at least the entry's writes), and
// linear.
//
//===----------------------------------------------------------------------===//
#include "sema/Analysis.h"

#include <functional>
#include <limits>
#include <set>

namespace kina::sema {
namespace {

using syntax::BinaryOp;

struct Guard {
  BinaryOp op = BinaryOp::Eq;
  DimExpr lhs, rhs;
};

struct Box {
  int tile = -1;
  std::vector<DimExpr> start;
  std::vector<int64_t> len;
  std::vector<Guard> guards;
};

using Written = std::vector<Box>;

/// A loop iteration walked with its variable fixed.
struct Fixed {
  solver::AtomId var;
  DimExpr value;
  std::string name;
};

class InitChecker {
public:
  InitChecker(Checker &c, std::vector<Span> skip) : c_(c), m_(c.m), reported_(std::move(skip)) {}

  std::vector<Span> run(const Item &item) {
    Written w;
    walkBlock(item.body, w);
    return reported_;
  }

private:
  Checker &c_;
  const Module &m_;
  std::vector<Span> reported_; ///< reads already reported (here or by Fences.cpp)
  std::vector<Fixed> fixed_;
  std::vector<Guard> path_; ///< guards of the branches and iterations around
  /// The warp grid in scope: its id atoms and extents.
  std::vector<solver::AtomId> warpIds_;
  std::vector<int64_t> warpExtents_;
  std::unordered_map<StmtId, bool> relevant_;
  static constexpr uint64_t kBudget = 4000;
  uint64_t work_ = 0;
  bool coarse() const { return work_ > kBudget; }

  // ------------------------------------------------------------- helpers

  DimExpr fix(DimExpr e) const {
    for (const Fixed &f : fixed_)
      e = c_.symbols.substitute(e, f.var, f.value);
    return e;
  }

  int sharedSymbol(ExprId baseId) const {
    if (m_.expr(baseId).kind != ExprKind::Name)
      return -1;
    int sym = c_.program.exprSymbol[baseId];
    if (sym < 0 || c_.program.symbolInfos[sym].kind != SymbolKind::Shared)
      return -1;
    return sym;
  }

  bool touchesShared(ExprId id) const {
    if (id == syntax::kNone)
      return false;
    const Expr &e = m_.expr(id);
    if (e.kind == ExprKind::Name) {
      int sym = c_.program.exprSymbol[id];
      if (sym >= 0 &&
          (c_.program.symbolInfos[sym].kind == SymbolKind::Shared || c_.letValues.count(sym)))
        return true;
    }
    for (ExprId child : e.children)
      if (touchesShared(child))
        return true;
    return false;
  }

  bool relevant(StmtId id) {
    auto it = relevant_.find(id);
    if (it != relevant_.end())
      return it->second;
    const Stmt &st = m_.stmt(id);
    bool r = st.kind == StmtKind::CpAsync || touchesShared(st.value) || touchesShared(st.target);
    for (StmtId s : st.body)
      r = relevant(s) || r;
    for (StmtId s : st.elseBody)
      r = relevant(s) || r;
    relevant_[id] = r;
    return r;
  }

  /// The box an expression `t[...]` or `t` (or a `let` alias of one) names.
  std::optional<Box> boxOf(ExprId id) const {
    const Expr &e = m_.expr(id);
    if (e.kind == ExprKind::Paren)
      return boxOf(e.children[0]);
    ExprId baseId = e.kind == ExprKind::Index ? e.children[0] : id;
    if (m_.expr(baseId).kind == ExprKind::Name) {
      int sym = c_.program.exprSymbol[baseId];
      if (sym >= 0 && c_.program.symbolInfos[sym].kind == SymbolKind::Let) {
        auto alias = c_.letValues.find(sym);
        if (alias != c_.letValues.end())
          return boxOf(alias->second); // the whole view (over-approximates a read)
        return std::nullopt;
      }
    }
    int sym = sharedSymbol(baseId);
    if (sym < 0)
      return std::nullopt;
    const Type &t = c_.typeOf(baseId);
    if (!t.isTensor())
      return std::nullopt;
    Box b;
    b.tile = sym;
    size_t rank = t.tensor.shape.size();
    for (size_t i = 0; i < rank; ++i) {
      auto extent = t.tensor.shape[i].constantValue();
      if (!extent)
        return std::nullopt;
      if (e.kind != ExprKind::Index) {
        b.start.push_back(DimExpr::constant(0));
        b.len.push_back(*extent);
        continue;
      }
      if (e.children.size() != rank + 1)
        return std::nullopt;
      const Expr &ix = m_.expr(e.children[i + 1]);
      std::optional<DimExpr> start;
      int64_t len = 1;
      if (ix.kind == ExprKind::Slice) {
        start = c_.exprValueOrNull(ix.children[0]);
        auto l = c_.exprValueOrNull(ix.children[1]);
        if (!l || !l->constantValue())
          return std::nullopt;
        len = *l->constantValue();
      } else {
        start = c_.exprValueOrNull(e.children[i + 1]);
      }
      if (!start)
        return std::nullopt;
      b.start.push_back(fix(*start));
      b.len.push_back(len);
    }
    return b;
  }

  std::vector<int64_t> extentsOf(int tile) const {
    std::vector<int64_t> out;
    // The declared type of the tile: find it through any typed use; the
    // symbol's declaration is a Shared statement whose type the walk knows.
    auto it = tileExtents_.find(tile);
    return it == tileExtents_.end() ? out : it->second;
  }
  std::unordered_map<int, std::vector<int64_t>> tileExtents_;

  // -------------------------------------------------------------- guards

  std::optional<Guard> guardOf(ExprId cond, bool holds) const {
    const Expr &e = m_.expr(cond);
    if (e.kind == ExprKind::Paren)
      return guardOf(e.children[0], holds);
    if (e.kind != ExprKind::Binary)
      return std::nullopt;
    auto a = c_.exprValueOrNull(e.children[0]);
    auto b = c_.exprValueOrNull(e.children[1]);
    if (!a || !b)
      return std::nullopt;
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
      case BinaryOp::Eq:
        op = BinaryOp::Ne;
        break;
      case BinaryOp::Ne:
        op = BinaryOp::Eq;
        break;
      default:
        return std::nullopt;
      }
    }
    return Guard{op, fix(*a), fix(*b)};
  }

  /// Substitutes warp ids (`values`, parallel to warpIds_).
  DimExpr atWarp(const DimExpr &e, const std::vector<int64_t> &values) const {
    DimExpr r = e;
    for (size_t i = 0; i < warpIds_.size() && i < values.size(); ++i)
      r = c_.symbols.substitute(r, warpIds_[i], DimExpr::constant(values[i]));
    return r;
  }

  bool provable(const Guard &g) {
    auto &p = c_.prover;
    switch (g.op) {
    case BinaryOp::Lt:
      return p.proveLess(g.lhs, g.rhs).proved();
    case BinaryOp::Le:
      return p.proveLessEqual(g.lhs, g.rhs).proved();
    case BinaryOp::Gt:
      return p.proveLess(g.rhs, g.lhs).proved();
    case BinaryOp::Ge:
      return p.proveLessEqual(g.rhs, g.lhs).proved();
    case BinaryOp::Eq:
      return p.proveEqual(g.lhs, g.rhs).proved();
    case BinaryOp::Ne:
      return p.proveLess(g.lhs, g.rhs).proved() || p.proveLess(g.rhs, g.lhs).proved();
    default:
      return false;
    }
  }
  bool refutable(const Guard &g) {
    Guard n = g;
    switch (g.op) {
    case BinaryOp::Lt:
      n.op = BinaryOp::Ge;
      break;
    case BinaryOp::Le:
      n.op = BinaryOp::Gt;
      break;
    case BinaryOp::Gt:
      n.op = BinaryOp::Le;
      break;
    case BinaryOp::Ge:
      n.op = BinaryOp::Lt;
      break;
    case BinaryOp::Eq:
      n.op = BinaryOp::Ne;
      break;
    case BinaryOp::Ne:
      n.op = BinaryOp::Eq;
      break;
    default:
      return false;
    }
    return provable(n);
  }

  bool guardsHold(const std::vector<Guard> &gs, const std::vector<int64_t> &warp) {
    for (const Guard &g : gs)
      if (!provable(Guard{g.op, atWarp(g.lhs, warp), atWarp(g.rhs, warp)}))
        return false;
    return true;
  }

  // ------------------------------------------------------------ the check

  /// Every assignment of the warp ids in scope (one empty one outside).
  std::vector<std::vector<int64_t>> warpAssignments() const {
    std::vector<std::vector<int64_t>> out{{}};
    for (int64_t extent : warpExtents_) {
      std::vector<std::vector<int64_t>> next;
      for (const auto &a : out)
        for (int64_t v = 0; v < extent; ++v) {
          auto b = a;
          b.push_back(v);
          next.push_back(std::move(b));
        }
      out = std::move(next);
    }
    return out;
  }

  bool mentionsWarp(const DimExpr &e) const {
    return mentions(c_, e, [&](solver::AtomId a) {
      return std::find(warpIds_.begin(), warpIds_.end(), a) != warpIds_.end();
    });
  }

  /// Checks one read; reports K0608 and returns false when some element of
  /// it may be unwritten.
  void read(ExprId id, const Written &w) {
    auto rb = boxOf(id);
    if (!rb)
      return;
    const Span at = m_.expr(id).span;
    if (std::find(reported_.begin(), reported_.end(), at) != reported_.end())
      return;
    std::vector<int64_t> extents = extentsOf(rb->tile);
    if (extents.size() != rb->start.size())
      return;
    bool readerWarp = false;
    for (const DimExpr &s : rb->start)
      readerWarp = readerWarp || mentionsWarp(s);
    for (const Guard &g : path_)
      readerWarp = readerWarp || mentionsWarp(g.lhs) || mentionsWarp(g.rhs);
    std::vector<std::vector<int64_t>> readers =
        readerWarp ? warpAssignments() : std::vector<std::vector<int64_t>>{{}};
    std::vector<std::vector<int64_t>> writers = warpAssignments();
    // First the hull of every warp's read box (a superset of what is read):
    // when it is covered, so is each warp's read.
    bool guardsMentionWarp = false;
    for (const Guard &g : path_)
      guardsMentionWarp = guardsMentionWarp || mentionsWarp(g.lhs) || mentionsWarp(g.rhs);
    if (readerWarp && !guardsMentionWarp) {
      std::vector<int64_t> lo(extents.size(), std::numeric_limits<int64_t>::max()),
          hi(extents.size(), std::numeric_limits<int64_t>::min());
      bool constant = true;
      for (const auto &rw : readers)
        for (size_t d = 0; d < extents.size() && constant; ++d) {
          auto v = atWarp(rb->start[d], rw).constantValue();
          if (!v) {
            constant = false;
            break;
          }
          lo[d] = std::max<int64_t>(0, std::min(lo[d], *v));
          hi[d] = std::min<int64_t>(extents[d], std::max(hi[d], *v + rb->len[d]));
        }
      bool empty = false;
      for (size_t d = 0; d < extents.size() && constant; ++d)
        empty = empty || hi[d] <= lo[d];
      if (constant && !empty && !uncovered(*rb, {}, false, lo, hi, w, writers))
        return;
    }
    for (const auto &rw : readers) {
      // The read happens for this warp only if its own path allows it.
      bool happens = true;
      if (readerWarp)
        for (const Guard &g : path_)
          if (refutable(Guard{g.op, atWarp(g.lhs, rw), atWarp(g.rhs, rw)})) {
            happens = false;
            break;
          }
      if (!happens)
        continue;
      std::vector<int64_t> lo, hi; // the read's element ranges
      std::vector<bool> exact;
      for (size_t d = 0; d < extents.size(); ++d) {
        DimExpr s = readerWarp ? atWarp(rb->start[d], rw) : rb->start[d];
        if (auto v = s.constantValue()) {
          lo.push_back(*v);
          hi.push_back(*v + rb->len[d]);
        } else {
          lo.push_back(0); // anywhere in the dimension
          hi.push_back(extents[d]);
        }
        lo.back() = std::max<int64_t>(0, lo.back());
        hi.back() = std::min<int64_t>(extents[d], hi.back());
        if (hi.back() <= lo.back())
          return; // out of bounds: the checker reports it
      }
      if (auto missing = uncovered(*rb, rw, readerWarp, lo, hi, w, writers)) {
        report(id, at, *rb, rw, readerWarp, *missing, w, writers);
        return;
      }
    }
  }

  /// The first element of [lo, hi) no provable write covers, if any.
  std::optional<std::vector<int64_t>> uncovered(const Box &rb, const std::vector<int64_t> &rw,
                                                bool readerWarp, const std::vector<int64_t> &lo,
                                                const std::vector<int64_t> &hi, const Written &w,
                                                const std::vector<std::vector<int64_t>> &writers) {
    size_t rank = lo.size();
    struct Concrete {
      std::vector<int64_t> lo, hi;
    };
    std::vector<Concrete> boxes;
    for (const Box &b : w) {
      if (b.tile != rb.tile || b.start.size() != rank)
        continue;
      bool writerWarp = false;
      for (const DimExpr &s : b.start)
        writerWarp = writerWarp || mentionsWarp(s);
      for (const Guard &g : b.guards)
        writerWarp = writerWarp || mentionsWarp(g.lhs) || mentionsWarp(g.rhs);
      for (const auto &ww : writerWarp ? writers : std::vector<std::vector<int64_t>>{{}}) {
        if (!guardsHold(b.guards, ww))
          continue;
        Concrete cbox;
        bool symbolicMatch = true, constant = true;
        for (size_t d = 0; d < rank; ++d) {
          DimExpr s = writerWarp ? atWarp(b.start[d], ww) : b.start[d];
          if (auto v = s.constantValue()) {
            cbox.lo.push_back(*v);
            cbox.hi.push_back(*v + b.len[d]);
          } else {
            constant = false;
            DimExpr r = readerWarp ? atWarp(rb.start[d], rw) : rb.start[d];
            // Same symbolic start: it covers the read in this dimension.
            if (!(s == r && b.len[d] >= rb.len[d]))
              symbolicMatch = false;
            cbox.lo.push_back(lo[d]);
            cbox.hi.push_back(hi[d]);
          }
        }
        if (!constant && !symbolicMatch)
          continue;
        boxes.push_back(std::move(cbox));
      }
    }
    // One box containing the whole read?
    for (const Concrete &b : boxes) {
      bool all = true;
      for (size_t d = 0; d < rank && all; ++d)
        all = b.lo[d] <= lo[d] && hi[d] <= b.hi[d];
      if (all)
        return std::nullopt;
    }
    // One box per index of the first dimension (the stages of a pipeline)?
    if (rank >= 2 && hi[0] - lo[0] <= 16) {
      bool all = true;
      for (int64_t i = lo[0]; i < hi[0] && all; ++i) {
        bool one = false;
        for (const Concrete &b : boxes) {
          bool in = b.lo[0] <= i && i < b.hi[0];
          for (size_t d = 1; d < rank && in; ++d)
            in = b.lo[d] <= lo[d] && hi[d] <= b.hi[d];
          if (in) {
            one = true;
            break;
          }
        }
        all = one;
      }
      if (all)
        return std::nullopt;
    }
    // Element by element over the read box.
    uint64_t count = 1;
    for (size_t d = 0; d < rank; ++d) {
      count *= static_cast<uint64_t>(hi[d] - lo[d]);
      if (count > (uint64_t(1) << 22))
        return std::nullopt; // larger than any shared memory: K0801's, not ours
    }
    std::vector<bool> covered(count, false);
    for (const Concrete &b : boxes) {
      std::vector<int64_t> blo(rank), bhi(rank);
      bool empty = false;
      for (size_t d = 0; d < rank; ++d) {
        blo[d] = std::max(lo[d], b.lo[d]);
        bhi[d] = std::min(hi[d], b.hi[d]);
        empty = empty || bhi[d] <= blo[d];
      }
      if (empty)
        continue;
      std::vector<int64_t> idx = blo;
      while (true) {
        uint64_t flat = 0;
        for (size_t d = 0; d < rank; ++d)
          flat =
              flat * static_cast<uint64_t>(hi[d] - lo[d]) + static_cast<uint64_t>(idx[d] - lo[d]);
        covered[flat] = true;
        size_t d = rank;
        while (d-- > 0) {
          if (++idx[d] < bhi[d])
            break;
          idx[d] = blo[d];
        }
        if (d == static_cast<size_t>(-1))
          break;
      }
    }
    for (uint64_t flat = 0; flat < count; ++flat) {
      if (covered[flat])
        continue;
      std::vector<int64_t> idx(rank);
      uint64_t f = flat;
      for (size_t d = rank; d-- > 0;) {
        uint64_t n = static_cast<uint64_t>(hi[d] - lo[d]);
        idx[d] = lo[d] + static_cast<int64_t>(f % n);
        f /= n;
      }
      return idx;
    }
    return std::nullopt;
  }

  bool guardsHoldPlain(const std::vector<Guard> &gs) {
    for (const Guard &g : gs)
      if (!provable(g))
        return false;
    return true;
  }

  void report(ExprId id, Span at, const Box &rb, const std::vector<int64_t> &rw, bool readerWarp,
              const std::vector<int64_t> &missing, const Written &w,
              const std::vector<std::vector<int64_t>> &writers) {
    (void)writers;
    reported_.push_back(at);
    const Expr &e = m_.expr(id);
    ExprId baseId = e.kind == ExprKind::Index ? e.children[0] : id;
    std::string name = c_.program.symbolInfos[rb.tile].name;
    const Type &t = c_.typeOf(baseId);
    bool staged = e.kind == ExprKind::Index && t.isTensor() && t.tensor.shape.size() >= 3 &&
                  m_.expr(e.children[1]).kind != ExprKind::Slice;
    std::string what = name;
    std::optional<DimExpr> stageValue;
    if (staged) {
      stageValue = c_.exprValueOrNull(e.children[1]);
      if (stageValue) {
        DimExpr operand = *stageValue;
        int64_t stages = t.tensor.shape[0].constantValue().value_or(0);
        if (auto atom = operand.asAtom()) {
          const solver::AtomInfo &info = c_.symbols.info(*atom);
          if (info.Kind == solver::AtomKind::Mod && info.Divisor == stages)
            operand = info.Operand;
        }
        what += " (stage " + c_.str(operand) + " mod " + std::to_string(stages) + ")";
      }
    }
    std::string iteration;
    for (const Fixed &f : fixed_)
      if (stageValue && mentions(c_, *stageValue, [&](solver::AtomId a) { return a == f.var; }))
        iteration = "in iteration " + f.name + " = " + c_.str(f.value);
    std::string msg = "`" + what + "` is read before anything was written into it: ";
    bool stageEmpty = false;
    if (staged) {
      // Does any provable write touch the missing element's stage at all?
      stageEmpty = true;
      for (const Box &b : w)
        if (b.tile == rb.tile && !b.start.empty()) {
          auto s = b.start[0].constantValue();
          if (!s || (*s <= missing[0] && missing[0] < *s + b.len[0]))
            if (guardsHoldPlain(b.guards))
              stageEmpty = false;
        }
    }
    if (staged && stageEmpty && !iteration.empty()) {
      msg += iteration + " it reads stage " + std::to_string(missing[0]) +
             ", which no store or `cp_async` has filled";
    } else {
      std::string elem = name + "[";
      for (size_t d = 0; d < missing.size(); ++d)
        elem += (d ? ", " : "") + std::to_string(missing[d]);
      elem += "]";
      msg += "no store or `cp_async` writes `" + elem + "`";
      if (readerWarp && !warpIds_.empty()) {
        msg += " (warp";
        for (size_t i = 0; i < warpIds_.size(); ++i)
          msg += (i ? ", " : " ") + symbolName(c_, warpIds_[i]) + " = " + std::to_string(rw[i]);
        msg += ")";
      }
      if (!iteration.empty())
        msg += " " + iteration;
    }
    c_.error(DiagId::UninitializedSharedRead, at, msg)
        .note("every element read must have been written by a store or a completed `cp_async` "
              "before; a pipeline's prologue must fill each stage the first iterations read");
  }

  void reads(ExprId id, const Written &w) {
    if (id == syntax::kNone)
      return;
    const Expr &e = m_.expr(id);
    // An operation the checker already rejected: its operands' reads would
    // only be follow-on errors.
    if (e.kind == ExprKind::Application && c_.typeOf(id).isError())
      return;
    if (e.kind == ExprKind::Index || e.kind == ExprKind::Name) {
      ExprId baseId = e.kind == ExprKind::Index ? e.children[0] : id;
      int sym = m_.expr(baseId).kind == ExprKind::Name ? c_.program.exprSymbol[baseId] : -1;
      if (sym >= 0 &&
          (c_.program.symbolInfos[sym].kind == SymbolKind::Shared || c_.letValues.count(sym))) {
        read(id, w);
        if (e.kind == ExprKind::Index)
          for (size_t i = 1; i < e.children.size(); ++i)
            reads(e.children[i], w);
        return;
      }
    }
    for (ExprId child : e.children)
      reads(child, w);
  }

  static bool sameGuard(const Guard &a, const Guard &b) {
    return a.op == b.op && a.lhs == b.lhs && a.rhs == b.rhs;
  }

  /// Does `a` say at least what `b` says (its guards are among b's, its box
  /// contains b's)? Then b adds nothing.
  static bool subsumes(const Box &a, const Box &b) {
    if (a.tile != b.tile || a.start.size() != b.start.size())
      return false;
    for (const Guard &g : a.guards)
      if (std::none_of(b.guards.begin(), b.guards.end(),
                       [&](const Guard &h) { return sameGuard(g, h); }))
        return false;
    for (size_t d = 0; d < a.start.size(); ++d) {
      if (a.start[d] == b.start[d] && a.len[d] >= b.len[d])
        continue;
      auto as = a.start[d].constantValue(), bs = b.start[d].constantValue();
      if (!as || !bs || *as > *bs || *as + a.len[d] < *bs + b.len[d])
        return false;
    }
    return true;
  }

  /// A box written in both branches of an `if` (the same guards but the
  /// branch's own, at index `depth`) is written whichever branch runs.
  void mergeBranches(Written &w, size_t before, size_t thenEnd, size_t depth) {
    size_t elseEnd = w.size();
    std::vector<bool> dropped(elseEnd, false);
    for (size_t i = before; i < thenEnd; ++i)
      for (size_t j = thenEnd; j < elseEnd; ++j) {
        if (dropped[j])
          continue;
        const Box &a = w[i], &b = w[j];
        if (a.tile != b.tile || a.start != b.start || a.len != b.len ||
            a.guards.size() != b.guards.size() || a.guards.size() <= depth)
          continue;
        bool same = true;
        for (size_t g = 0; g < a.guards.size() && same; ++g)
          same = g == depth || sameGuard(a.guards[g], b.guards[g]);
        if (!same)
          continue;
        w[i].guards.erase(w[i].guards.begin() + static_cast<std::ptrdiff_t>(depth));
        dropped[j] = true;
        break;
      }
    Written kept(w.begin(), w.begin() + static_cast<std::ptrdiff_t>(thenEnd));
    for (size_t j = thenEnd; j < elseEnd; ++j)
      if (!dropped[j])
        kept.push_back(std::move(w[j]));
    w = std::move(kept);
  }

  void writeBox(ExprId target, Written &w) {
    auto b = boxOf(target);
    if (!b)
      return;
    b->guards = path_;
    for (const Box &x : w)
      if (subsumes(x, *b))
        return; // repeated writes (unrolled loops) keep the list short
    w.push_back(std::move(*b));
  }

  // ------------------------------------------------------------ statements

  void walkBlock(const std::vector<StmtId> &body, Written &w) {
    for (StmtId id : body)
      if (relevant(id) || m_.stmt(id).kind == StmtKind::Shared)
        walkStmt(id, w);
  }

  void walkStmt(StmtId id, Written &w) {
    ++work_;
    const Stmt &st = m_.stmt(id);
    // A statement the checker rejected: its reads would be follow-on errors.
    bool rejected = st.kind != StmtKind::BlockGrid && st.kind != StmtKind::WarpGrid &&
                    st.kind != StmtKind::For && st.kind != StmtKind::If &&
                    st.kind != StmtKind::Shared && errorWithin(c_, st.span);
    if (rejected) {
      if (st.kind == StmtKind::CpAsync || st.kind == StmtKind::Assign)
        writeBox(st.target, w); // still counts as a write
      return;
    }
    switch (st.kind) {
    case StmtKind::Shared: {
      // The tile's extents, for the element-wise check.
      int sym = -1;
      for (size_t i = c_.program.symbolInfos.size(); i-- > 0;) {
        const SymbolInfo &info = c_.program.symbolInfos[i];
        if (info.kind == SymbolKind::Shared && info.definition == st.name.span) {
          sym = static_cast<int>(i);
          break;
        }
      }
      if (sym >= 0) {
        Type t = c_.resolveTypeQuiet(st.type);
        if (t.isTensor()) {
          std::vector<int64_t> ext;
          for (const DimExpr &d : t.tensor.shape)
            ext.push_back(d.constantValue().value_or(0));
          tileExtents_[sym] = ext;
        }
      }
      return;
    }
    case StmtKind::BlockGrid: {
      FactScope facts(c_);
      facts.grid(id);
      walkBlock(st.body, w);
      return;
    }
    case StmtKind::WarpGrid: {
      FactScope facts(c_);
      facts.grid(id);
      auto saved = warpIds_;
      auto savedExt = warpExtents_;
      if (auto g = c_.gridOf.find(id); g != c_.gridOf.end()) {
        for (size_t i = 0; i < g->second.ids.size(); ++i)
          if (auto a = g->second.ids[i].asAtom()) {
            warpIds_.push_back(*a);
            warpExtents_.push_back(g->second.extents[i].constantValue().value_or(1));
          }
      }
      walkBlock(st.body, w);
      warpIds_ = saved;
      warpExtents_ = savedExt;
      return;
    }
    case StmtKind::Let:
      if (st.value != syntax::kNone && !c_.letValues.empty()) {
        // A let of a view is read where it is used.
        bool view = false;
        for (const auto &[sym, value] : c_.letValues)
          view = view || value == st.value;
        if (view)
          return;
      }
      reads(st.value, w);
      return;
    case StmtKind::CpAsync:
      reads(st.value, w);
      writeBox(st.target, w);
      return;
    case StmtKind::Assign: {
      reads(st.value, w);
      const Expr &t = m_.expr(st.target);
      if (t.kind == ExprKind::Index)
        for (size_t i = 1; i < t.children.size(); ++i)
          reads(t.children[i], w);
      writeBox(st.target, w);
      return;
    }
    case StmtKind::Return:
      reads(st.value, w);
      return;
    case StmtKind::If: {
      reads(st.value, w);
      size_t before = w.size(), thenEnd = before, depth = path_.size();
      for (bool holds : {true, false}) {
        if (!holds)
          thenEnd = w.size();
        const std::vector<StmtId> &body = holds ? st.body : st.elseBody;
        if (body.empty())
          continue;
        auto g = guardOf(st.value, holds);
        if (g && refutable(*g))
          continue; // cannot be taken here
        FactScope facts(c_);
        facts.branch(st.value, holds);
        // An unusable condition: the writes inside get a guard nothing proves.
        Guard guard = g ? *g : Guard{BinaryOp::Lt, DimExpr::constant(0), DimExpr::constant(0)};
        path_.push_back(guard);
        walkBlock(body, w);
        path_.pop_back();
      }
      mergeBranches(w, before, thenEnd, depth);
      return;
    }
    case StmtKind::For:
      walkLoop(id, st, w);
      return;
    default:
      return;
    }
  }

  /// The largest stage count of a staged tile whose stage index mentions k
  /// in `body`; 1 when only something else mentions k; 0 when nothing does.
  int64_t fixedIterations(const std::vector<StmtId> &body, solver::AtomId k) const {
    int64_t n = 0;
    std::vector<solver::AtomId> syms;
    auto mentionsK = [&](ExprId e) {
      syms.clear();
      symbolsOfExpr(c_, e, syms);
      return std::find(syms.begin(), syms.end(), k) != syms.end();
    };
    std::function<void(ExprId)> scan = [&](ExprId id) {
      if (id == syntax::kNone)
        return;
      const Expr &e = m_.expr(id);
      if (e.kind == ExprKind::Index && e.children.size() >= 2) {
        int sym = sharedSymbol(e.children[0]);
        if (sym >= 0) {
          const Type &t = c_.typeOf(e.children[0]);
          bool stagedIx = t.isTensor() && t.tensor.shape.size() >= 3 &&
                          m_.expr(e.children[1]).kind != ExprKind::Slice;
          if (stagedIx && mentionsK(e.children[1]))
            n = std::max(n, t.tensor.shape[0].constantValue().value_or(1));
          for (size_t i = 1; i < e.children.size(); ++i)
            if (mentionsK(e.children[i]))
              n = std::max<int64_t>(n, 1);
        }
      }
      for (ExprId child : e.children)
        scan(child);
    };
    std::function<void(const std::vector<StmtId> &)> stmts = [&](const std::vector<StmtId> &b) {
      for (StmtId id : b) {
        const Stmt &s = m_.stmt(id);
        scan(s.value);
        scan(s.target);
        if ((s.kind == StmtKind::If || s.kind == StmtKind::For) &&
            (mentionsK(s.value) || (s.kind == StmtKind::For && mentionsK(s.end))))
          n = std::max<int64_t>(n, 1);
        stmts(s.body);
        stmts(s.elseBody);
      }
    };
    stmts(body);
    return std::min<int64_t>(n, 8);
  }

  void walkLoop(StmtId id, const Stmt &st, Written &w) {
    auto var = c_.loopVarOf.find(id);
    auto atom = var == c_.loopVarOf.end() ? std::nullopt : var->second.asAtom();
    auto start = c_.exprValueOrNull(st.value);
    auto end = c_.exprValueOrNull(st.end);
    if (!atom || !start || !end) {
      // Unknown range: one symbolic iteration, whose writes count for nothing after.
      size_t before = w.size();
      FactScope facts(c_);
      walkBlock(st.body, w);
      w.resize(before);
      return;
    }
    DimExpr s0 = fix(*start), e0 = fix(*end);
    DimExpr k = DimExpr::atom(*atom);
    auto trips = (e0 - s0).constantValue();
    std::string name = c_.symbols.info(*atom).Name;
    int64_t fixedCount = coarse() ? 0 : fixedIterations(st.body, *atom);
    if (trips && *trips >= 0 && *trips <= 8 && s0.isConstant() && fixedCount > 0) {
      for (int64_t i = 0; i < *trips; ++i) {
        FactScope facts(c_);
        facts.equal(k, s0 + i);
        fixed_.push_back({*atom, s0 + i, name});
        walkBlock(st.body, w);
        fixed_.pop_back();
      }
      return;
    }
    for (int64_t i = 0; i < fixedCount; ++i) {
      if (c_.prover.proveLessEqual(e0, s0 + i).proved())
        return; // no such iteration
      FactScope facts(c_);
      facts.equal(k, s0 + i);
      facts.lessEqual(s0 + i + 1, e0);
      fixed_.push_back({*atom, s0 + i, name});
      path_.push_back(Guard{BinaryOp::Lt, s0 + i, e0});
      walkBlock(st.body, w);
      path_.pop_back();
      fixed_.pop_back();
    }
    // The remaining iterations, symbolically; their writes mention k or are
    // repeated ones, and are dropped after the loop.
    if (c_.prover.proveLessEqual(e0, s0 + fixedCount).proved())
      return;
    size_t before = w.size();
    {
      FactScope facts(c_);
      facts.lessEqual(s0 + fixedCount, k);
      facts.lessEqual(k + 1, e0);
      path_.push_back(Guard{BinaryOp::Lt, s0 + fixedCount, e0});
      walkBlock(st.body, w);
      path_.pop_back();
    }
    // Writes of the symbolic iteration that do not depend on k happened if
    // it ran; the others are forgotten (must-information only).
    Written kept(w.begin(), w.begin() + static_cast<std::ptrdiff_t>(before));
    for (size_t i = before; i < w.size(); ++i) {
      bool dependsOnK = false;
      auto isK = [&](solver::AtomId a) { return a == *atom; };
      for (const DimExpr &e : w[i].start)
        dependsOnK = dependsOnK || mentions(c_, e, isK);
      for (const Guard &g : w[i].guards)
        dependsOnK = dependsOnK || mentions(c_, g.lhs, isK) || mentions(c_, g.rhs, isK);
      if (!dependsOnK)
        kept.push_back(std::move(w[i]));
    }
    w = std::move(kept);
  }
};

} // namespace

void checkSharedInit(Checker &checker, const Item &item, std::vector<Span> skip) {
  InitChecker init(checker, std::move(skip));
  init.run(item);
}

} // namespace kina::sema
