//===- CheckLowerable.cpp - Reject what code generation cannot lower ------===//
//
// One judge (docs/architecture.md): the PTX backend declares what it can
// lower in target/Lowerable.def/.h, and this pass holds a checked item to
// it, so that a clean `kina check` means `kina build` succeeds. It runs
// after the expression walk, over the recorded types, and reports at the
// user's span:
//
//  * element types the backend does not store or compute with (K0710);
//  * register tile shapes that cannot be spread over a warp, declared or
//    produced by a tile expression (K0108), each shape once per item;
//  * transposes outside 16x16 blocks (K0109), proved symbolically inside
//    shape-polymorphic tile functions;
//  * tile ranks and slicing the lowering does not handle (K0110);
//  * `fill` of a shared tile (K0404) and `return` not at the end (K0905);
//  * capabilities whose instructions the target lacks (K0502): the
//    language's `mma_m16n16k16_*` is emitted as ldmatrix + mma.sync m16n8k16.
//
// Shapes that are symbolic (tile functions) are checked where they are
// known: the arguments of a call are the caller's checked tiles, and a
// tile function only derives new shapes through transpose, row reductions
// and mma, whose rules are checked here with the prover.
//
//===----------------------------------------------------------------------===//
#include "sema/Checker.h"

#include "target/Lowerable.h"

#include <algorithm>
#include <set>

namespace kina::sema {

namespace lw = target::lowerable;

namespace {

class LowerableCheck {
public:
  LowerableCheck(Checker &c, const Item &item) : c_(c), item_(item) {}

  void run() {
    if (item_.kind == syntax::ItemKind::HostFunction)
      return; // host code is not lowered by the PTX backend
    for (const syntax::Param &p : item_.params)
      if (p.type != syntax::kNone)
        declaredType(p.type);
    if (item_.result != syntax::kNone)
      declaredType(item_.result);
    block(item_.body, /*topLevelOfTileFunction=*/item_.kind == syntax::ItemKind::TileFunction);
    capabilities();
  }

  /// Run after the protocol proofs (Check.cpp), so a protocol error in the
  /// same loop is reported as well, not hidden by this one.
  void runWgmmaLoops() {
    WgmmaFlow flow;
    wgmmaFlow(item_.body, flow);
  }

private:
  Checker &c_;
  const Item &item_;
  std::set<std::vector<int64_t>> reportedShapes_;

  const Module &m() const { return c_.m; }

  void declaredType(syntax::TypeId id) {
    const syntax::TypeRef &t = m().type(id);
    if (!t.dtype.valid())
      return;
    auto dt = parseDType(t.dtype.name);
    if (!dt)
      return;
    if (auto why = lw::dtypeProblem(dtypeName(*dt)))
      c_.error(DiagId::ElementTypeNotLowerable, t.dtype.span,
               std::string("code generation does not support element type ") + dtypeName(*dt) +
                   ": " + *why);
  }

  static std::optional<std::vector<int64_t>> constantShape(const TensorType &t) {
    std::vector<int64_t> s;
    for (const DimExpr &d : t.shape) {
      auto v = d.constantValue();
      if (!v)
        return std::nullopt;
      s.push_back(*v);
    }
    return s;
  }

  void registerShape(const TensorType &t, Span span, const std::string &what) {
    if (t.warpgroup)
      return; // spread over a warpgroup: its shapes are K0120's
    auto shape = constantShape(t);
    if (!shape)
      return; // symbolic: a tile function's own dims (see the file comment)
    auto why = lw::registerTileProblem(*shape);
    if (!why || !reportedShapes_.insert(*shape).second)
      return;
    c_.error(DiagId::RegisterTileLayout, span, what + ": " + *why);
  }

  void block(const std::vector<StmtId> &body, bool topLevelOfTileFunction) {
    for (size_t i = 0; i < body.size(); ++i) {
      const Stmt &s = m().stmt(body[i]);
      // (`return` in a kernel is reported by the statement check.)
      if (s.kind == StmtKind::Return && item_.kind == syntax::ItemKind::TileFunction &&
          !(topLevelOfTileFunction && i + 1 == body.size()))
        c_.error(DiagId::InvalidStatementContext, s.keywordSpan,
                 "`return` must be the last statement of a tile function (its calls are "
                 "inlined; the value is returned once, at the end)");
      stmt(s);
    }
  }

