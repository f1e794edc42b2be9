//===- ProtocolExtract.cpp - The protocol model of a checked kernel --------===//
//
// The hook between the checker and the Hopper protocol proofs (Protocol.h):
// after the walk has typed a kernel, each `warpgroup_grid` becomes a
// protocol::Program -- its barriers, staged shared tiles, accumulators and,
// per role, the tree of loops, branches and protocol events -- which
// ProtocolEngine.cpp proves. Index expressions are translated into the
// model's small expression language; what does not fit it becomes an
// Unknown node (reported only if a proof needs its value) or an `outside`
// entry (always reported): cannot prove, never accepted silently.
//
// The register budgets of the roles (setmaxnreg values, the SM's register
// file, the warpgroup tiles of each role) are checked here too: they need
// no simulation.
//
// A warpgroup_grid in which the checker already reported an error is left
// alone (its model would be built on wrong facts).
//
//===----------------------------------------------------------------------===//
#include "sema/Analysis.h"
#include "sema/Protocol.h"

#include <unordered_map>

namespace kina::sema {
namespace {

using namespace protocol;

constexpr int64_t kSmRegisters = 65536;
/// Registers per thread a role needs beyond its warpgroup tiles (addresses,
/// barrier phases, loop state) for ptxas to keep its wgmma unserialised.
constexpr int64_t kRoleHeadroom = 32;

struct Sym {
  enum Kind : uint8_t { Barrier, Tile, Acc, Expr, TileVar } kind = Expr;
  int index = -1;  ///< Barrier, Tile, Acc, TileVar (into Extractor::tileVars_)
  XId expr = kNoX; ///< Expr: a let or loop variable
};

struct TileShape {
  int64_t elementBytes = 0;
  std::vector<int64_t> dims; ///< -1 where not constant
};

class Extractor {
public:
  Extractor(Checker &c) : c_(c) {}

  void walkKernel(const Item &item) {
    itemError_ = checkedError(item.span);
    scopes_.emplace_back();
    walkOuter(item.body);
    scopes_.pop_back();
  }

private:
  Checker &c_;
  std::vector<std::unordered_map<std::string, Sym>> scopes_;
  // Declarations seen outside warpgroup grids (the block's barriers, tiles).
  std::vector<BarrierInfo> barriers_;
  std::vector<SharedTileInfo> tiles_;
  std::vector<TileShape> tileShapes_;
  Program *p_ = nullptr;    ///< the program being built (inside a grid)
  int64_t clusterSize_ = 1; ///< CTAs per cluster of the enclosing block_grid
  bool itemError_ = false;  ///< the checker already rejected something in the kernel
  std::optional<DimExpr> param_;
  /// The variable of a persistent tile loop: the model reads it only as
  /// `t / G`, the block's tile ordinal j (hopper2.md, "Persistent tile loop").
  struct TileVar {
    XId ordinal = kNoX; ///< Var of the model loop over j
    DimExpr step;       ///< G
    std::string name;
    std::string stepText; ///< `132`, for messages
  };
  std::vector<TileVar> tileVars_;
  std::optional<DimExpr> tilesEnd_;  ///< T of the grid's persistent loops
  std::optional<DimExpr> tilesStep_; ///< and their G
  size_t tilesAxis_ = 0;             ///< and their block_grid axis

  bool persistentLoop(StmtId id) const {
    auto it = c_.stridedLoops.find(id);
    return it != c_.stridedLoops.end() && it->second.persistent;
  }
  /// `t / G` for a tile variable t and its step G: the tile ordinal.
  std::optional<XId> tileOrdinal(const Expr &e) {
    if (e.kind != ExprKind::Binary || e.op != syntax::BinaryOp::Div || e.children.size() < 2)
      return std::nullopt;
    ExprId lhs = e.children[0];
    while (c_.m.expr(lhs).kind == ExprKind::Paren)
      lhs = c_.m.expr(lhs).children[0];
    const Expr &l = c_.m.expr(lhs);
    const Sym *s = l.kind == ExprKind::Name ? lookup(l.name.name) : nullptr;
    if (!s || s->kind != Sym::TileVar)
      return std::nullopt;
    auto g = c_.exprValueOrNull(e.children[1]);
    const TileVar &tv = tileVars_[s->index];
    if (!g || !g->isValid() || (*g - tv.step).constantValue() != std::optional<int64_t>(0))
      return std::nullopt;
    return tv.ordinal;
  }
  bool isOrdinal(XId id) const {
    const XNode &x = p_->exprs[id];
    if (x.op != XOp::Var)
      return false;
    for (const TileVar &tv : tileVars_)
      if (p_->exprs[tv.ordinal].value == x.value)
        return true;
    return false;
  }
  /// Built from constants and the trip count n only (and reads n).
  bool paramOnly(XId id, bool &sawParam) const {
    const XNode &x = p_->exprs[id];
    if (x.op == XOp::Param) {
      sawParam = true;
      return true;
    }
    if (x.op == XOp::Var || x.op == XOp::Unknown || x.op == XOp::Tiles)
      return false;
    return (x.a == kNoX || paramOnly(x.a, sawParam)) && (x.b == kNoX || paramOnly(x.b, sawParam));
  }
  /// `j * n` (either order): the ring counter's term (hopper2.md).
  bool ringProduct(XId a, XId b) const {
    bool saw = false;
    return (isOrdinal(a) && paramOnly(b, saw) && saw) || (isOrdinal(b) && paramOnly(a, saw) && saw);
  }

