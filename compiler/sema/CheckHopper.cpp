//===- CheckHopper.cpp - Typing of warpgroups, barriers, TMA and wgmma ----===//
//
// The statement and type rules of the Hopper constructs (docs/language.md,
// "Warpgroups, barriers, TMA and wgmma"): `warpgroup_grid [G]` and its
// `warpgroup_id`, roles bound to warpgroup ranges, `Barrier[S, arrivals=A]`
// rings, `arrive` / `wait ... round`, `tma_load ... completes`, and
// `acc <- wgmma acc a b`. What is checked here is what each statement needs
// on its own (shapes, element types, layouts, placement, stage bounds,
// capabilities); the protocol between statements (rounds, expect_tx bytes,
// arrivals, deadlock, groups in flight, register budgets of the roles) is
// proved by the protocol pass over the same AST.
//
//===----------------------------------------------------------------------===//
#include "sema/Checker.h"

#include <functional>
#include <map>

namespace kina::sema {

const Expr *baseNameOf(const Module &m, ExprId id) {
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

// ---------------------------------------------------------------- grids

void Checker::checkWarpgroupGrid(StmtId id, const Stmt &s) {
  auto notHere = [&](const std::string &what) {
    error(DiagId::WarpgroupContext, s.keywordSpan, what);
  };
  bool inKernel = current && current->item->kind == syntax::ItemKind::Kernel;
  if (!inKernel)
    return notHere("`warpgroup_grid` is only allowed in a kernel body");
  if (!grid.inBlockGrid)
    return notHere("`warpgroup_grid` must be inside a `block_grid`");
  if (grid.inWarpGrid || grid.inWarpgroupGrid)
    return notHere(std::string("`warpgroup_grid` cannot nest inside a `") +
                   (grid.inWarpGrid ? "warp_grid" : "warpgroup_grid") + "`");
  // Reported, and the body still checked (its errors are independent).
  if (!grid.warpLevelGrid.empty() && !grid.warpLevelIsWarpgroup)
    error(DiagId::WarpgroupContext, s.keywordSpan,
          "a block has either a `warp_grid` or a `warpgroup_grid`, not both")
        .label(grid.warpLevelGrid, "the block's `warp_grid`");
  grid.warpLevelGrid = s.keywordSpan;
  grid.warpLevelIsWarpgroup = true;
  int64_t g = 1;
  if (s.shape.size() != 1) {
    error(DiagId::BadWarpgroupGrid, s.shapeSpan.empty() ? s.keywordSpan : s.shapeSpan,
          "`warpgroup_grid` takes one extent (the number of warpgroups), got " +
              std::to_string(s.shape.size()));
  } else if (auto c = constantIndex(s.shape[0], "the warpgroup_grid extent")) {
    if (*c < 1 || *c > 8)
      error(DiagId::BadWarpgroupGrid, m.expr(s.shape[0]).span,
            "`warpgroup_grid [" + std::to_string(*c) +
                "]`: a block holds 1 to 8 warpgroups (128 threads each, at most 1024 threads)");
    if (*c >= 1)
      g = std::min<int64_t>(*c, 1 << 20); // the roles are checked against what is written
  }
  pushScope();
  grid.inWarpgroupGrid = true;
  grid.warpgroups = g;
  grid.roleRanges.clear();
  grid.wgmmas = 0;
  grid.firstGroupOp = Span{};
  grid.warpgroupId = symbols.newSymbolExpr("warpgroup_id", solver::SymbolKind::WarpId);
  {
    Origin from(*this, [&] {
      return "`0 <= warpgroup_id < " + std::to_string(g) + "` (the warpgroup grid)";
    });
    prover.assumeRange(grid.warpgroupId, DimExpr::constant(0), DimExpr::constant(g));
  }
  gridOf[id] = GridIds{{grid.warpgroupId}, {DimExpr::constant(g)}, true, {}};
  current->threadsPerBlock = static_cast<unsigned>(128 * g);
  for (StmtId c : s.body)
    checkStmt(c);
  // wgmma_commit / wgmma_wait are wgmma instructions (sm_90a): without any
  // wgmma their capability would go unchecked, and they mean nothing.
  if (grid.wgmmas == 0 && !grid.firstGroupOp.empty())
    error(DiagId::WgmmaShape, grid.firstGroupOp,
          "`wgmma_commit` and `wgmma_wait` close and retire groups of wgmma, but this warpgroup "
          "grid has no wgmma");
  if (options.ideTables)
    annotateProtocol(s);
  grid.inWarpgroupGrid = false;
  grid.role = syntax::kNone;
  popScope();
}

// ------------------------------------------------------------------ hover

namespace {

/// What one statement of a warpgroup grid does to a barrier, for hover.
struct BarrierUse {
  const Stmt *stmt;
  std::string role; ///< the role it is in ("" outside roles)
  int64_t warpgroups = 1;
  int64_t bytes = 0; ///< tma_load: the copy's bytes; arrive: expect_tx
};

/// Upper bounds of the wgmma groups around each statement, in program
/// order, a loop body walked twice (its second pass starts where the first
/// ended, so the back edge counts).
struct GroupState {
  int64_t open = 0;     ///< wgmmas in the open group
  int64_t inFlight = 0; ///< committed groups not retired by a wgmma_wait
};

} // namespace

void Checker::annotateProtocol(const Stmt &gridStmt) {
  std::map<std::string, std::vector<BarrierUse>> uses;       // by barrier name
  std::map<std::string, std::vector<BarrierUse>> copiesInto; // by shared tile name
  std::vector<std::pair<const Stmt *, std::string>> hopper;  // statements to annotate, role
  auto barrierName = [&](ExprId id) {
    const Expr *b = id == syntax::kNone ? nullptr : baseNameOf(m, id);
    return b ? b->name.name : std::string();
  };
  auto bytesOf = [&](ExprId id) -> int64_t {
    const Type &t = typeOf(id);
    if (!t.isTensor())
      return 0;
    int64_t n = dtypeBytes(t.tensor.dtype);
    for (const DimExpr &d : t.tensor.shape)
      n *= d.constantValue().value_or(0);
    return n;
  };
  std::function<void(const std::vector<StmtId> &, const std::string &, int64_t)> collect =
      [&](const std::vector<StmtId> &body, const std::string &role, int64_t wgs) {
        for (StmtId id : body) {
          const Stmt &st = m.stmt(id);
          switch (st.kind) {
          case StmtKind::Role: {
            auto f = exprValueOrNull(st.first);
            auto l = st.last != syntax::kNone ? exprValueOrNull(st.last) : f;
            int64_t n = f && l && f->constantValue() && l->constantValue()
                            ? *l->constantValue() - *f->constantValue() + 1
                            : 1;
            collect(st.body, st.name.name, n);
            break;
          }
          case StmtKind::For:
          case StmtKind::If:
            collect(st.body, role, wgs);
            collect(st.elseBody, role, wgs);
            break;
          case StmtKind::Arrive: {
            int64_t tx = 0;
            if (st.expectTx != syntax::kNone)
              if (auto v = exprValueOrNull(st.expectTx))
                tx = v->constantValue().value_or(0);
            // A cluster arrive also arrives from every peer CTA (CheckCluster.cpp).
            int64_t arrivals = st.clusterArrive ? wgs * std::max<int64_t>(clusterSize(), 1) : wgs;
            uses[barrierName(st.barrier)].push_back({&st, role, arrivals, tx});
            hopper.push_back({&st, role});
            break;
          }
          case StmtKind::TmaLoad: {
            // A multicast box lands once per CTA of the cluster.
            int64_t copies = st.multicast ? std::max<int64_t>(clusterSize(), 1) : 1;
            BarrierUse u{&st, role, wgs, bytesOf(st.target) * copies};
            uses[barrierName(st.barrier)].push_back(u);
            copiesInto[barrierName(st.target)].push_back(u);
            hopper.push_back({&st, role});
            break;
          }
          case StmtKind::Wait:
          case StmtKind::Wgmma:
          case StmtKind::WgmmaCommit:
          case StmtKind::WgmmaWait:
            hopper.push_back({&st, role});
            break;
          default:
            break;
          }
        }
      };
  collect(gridStmt.body, "", 1);

  // wgmma groups, per role body.
  std::map<const Stmt *, GroupState> before;
  std::function<void(const std::vector<StmtId> &, GroupState &)> groups =
      [&](const std::vector<StmtId> &body, GroupState &g) {
        for (StmtId id : body) {
          const Stmt &st = m.stmt(id);
          GroupState &b = before[&st];
          b.open = std::max(b.open, g.open);
          b.inFlight = std::max(b.inFlight, g.inFlight);
          switch (st.kind) {
          case StmtKind::Role: {
            GroupState inner;
            groups(st.body, inner);
            break;
          }
          case StmtKind::For:
            for (int pass = 0; pass < 2; ++pass)
              groups(st.body, g);
            break;
          case StmtKind::If: {
            GroupState a = g, e = g;
            groups(st.body, a);
            groups(st.elseBody, e);
            g.open = std::max(a.open, e.open);
            g.inFlight = std::max(a.inFlight, e.inFlight);
            break;
          }
          case StmtKind::Wgmma:
            ++g.open;
            break;
          case StmtKind::WgmmaCommit:
            g.open = 0;
            g.inFlight = std::min<int64_t>(g.inFlight + 1, 8);
            break;
          case StmtKind::WgmmaWait:
            g.inFlight = std::min<int64_t>(g.inFlight, st.count);
            break;
          default:
            break;
          }
        }
      };
  {
    GroupState top;
    groups(gridStmt.body, top);
  }

  // Statements as canonical text (from the AST: item checks may have no
  // source text).
  auto textOf = [&](const Stmt &st) {
    auto e = [&](ExprId id) { return syntax::printExpr(m, id); };
    switch (st.kind) {
    case StmtKind::Arrive:
      return "arrive " + e(st.barrier) +
             (st.expectTx != syntax::kNone ? " expect_tx " + e(st.expectTx) : std::string()) +
             (st.clusterArrive ? " cluster" : "");
    case StmtKind::TmaLoad:
      return "tma_load " + e(st.target) + " <- " + e(st.value) +
             (st.multicast ? " multicast" : "") + " completes " + e(st.barrier);
    default:
      return std::string();
    }
  };
  auto where = [](const BarrierUse &u) {
    return u.role.empty() ? std::string() : " (role `" + u.role + "`)";
  };
  auto signalledBy = [&](const std::string &barrier) {
    std::string md;
    int64_t copied = 0, expected = 0;
    for (const BarrierUse &u : uses[barrier]) {
      if (u.stmt->kind == StmtKind::Arrive) {
        md += "- `" + textOf(*u.stmt) + "`" + where(u) + ": " + std::to_string(u.warpgroups) +
              " arrival" + (u.warpgroups == 1 ? "" : "s") +
              (u.bytes ? ", " + std::to_string(u.bytes) + " bytes expected" : "") + "\n";
        expected += u.bytes * u.warpgroups;
      } else {
        md += "- `" + textOf(*u.stmt) + "`" + where(u) + ": completes " +
              std::to_string(u.bytes * u.warpgroups) + " bytes\n";
        copied += u.bytes * u.warpgroups;
      }
    }
    if (md.empty())
      return std::string("\nnothing in this warpgroup grid arrives on `" + barrier + "`\n");
    return "\nsignalled by (each time it runs):\n" + md +
           (copied || expected ? "\ncopies " + std::to_string(copied) + " bytes, expect_tx " +
                                     std::to_string(expected) + " bytes\n"
                               : std::string());
  };
  auto barrierType = [&](ExprId stage) {
    const Expr *b = baseNameOf(m, stage);
    if (!b)
      return std::string();
    const Type &t = typeOf(b == &m.expr(stage) ? stage : m.expr(stage).children[0]);
    return t.kind == Type::Barrier ? "`" + b->name.name + " : " + typeStr(t) + "`" : std::string();
  };
  for (const auto &[stp, role] : hopper) {
    const Stmt &st = *stp;
    std::string md;
    switch (st.kind) {
    case StmtKind::Wait: {
      std::string b = barrierName(st.barrier);
      ExprId r = st.round;
      while (m.expr(r).kind == ExprKind::Paren)
        r = m.expr(r).children[0];
      std::string round = syntax::printExpr(m, r);
      md = "**wait** until round `" + round + "` of `" + syntax::printExpr(m, st.barrier) +
           "` completed (round r is the stage's (r+1)-th phase completion); parity `floor(" +
           round +
           ") mod 2`, derived by the compiler; a round below 0 is satisfied at "
           "once.\n\n" +
           barrierType(st.barrier) + "\n" + signalledBy(b);
      std::string data;
      for (const auto &[tile, copies] : copiesInto)
        for (const BarrierUse &u : copies)
          if (barrierName(u.stmt->barrier) == b)
            data += "- `" + tile + "`, written by `" + textOf(*u.stmt) + "`\n";
      if (!data.empty())
        md += "\nafter it, this warpgroup may read what those copies wrote:\n" + data;
      break;
    }
    case StmtKind::Arrive:
      md = "**arrive** on `" + syntax::printExpr(m, st.barrier) + "`: one arrival per warpgroup" +
           (st.clusterArrive ? std::string(" in every CTA of the cluster (every CTA runs it: ") +
                                   std::to_string(clusterSize()) + " arrivals per warpgroup)"
                             : std::string()) +
           (st.expectTx != syntax::kNone ? ", announcing `" + syntax::printExpr(m, st.expectTx) +
                                               "` transaction bytes in this phase"
                                         : std::string()) +
           ".\n\n" + barrierType(st.barrier) + "\n" + signalledBy(barrierName(st.barrier));
      break;
    case StmtKind::TmaLoad:
      md = "**tma_load**: one elected thread copies " + std::to_string(bytesOf(st.target)) +
           " bytes (" + typeStr(typeOf(st.target)) + ") from global memory" +
           (st.multicast
                ? " into every CTA of the cluster (each of the " + std::to_string(clusterSize()) +
                      " CTAs multicasts its box, so this stage receives " +
                      std::to_string(bytesOf(st.target) * clusterSize()) + " bytes)"
                : std::string()) +
           "; they count as "
           "transaction bytes of `" +
           syntax::printExpr(m, st.barrier) + "`.\n\n" + barrierType(st.barrier) + "\n" +
           signalledBy(barrierName(st.barrier));
      break;
    case StmtKind::Wgmma: {
      const GroupState &g = before[&st];
      const Type &a = typeOf(st.operandA), &bt = typeOf(st.operandB), &acc = typeOf(st.target);
      md = "**wgmma** (asynchronous): `" + syntax::printExpr(m, st.target) + "` " +
           (acc.isTensor() ? printShape(acc.tensor.shape, symbols) : std::string()) + " += a " +
           (a.isTensor() ? printShape(a.tensor.shape, symbols) : std::string()) +
           " * transpose(b " +
           (bt.isTensor() ? printShape(bt.tensor.shape, symbols) : std::string()) + ")";
      if (a.isTensor() && a.tensor.shape.size() == 2 && acc.isTensor() &&
          acc.tensor.shape.size() == 2)
        md += ": " + std::to_string(a.tensor.shape[1].constantValue().value_or(0) / 16) +
              " x `wgmma.mma_async.m64n" +
              std::to_string(acc.tensor.shape[1].constantValue().value_or(0)) + "k16`";
      md += ".\n\njoins the open group (" + std::to_string(g.open) +
            " wgmma before it in that group); up to " + std::to_string(g.inFlight) +
            " committed group" + (g.inFlight == 1 ? "" : "s") +
            " may still be in flight here (counted in program order, loops twice).\n";
      std::string reads;
      for (ExprId op : {st.operandA, st.operandB}) {
        std::string tile = barrierName(op);
        for (const BarrierUse &u : copiesInto[tile])
          reads += "- `" + syntax::printExpr(m, op) + "`: written by `" + textOf(*u.stmt) +
                   "`, which completes on `" + syntax::printExpr(m, u.stmt->barrier) + "`\n";
      }
      if (!reads.empty())
        md += "\nreads:\n" + reads;
      break;
    }
    case StmtKind::WgmmaCommit: {
      const GroupState &g = before[&st];
      md = "**wgmma_commit**: closes the open group (" + std::to_string(g.open) +
           " wgmma); up to " + std::to_string(std::min<int64_t>(g.inFlight + 1, 8)) +
           " committed groups in flight after it.";
      break;
    }
    case StmtKind::WgmmaWait: {
      const GroupState &g = before[&st];
      md = "**wgmma_wait " + std::to_string(st.count) + "**: waits until at most " +
           std::to_string(st.count) + " committed groups are in flight (up to " +
           std::to_string(g.inFlight) + " before it); groups retire in commit order.";
      break;
    }
    default:
      break;
    }
    if (md.empty())
      continue;
    TypeAnnotation a;
    a.span = st.keywordSpan;
    a.type = "protocol";
    a.markdown = std::move(md);
    program.annotations.push_back(std::move(a));
  }
}

void Checker::checkRole(StmtId id, const Stmt &s) {
  if (!grid.inWarpgroupGrid || grid.role != syntax::kNone) {
    error(DiagId::WarpgroupContext, s.keywordSpan,
          grid.role != syntax::kNone ? "a `role` cannot nest inside another `role`"
                                     : "a `role` stands directly inside `warpgroup_grid`");
    return;
  }
  if (!loopVars.empty()) {
    error(DiagId::WarpgroupContext, s.keywordSpan,
          "a `role` stands directly inside `warpgroup_grid`, not inside a loop");
    return;
  }
  auto first = constantIndex(s.first, "the role's first warpgroup");
  std::optional<int64_t> last = first;
  if (s.last != syntax::kNone)
    last = constantIndex(s.last, "the role's last warpgroup");
  bool ok = first && last;
  Span range{m.expr(s.first).span.begin,
             m.expr(s.last != syntax::kNone ? s.last : s.first).span.end};
  if (ok && (*first < 0 || *last < *first || *last >= grid.warpgroups)) {
    error(DiagId::BadRole, range,
          "role `" + s.name.name + "` names warpgroups " + std::to_string(*first) + " .. " +
              std::to_string(*last) + ", but the warpgroup grid has warpgroups 0 .. " +
              std::to_string(grid.warpgroups - 1))
        .note("`(warpgroup i .. j)` is inclusive and needs 0 <= i <= j < G");
    ok = false;
  }
  if (ok)
    for (const auto &[a, b] : grid.roleRanges)
      if (*first <= b && a <= *last) {
        error(DiagId::BadRole, range,
              "role `" + s.name.name + "` overlaps the warpgroups " + std::to_string(a) + " .. " +
                  std::to_string(b) + " of an earlier role: each warpgroup runs one role");
        ok = false;
        break;
      }
  if (ok)
    grid.roleRanges.push_back({*first, *last});
  if (s.count > 0)
    useCapability("setmaxnreg", s.countSpan);
  pushScope();
  grid.role = id;
  // The range as written when it is one (so the body's errors are its own).
  bool written = first && last && *first <= *last;
  int64_t lo = written ? *first : 0, hi = written ? *last + 1 : grid.warpgroups;
  {
    Origin from(*this, [&] {
      return "`" + std::to_string(lo) + " <= warpgroup_id < " + std::to_string(hi) + "` (role `" +
             s.name.name + "`)";
    });
    prover.assumeRange(grid.warpgroupId, DimExpr::constant(lo), DimExpr::constant(hi));
  }
  gridOf[id] = GridIds{{grid.warpgroupId}, {DimExpr::constant(hi)}, true, {DimExpr::constant(lo)}};
  for (StmtId c : s.body)
    checkStmt(c);
  grid.role = syntax::kNone;
  popScope();
}

Type Checker::checkWarpgroupId(ExprId id, const Expr &e) {
  if (!grid.inWarpgroupGrid) {
    error(DiagId::BadGridId, e.span, "`warpgroup_id` is only meaningful inside `warpgroup_grid`");
    return record(id, Type::error());
  }
  return record(id, Type::indexValue(grid.warpgroupId));
}

// ------------------------------------------------------------- operands

std::optional<BarrierType> Checker::checkBarrierStage(ExprId id, const char *what) {
  const Expr &e = m.expr(id);
  if (e.kind == ExprKind::Error)
    return std::nullopt;
  const Expr *base = baseNameOf(m, id);
  const Binding *b = base ? lookup(base->name.name) : nullptr;
  if (!b || b->type.kind != Type::Barrier) {
    Type t = checkExpr(id);
    if (!t.isError())
      error(DiagId::BarrierPlacement, e.span,
            std::string("`") + what + "` names a stage of a barrier, `B[s]`; `" +
                syntax::printExpr(m, id) + "` is " + typeStr(t));
    return std::nullopt;
  }
  {
    // The barrier's name: a reference (hover, rename), typed as the barrier.
    ExprId baseId = base == &e ? id : e.children[0];
    program.exprSymbol[baseId] = b->symbol;
    addReference(b->symbol, base->span);
    record(baseId, b->type);
  }
  const BarrierType &bt = b->type.barrier;
  if (e.kind != ExprKind::Index || e.children.size() != 2 ||
      m.expr(e.children[1]).kind == ExprKind::Slice) {
    auto &d = error(DiagId::BarrierStage, e.span,
                    std::string("`") + what + "` names one stage of `" + base->name.name + "` (" +
                        std::to_string(bt.stages) + " stages): write `" + base->name.name + "[s]`");
    if (e.kind == ExprKind::Name && bt.stages == 1)
      d.fix(Span{e.span.end, e.span.end}, "[0]", "use stage 0");
    return std::nullopt;
  }
  auto stage = indexValue(e.children[1]);
  if (!stage)
    return std::nullopt;
  solver::Proof lo = prover.proveNonNegative(*stage);
  solver::Proof hi = prover.proveLess(*stage, DimExpr::constant(bt.stages));
  if (!lo.proved() || !hi.proved())
    error(DiagId::BarrierStage, m.expr(e.children[1]).span,
          "stage `" + str(*stage) + "` of `" + base->name.name +
              "` may be out of range: cannot prove 0 <= " + str(*stage) + " < " +
              std::to_string(bt.stages))
        .note("a ring of S stages is usually indexed `k mod S`");
  annotate(e.span, b->type, false);
  return bt;
}

Type Checker::checkStagedOperand(ExprId id) {
  const Expr &e = m.expr(id);
  if (e.kind != ExprKind::Index || e.children.empty())
    return checkExpr(id);
  const Expr &baseExpr = m.expr(e.children[0]);
  const Binding *b = baseExpr.kind == ExprKind::Name ? lookup(baseExpr.name.name) : nullptr;
  size_t count = e.children.size() - 1;
  if (!b || !b->type.isTensor() || b->type.tensor.space != Space::Shared ||
      count >= b->type.tensor.shape.size())
    return checkExpr(id);
  // Fewer indices than dimensions: the leading ones are given, the trailing
  // ones whole (`a_s[s]` is the [128, 64] stage s of a [3, 128, 64] tile).
  Type base = checkExpr(e.children[0]);
  if (base.isError())
    return record(id, Type::error());
  const TensorType &t = base.tensor;
  TensorType view = t;
  view.shape.clear();
  bool ok = true;
  for (size_t i = 0; i < count; ++i) {
    ExprId ix = e.children[i + 1];
    const Expr &x = m.expr(ix);
    const DimExpr &extent = t.shape[i];
    if (x.kind == ExprKind::Slice) {
      record(ix, Type::unit());
      auto start = indexValue(x.children[0]);
      auto len = constantIndex(x.children[1], "the slice length");
      if (!start || !len) {
        ok = false;
        continue;
      }
      DimExpr end = *start + DimExpr::constant(*len);
      if (*len <= 0 || !prover.proveNonNegative(*start).proved() ||
          !prover.proveLessEqual(end, extent).proved())
        error(DiagId::SliceOutOfBounds, x.span,
              "slice `" + syntax::printExpr(m, ix) + "` may be out of bounds of dimension " +
                  std::to_string(i + 1) + " of `" + baseExpr.name.name + "` (extent " +
                  str(extent) + ")");
      view.shape.push_back(DimExpr::constant(*len));
      continue;
    }
    auto v = indexValue(ix);
    if (!v) {
      ok = false;
      continue;
    }
    if (!prover.proveNonNegative(*v).proved() || !prover.proveLess(*v, extent).proved())
      error(DiagId::IndexOutOfBounds, x.span,
            "index `" + str(*v) + "` may be out of bounds of dimension " + std::to_string(i + 1) +
                " of `" + baseExpr.name.name + "`: cannot prove 0 <= " + str(*v) + " < " +
                str(extent));
  }
  for (size_t i = count; i < t.shape.size(); ++i)
    view.shape.push_back(t.shape[i]);
  if (!ok)
    return record(id, Type::error());
  Type result = Type::tensorOf(view);
  annotate(e.span, result, true);
  return record(id, result);
}

// ----------------------------------------------------------- statements

void Checker::checkHopperStmt(const Stmt &s) {
  const char *keyword = s.kind == StmtKind::Arrive           ? "arrive"
                        : s.kind == StmtKind::Wait           ? "wait"
                        : s.kind == StmtKind::TmaLoad        ? "tma_load"
                        : s.kind == StmtKind::Wgmma          ? "wgmma"
                        : s.kind == StmtKind::WgmmaCommit    ? "wgmma_commit"
                        : s.kind == StmtKind::WgmmaWait      ? "wgmma_wait"
                        : s.kind == StmtKind::TmaStore       ? "tma_store"
                        : s.kind == StmtKind::TmaStoreCommit ? "tma_store_commit"
                        : s.kind == StmtKind::TmaStoreWait   ? "tma_store_wait"
                                                             : "fence_proxy_async";
  if (!grid.inWarpgroupGrid) {
    error(DiagId::WarpgroupContext, s.keywordSpan,
          std::string("`") + keyword +
              "` is executed per warpgroup: use it inside `warpgroup_grid`")
        .note("a block's warpgroups are declared with `warpgroup_grid [G]` in place of "
              "`warp_grid`");
    // Type the operands anyway, for hover and independent errors.
    for (ExprId x : {s.barrier, s.round, s.expectTx, s.target, s.value, s.operandA, s.operandB})
      if (x != syntax::kNone)
        (void)checkExpr(x);
    return;
  }
  switch (s.kind) {
  case StmtKind::Arrive: {
    (void)checkBarrierStage(s.barrier, "arrive");
    if (s.clusterArrive)
      (void)checkClusterClause(s); // CheckCluster.cpp
    if (s.expectTx != syntax::kNone) {
      useCapability("mbarrier_try_wait", s.keywordSpan);
      if (auto v = indexValue(s.expectTx)) {
        auto c = v->constantValue();
        if (!c)
          error(DiagId::ExpectTxNotConstant, m.expr(s.expectTx).span,
                "`expect_tx " + str(*v) + "` must fold to a constant byte count");
        else if (*c < 1 || *c >= (int64_t(1) << 20))
          error(DiagId::ExpectTxNotConstant, m.expr(s.expectTx).span,
                "`expect_tx " + std::to_string(*c) +
                    "`: an mbarrier phase counts 1 to 1048575 transaction bytes");
      }
    }
    return;
  }
  case StmtKind::Wait: {
    useCapability("mbarrier_try_wait", s.keywordSpan);
    (void)checkBarrierStage(s.barrier, "wait");
    bool saved = floorDivision;
    floorDivision = true;
    Type r = checkExpr(s.round);
    floorDivision = saved;
    if (!r.isError() && r.kind != Type::Index)
      error(DiagId::ExpectedIndex, m.expr(s.round).span,
            "the round of a `wait` is an index expression (round r = the (r+1)-th completion "
            "of the stage), found " +
                typeStr(r));
    return;
  }
  case StmtKind::TmaLoad: {
    useCapability("tma", s.keywordSpan);
    Type dst = checkStagedOperand(s.target);
    Type src = checkStagedOperand(s.value);
    (void)checkBarrierStage(s.barrier, "tma_load");
    bool multicast = s.multicast && checkClusterClause(s); // CheckCluster.cpp
    if (dst.isError() || src.isError())
      return;
    if (!dst.isTensor() || dst.tensor.space != Space::Shared) {
      error(DiagId::CopyPlacement, m.expr(s.target).span,
            "`tma_load` writes a stage of a cuda:shared tile, but the destination is " +
                typeStr(dst));
      return;
    }
    if (!src.isTensor() || src.tensor.space != Space::Global || src.tensor.isTile) {
      error(DiagId::CopyPlacement, m.expr(s.value).span,
            "`tma_load` reads a slice of a cuda:global tensor, but the source is " + typeStr(src));
      return;
    }
    if (!checkTmaBox(s, /*load=*/true, dst, src))
      return;
    const std::vector<DimExpr> &d = dst.tensor.shape;
    int64_t rows = d[0].constantValue().value_or(0), cols = d[1].constantValue().value_or(0);
    // The destination covers whole 128-byte rows of its tile.
    const Expr *base = baseNameOf(m, s.target);
    const Binding *b = base ? lookup(base->name.name) : nullptr;
    int64_t tileCols = b && b->type.isTensor() && !b->type.tensor.shape.empty()
                           ? b->type.tensor.shape.back().constantValue().value_or(0)
                           : 0;
    if (cols != 64 || tileCols != 64)
      error(DiagId::TmaShape, m.expr(s.target).span,
            "`tma_load` boxes are whole 128-byte rows: the inner extent is 64 elements of " +
                std::string(dtypeName(dst.tensor.dtype)) + ", this box is " +
                printShape(d, symbols));
    else if (rows > 256)
      error(DiagId::TmaShape, m.expr(s.target).span,
            "`tma_load` boxes have at most 256 rows, this one has " + std::to_string(rows));
    // The tensor map's row stride is the tensor's inner extent in bytes,
    // which TMA needs to be a multiple of 16.
    ExprId srcBase = m.expr(s.value).children[0];
    const Type &whole = typeOf(srcBase);
    if (whole.isTensor() && whole.tensor.shape.size() == 2) {
      DimExpr inner = whole.tensor.shape[1];
      if (!prover.proveDivisible(inner, 8).proved()) {
        auto &diag =
            error(DiagId::MisalignedCopy, m.expr(s.value).span,
                  "`tma_load` needs the rows of `" + syntax::printExpr(m, srcBase) +
                      "` to be a multiple of 16 bytes: cannot prove " + str(inner) + " mod 8 = 0");
        if (!inner.isConstant())
          addRequiresFix(diag, str(inner) + " mod 8 = 0");
      }
    }
    if (multicast)
      checkMulticastDestination(s); // CheckCluster.cpp
    return;
  }
  case StmtKind::Wgmma: {
    ++grid.wgmmas;
    const Expr *accName = baseNameOf(m, s.target);
    const Binding *accBinding = accName ? lookup(accName->name.name) : nullptr;
    bool saved = allowWarpgroupTile;
    allowWarpgroupTile = true;
    Type acc = checkExpr(s.target);
    Type accIn = checkExpr(s.value);
    // A may be a 16-bit warpgroup tile (register A).
    const Expr *aName = baseNameOf(m, s.operandA);
    const Binding *aBinding =
        aName && aName == &m.expr(s.operandA) ? lookup(aName->name.name) : nullptr;
    bool registerA = aBinding && aBinding->type.isTensor() && aBinding->type.tensor.warpgroup;
    allowWarpgroupTile = registerA;
    Type a = checkStagedOperand(s.operandA);
    allowWarpgroupTile = saved;
    Type b = checkStagedOperand(s.operandB);
    if (s.zeroWhen != syntax::kNone) {
      Type z = checkExpr(s.zeroWhen);
      if (!z.isError() && z.kind != Type::Bool)
        error(DiagId::TypeMismatch, m.expr(s.zeroWhen).span,
              "`zero_when` takes a comparison of index values, found " + typeStr(z));
    }
    if (acc.isError() || accIn.isError() || a.isError() || b.isError())
      return;
    const Expr &target = m.expr(s.target);
    const Expr &in = m.expr(s.value);
    if (target.kind != ExprKind::Name || !accBinding || accBinding->kind != BindingKind::Register ||
        !acc.isTensor() || !acc.tensor.warpgroup) {
      error(DiagId::WgmmaShape, target.span,
            "`wgmma` accumulates into a warpgroup tile (a `register` tile declared inside "
            "`warpgroup_grid`), assigned whole; `" +
                syntax::printExpr(m, s.target) + "` is " + typeStr(acc));
      return;
    }
    if (in.kind != ExprKind::Name || in.name.name != target.name.name) {
      error(DiagId::WgmmaShape, in.span,
            "`wgmma` updates its accumulator in place: write `" + target.name.name + " <- wgmma " +
                target.name.name + " a b`")
          .fix(in.span, target.name.name, "accumulate into `" + target.name.name + "`");
      return;
    }
    const char *names[2] = {"a", "b"};
    ExprId ops[2] = {s.operandA, s.operandB};
    Type *types[2] = {&a, &b};
    for (int i = 0; i < 2; ++i) {
      const Type &t = *types[i];
      if (i == 0 && registerA)
        continue;
      if (!t.isTensor() || t.tensor.space != Space::Shared) {
        error(DiagId::OperandPlacement, m.expr(ops[i]).span,
              std::string("`wgmma` reads its ") + names[i] +
                  " operand from a cuda:shared tile in this version; it is " + typeStr(t));
        return;
      }
      if (t.tensor.layout != SharedLayout::Swizzle128B) {
        const Expr *base = baseNameOf(m, ops[i]);
        error(DiagId::SharedLayoutMismatch, m.expr(ops[i]).span,
              std::string("`wgmma` reads its ") + names[i] +
                  " operand through a 128-byte swizzle descriptor, but `" +
                  (base ? base->name.name : syntax::printExpr(m, ops[i])) +
                  "` has no layout: declare it `layout=swizzle_128b`");
        return;
      }
      // One 128-byte panel: the descriptors address a single swizzled panel.
      const Expr *base = baseNameOf(m, ops[i]);
      const Binding *bb = base ? lookup(base->name.name) : nullptr;
      if (bb && bb->type.isTensor() && !bb->type.tensor.shape.empty() &&
          bb->type.tensor.shape.back().constantValue().value_or(0) > 64) {
        error(DiagId::WgmmaOperandPanel, m.expr(ops[i]).span,
              std::string("`wgmma` reads its ") + names[i] +
                  " operand from one 128-byte panel in this version, but `" + base->name.name +
                  "` has rows of " + str(bb->type.tensor.shape.back()) +
                  " elements; use a tile with 64 columns");
        return;
      }
    }
    DType da = a.tensor.dtype, db = b.tensor.dtype;
    if ((da != DType::BF16 && da != DType::F16) || da != db || acc.tensor.dtype != DType::F32) {
      error(DiagId::WgmmaDTypes, s.span,
            std::string("`wgmma` takes a and b of one 16-bit type (BF16 or F16) and an F32 "
                        "accumulator; here a is ") +
                dtypeName(da) + ", b is " + dtypeName(db) + ", the accumulator " +
                dtypeName(acc.tensor.dtype));
      return;
    }
    useCapability(da == DType::BF16 ? "wgmma_bf16" : "wgmma_f16", s.keywordSpan);
    const auto &sa = a.tensor.shape, &sb = b.tensor.shape, &sc = acc.tensor.shape;
    auto cst = [](const DimExpr &d) { return d.constantValue().value_or(-1); };
    if (sa.size() != 2 || sb.size() != 2 || sc.size() != 2 || cst(sa[0]) != 64 ||
        cst(sc[0]) != 64 || cst(sb[0]) != cst(sc[1]) || cst(sa[1]) != cst(sb[1]) ||
        cst(sa[1]) % 16 != 0) {
      error(DiagId::WgmmaShape, s.span,
            "`wgmma` computes acc[64, N] += a[64, K] * transpose(b[N, K]) with K a multiple of "
            "16; here acc is " +
                printShape(sc, symbols) + ", a " + printShape(sa, symbols) + ", b " +
                printShape(sb, symbols))
          .label(m.expr(s.operandA).span, "a " + printShape(sa, symbols))
          .label(m.expr(s.operandB).span, "b " + printShape(sb, symbols));
      return;
    }
    // The descriptors: rows start on a 1024-byte swizzle atom (8 rows), the
    // K offset is a constant multiple of 16 elements.
    for (int i = 0; i < 2; ++i) {
      const Expr &x = m.expr(ops[i]);
      if (x.kind != ExprKind::Index)
        continue;
      const Expr *base = baseNameOf(m, ops[i]);
      const Binding *bb = base ? lookup(base->name.name) : nullptr;
      size_t rank = bb && bb->type.isTensor() ? bb->type.tensor.shape.size() : 0;
      size_t count = x.children.size() - 1;
      if (rank < 2 || count < rank - 1)
        continue; // the rows (and columns) are whole
      ExprId rowIx = x.children[rank - 1];
      const Expr &row = m.expr(rowIx);
      if (row.kind == ExprKind::Slice) {
        if (auto start = exprValueOrNull(row.children[0]);
            start && !prover.proveDivisible(*start, 8).proved())
          error(DiagId::WgmmaShape, row.span,
                std::string("the rows of the ") + names[i] + " operand start at `" + str(*start) +
                    "`, not provably a multiple of 8 (the 128-byte swizzle repeats every 8 rows)");
      }
      if (count == rank) {
        const Expr &col = m.expr(x.children[rank]);
        if (col.kind == ExprKind::Slice) {
          auto start = exprValueOrNull(col.children[0]);
          auto c = start ? start->constantValue() : std::nullopt;
          if (!c || *c % 16 != 0)
            error(DiagId::WgmmaShape, col.span,
                  std::string("the K offset of the ") + names[i] +
                      " operand must be a constant multiple of 16");
        }
      }
    }
    return;
  }
  case StmtKind::WgmmaCommit:
    if (grid.firstGroupOp.empty())
      grid.firstGroupOp = s.keywordSpan;
    return;
  case StmtKind::WgmmaWait:
    if (grid.firstGroupOp.empty())
      grid.firstGroupOp = s.keywordSpan;
    if (s.count > 7)
      error(DiagId::WgmmaWaitCount, s.countSpan.empty() ? s.keywordSpan : s.countSpan,
            "`wgmma_wait " + std::to_string(s.count) +
                "`: at most 7 committed wgmma groups can be left in flight");
    return;
  case StmtKind::FenceProxyAsync: {
    // The fence is part of the TMA-store epilogue: a kernel that declares
    // `tma_store` (whose targets all have the fence) need not name it too.
    bool tmaStore = false;
    if (current)
      for (const syntax::Requirement &r : current->item->requirements)
        for (const syntax::Ident &c : r.capabilities)
          tmaStore = tmaStore || c.name == "tma_store";
    useCapability(tmaStore ? "tma_store" : "fence_proxy_async", s.keywordSpan);
    return;
  }
  case StmtKind::TmaStore:
  case StmtKind::TmaStoreCommit:
  case StmtKind::TmaStoreWait:
    return checkTmaStore(s); // CheckPersistent.cpp
  default:
    return;
  }
}


bool Checker::checkTmaBox(const Stmt &s, bool load, const Type &shared, const Type &global) {
  const std::string op = load ? "`tma_load`" : "`tma_store`";
  ExprId sharedExpr = load ? s.target : s.value, globalExpr = load ? s.value : s.target;
  const char *sharedRole = load ? "destination" : "source";
  const char *globalRole = load ? "source" : "destination";
  if (shared.tensor.layout != SharedLayout::Swizzle128B) {
    const Expr *base = baseNameOf(m, sharedExpr);
    error(DiagId::SharedLayoutMismatch, m.expr(sharedExpr).span,
          op + (load ? " writes" : " reads") + " in the 128-byte swizzled layout, but `" +
              (base ? base->name.name : syntax::printExpr(m, sharedExpr)) +
              "` has no layout: declare it `layout=swizzle_128b`");
    return false;
  }
  if (shared.tensor.dtype != global.tensor.dtype || dtypeBytes(shared.tensor.dtype) != 2) {
    error(load ? DiagId::TmaDType : DiagId::TmaStoreDType, s.span,
          op + " copies bytes unchanged between tiles of one 16-bit type: " + sharedRole +
              " is " + dtypeName(shared.tensor.dtype) + ", " + globalRole + " is " +
              dtypeName(global.tensor.dtype));
    return false;
  }
  DiagId shapeCode = load ? DiagId::TmaShape : DiagId::TmaStoreShape;
  const Expr &ge = m.expr(globalExpr);
  bool sliced = ge.kind == ExprKind::Index && ge.children.size() == 3 &&
                m.expr(ge.children[1]).kind == ExprKind::Slice &&
                m.expr(ge.children[2]).kind == ExprKind::Slice;
  if (!sliced) {
    error(shapeCode, ge.span,
          op + (load ? " reads" : " writes") +
              " a 2-D box of a 2-D global tensor: write `t[r ..+ R, c ..+ C]`");
    return false;
  }
  const std::vector<DimExpr> &sh = shared.tensor.shape, &gh = global.tensor.shape;
  if (sh.size() != 2 || sh != gh) {
    error(shapeCode, s.span,
          op + " copies a 2-D box: " + sharedRole + " " + printShape(sh, symbols) + ", " +
              globalRole + " " + printShape(gh, symbols))
        .label(m.expr(sharedExpr).span, std::string(sharedRole) + " " + printShape(sh, symbols))
        .label(m.expr(globalExpr).span, std::string(globalRole) + " " + printShape(gh, symbols));
    return false;
  }
  return true;
}

} // namespace kina::sema