  void stmt(const Stmt &s) {
    switch (s.kind) {
    case StmtKind::BlockGrid:
    case StmtKind::WarpGrid:
    case StmtKind::WarpgroupGrid:
    case StmtKind::Role: {
      for (ExprId e : s.shape)
        expr(e);
      bool saved = inWarpgroupGrid_;
      inWarpgroupGrid_ = saved || s.kind == StmtKind::WarpgroupGrid;
      block(s.body, false);
      inWarpgroupGrid_ = saved;
      return;
    }
    case StmtKind::For:
      expr(s.value);
      expr(s.end);
      block(s.body, false);
      return;
    case StmtKind::If:
      expr(s.value);
      block(s.body, false);
      block(s.elseBody, false);
      return;
    case StmtKind::Shared:
    case StmtKind::Register: {
      if (s.type == syntax::kNone)
        return;
      declaredType(s.type);
      const syntax::TypeRef &tr = m().type(s.type);
      if (s.kind == StmtKind::Shared && tr.shape.size() == 1) {
        c_.error(DiagId::TileRankNotLowerable, tr.shapeSpan.empty() ? tr.span : tr.shapeSpan,
                 "shared tiles have 2 or more dimensions (leading ones are stages); write "
                 "`[1, " +
                     syntax::printExpr(m(), tr.shape[0]) + "]` and index row 0");
        return;
      }
      if (s.kind == StmtKind::Register && tr.kind != syntax::TypeKind::Barrier) {
        TensorType t;
        t.warpgroup = inWarpgroupGrid_;
        bool ok = true;
        for (ExprId e : tr.shape) {
          auto v = c_.exprValueOrNull(e);
          if (!v) {
            ok = false;
            break;
          }
          t.shape.push_back(*v);
        }
        if (ok)
          registerShape(t, tr.shapeSpan.empty() ? tr.span : tr.shapeSpan,
                        "register tile `" + s.name.name + "`");
      }
      return;
    }
    case StmtKind::Let:
      expr(s.value);
      return;
    case StmtKind::CpAsync: {
      expr(s.target);
      expr(s.value);
      const Type &dst = c_.typeOf(s.target);
      if (widePanels(s.target))
        notYet(s.span, "`cp_async` into a swizzle_128b tile wider than one 128-byte panel");
      if (dst.isTensor() && dst.tensor.shape.size() != 2)
        c_.error(DiagId::TileRankNotLowerable, m().expr(s.target).span,
                 "`cp_async` copies 2-D regions; this one is " +
                     printShape(dst.tensor.shape, c_.symbols) +
                     " (index the stage with a point and keep rows and columns as ranges)");
      return;
    }
    case StmtKind::Assign: {
      expr(s.target);
      expr(s.value);
      const Type &dst = c_.typeOf(s.target);
      const Type &val = c_.typeOf(s.value);
      // Only TMA copies and warpgroup stores address a panel-major tile.
      if ((widePanels(s.target) && !(val.isTensor() && val.tensor.warpgroup)) ||
          widePanels(s.value))
        notYet(s.span, "a load or store of a swizzle_128b tile wider than one 128-byte panel "
                       "(only tma_store and warpgroup tile stores address its panels)");
      if (val.kind == Type::Splat && dst.isTensor() && dst.tensor.space == Space::Shared)
        c_.error(DiagId::OperandPlacement, m().expr(s.value).span,
                 "`fill` initializes register tiles; fill a register tile and store it into "
                 "the shared tile (`r <- fill v` then `" +
                     syntax::printExpr(m(), s.target) + " <- r`)");
      // A shared-to-shared assignment goes through registers.
      if (dst.isTensor() && dst.tensor.space == Space::Shared && val.isTensor() &&
          val.tensor.space == Space::Shared)
        registerShape(val.tensor, m().expr(s.value).span, "this copy goes through a register tile");
      return;
    }
    case StmtKind::Return:
      expr(s.value);
      return;
    default:
      return;
    }
  }