  /// An error of the checker within `span`, leaving out K0510 (a construct
  /// checked in full that this build does not lower yet: the kernel stays
  /// rejected, and the facts the model rests on were checked).
  bool checkedError(Span span) const {
    if (!c_.current || c_.current->sinkAtStart != c_.active)
      return false;
    const std::vector<Diagnostic> &ds = c_.active->diagnostics();
    for (size_t i = c_.current->diagsAtStart; i < ds.size(); ++i)
      if (diagInfo(ds[i].id).severity == Severity::Error && ds[i].id != DiagId::NotYetLowerable &&
          ds[i].span.begin >= span.begin && ds[i].span.end <= span.end)
        return true;
    return false;
  }
  const Sym *lookup(const std::string &name) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      auto f = it->find(name);
      if (f != it->end())
        return &f->second;
    }
    return nullptr;
  }
  std::optional<int64_t> constant(ExprId id) const {
    if (id == syntax::kNone)
      return std::nullopt;
    auto v = c_.exprValueOrNull(id);
    if (v)
      return v->constantValue();
    return std::nullopt;
  }
  std::string text(ExprId id) const { return syntax::printExpr(c_.m, id); }
  std::string indentBefore(Span span) const {
    std::string_view src = c_.options.sourceText;
    if (span.begin > src.size())
      return "";
    size_t lineStart = src.rfind('\n', span.begin == 0 ? 0 : span.begin - 1);
    lineStart = lineStart == std::string_view::npos ? 0 : lineStart + 1;
    std::string indent;
    for (size_t i = lineStart; i < span.begin && (src[i] == ' ' || src[i] == '\t'); ++i)
      indent += src[i];
    return indent;
  }

  // ---- declarations outside the grids -------------------------------------

  void declareShared(const Stmt &s) {
    if (s.type == syntax::kNone)
      return;
    const syntax::TypeRef &t = c_.m.type(s.type);
    if (t.kind == syntax::TypeKind::Barrier) {
      BarrierInfo b;
      b.name = s.name.name;
      b.span = s.span;
      b.stages = constant(t.stages).value_or(0);
      b.arrivals = constant(t.arrivals).value_or(0);
      if (t.arrivals != syntax::kNone)
        b.arrivalsSpan = c_.m.expr(t.arrivals).span;
      scopes_.back()[s.name.name] = Sym{Sym::Barrier, int(barriers_.size()), kNoX};
      barriers_.push_back(b);
      return;
    }
    if (t.kind != syntax::TypeKind::Tile)
      return;
    SharedTileInfo info;
    info.name = s.name.name;
    info.span = s.span;
    TileShape shape;
    if (auto d = parseDType(t.dtype.name))
      shape.elementBytes = dtypeBytes(*d);
    for (ExprId e : t.shape)
      shape.dims.push_back(constant(e).value_or(-1));
    // A shared tile of rank 3 carries a leading stage dimension (hopper.md).
    if (shape.dims.size() >= 3 && shape.dims[0] > 0)
      info.stages = shape.dims[0];
    scopes_.back()[s.name.name] = Sym{Sym::Tile, int(tiles_.size()), kNoX};
    tiles_.push_back(info);
    tileShapes_.push_back(shape);
  }

  void walkOuter(const std::vector<StmtId> &body) {
    for (StmtId id : body) {
      const Stmt &s = c_.m.stmt(id);
      switch (s.kind) {
      case StmtKind::Shared:
        declareShared(s);
        break;
      case StmtKind::Let:
        scopes_.back()[s.name.name] = Sym{Sym::Expr, -1, kNoX};
        break;
      case StmtKind::BlockGrid:
        // The cluster the grid's protocol runs in (checked by the walk).
        clusterSize_ = 1;
        for (ExprId c : s.cluster)
          clusterSize_ *= std::max<int64_t>(constant(c).value_or(1), 1);
        [[fallthrough]];
      case StmtKind::For:
      case StmtKind::If:
        scopes_.emplace_back();
        walkOuter(s.body);
        scopes_.pop_back();
        if (!s.elseBody.empty()) {
          scopes_.emplace_back();
          walkOuter(s.elseBody);
          scopes_.pop_back();
        }
        break;
      case StmtKind::WarpgroupGrid:
        grid(s);
        break;
      case StmtKind::Arrive:
      case StmtKind::Wait:
      case StmtKind::TmaLoad:
      case StmtKind::Wgmma:
      case StmtKind::WgmmaCommit:
      case StmtKind::WgmmaWait:
      case StmtKind::TmaStore:
      case StmtKind::TmaStoreCommit:
      case StmtKind::TmaStoreWait:
        if (!errorWithin(c_, s.span))
          c_.error(DiagId::ProtocolCannotProve, s.keywordSpan,
                   "cannot prove the barrier protocol: this statement is outside every "
                   "`role` of a `warpgroup_grid`")
              .note("the protocol proofs cover barrier, TMA and wgmma statements inside the "
                    "roles of a warpgroup_grid");
        break;
      default:
        break;
      }
    }
  }

  // ---- one warpgroup grid ---------------------------------------------------

  XId unknown(Span span, std::string why) {
    XNode x;
    x.op = XOp::Unknown;
    x.span = span;
    x.why = std::move(why);
    return p_->add(std::move(x));
  }
  XId constNode(int64_t v, Span span) {
    XNode x;
    x.op = XOp::Const;
    x.value = v;
    x.span = span;
    return p_->add(std::move(x));
  }
  bool varies(XId id) const {
    const XNode &x = p_->exprs[id];
    if (x.op == XOp::Var || x.op == XOp::Param || x.op == XOp::Unknown)
      return true;
    return (x.a != kNoX && varies(x.a)) || (x.b != kNoX && varies(x.b));
  }