  bool inWarpgroupGrid_ = false;
  /// A view (any slice) of a swizzle_128b shared tile wider than one
  /// 128-byte panel: the tile is stored panel-major, which only the TMA and
  /// warpgroup-store lowerings address.
  bool widePanels(ExprId id) const {
    while (id != syntax::kNone &&
           (m().expr(id).kind == ExprKind::Index || m().expr(id).kind == ExprKind::Paren))
      id = m().expr(id).children[0];
    if (id == syntax::kNone || m().expr(id).kind != ExprKind::Name)
      return false;
    const Type &t = c_.typeOf(id);
    return t.isTensor() && t.tensor.space == Space::Shared &&
           t.tensor.layout == SharedLayout::Swizzle128B && !t.tensor.shape.empty() &&
           t.tensor.shape.back().constantValue().value_or(0) > 64;
  }
  /// K0510 until the tile IR lowers the construct.
  void notYet(Span span, const std::string &what) {
    c_.error(DiagId::NotYetLowerable, span,
             what + " is checked, but this build's tile IR does not lower it yet");
  }

  void expr(ExprId id) {
    if (id == syntax::kNone)
      return;
    const Expr &e = m().expr(id);
    for (ExprId child : e.children)
      expr(child);
    const Type &t = c_.typeOf(id);
    switch (e.kind) {
    case ExprKind::Index: {
      const Type &base = c_.typeOf(e.children[0]);
      if (base.isTensor() && base.tensor.space == Space::Register &&
          !isSignatureName(e.children[0]))
        c_.error(DiagId::TileRankNotLowerable, e.span,
                 "register tiles are spread over a warp and used whole; slice the global or "
                 "shared data before loading it into registers");
      return;
    }
    case ExprKind::Application:
      break;
    default:
      return;
    }
    const std::string &f = e.name.name;
    if (f == "convert" && e.children.size() == 2) {
      const Type &dt = c_.typeOf(e.children[0]);
      if (dt.kind == Type::DTypeName)
        if (auto why = lw::dtypeProblem(dtypeName(dt.scalar)))
          c_.error(DiagId::ElementTypeNotLowerable, m().expr(e.children[0]).span,
                   std::string("code generation does not support element type ") +
                       dtypeName(dt.scalar) + ": " + *why);
    }
    if (!t.isTensor() || t.tensor.space != Space::Register)
      return;
    // Every tile-valued operation produces a register tile.
    static const char *ops[] = {"relu",    "exp",       "neg",       "add",      "sub",
                                "mul",     "div",       "max",       "min",      "row_sum",
                                "row_max", "transpose", "convert",   "wmma_mma", "dp4a_mma",
                                "col_sum", "col_max",   "block_sum", "block_max"};
    bool primitive = std::find(std::begin(ops), std::end(ops), f) != std::end(ops);
    if (primitive || c_.itemsByName.count(f))
      registerShape(t.tensor, e.span, "the value of `" + f + "`");
    if (f == "transpose" && t.tensor.shape.size() == 2)
      transposeShape(t.tensor, e.span);
  }

  /// A parameter or result of the item: their placement is checked (K0401)
  /// with the signature.
  bool isSignatureName(ExprId id) const {
    const Expr &e = m().expr(id);
    if (e.kind != ExprKind::Name)
      return false;
    std::string result = item_.resultName.valid() ? item_.resultName.name : "result";
    if (item_.result != syntax::kNone && e.name.name == result)
      return true;
    for (const syntax::Param &p : item_.params)
      if (p.name.name == e.name.name)
        return true;
    return false;
  }

  void transposeShape(const TensorType &t, Span span) {
    const DimExpr &r = t.shape[1], &cl = t.shape[0]; // of the operand: [r, cl]
    if (auto shape = constantShape(t)) {
      if (auto why = lw::transposeProblem((*shape)[1], (*shape)[0]))
        c_.error(DiagId::TransposeShape, span, *why);
      return;
    }
    for (const DimExpr *d : {&r, &cl}) {
      if (d->constantValue()) {
        if (*d->constantValue() % lw::kTransposeMultiple != 0)
          c_.error(DiagId::TransposeShape, span,
                   "`transpose` needs both extents to be multiples of 16, got " + c_.str(*d));
        continue;
      }
      if (c_.prover.proveDivisible(*d, lw::kTransposeMultiple).proved())
        continue;
      std::string fact = c_.str(*d) + " mod 16 = 0";
      auto &diag =
          c_.error(DiagId::TransposeShape, span,
                   "`transpose` needs both extents to be multiples of 16: cannot prove " + fact);
      if (c_.symbols.onlyDims(*d))
        c_.addRequiresFix(diag, fact);
    }
  }

  /// wgmma groups possibly in flight, as the statements run in order: an
  /// upper bound of the committed groups not yet retired, and whether a
  /// wgmma joined a group not yet committed.
  struct WgmmaFlow {
    int64_t committed = 0;
    bool open = false;
    const Stmt *lastWait = nullptr; ///< the last `wgmma_wait` on this path
    /// Committed groups only: an uncommitted wgmma is the protocol proofs'
    /// K0631/K0632, not a second error here.
    bool inFlight() const { return committed > 0; }
  };

  static bool containsWgmma(const syntax::Module &m, const std::vector<StmtId> &body) {
    for (StmtId id : body) {
      const Stmt &s = m.stmt(id);
      if (s.kind == StmtKind::Wgmma || containsWgmma(m, s.body) || containsWgmma(m, s.elseBody))
        return true;
    }
    return false;
  }

  /// The form in which a loop may keep a group in flight over its back edge
  /// (docs/architecture.md, "Hopper code generation"): the loop is entered
  /// with every group retired, has its wgmma ops at its own top level, and
  /// ends each iteration with at most one group in flight, left by a
  /// `wgmma_wait 1` at its top level after the iteration's commit. Code
  /// generation ties the accumulators through that wait (inline asm with
  /// "=f"/"0" operands), and ptxas 13 then compiles the GEMM consumer loop
  /// (and the persistent one nested in its tile loop) without serialisation
  /// (C7510-C7515) and without moves; with the plain wait intrinsic it
  /// serialised every wgmma (C7514). Other shapes (a group in flight at the
  /// loop's entry, two groups, a wgmma under an `if` or in an inner loop)
  /// are untested and keep K0111; the ptxas gate (K1224) stays.
  bool keepsOneGroupInFlight(const Stmt &loop, const WgmmaFlow &entry,
                             const WgmmaFlow &iter) const {
    if (entry.inFlight() || entry.open || iter.open || iter.committed > 1 || !iter.lastWait ||
        iter.lastWait->count != 1)
      return false;
    bool waitAtTop = false, wgmmaAtTop = false;
    for (StmtId id : loop.body) {
      const Stmt &s = m().stmt(id);
      waitAtTop |= &s == iter.lastWait;
      wgmmaAtTop |= s.kind == StmtKind::Wgmma;
      if (s.kind != StmtKind::Wgmma &&
          (containsWgmma(m(), s.body) || containsWgmma(m(), s.elseBody)))
        return false; // a wgmma under an `if` or an inner loop: not the tested form
    }
    return waitAtTop && wgmmaAtTop;
  }

  /// Code generation keeps a wgmma accumulator in registers that the loop's
  /// back edge merges; with a group in flight there, ptxas serialises every
  /// wgmma of the kernel (C7514), which the build reports as K1224. So a
  /// loop whose body has a wgmma must be entered and left with every group
  /// retired (`wgmma_wait 0` after the last commit of the iteration), except
  /// in the form keepsOneGroupInFlight describes.
  void wgmmaFlow(const std::vector<StmtId> &body, WgmmaFlow &f) {
    for (StmtId id : body) {
      const Stmt &s = m().stmt(id);
      switch (s.kind) {
      case StmtKind::Wgmma:
        f.open = true;
        break;
      case StmtKind::WgmmaCommit:
        if (f.open)
          ++f.committed;
        f.open = false;
        break;
      case StmtKind::WgmmaWait:
        // (A count over 7 is K0128 already: no follow-on error here.)
        f.committed =
            s.count > 7 ? 0 : std::min<int64_t>(f.committed, std::max<int64_t>(s.count, 0));
        f.lastWait = &s;
        break;
      case StmtKind::If: {
        WgmmaFlow other = f;
        wgmmaFlow(s.body, f);
        wgmmaFlow(s.elseBody, other);
        f.committed = std::max(f.committed, other.committed);
        f.open = f.open || other.open;
        if (!f.lastWait)
          f.lastWait = other.lastWait;
        break;
      }
      case StmtKind::For: {
        WgmmaFlow entry = f;
        WgmmaFlow iter = f;
        iter.lastWait = nullptr;
        wgmmaFlow(s.body, iter);
        if (containsWgmma(m(), s.body) && (entry.inFlight() || iter.inFlight()) &&
            !keepsOneGroupInFlight(s, entry, iter)) {
          Span at = iter.lastWait ? iter.lastWait->span : s.keywordSpan;
          auto &d = c_.error(
              DiagId::WgmmaInFlightAcrossLoop, at,
              std::string(entry.inFlight() && !iter.inFlight()
                              ? "a wgmma group is in flight when this loop starts"
                              : "a wgmma group stays in flight across the end of this loop's "
                                "iteration") +
                  ": code generation keeps a wgmma accumulator in flight over a loop's back "
                  "edge only in one form (ptxas would serialise every wgmma otherwise, C7514)");
          d.note("retire the groups before the iteration ends (`wgmma_wait 0` after the last "
                 "`wgmma_commit`); releasing the stage after that wait stays correct");
          d.note("the form that may keep one group in flight: a loop entered with every group "
                 "retired, its wgmma ops and a `wgmma_wait 1` after the commit at its own top "
                 "level (not under an `if` or in an inner loop)");
          if (iter.lastWait && iter.lastWait->count > 0)
            d.fix(iter.lastWait->countSpan, "0", "wait for every group in the iteration");
        }
        // Zero or more iterations: the bound after the loop covers both.
        f.committed = std::max(entry.committed, iter.committed);
        f.open = entry.open || iter.open;
        if (iter.lastWait)
          f.lastWait = iter.lastWait;
        break;
      }
      default:
        wgmmaFlow(s.body, f); // grids and roles
        break;
      }
    }
  }