  XId convert(ExprId id) {
    if (id == syntax::kNone)
      return unknown({}, "a missing expression");
    const Expr &e = c_.m.expr(id);
    if (auto v = c_.exprValueOrNull(id)) {
      if (auto k = v->constantValue())
        return constNode(*k, e.span);
      if (param_) {
        if (auto d = (*v - *param_).constantValue()) {
          XNode x;
          x.op = XOp::Param;
          x.value = *d;
          x.span = e.span;
          return p_->add(std::move(x));
        }
      }
    }
    switch (e.kind) {
    case ExprKind::Paren:
      return convert(e.children[0]);
    case ExprKind::Integer:
      return constNode(e.intValue, e.span);
    case ExprKind::Negate: {
      XNode x;
      x.op = XOp::Neg;
      x.a = convert(e.children[0]);
      x.span = e.span;
      return p_->add(std::move(x));
    }
    case ExprKind::Name: {
      const Sym *s = lookup(e.name.name);
      if (s && s->kind == Sym::Expr && s->expr != kNoX)
        return s->expr;
      if (s && s->kind == Sym::TileVar)
        return unknown(e.span, "`" + e.name.name + "`, the tile index of a persistent loop (the " +
                                   "model reads it only as `" + e.name.name + " / " +
                                   tileVars_[s->index].stepText + "`, the block's tile ordinal)");
      if (!s && e.name.name == "warpgroup_id")
        return wgVar(e.span);
      return unknown(e.span, "`" + e.name.name + "`");
    }
    case ExprKind::Application:
      if (e.name.name == "warpgroup_id" && !lookup(e.name.name))
        return wgVar(e.span);
      return unknown(e.span, "`" + text(id) + "`");
    case ExprKind::Binary: {
      using syntax::BinaryOp;
      if (auto j = tileOrdinal(e))
        return *j;
      XNode x;
      x.span = e.span;
      x.a = convert(e.children[0]);
      x.b = convert(e.children[1]);
      switch (e.op) {
      case BinaryOp::Add:
        x.op = XOp::Add;
        break;
      case BinaryOp::Sub:
        x.op = XOp::Sub;
        break;
      case BinaryOp::Mul:
        if (varies(x.a) && varies(x.b) && !ringProduct(x.a, x.b))
          return unknown(e.span, "`" + text(id) + "`, a product of two varying values");
        x.op = XOp::Mul;
        break;
      case BinaryOp::Div:
      case BinaryOp::Mod:
        if (p_->exprs[x.b].op != XOp::Const || p_->exprs[x.b].value <= 0)
          return unknown(e.span, "`" + text(id) +
                                     "`, a division by a value that is not a "
                                     "positive constant");
        x.op = e.op == BinaryOp::Div ? XOp::Div : XOp::Mod;
        break;
      case BinaryOp::Eq:
        x.op = XOp::Eq;
        break;
      case BinaryOp::Ne:
        x.op = XOp::Ne;
        break;
      case BinaryOp::Lt:
        x.op = XOp::Lt;
        break;
      case BinaryOp::Le:
        x.op = XOp::Le;
        break;
      case BinaryOp::Gt:
        x.op = XOp::Gt;
        break;
      case BinaryOp::Ge:
        x.op = XOp::Ge;
        break;
      }
      return p_->add(std::move(x));
    }
    default:
      return unknown(e.span, "`" + text(id) + "`");
    }
  }
  /// A loop's end: constant, the symbolic trip count plus a constant, or
  /// (outside the model) a second symbolic trip count.
  XId tripCount(ExprId end) {
    auto v = c_.exprValueOrNull(end);
    if (v && v->isValid() && !v->isConstant() && param_ && !(*v - *param_).isConstant() &&
        !mentionsLoopOrRole(end))
      return unknown(c_.m.expr(end).span, "a second symbolic trip count `" + text(end) +
                                              "` (the proofs handle one, `" + p_->paramText +
                                              "`, and the tile count of a persistent tile loop "
                                              "`for t in (block_id d .. T step G)`)");
    return convert(end);
  }
  /// Does the expression read a loop variable or a let of the roles?
  bool mentionsLoopOrRole(ExprId id) const {
    if (id == syntax::kNone)
      return false;
    const Expr &e = c_.m.expr(id);
    if (e.kind == ExprKind::Name) {
      const Sym *s = lookup(e.name.name);
      return (s && s->kind == Sym::Expr && s->expr != kNoX) || e.name.name == "warpgroup_id";
    }
    for (ExprId ch : e.children)
      if (mentionsLoopOrRole(ch))
        return true;
    return false;
  }
  XId wgVar(Span span) {
    XNode x;
    x.op = XOp::Var;
    x.value = p_->warpgroupSlot;
    x.span = span;
    return p_->add(std::move(x));
  }

  /// The symbolic trip count n: the end of the innermost loop holding
  /// protocol events (the first one at the greatest depth), so that an
  /// outer loop with another symbolic end is the one reported outside.
  void findParam(const std::vector<StmtId> &body, int depth = 0) {
    for (StmtId id : body) {
      const Stmt &s = c_.m.stmt(id);
      if (s.kind == StmtKind::For && hasProtocol(s.body) && !persistentLoop(id)) {
        auto v = c_.exprValueOrNull(s.end);
        if (v && v->isValid() && !v->isConstant() && depth > paramDepth_) {
          param_ = *v;
          paramDepth_ = depth;
          p_->hasParam = true;
          p_->paramText = text(s.end);
        }
      }
      findParam(s.body, depth + 1);
      findParam(s.elseBody, depth + 1);
    }
  }
  int paramDepth_ = -1;

  /// Does a block hold barrier, TMA or wgmma statements (at any depth)?
  bool hasProtocol(const std::vector<StmtId> &body) const {
    for (StmtId id : body) {
      const Stmt &s = c_.m.stmt(id);
      switch (s.kind) {
      case StmtKind::Arrive:
      case StmtKind::Wait:
      case StmtKind::TmaLoad:
      case StmtKind::Wgmma:
      case StmtKind::WgmmaCommit:
      case StmtKind::WgmmaWait:
      case StmtKind::FenceProxyAsync:
      case StmtKind::TmaStore:
      case StmtKind::TmaStoreCommit:
      case StmtKind::TmaStoreWait:
        return true;
      default:
        if (hasProtocol(s.body) || hasProtocol(s.elseBody))
          return true;
      }
    }
    return false;
  }

  /// `B[s]` (or a bare `B`) of a barrier statement.
  bool barrierRef(ExprId id, Event &ev) {
    if (id == syntax::kNone)
      return false;
    const Expr &e = c_.m.expr(id);
    ExprId base = e.kind == ExprKind::Index ? e.children[0] : id;
    const Expr &b = c_.m.expr(base);
    const Sym *s = b.kind == ExprKind::Name ? lookup(b.name.name) : nullptr;
    if (!s || s->kind != Sym::Barrier)
      return false;
    ev.barrier = barrierIndex(s->index);
    if (e.kind == ExprKind::Index && e.children.size() >= 2)
      ev.stage = convert(e.children[1]);
    else
      ev.stage = constNode(0, e.span);
    return true;
  }
  /// Barriers and tiles are copied into the program on first use.
  std::unordered_map<int, int> barrierMap_, tileMap_;
  int barrierIndex(int outer) {
    auto [it, fresh] = barrierMap_.try_emplace(outer, int(p_->barriers.size()));
    if (fresh)
      p_->barriers.push_back(barriers_[outer]);
    return it->second;
  }
  int tileIndex(int outer) {
    auto [it, fresh] = tileMap_.try_emplace(outer, int(p_->tiles.size()));
    if (fresh)
      p_->tiles.push_back(tiles_[outer]);
    return it->second;
  }

  /// The region of a shared tile an expression names (`a_s[s, ...]`, `a_s`).
  std::optional<std::pair<RegionRef, int>> region(ExprId id) {
    const Expr &e = c_.m.expr(id);
    ExprId base = e.kind == ExprKind::Index ? e.children[0] : id;
    const Expr &b = c_.m.expr(base);
    const Sym *s = b.kind == ExprKind::Name ? lookup(b.name.name) : nullptr;
    if (!s || s->kind != Sym::Tile)
      return std::nullopt;
    RegionRef r;
    r.tile = tileIndex(s->index);
    if (tiles_[s->index].stages > 0 && e.kind == ExprKind::Index && e.children.size() >= 2 &&
        c_.m.expr(e.children[1]).kind != ExprKind::Slice)
      r.stage = convert(e.children[1]);
    return std::make_pair(r, s->index);
  }
  /// Bytes of a copy into `dst` (a stage of a shared tile, sliced or whole).
  int64_t copyBytes(ExprId dst, int outerTile) {
    const TileShape &shape = tileShapes_[outerTile];
    const Expr &e = c_.m.expr(dst);
    size_t first = tiles_[outerTile].stages > 0 ? 1 : 0;
    int64_t bytes = shape.elementBytes;
    for (size_t d = first; d < shape.dims.size(); ++d) {
      int64_t extent = shape.dims[d];
      size_t child = d + 1; // children[0] is the base
      if (e.kind == ExprKind::Index && child < e.children.size()) {
        const Expr &ix = c_.m.expr(e.children[child]);
        extent = ix.kind == ExprKind::Slice ? constant(ix.children[1]).value_or(-1) : 1;
      }
      if (extent < 0)
        return -1;
      bytes *= extent;
    }
    return bytes;
  }
  /// Generic reads inside an expression: shared tile regions and accumulators.
  void collectReads(ExprId id, Event &reads, std::vector<int> &accs) {
    if (id == syntax::kNone)
      return;
    const Expr &e = c_.m.expr(id);
    if (e.kind == ExprKind::Name || e.kind == ExprKind::Index) {
      ExprId base = e.kind == ExprKind::Index ? e.children[0] : id;
      const Expr &b = c_.m.expr(base);
      if (b.kind == ExprKind::Name) {
        if (const Sym *s = lookup(b.name.name)) {
          if (s->kind == Sym::Tile) {
            if (auto r = region(id))
              reads.reads.push_back(r->first);
          } else if (s->kind == Sym::Acc) {
            accs.push_back(s->index);
          }
        }
      }
      if (e.kind == ExprKind::Index)
        for (size_t i = 1; i < e.children.size(); ++i)
          collectReads(e.children[i], reads, accs);
      return;
    }
    for (ExprId ch : e.children)
      collectReads(ch, reads, accs);
  }

  Event event(EvKind kind, const Stmt &s, std::string what) {
    Event ev;
    ev.kind = kind;
    ev.span = s.span;
    ev.insertAt = {s.span.begin, s.span.begin};
    ev.insertAfter = {s.span.end, s.span.end};
    ev.indent = indentBefore(s.span);
    ev.loopDepth = depth_;
    ev.what = std::move(what);
    return ev;
  }
  void push(std::vector<uint32_t> &out, Event ev) {
    Node n;
    n.kind = NodeKind::Event;
    n.span = ev.span;
    n.event = std::move(ev);
    out.push_back(p_->addNode(std::move(n)));
  }
  void outside(Span span, std::string what) { p_->outside.push_back({span, std::move(what)}); }