  /// The instructions code generation emits for each capability the item
  /// uses must exist on the target it is checked for.
  void capabilities() {
    if (!c_.target || !c_.current || item_.kind != syntax::ItemKind::Kernel)
      return;
    for (const auto &[cap, site] : c_.current->capabilitySites) {
      for (target::CapabilityId inst : lw::instructionsFor(cap)) {
        if (target::hasCapability(c_.target->id, inst))
          continue;
        const auto &info = target::capabilityInfo(inst);
        if (auto langCap = target::parseCapabilityName(cap);
            langCap && !target::hasCapability(c_.target->id, *langCap))
          break; // K0502 for the capability itself is reported already
        c_.error(DiagId::CapabilityNotOnTarget, site,
                 "code generation implements `" + cap + "` with `" + std::string(info.name) +
                     "`, which " + std::string(c_.target->name) + " does not have")
            .note("targets with `" + std::string(info.name) +
                  "`: " + target::describeTargetsWith(inst));
        break;
      }
    }
    // The declared minimum target (`requires capability(sm_75, ...)`) must
    // have those instructions too: the kernel claims to build for it, and
    // `kina build --target sm_75` would fail K0502 after a clean check.
    for (const syntax::Requirement &r : item_.requirements) {
      if (!r.isCapability || !r.target.valid())
        continue;
      const target::TargetInfo *declared = target::lookupTarget(r.target.name);
      if (!declared || declared->id == c_.target->id)
        continue;
      for (const auto &[cap, site] : c_.current->capabilitySites) {
        auto langCap = target::parseCapabilityName(cap);
        if (!langCap || !target::hasCapability(declared->id, *langCap))
          continue; // K0504 for the capability itself, from checkCapabilities
        for (target::CapabilityId inst : lw::instructionsFor(cap)) {
          if (target::hasCapability(declared->id, inst))
            continue;
          const auto &info = target::capabilityInfo(inst);
          c_.error(DiagId::DeclaredTargetLacksCapability, site,
                   "the kernel declares " + std::string(declared->name) +
                       " as its minimum target, but code generation implements `" + cap +
                       "` with `" + std::string(info.name) + "`, which " +
                       std::string(declared->name) + " does not have")
              .label(r.target.span, "declared target")
              .note("targets with `" + std::string(info.name) +
                    "`: " + target::describeTargetsWith(inst));
          break;
        }
      }
    }
  }
};

} // namespace

void checkLowerable(Checker &checker, const Item &item) { LowerableCheck(checker, item).run(); }

void checkWgmmaLoops(Checker &checker, const Item &item) {
  if (item.kind == syntax::ItemKind::Kernel)
    LowerableCheck(checker, item).runWgmmaLoops();
}

} // namespace kina::sema