  /// Per role: the registers its warpgroup tiles need per thread, and the
  /// costliest tile's declaration.
  int depth_ = 0; ///< loops around the statement being extracted, in its role
  int64_t tileRegisters_ = 0;
  Span costliestTile_;
  int64_t costliestRegs_ = 0;
  bool tileError_ = false; ///< the checker rejected one of the role's tiles

  void roleBody(const std::vector<StmtId> &body, std::vector<uint32_t> &out) {
    for (StmtId id : body) {
      const Stmt &s = c_.m.stmt(id);
      switch (s.kind) {
      case StmtKind::Let:
        scopes_.back()[s.name.name] = Sym{Sym::Expr, -1, convert(s.value)};
        break;
      case StmtKind::Register:
        declareAcc(s);
        break;
      case StmtKind::For: {
        Node n;
        n.kind = NodeKind::For;
        n.span = s.span;
        n.slot = p_->slots++;
        n.varName = s.name.name;
        XNode v;
        v.op = XOp::Var;
        v.value = n.slot;
        v.span = s.name.span;
        scopes_.emplace_back();
        if (persistentLoop(id)) {
          // `for t in (block_id d .. T step G)`: the model loops over the
          // block's tile ordinals j = t / G in 0 .. m (m the block's tile
          // count, a sample dimension); t itself stays outside the model.
          const auto &loop = c_.stridedLoops.at(id);
          // One tile count m per block: every persistent loop of the grid
          // walks the same T along the same axis with the same step.
          if (!tilesEnd_) {
            tilesEnd_ = loop.end;
            tilesStep_ = loop.step;
            tilesAxis_ = loop.axis;
            p_->hasTiles = true;
            p_->tilesText = text(s.end);
          } else if ((*tilesEnd_ - loop.end).constantValue() != std::optional<int64_t>(0) ||
                     (*tilesStep_ - loop.step).constantValue() != std::optional<int64_t>(0) ||
                     tilesAxis_ != loop.axis) {
            outside(s.keywordSpan.end ? s.keywordSpan : s.span,
                    "a persistent loop over `" + text(s.end) + "` step `" + text(s.step) +
                        "` beside one over `" + p_->tilesText +
                        "` with another tile count, step or block axis (the model has one "
                        "tile count per block)");
          }
          for (const TileVar &tv : tileVars_)
            if (lookup(tv.name) && lookup(tv.name)->kind == Sym::TileVar)
              outside(s.keywordSpan.end ? s.keywordSpan : s.span,
                      "a persistent tile loop inside another one");
          n.varName = s.name.name + " / " + text(s.step);
          n.start = constNode(0, s.span);
          XNode m;
          m.op = XOp::Tiles;
          m.span = c_.m.expr(s.end).span;
          n.end = p_->add(std::move(m));
          XId ordinal = p_->add(std::move(v));
          p_->tileOrdinalSlots.push_back(n.slot);
          scopes_.back()[s.name.name] = Sym{Sym::TileVar, int(tileVars_.size()), kNoX};
          tileVars_.push_back({ordinal, loop.step, s.name.name, text(s.step)});
        } else {
          n.start = convert(s.value);
          n.end = tripCount(s.end);
          if (s.step != syntax::kNone)
            n.step = convert(s.step);
          scopes_.back()[s.name.name] = Sym{Sym::Expr, -1, p_->add(std::move(v))};
        }
        ++depth_;
        roleBody(s.body, n.body);
        --depth_;
        scopes_.pop_back();
        // A loop without protocol events is no part of the model (its trip
        // count may be anything).
        if (!n.body.empty())
          out.push_back(p_->addNode(std::move(n)));
        break;
      }
      case StmtKind::If: {
        Node n;
        n.kind = NodeKind::If;
        n.span = s.span;
        n.cond = convert(s.value);
        scopes_.emplace_back();
        roleBody(s.body, n.body);
        scopes_.pop_back();
        scopes_.emplace_back();
        roleBody(s.elseBody, n.elseBody);
        scopes_.pop_back();
        if (!n.body.empty() || !n.elseBody.empty())
          out.push_back(p_->addNode(std::move(n)));
        break;
      }
      case StmtKind::Wait: {
        Event ev = event(EvKind::Wait, s, "wait " + text(s.barrier) + " round " + text(s.round));
        if (!barrierRef(s.barrier, ev)) {
          outside(s.span, "the statement does not name a barrier stage");
          break;
        }
        ev.round = convert(s.round);
        push(out, std::move(ev));
        break;
      }
      case StmtKind::Arrive: {
        std::string what = "arrive " + text(s.barrier);
        if (s.expectTx != syntax::kNone)
          what += " expect_tx " + text(s.expectTx);
        if (s.clusterArrive)
          what += " cluster";
        Event ev = event(EvKind::Arrive, s, what);
        ev.cluster = s.clusterArrive;
        ev.clauseSpan = s.clauseSpan;
        if (!barrierRef(s.barrier, ev)) {
          outside(s.span, "the statement does not name a barrier stage");
          break;
        }
        if (s.expectTx != syntax::kNone) {
          ev.hasTx = true;
          ev.txSpan = c_.m.expr(s.expectTx).span;
          auto v = constant(s.expectTx);
          if (!v) {
            outside(ev.txSpan, "the `expect_tx` byte count is not a constant");
            break;
          }
          ev.txBytes = *v;
        }
        push(out, std::move(ev));
        break;
      }
      case StmtKind::TmaLoad: {
        Event ev = event(EvKind::TmaLoad, s,
                         "tma_load " + text(s.target) + " <- ..." +
                             (s.multicast ? " multicast" : "") + " completes " + text(s.barrier));
        ev.multicast = s.multicast;
        ev.clauseSpan = s.clauseSpan;
        if (!barrierRef(s.barrier, ev)) {
          outside(s.span, "the statement does not name a barrier stage");
          break;
        }
        auto r = s.target != syntax::kNone ? region(s.target) : std::nullopt;
        if (!r) {
          outside(s.span, "the copy's destination is not a shared tile");
          break;
        }
        ev.dst = r->first;
        ev.bytes = copyBytes(s.target, r->second);
        if (ev.bytes < 0) {
          outside(c_.m.expr(s.target).span, "the copy's byte count is not a constant");
          break;
        }
        push(out, std::move(ev));
        break;
      }
      case StmtKind::Wgmma: {
        Event ev = event(EvKind::Wgmma, s, "wgmma");
        const Expr *t = s.target != syntax::kNone ? &c_.m.expr(s.target) : nullptr;
        const Sym *acc = t && t->kind == ExprKind::Name ? lookup(t->name.name) : nullptr;
        if (!acc || acc->kind != Sym::Acc) {
          outside(s.span, "the wgmma accumulator is not a register tile of this warpgroup_grid");
          break;
        }
        ev.acc = acc->index;
        for (ExprId op : {s.operandA, s.operandB}) {
          if (op == syntax::kNone)
            continue;
          // A from registers: a warpgroup tile of the role (hopper2.md).
          const Expr &oe = c_.m.expr(op);
          const Sym *reg = oe.kind == ExprKind::Name ? lookup(oe.name.name) : nullptr;
          if (op == s.operandA && reg && reg->kind == Sym::Acc) {
            ev.regA = reg->index;
            continue;
          }
          auto r = region(op);
          if (!r) {
            outside(c_.m.expr(op).span, "a wgmma operand that is not a shared tile");
            continue;
          }
          ev.reads.push_back(r->first);
        }
        push(out, std::move(ev));
        break;
      }
      case StmtKind::WgmmaCommit:
        push(out, event(EvKind::Commit, s, "wgmma_commit"));
        break;
      case StmtKind::WgmmaWait: {
        Event ev = event(EvKind::WgmmaWait, s, "wgmma_wait " + std::to_string(s.count));
        ev.pending = s.count;
        push(out, std::move(ev));
        break;
      }
      case StmtKind::FenceProxyAsync:
        push(out, event(EvKind::FenceProxy, s, "fence_proxy_async"));
        break;
      case StmtKind::TmaStore: {
        Event ev =
            event(EvKind::TmaStore, s, "tma_store " + text(s.target) + " <- " + text(s.value));
        auto r = s.value != syntax::kNone ? region(s.value) : std::nullopt;
        if (!r) {
          outside(s.span, "the store's source is not a shared tile");
          break;
        }
        ev.reads.push_back(r->first);
        push(out, std::move(ev));
        break;
      }
      case StmtKind::TmaStoreCommit:
        push(out, event(EvKind::StoreCommit, s, "tma_store_commit"));
        break;
      case StmtKind::TmaStoreWait: {
        Event ev = event(EvKind::StoreWait, s, "tma_store_wait " + std::to_string(s.count));
        ev.pending = s.count;
        push(out, std::move(ev));
        break;
      }
      case StmtKind::Assign: {
        Event reads = event(EvKind::SharedRead, s, "load");
        std::vector<int> accReads;
        collectReads(s.value, reads, accReads);
        const Expr &t = c_.m.expr(s.target);
        if (t.kind == ExprKind::Index)
          for (size_t i = 1; i < t.children.size(); ++i)
            collectReads(t.children[i], reads, accReads);
        if (!reads.reads.empty())
          push(out, std::move(reads));
        for (int a : accReads) {
          Event ev = event(EvKind::AccAccess, s, "read");
          ev.acc = a;
          push(out, std::move(ev));
        }
        ExprId base = t.kind == ExprKind::Index ? t.children[0] : s.target;
        const Expr &b = c_.m.expr(base);
        const Sym *sym = b.kind == ExprKind::Name ? lookup(b.name.name) : nullptr;
        if (sym && sym->kind == Sym::Tile) {
          Event ev = event(EvKind::SharedWrite, s, "store");
          ev.dst = region(s.target)->first;
          push(out, std::move(ev));
        } else if (sym && sym->kind == Sym::Acc) {
          Event ev = event(EvKind::AccAccess, s, "write");
          ev.acc = sym->index;
          ev.accWrite = true;
          push(out, std::move(ev));
        }
        break;
      }
      case StmtKind::Shared:
        outside(s.span, "a `shared` declaration inside a role (declare it in the block)");
        break;
      case StmtKind::BlockSync:
        outside(s.keywordSpan, "`block_sync` inside a role: roles run concurrently and meet "
                               "only at barriers");
        break;
      case StmtKind::CpAsync:
      case StmtKind::Commit:
      case StmtKind::WaitAll:
      case StmtKind::WaitGroup:
        outside(s.keywordSpan, "cp.async inside a role (use `tma_load` and a barrier)");
        break;
      case StmtKind::BlockGrid:
      case StmtKind::WarpGrid:
      case StmtKind::WarpgroupGrid:
      case StmtKind::Role:
        outside(s.keywordSpan, "a nested grid or role inside a role");
        break;
      default:
        break;
      }
    }
  }

  void declareAcc(const Stmt &s) {
    tileError_ = tileError_ || errorWithin(c_, s.span);
    scopes_.back()[s.name.name] = Sym{Sym::Acc, int(p_->accs.size()), kNoX};
    p_->accs.push_back(s.name.name);
    if (s.type == syntax::kNone)
      return;
    const syntax::TypeRef &t = c_.m.type(s.type);
    auto d = parseDType(t.dtype.name);
    int64_t elements = 1;
    for (ExprId e : t.shape)
      if (__builtin_mul_overflow(elements, std::max<int64_t>(constant(e).value_or(0), 0),
                                 &elements))
        return; // more than 2^31 - 1 elements: K0804's
    if (!d || elements == 0 || elements > INT32_MAX)
      return;
    // Warpgroup-distributed: the elements spread over 128 threads, 4 bytes
    // a register.
    int64_t regs = (elements * dtypeBytes(*d) + 4 * 128 - 1) / (4 * 128);
    tileRegisters_ += regs;
    if (regs > costliestRegs_) {
      costliestRegs_ = regs;
      costliestTile_ = s.span;
    }
  }

  struct RoleBudget {
    const Stmt *stmt;
    int64_t warpgroups;
    int64_t registers; ///< 0: the launch's allocation
    int64_t tiles;
    Span costliest;
    bool checkerError; ///< the checker rejected the role's range or a tile
  };

  void grid(const Stmt &g) {
    // After an error inside the grid only the register budgets are checked:
    // the protocol model would rest on wrong facts.
    // Like the other proofs after the walk, the protocol is proved only in
    // a kernel the checker accepted so far (no follow-on errors).
    bool prove = !itemError_;
    bool headerError =
        errorWithin(c_, {g.span.begin, g.bodySpan.end ? g.bodySpan.begin : g.span.end});
    Program p;
    p.gridSpan = g.keywordSpan;
    p.clusterSize = clusterSize_;
    p_ = &p;
    barrierMap_.clear();
    tileMap_.clear();
    param_.reset();
    paramDepth_ = -1;
    tileVars_.clear();
    tilesEnd_.reset();
    tilesStep_.reset();
    p.warpgroupSlot = p.slots++;
    int64_t warpgroups = g.shape.empty() ? 0 : constant(g.shape[0]).value_or(0);
    findParam(g.body);
    if (param_) {
      // The smallest trip count the requirements allow.
      int64_t lo = 0, hi = 64;
      while (lo < hi) {
        int64_t mid = (lo + hi + 1) / 2;
        if (c_.prover.proveLessEqual(DimExpr::constant(mid), *param_).proved())
          lo = mid;
        else
          hi = mid - 1;
      }
      p.paramMin = lo;
    }
    scopes_.emplace_back();
    std::vector<uint32_t> shared; // grid-level lets run in every role
    std::vector<RoleBudget> budgets;
    int64_t gridTiles = 0;
    bool gridTileError = false;
    for (StmtId id : g.body) {
      const Stmt &s = c_.m.stmt(id);
      if (s.kind == StmtKind::Let) {
        scopes_.back()[s.name.name] = Sym{Sym::Expr, -1, convert(s.value)};
      } else if (s.kind == StmtKind::Register) {
        tileRegisters_ = 0;
        tileError_ = false;
        declareAcc(s);
        gridTiles += tileRegisters_;
        gridTileError = gridTileError || tileError_;
      } else if (s.kind == StmtKind::Role) {
        RoleInfo role;
        role.name = s.name.name;
        role.span = s.span;
        role.first = constant(s.first).value_or(-1);
        role.last = s.last == syntax::kNone ? role.first : constant(s.last).value_or(-1);
        if (role.first < 0 || role.last < role.first) {
          outside(s.span, "the role's warpgroups are not constants");
          continue;
        }
        tileRegisters_ = gridTiles;
        tileError_ = gridTileError;
        costliestRegs_ = 0;
        costliestTile_ = {};
        scopes_.emplace_back();
        depth_ = 0;
        roleBody(s.body, role.body);
        scopes_.pop_back();
        if (!s.body.empty()) {
          const Stmt &lastStmt = c_.m.stmt(s.body.back());
          role.endInsert = {lastStmt.span.end, lastStmt.span.end};
          role.endIndent = indentBefore(lastStmt.span);
        }
        // The checker's errors on the role's header (its range) or on a
        // tile declaration make the budgets meaningless.
        bool headerError =
            errorWithin(c_, {s.span.begin, s.bodySpan.end ? s.bodySpan.begin : s.span.end}) ||
            tileError_;
        budgets.push_back(
            {&s, role.last - role.first + 1, s.count, tileRegisters_, costliestTile_, headerError});
        p.roles.push_back(std::move(role));
      } else if (s.kind == StmtKind::Arrive || s.kind == StmtKind::Wait ||
                 s.kind == StmtKind::TmaLoad || s.kind == StmtKind::Wgmma ||
                 s.kind == StmtKind::WgmmaCommit || s.kind == StmtKind::WgmmaWait ||
                 s.kind == StmtKind::FenceProxyAsync || s.kind == StmtKind::TmaStore ||
                 s.kind == StmtKind::TmaStoreCommit || s.kind == StmtKind::TmaStoreWait ||
                 s.kind == StmtKind::For || s.kind == StmtKind::If || s.kind == StmtKind::Assign) {
        outside(s.keywordSpan.end ? s.keywordSpan : s.span,
                "a statement of the warpgroup_grid outside its roles (put it in a role)");
      }
    }
    scopes_.pop_back();
    if (!headerError)
      checkBudgets(budgets, warpgroups);
    if (prove)
      proveProtocol(p, *c_.active);
    p_ = nullptr;
  }

  void checkBudgets(const std::vector<RoleBudget> &roles, int64_t warpgroups) {
    if (warpgroups <= 0)
      return;
    for (const RoleBudget &r : roles)
      if (r.checkerError)
        return;
    // What a warpgroup without `registers` keeps: the launch's allocation.
    int64_t launch = std::min<int64_t>(kSmRegisters / (128 * warpgroups), 255) / 8 * 8;
    auto isValid = [](int64_t R) { return R == 0 || (R % 8 == 0 && R >= 24 && R <= 256); };
    auto nearest = [](int64_t R) { return std::clamp<int64_t>((R + 4) / 8 * 8, 24, 256); };
    // Registers of every warpgroup, the invalid budgets taken as their
    // nearest valid value.
    auto share = [&](const RoleBudget &r) {
      int64_t R = r.registers == 0       ? launch
                  : isValid(r.registers) ? r.registers
                                         : nearest(r.registers);
      return R * 128 * r.warpgroups;
    };
    int64_t covered = 0, all = 0;
    for (const RoleBudget &r : roles) {
      covered += r.warpgroups;
      all += share(r);
    }
    all += std::max<int64_t>(warpgroups - covered, 0) * launch * 128;
    bool valid = true;
    for (const RoleBudget &r : roles) {
      int64_t R = r.registers;
      if (!isValid(R)) {
        valid = false;
        // The valid value nearest to R that fits the SM and the role's tiles.
        int64_t others = all - share(r), fixed = 0;
        for (int64_t v = 24; v <= 256; v += 8)
          if (v >= r.tiles && others + v * 128 * r.warpgroups <= kSmRegisters &&
              (!fixed || std::abs(v - R) <= std::abs(fixed - R)))
            fixed = v;
        Diagnostic &d =
            c_.error(DiagId::RoleRegistersInvalid, r.stmt->countSpan,
                     "`registers " + std::to_string(R) + "` of role `" + r.stmt->name.name +
                         "` is not a setmaxnreg value: a multiple of 8 from 24 to 256");
        if (fixed)
          d.fix(r.stmt->countSpan, std::to_string(fixed), "use " + std::to_string(fixed));
      }
      if (R != 0 && r.tiles > R) {
        c_.error(DiagId::RoleTilesOverBudget, r.costliest.end ? r.costliest : r.stmt->countSpan,
                 "the warpgroup tiles of role `" + r.stmt->name.name + "` need " +
                     std::to_string(r.tiles) + " registers per thread, more than its `registers " +
                     std::to_string(R) + "`")
            .label(r.stmt->countSpan, "the role's budget")
            .note("a warpgroup tile [R0, R1] of a 4-byte type costs R0 * R1 / 128 registers "
                  "per thread; the role also needs registers for addresses and loop state");
      } else if (r.tiles > 0 && r.tiles + kRoleHeadroom > (R != 0 ? R : launch)) {
        // Below that headroom ptxas spills, serialises the wgmma (C7512) or
        // drops every setmaxnreg (C7507): measured with a [64, 256]
        // accumulator, 152 fails and 160 builds (176 with a register A).
        std::string what = R != 0 ? "its `registers " + std::to_string(R) + "`"
                                  : "the " + std::to_string(launch) +
                                        " registers per thread it keeps without a `registers` "
                                        "budget";
        Diagnostic &d =
            c_.error(DiagId::RoleTilesOverBudget, r.costliest.end ? r.costliest : r.stmt->countSpan,
                     "the warpgroup tiles of role `" + r.stmt->name.name + "` need " +
                         std::to_string(r.tiles) + " registers per thread and the role about " +
                         std::to_string(kRoleHeadroom) +
                         " more for addresses and loop state, more than " + what);
        int64_t want = (r.tiles + kRoleHeadroom + 7) / 8 * 8;
        if (R != 0) {
          d.label(r.stmt->countSpan, "the role's budget");
          if (want <= 256 && all - share(r) + want * 128 * r.warpgroups <= kSmRegisters)
            d.fix(r.stmt->countSpan, std::to_string(want),
                  "raise `" + r.stmt->name.name + "` to " + std::to_string(want) + " registers");
        } else {
          d.note("give the role a budget of " + std::to_string(want) + " or more (`registers " +
                 std::to_string(want) +
                 "`, capability `setmaxnreg`), lowering the others' to fit the SM");
        }
      }
    }
    if (!valid)
      return;
    int64_t total = 0;
    covered = 0;
    const RoleBudget *largest = nullptr;
    std::string parts;
    for (const RoleBudget &r : roles) {
      int64_t R = r.registers ? r.registers : launch;
      total += R * 128 * r.warpgroups;
      covered += r.warpgroups;
      parts += (parts.empty() ? "" : " + ") + std::to_string(R) + " x 128 x " +
               std::to_string(r.warpgroups) + " (`" + r.stmt->name.name + "`)";
      if (r.registers && (!largest || R * r.warpgroups > largest->registers * largest->warpgroups))
        largest = &r;
    }
    int64_t idle = std::max<int64_t>(warpgroups - covered, 0);
    total += idle * launch * 128;
    if (idle)
      parts += " + " + std::to_string(launch) + " x 128 x " + std::to_string(idle) + " (no role)";
    if (total <= kSmRegisters || !largest)
      return;
    Diagnostic &d = c_.error(DiagId::RoleRegistersOverSM, largest->stmt->countSpan,
                             "the roles' register budgets need " + std::to_string(total) +
                                 " registers, more than the SM's " + std::to_string(kSmRegisters));
    d.note(parts + " = " + std::to_string(total));
    int64_t others = total - largest->registers * 128 * largest->warpgroups;
    int64_t fit = (kSmRegisters - others) / (128 * largest->warpgroups) / 8 * 8;
    if (fit >= 24 && fit >= largest->tiles)
      d.fix(largest->stmt->countSpan, std::to_string(fit),
            "lower `" + largest->stmt->name.name + "` to " + std::to_string(fit) + " registers");
  }
};

} // namespace

void checkProtocols(Checker &checker, const Item &item) { Extractor(checker).walkKernel(item); }

} // namespace kina::sema
