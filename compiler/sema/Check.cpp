//===- Check.cpp - Items, signatures and statements -----------------------===//
//
// The statement half of the checker: item signatures (dims, requires facts,
// parameters, results), grids, declarations, loops, copies and stores, then
// the per-item resource, capability and effect checks. Expressions are in
// CheckExpr.cpp; the fence typestate in Fences.cpp.
//
//===----------------------------------------------------------------------===//
#include "sema/Analysis.h"
#include "sema/BlockLevel.h"
#include "sema/Checker.h"

#include "diag/Spelling.h"

#include <algorithm>
#include <cstdint>
#include <functional>

namespace kina::sema {

Checker::Checker(const Module &module, const CheckOptions &options, DiagnosticSink &sink)
    : m(module), options(options), sink(sink), program(),
      symbols(*(program.symbols = std::make_shared<SymbolTable>())), prover(symbols) {
  active = &sink;
  if (options.ideTables && options.exprTypeTable)
    program.exprTypes.resize(m.exprs.size());
  else
    typePages.resize(m.exprs.size() / kTypePage + 1);
  program.exprSymbol.assign(m.exprs.size(), -1);
  target = target::lookupTarget(options.target);
}

const Binding *Checker::lookup(const std::string &name) const {
  for (auto it = scopes.rbegin(); it != scopes.rend(); ++it) {
    auto found = it->find(name);
    if (found != it->end())
      return &found->second;
  }
  return nullptr;
}

int Checker::defineSymbol(const syntax::Ident &name, SymbolKind kind, std::string_view type) {
  SymbolInfo info;
  info.name = name.name;
  info.kind = kind;
  info.definition = name.span;
  if (options.ideTables)
    info.type = type;
  info.item = current ? current->itemIndex : -1;
  program.symbolInfos.push_back(std::move(info));
  return static_cast<int>(program.symbolInfos.size() - 1);
}

void Checker::bind(const syntax::Ident &name, Binding binding) {
  if (!name.valid())
    return;
  auto &scope = scopes.back();
  auto existing = scope.find(name.name);
  if (existing != scope.end() && existing->second.symbol >= 0) {
    const SymbolInfo &prev = program.symbolInfos[existing->second.symbol];
    error(DiagId::DuplicateDefinition, name.span, "`" + name.name + "` is already defined")
        .label(prev.definition, "first defined here");
    return;
  }
  // A dimension keeps one meaning in its kernel: a `let M = 5` inside the
  // body would make `M` 5 in indices while `requires` and the launch read
  // the dimension.
  if (binding.kind != BindingKind::Dim)
    for (size_t i = scopes.size() - 1; i-- > 0;)
      if (auto dim = scopes[i].find(name.name);
          dim != scopes[i].end() && dim->second.kind == BindingKind::Dim && dim->second.symbol >= 0) {
        error(DiagId::DuplicateDefinition, name.span,
              "`" + name.name + "` is a dimension of this item; a local of that name would hide it")
            .label(program.symbolInfos[dim->second.symbol].definition, "the dimension");
        return;
      }
  scope[name.name] = std::move(binding);
}

void Checker::addReference(int symbol, Span span) {
  if (symbol >= 0 && options.ideTables)
    program.symbolInfos[symbol].references.push_back(span);
}

void Checker::annotate(Span span, const Type &type, bool inlay) {
  if (type.isError() || !options.ideTables)
    return;
  TypeAnnotation a;
  a.span = span;
  a.type = typeStr(type);
  if (type.isTensor())
    a.shape = printShape(type.tensor.shape, symbols);
  a.inlay = inlay && type.isTensor();
  program.annotations.push_back(std::move(a));
}

void Checker::useCapability(const std::string &name, Span site) {
  if (!current)
    return;
  current->capabilities.insert(name);
  current->capabilitySites.emplace(name, site);
}

void Checker::addRequiresFix(Diagnostic &d, const std::string &fact) {
  if (!current)
    return;
  Span at{current->lastRequiresEnd.end, current->lastRequiresEnd.end};
  d.fix(at, "\n" + current->indent + "requires (" + fact + ")",
        "add `requires (" + fact + ")`");
}

// ------------------------------------------------------------------ items

CheckedProgram Checker::run() {
  itemSummaries.resize(m.items.size());
  itemCheckState.assign(m.items.size(), 0);
  for (size_t i = 0; i < m.items.size(); ++i) {
    const Item &item = m.items[i];
    if (!item.name.valid())
      continue;
    auto [it, inserted] = itemsByName.emplace(item.name.name, static_cast<int>(i));
    if (!inserted) {
      if (options.fileDiagnostics)
        error(DiagId::DuplicateDefinition, item.name.span,
            "`" + item.name.name + "` is already defined in this file")
          .label(m.items[it->second].name.span, "first defined here");
      continue;
    }
    SymbolInfo info;
    info.name = item.name.name;
    info.kind = SymbolKind::Item;
    info.definition = item.name.span;
    program.symbolInfos.push_back(std::move(info));
  }
  if (options.onlyItems.empty()) {
    for (size_t i = 0; i < m.items.size(); ++i) {
      checkItem(static_cast<int>(i));
      dropExprTypes();
    }
  } else {
    // Callees reached from the selected items are checked into a scratch sink.
    selected.assign(m.items.size(), false);
    for (int i : options.onlyItems)
      if (i >= 0 && static_cast<size_t>(i) < m.items.size())
        selected[i] = true;
    for (size_t i = 0; i < m.items.size(); ++i)
      if (selected[i]) {
        checkItem(static_cast<int>(i));
        dropExprTypes();
      }
  }
  for (size_t i = 0; i < m.items.size(); ++i)
    if (m.items[i].kind == syntax::ItemKind::Kernel)
      program.kernels.push_back(itemSummaries[i]);
  return std::move(program);
}

void Checker::checkItem(int index) {
  if (itemCheckState[index] != 0)
    return;
  itemCheckState[index] = 1;
  const Item &item = m.items[index];

  // Checking is re-entrant for callee tile functions (capabilities propagate
  // through calls); save the caller's state.
  auto savedScopes = std::move(scopes);
  GridContext savedGrid = std::move(grid);
  ItemState *savedCurrent = current;
  scopes.clear();
  grid = GridContext{};
  ItemState state;
  state.item = &item;
  state.itemIndex = index;
  state.sinkAtStart = active;
  state.diagsAtStart = active->diagnostics().size();
  current = &state;
  prover.push();
  pushScope();

  checkSignature(item, state);
  checkBlock(item.body);

  if (item.kind == syntax::ItemKind::Kernel) {
    checkResources(item, state);
  } else {
    bool returns = !item.body.empty() && m.stmt(item.body.back()).kind == StmtKind::Return;
    if (!returns)
      error(DiagId::MissingReturn, item.name.span,
            "`" + item.name.name + "` must end with `return <value>`");
  }
  checkCapabilities(item, state);
  checkLowerable(*this, item); // one judge: target/Lowerable.h (CheckLowerable.cpp)
  if (item.kind == syntax::ItemKind::Kernel)
    checkProtocols(*this, item); // Hopper barrier protocol (Protocol.h)
  checkWgmmaLoops(*this, item);  // after the proofs: K0111 does not hide theirs
  // The proofs over the whole body run last, so they can leave alone the
  // statements the checks above already rejected (follow-on errors).
  checkRegisterInit(*this, item);
  if (item.kind == syntax::ItemKind::Kernel) {
    checkResultCoverage(*this, item);
    checkDivergence(*this, item);
    checkSharedAlignment(*this, item);
    checkSharedInit(*this, item, checkFences(*this, item));
  }

  popScope();
  prover.pop();
  scopes = std::move(savedScopes);
  grid = std::move(savedGrid);
  current = savedCurrent;
  itemCheckState[index] = 2;
}

std::optional<Type> Checker::resolveType(syntax::TypeId id, bool isDeviceContext) {
  if (id == syntax::kNone)
    return std::nullopt;
  const syntax::TypeRef &t = m.type(id);
  if (t.kind == syntax::TypeKind::Barrier) {
    Type bt;
    bt.kind = Type::Barrier;
    bool ok = true;
    auto count = [&](ExprId e, const char *what, int64_t lo, int64_t hi, int64_t &out) {
      auto c = constantIndex(e, what);
      if (!c) {
        ok = false;
        return;
      }
      if (*c < lo || *c > hi) {
        error(DiagId::BarrierShape, m.expr(e).span,
              std::string(what) + " is " + std::to_string(*c) + "; it must be " +
                  std::to_string(lo) + " to " + std::to_string(hi));
        ok = false;
        return;
      }
      out = *c;
    };
    count(t.stages, "the number of barrier stages", 1, 64, bt.barrier.stages);
    count(t.arrivals, "the barrier's arrival count", 1, 1024, bt.barrier.arrivals);
    if (!ok)
      return std::nullopt;
    return bt;
  }
  if (t.kind == syntax::TypeKind::Error || !t.dtype.valid())
    return std::nullopt;
  auto dtype = parseDType(t.dtype.name);
  if (!dtype) {
    auto &d = error(DiagId::UnknownDType, t.dtype.span,
                    "unknown element type `" + t.dtype.name + "`");
    std::string best;
    unsigned bestLen = 3;
    for (const std::string &n : dtypeNames()) {
      std::string a = t.dtype.name, b = n;
      std::transform(a.begin(), a.end(), a.begin(), ::toupper);
      if (a == b) {
        best = n;
        break;
      }
      (void)bestLen;
    }
    if (!best.empty())
      d.fix(t.dtype.span, best, "replace with `" + best + "`");
    d.note("element types: F16, BF16, F32, F64, TF32, I8, U8, I32, I64, E4M3, E5M2");
    return std::nullopt;
  }
  if (t.kind == syntax::TypeKind::Scalar)
    return Type::scalarOf(*dtype);
  TensorType tt;
  tt.dtype = *dtype;
  tt.isTile = t.kind == syntax::TypeKind::Tile;
  bool ok = true;
  for (ExprId dim : t.shape) {
    auto v = indexValue(dim);
    if (!v) {
      ok = false;
      continue;
    }
    if (tt.isTile && !v->isConstant() && !inTileSignature) {
      error(DiagId::NonConstantTileShape, m.expr(dim).span,
            "tile extent `" + str(*v) + "` is not a compile-time constant");
      ok = false;
      continue;
    }
    if (auto c = v->constantValue(); c && *c <= 0) {
      error(DiagId::BadGrid, m.expr(dim).span, "extents must be positive, got " + std::to_string(*c));
      ok = false;
    }
    tt.shape.push_back(*v);
  }
  // The generated code indexes a tile or tensor with 32-bit element offsets
  // (and the resource sums multiply extents): more than 2^31 - 1 elements is
  // refused here, so no later stage multiplies huge extents (K0804).
  if (ok) {
    uint64_t elements = 1;
    bool wraps = false;
    for (const DimExpr &d : tt.shape)
      if (auto c = d.constantValue())
        wraps = wraps || __builtin_mul_overflow(elements, static_cast<uint64_t>(*c), &elements);
    if (wraps || elements > uint64_t(INT32_MAX)) {
      error(DiagId::ExtentTooLarge, t.shapeSpan.empty() ? t.span : t.shapeSpan,
            std::string(tt.isTile ? "the tile" : "the tensor") + " has " +
                (wraps ? std::string("more than 2^64") : std::to_string(elements)) + " elements (" +
                printShape(tt.shape, symbols) +
                "); a tile or tensor has at most 2147483647 (2^31 - 1), since element "
                "offsets are 32-bit");
      ok = false;
    }
  }
  switch (t.placement.kind) {
  case syntax::PlacementKind::None:
    if (isDeviceContext) {
      error(DiagId::MissingPlacement, t.span, "type has no placement; add `on=...`")
          .fix(Span{t.span.end - 1, t.span.end - 1}, ", on=cuda:global", "add `on=cuda:global`");
    }
    tt.space = Space::Host;
    break;
  case syntax::PlacementKind::Host: tt.space = Space::Host; break;
  case syntax::PlacementKind::Global: tt.space = Space::Global; break;
  case syntax::PlacementKind::Shared: tt.space = Space::Shared; break;
  case syntax::PlacementKind::Register: tt.space = Space::Register; break;
  }
  if (!resolveMesh(t, tt, isDeviceContext))
    ok = false;
  if (t.layout.valid()) {
    auto layout = parseSharedLayout(t.layout.name);
    if (!layout) {
      auto &d = error(DiagId::SharedLayoutMismatch, t.layout.span,
                      "unknown shared layout `" + t.layout.name +
                          "`; the known layout is "
                          "`swizzle_128b`");
      if (editDistance(t.layout.name, "swizzle_128b") <= 3)
        d.fix(t.layout.span, "swizzle_128b", "replace with `swizzle_128b`");
      ok = false;
    } else if (!tt.isTile || tt.space != Space::Shared) {
      error(DiagId::SharedLayoutMismatch, t.layout.span,
            "`layout=" + t.layout.name + "` is a layout of shared tiles; this type is on " +
                spaceName(tt.space));
      ok = false;
    } else {
      tt.layout = *layout;
      // The 128-byte swizzle: rows of 64 16-bit elements, whole 8-row atoms.
      int64_t cols = tt.shape.empty() ? 0 : tt.shape.back().constantValue().value_or(0);
      int64_t rows =
          tt.shape.size() < 2 ? 0 : tt.shape[tt.shape.size() - 2].constantValue().value_or(0);
      // Wider rows are stored as 128-byte column panels, panel-major.
      if (ok && (dtypeBytes(tt.dtype) != 2 || tt.shape.size() < 2 || cols < 64 || cols % 64 != 0 ||
                 rows % 8 != 0))
        error(DiagId::SharedLayoutMismatch, t.span,
              std::string("a swizzle_128b tile holds rows of 128-byte panels (a multiple of 64 "
                          "elements of a 16-bit type) in whole 8-row atoms; this one is ") +
                  dtypeName(tt.dtype) + " " + printShape(tt.shape, symbols));
      // Panel counts that are not powers of two (192 columns: 3 panels)
      // stored wrong through stmatrix + tma_store on the H200 (tests/lit/
      // sema-hopper/swizzle-three-panels.kina); rejected until that is fixed.
      else if (ok && (cols / 64 & (cols / 64 - 1)) != 0)
        error(DiagId::SharedLayoutMismatch, t.span,
              "a swizzle_128b tile is 1, 2, 4, 8, ... 128-byte panels wide (64, 128, 256, "
              "512, ... columns) in this version; this one is " +
                  std::to_string(cols / 64) + " panels (" + std::to_string(cols) + " columns)");
    }
  }
  if (!ok)
    return std::nullopt;
  return Type::tensorOf(std::move(tt));
}

void Checker::checkSignature(const Item &item, ItemState &state) {
  state.lastRequiresEnd = item.dimsSpan.empty() ? item.name.span : item.dimsSpan;
  // Dims are positive symbols.
  auto &dimAtoms = itemDimAtoms[state.itemIndex];
  dimAtoms.clear();
  for (const syntax::Ident &dim : item.dims) {
    solver::AtomId atom = symbols.newSymbol(dim.name, solver::SymbolKind::Dim);
    dimAtoms.emplace_back(dim.name, atom);
    DimExpr sym = DimExpr::atom(atom);
    Origin from(*this, [&] { return "`" + dim.name + " >= 1` (a dimension)"; });
    prover.assumeDim(sym);
    Binding b{BindingKind::Dim, defineSymbol(dim, SymbolKind::Dim, "Index (dimension)"),
              Type::indexValue(sym)};
    bind(dim, std::move(b));
  }
  // `requires (e)` facts.
  for (const syntax::Requirement &r : item.requirements) {
    state.lastRequiresEnd = r.span;
    if (r.isCapability)
      continue;
    if (r.condition == syntax::kNone)
      continue;
    const Expr &c = m.expr(r.condition);
    if (c.kind != ExprKind::Binary) {
      error(DiagId::ExpectedIndex, c.span,
            "a `requires` condition is a comparison such as `M mod 128 = 0` or `K >= 16`");
      continue;
    }
    auto lhs = indexValue(c.children[0]);
    auto rhs = indexValue(c.children[1]);
    if (!lhs || !rhs)
      continue;
    record(r.condition, Type{Type::Bool});
    Origin from(
        *this, [&] { return "`requires (" + syntax::printExpr(m, r.condition) + ")`"; }, true);
    if (!prover.assumeComparison(c.op, *lhs, *rhs))
      error(DiagId::ExpectedIndex, c.span,
            "this `requires` condition is not a linear comparison the checker can use");
  }
  bool device = item.kind != syntax::ItemKind::HostFunction;
  // Tile functions are shape-polymorphic: their signature's tiles may have
  // symbolic extents, fixed at each call site.
  inTileSignature = item.kind == syntax::ItemKind::TileFunction;
  for (const syntax::Param &p : item.params) {
    auto type = resolveType(p.type, device);
    Type t = type.value_or(Type::error());
    if (t.kind == Type::Barrier) {
      error(DiagId::BarrierPlacement, m.type(p.type).span,
            "parameter `" + p.name.name +
                "`: a `Barrier` is declared in a kernel with `shared`, "
                "it is not passed in");
      t = Type::error();
    }
    if (t.isTensor()) {
      t.tensor.writable = p.isMutable;
      if (item.kind == syntax::ItemKind::Kernel && t.tensor.space != Space::Global &&
          m.type(p.type).placement.kind != syntax::PlacementKind::None) {
        auto &d = error(DiagId::KernelParamPlacement, m.type(p.type).placement.span.empty()
                                                          ? m.type(p.type).span
                                                          : m.type(p.type).placement.span,
                        "kernel parameter `" + p.name.name + "` is on " +
                            spaceName(t.tensor.space) +
                            "; kernel tensors must be on cuda:global");
        if (!m.type(p.type).placement.span.empty())
          d.fix(m.type(p.type).placement.span, "cuda:global", "use `cuda:global`");
      }
    }
    Binding b{BindingKind::Param, defineSymbol(p.name, SymbolKind::Param, symbolType(t)), t};
    bind(p.name, std::move(b));
  }
  if (item.result != syntax::kNone) {
    auto type = resolveType(item.result, device);
    Type t = type.value_or(Type::error());
    if (t.kind == Type::Barrier) {
      error(DiagId::BarrierPlacement, m.type(item.result).span,
            "a `Barrier` cannot be a result: declare it in the body with `shared`");
      t = Type::error();
    }
    if (t.isTensor())
      t.tensor.writable = true;
    if (item.kind == syntax::ItemKind::Kernel) {
      if (t.isTensor() && t.tensor.space != Space::Global &&
          m.type(item.result).placement.kind != syntax::PlacementKind::None)
        error(DiagId::KernelParamPlacement, m.type(item.result).span,
              std::string("kernel result is on ") + spaceName(t.tensor.space) +
                  "; kernel results must be on cuda:global");
      syntax::Ident name = item.resultName.valid()
                               ? item.resultName
                               : syntax::Ident{"result", m.type(item.result).span};
      Binding b{BindingKind::Result, defineSymbol(name, SymbolKind::Result, symbolType(t)), t};
      bind(name, std::move(b));
    }
  }
  inTileSignature = false;
  KernelSummary &summary = itemSummaries[state.itemIndex];
  summary.item = state.itemIndex;
  summary.name = item.name.name;
  for (const syntax::Requirement &r : item.requirements)
    if (r.isCapability) {
      summary.declaredTarget = r.target.name;
      for (const auto &c : r.capabilities)
        summary.requiredCapabilities.push_back(c.name);
    }
  if (options.ideTables)
    summary.signature = printSignature(item);
}

std::string Checker::printSignature(const Item &item) {
  std::string sig = (item.kind == syntax::ItemKind::Kernel ? "kernel "
                     : item.kind == syntax::ItemKind::TileFunction ? "tile "
                                                                    : "fn ") +
                    item.name.name;
  if (!item.dims.empty()) {
    sig += " [";
    for (size_t i = 0; i < item.dims.size(); ++i)
      sig += (i ? ", " : "") + item.dims[i].name;
    sig += "]";
  }
  for (const syntax::Requirement &r : item.requirements) {
    if (r.isCapability) {
      sig += "\n    requires capability(" + r.target.name;
      for (const auto &c : r.capabilities)
        sig += ", " + c.name;
      sig += ")";
    } else if (r.condition != syntax::kNone) {
      sig += "\n    requires (" + syntax::printExpr(m, r.condition) + ")";
    }
  }
  for (const syntax::Param &p : item.params) {
    const Binding *b = lookup(p.name.name);
    sig += "\n    (" + p.name.name + " : " + (p.isMutable ? "mut " : "") +
           (b ? typeStr(b->type) : std::string("?")) + ")";
  }
  if (item.result != syntax::kNone) {
    Type rt = resolveTypeQuiet(item.result);
    sig += "\n    : " + (item.resultName.valid() ? "(" + item.resultName.name + " : " : std::string()) +
           typeStr(rt) + (item.resultName.valid() ? ")" : "");
  }
  return sig;
}

// ------------------------------------------------------------- statements

void Checker::checkBlock(const std::vector<StmtId> &body) {
  pushScope();
  for (StmtId s : body)
    checkStmt(s);
  popScope();
}

void Checker::checkStmt(StmtId id) {
  const Stmt &s = m.stmt(id);
  bool inKernel = current && current->item->kind == syntax::ItemKind::Kernel;
  auto notHere = [&](const char *what) {
    error(DiagId::InvalidStatementContext, s.keywordSpan, std::string(what));
  };
  switch (s.kind) {
  case StmtKind::BlockGrid: {
    if (!inKernel)
      return notHere("`block_grid` is only allowed in a kernel body");
    if (grid.inBlockGrid)
      return notHere("`block_grid` cannot nest inside another `block_grid`");
    if (s.shape.empty() || s.shape.size() > 3) {
      error(DiagId::BadGrid, s.shapeSpan.empty() ? s.keywordSpan : s.shapeSpan,
            "`block_grid` takes 1 to 3 extents, got " + std::to_string(s.shape.size()));
    }
    pushScope();
    grid.inBlockGrid = true;
    grid.warpLevelGrid = Span{};
    grid.blockGrid.clear();
    grid.blockIds.clear();
    for (size_t axis = 0; axis < s.shape.size() && axis < 3; ++axis) {
      auto extent = indexValue(s.shape[axis]);
      DimExpr e = extent.value_or(DimExpr::constant(1));
      // An extent of 0 (or one that may be <= 0 under the `requires` facts)
      // launches no blocks: every launch would be refused (K1310) and the
      // coverage proofs would hold vacuously over an empty grid.
      // (An extent already in error, such as an inexact `M/128`, K0201, is
      // not reported twice.)
      Span at = m.expr(s.shape[axis]).span;
      if (extent && !errorWithin(*this, at)) {
        solver::Proof p = prover.proveLessEqual(DimExpr::constant(1), e);
        if (!p.proved()) {
          auto c = e.constantValue();
          auto &d = error(DiagId::BadGrid, at,
                          c ? "`block_grid` extents must be at least 1, got " + std::to_string(*c)
                            : "`block_grid` extent `" + syntax::printExpr(m, s.shape[axis]) +
                                  "` may be less than 1: cannot prove " + str(e) + " >= 1");
          if (!c && p.Result == solver::Verdict::Disproved)
            d.note("it is less than 1 whenever the `requires` facts hold");
          else if (!c && !p.Suggestions.empty() && !p.Suggestions[0].RequiresClauses.empty())
            addRequiresFix(d, p.Suggestions[0].Text);
        }
      }
      grid.blockGrid.push_back(e);
      DimExpr id = symbols.newSymbolExpr("block_id " + std::to_string(axis),
                                         solver::SymbolKind::BlockId);
      {
        Origin from(*this, [&] {
          return "`0 <= block_id " + std::to_string(axis) + " < " + str(e) + "` (the block grid)";
        });
        prover.assumeRange(id, DimExpr::constant(0), e);
      }
      grid.blockIds.push_back(id);
    }
    gridOf[id] = GridIds{grid.blockIds, grid.blockGrid, false};
    grid.blockGridStmt = id;
    grid.cluster.clear();
    if (!s.cluster.empty() || !s.clusterSpan.empty())
      checkCluster(s);
    // A block-level body (register tiles, no warp grid; BlockLevel.h) is
    // checked as `warp_grid [1]`.
    bool blockLevel = isBlockLevelGrid(m, s);
    if (blockLevel) {
      blockLevelBody = true;
      current->blockLevel = true;
      grid.inWarpGrid = true;
      grid.warpGrid = {1};
      grid.warpIds = {DimExpr::constant(0)};
      current->threadsPerBlock = 32;
    }
    for (StmtId c : s.body)
      checkStmt(c);
    if (blockLevel) {
      blockLevelBody = false;
      grid.inWarpGrid = false;
      grid.warpGrid.clear();
      grid.warpIds.clear();
    }
    checkClusterUniform(s); // CheckCluster.cpp
    grid.inBlockGrid = false;
    grid.cluster.clear();
    grid.blockGridStmt = syntax::kNone;
    popScope();
    return;
  }
  case StmtKind::WarpGrid: {
    if (!grid.inBlockGrid)
      return notHere("`warp_grid` must be inside a `block_grid`");
    if (grid.inWarpGrid)
      return notHere("`warp_grid` cannot nest inside another `warp_grid`");
    if (grid.inWarpgroupGrid || (!grid.warpLevelGrid.empty() && grid.warpLevelIsWarpgroup)) {
      error(DiagId::WarpgroupContext, s.keywordSpan,
            "a block has either a `warp_grid` or a `warpgroup_grid`, not both")
          .label(grid.warpLevelGrid, "the block's `warpgroup_grid`");
      return;
    }
    grid.warpLevelGrid = s.keywordSpan;
    grid.warpLevelIsWarpgroup = false;
    if (s.shape.empty() || s.shape.size() > 2)
      error(DiagId::BadGrid, s.shapeSpan.empty() ? s.keywordSpan : s.shapeSpan,
            "`warp_grid` takes 1 or 2 extents, got " + std::to_string(s.shape.size()));
    pushScope();
    grid.inWarpGrid = true;
    grid.warpGrid.clear();
    grid.warpIds.clear();
    int64_t warps = 1;
    for (size_t axis = 0; axis < s.shape.size() && axis < 2; ++axis) {
      auto c = constantIndex(s.shape[axis], "warp_grid extent");
      int64_t v = c.value_or(1);
      if (c && *c <= 0) {
        error(DiagId::BadGrid, m.expr(s.shape[axis]).span, "warp_grid extents must be positive");
        v = 1;
      }
      warps *= v;
      grid.warpGrid.push_back(v);
      DimExpr id = symbols.newSymbolExpr("warp_id " + std::to_string(axis),
                                         solver::SymbolKind::WarpId);
      {
        Origin from(*this, [&] {
          return "`0 <= warp_id " + std::to_string(axis) + " < " + std::to_string(v) +
                 "` (the warp grid)";
        });
        prover.assumeRange(id, DimExpr::constant(0), DimExpr::constant(v));
      }
      grid.warpIds.push_back(id);
    }
    {
      GridIds ids{grid.warpIds, {}, true};
      for (int64_t w : grid.warpGrid)
        ids.extents.push_back(DimExpr::constant(w));
      gridOf[id] = std::move(ids);
    }
    current->threadsPerBlock = static_cast<unsigned>(std::min<int64_t>(warps * 32, 1 << 30));
    if (warps * 32 > 1024)
      error(DiagId::ThreadLimit, s.shapeSpan,
            "warp_grid gives " + std::to_string(warps) + " warps = " + std::to_string(warps * 32) +
                " threads per block; at most 1024 are allowed");
    for (StmtId c : s.body)
      checkStmt(c);
    grid.inWarpGrid = false;
    popScope();
    return;
  }
  case StmtKind::Let: {
    Type t = s.value == syntax::kNone ? Type::error() : checkExpr(s.value);
    if (t.kind == Type::Index) {
      // Grid ids print by the name a `let` gives them (`block_m`, not `block_id 0`).
      if (auto atom = t.index.asAtom()) {
        const solver::AtomInfo &info = symbols.info(*atom);
        if (info.Kind == solver::AtomKind::Symbol &&
            (info.SymKind == solver::SymbolKind::BlockId ||
             info.SymKind == solver::SymbolKind::WarpId) &&
            (info.Name.rfind("block_id ", 0) == 0 || info.Name.rfind("warp_id ", 0) == 0))
          symbols.renameSymbol(*atom, s.name.name);
      }
      // A let names a value; binding it to the expression keeps every fact.
      Binding b{BindingKind::Let, defineSymbol(s.name, SymbolKind::Let,
                                          options.ideTables ? "Index = " + str(t.index) : ""),
                t};
      bind(s.name, std::move(b));
    } else {
      int sym = defineSymbol(s.name, SymbolKind::Let, symbolType(t));
      letValues[sym] = s.value;
      Binding b{BindingKind::Let, sym, t};
      bind(s.name, std::move(b));
    }
    annotate(s.name.span, t, t.isTensor());
    return;
  }
  case StmtKind::Shared:
  case StmtKind::Register: {
    bool shared = s.kind == StmtKind::Shared;
    auto type = resolveType(s.type, true);
    Type t = type.value_or(Type::error());
    if (t.kind == Type::Barrier ||
        (s.type != syntax::kNone && m.type(s.type).kind == syntax::TypeKind::Barrier)) {
      if (!inKernel)
        notHere("barriers belong in a kernel");
      else if (!shared)
        error(DiagId::BarrierPlacement, s.keywordSpan,
              "a `Barrier` lives in shared memory: declare it with `shared`")
            .fix(s.keywordSpan, "shared", "declare it `shared`");
      else if (!grid.inBlockGrid)
        error(DiagId::ScopePlacement, s.keywordSpan, "barriers are declared inside `block_grid`");
      if (t.kind == Type::Barrier && shared && inKernel) {
        useCapability("mbarrier", s.keywordSpan);
        uint64_t bytes = 8 * static_cast<uint64_t>(t.barrier.stages);
        current->sharedBytes = saturatingAdd(current->sharedBytes, bytes);
        current->tileCosts.push_back({s.name.name, s.name.span,
                                      "Barrier[" + std::to_string(t.barrier.stages) + "]", bytes,
                                      true});
      }
      Binding b{BindingKind::Shared, defineSymbol(s.name, SymbolKind::Shared, symbolType(t)), t};
      bind(s.name, std::move(b));
      annotate(s.name.span, t, false);
      return;
    }
    bool warpgroupTile = !shared && grid.inWarpgroupGrid;
    if (!inKernel)
      notHere(shared ? "`shared` declarations belong in a kernel"
                     : "`register` declarations belong in a kernel");
    else if (shared && !grid.inBlockGrid)
      error(DiagId::ScopePlacement, s.keywordSpan, "`shared` tiles are declared inside `block_grid`");
    else if (!shared && !grid.inWarpGrid && !grid.inWarpgroupGrid)
      error(DiagId::ScopePlacement, s.keywordSpan,
            "`register` tiles are per-warp: declare them inside `warp_grid` (or, spread over "
            "a warpgroup, inside `warpgroup_grid`)");
    if (t.isTensor()) {
      Space want = shared ? Space::Shared : Space::Register;
      const syntax::TypeRef &tr = m.type(s.type);
      if (!t.tensor.isTile)
        error(DiagId::DeclarationPlacement, tr.span,
              std::string(shared ? "`shared`" : "`register`") + " declarations have a `Tile[...]` type");
      if (t.tensor.space != want) {
        auto &d = error(DiagId::DeclarationPlacement,
                        tr.placement.span.empty() ? tr.span : tr.placement.span,
                        std::string("`") + (shared ? "shared" : "register") + "` declaration `" +
                            s.name.name + "` is placed on " + spaceName(t.tensor.space) +
                            "; it must be on " + spaceName(want));
        if (!tr.placement.span.empty())
          d.fix(tr.placement.span, spaceName(want), std::string("use `") + spaceName(want) + "`");
      }
      t.tensor.space = want;
      t.tensor.writable = true;
      t.tensor.warpgroup = warpgroupTile;
      if (warpgroupTile) {
        // Spread over 128 threads as a wgmma accumulator (K0120).
        const auto &sh = t.tensor.shape;
        int64_t n = sh.size() == 2 ? sh[1].constantValue().value_or(0) : 0;
        // F32 [64, N]: a wgmma accumulator; BF16/F16 [64, K]: a register A
        // operand (its fragment is the accumulator's, K a multiple of 16).
        bool sixteen = t.tensor.dtype == DType::BF16 || t.tensor.dtype == DType::F16;
        bool rows = sh.size() == 2 && sh[0].constantValue().value_or(0) == 64;
        bool accumulator = t.tensor.dtype == DType::F32 && n >= 8 && n <= 256 && n % 8 == 0;
        bool operandA = sixteen && n >= 16 && n <= 256 && n % 16 == 0;
        // A broadcast row [1, N] or column [64, 1] of an epilogue, loaded
        // from a global tensor ahead of its use (a bias prefetched before the
        // k-loop): one value per fragment column or row.
        bool vector = isWarpgroupVector(t.tensor);
        if (!vector && (!rows || (!accumulator && !operandA)))
          error(DiagId::WarpgroupTileShape, tr.shapeSpan.empty() ? tr.span : tr.shapeSpan,
                "warpgroup tile `" + s.name.name + "` is " + dtypeName(t.tensor.dtype) + " " +
                    printShape(sh, symbols) +
                    "; a register tile inside `warpgroup_grid` is a wgmma accumulator (F32 "
                    "[64, N], N a multiple of 8 from 8 to 256), a wgmma A operand (BF16 or "
                    "F16 [64, K], K a multiple of 16 from 16 to 256), or a float broadcast row "
                    "[1, N] (N a multiple of 8 from 8 to 256) or column [64, 1]");
      }
      // Saturating: the type's element count is below 2^31 (K0804), the sum
      // of many tiles still must not wrap past a limit.
      uint64_t elements = 1;
      for (const DimExpr &d : t.tensor.shape)
        elements = saturatingMul(elements, static_cast<uint64_t>(d.constantValue().value_or(1)));
      uint64_t bytes = saturatingMul(elements, dtypeBytes(t.tensor.dtype));
      uint64_t threads = warpgroupTile ? 128 : 32;
      uint64_t cost = shared ? bytes : bytes / threads + (bytes % threads != 0);
      uint64_t &sum = shared ? current->sharedBytes : current->registerBytesPerThread;
      sum = saturatingAdd(sum, cost);
      current->tileCosts.push_back(
          {s.name.name, s.name.span,
           std::string(dtypeName(t.tensor.dtype)) + " " + printShape(t.tensor.shape, symbols), cost,
           shared});
    }
    Binding b{shared ? BindingKind::Shared : BindingKind::Register,
              defineSymbol(s.name, shared ? SymbolKind::Shared : SymbolKind::Register, symbolType(t)),
              t};
    bind(s.name, std::move(b));
    annotate(s.name.span, t, false);
    return;
  }
  case StmtKind::For:
    return checkFor(id, s);
  case StmtKind::If: {
    Type c = checkExpr(s.value);
    if (!c.isError() && c.kind != Type::Bool)
      error(DiagId::TypeMismatch, m.expr(s.value).span,
            "an `if` condition is a comparison, found " + typeStr(c));
    pushScope();
    if (c.kind == Type::Bool) {
      Origin from(*this, [&] { return "`" + syntax::printExpr(m, s.value) + "` (the `if`)"; });
      prover.assumeCondition(m, s.value, *this, true);
    }
    for (StmtId x : s.body)
      checkStmt(x);
    popScope();
    pushScope();
    if (c.kind == Type::Bool) {
      Origin from(*this, [&] {
        return "`not (" + syntax::printExpr(m, s.value) + ")` (the `else` of an `if`)";
      });
      prover.assumeCondition(m, s.value, *this, false);
    }
    for (StmtId x : s.elseBody)
      checkStmt(x);
    popScope();
    return;
  }
  case StmtKind::CpAsync:
    if (!inKernel)
      return notHere("`cp_async` is only allowed in a kernel");
    if (grid.inWarpgroupGrid) {
      error(DiagId::WarpgroupContext, s.keywordSpan,
            "`cp_async` is split over the threads of a `warp_grid`; inside `warpgroup_grid` "
            "copy with `tma_load`");
      return;
    }
    checkCpAsync(s);
    return;
  case StmtKind::Commit:
  case StmtKind::WaitAll:
  case StmtKind::WaitGroup:
    if (!inKernel)
      return notHere("async-copy fences are only allowed in a kernel");
    useCapability("cp_async", s.keywordSpan);
    // PTX's cp.async.wait_group takes 0 to 7 (the IR verifier's K1205).
    if (s.kind == StmtKind::WaitGroup && s.count > 7)
      error(DiagId::WaitCountTooLarge, s.countSpan.empty() ? s.keywordSpan : s.countSpan,
            "`cp_async_wait_group " + std::to_string(s.count) +
                "` leaves more groups in flight than the hardware tracks: the count is 0 to 7")
          .note("keep at most 8 groups in flight, or use `cp_async_wait_all`");
    return;
  case StmtKind::BlockSync:
    if (!inKernel)
      return notHere("`block_sync` is only allowed in a kernel");
    if (!grid.inBlockGrid)
      notHere("`block_sync` synchronizes a block: use it inside `block_grid`");
    else if (grid.inWarpgroupGrid)
      error(DiagId::WarpgroupContext, s.keywordSpan,
            "`block_sync` is not available inside `warpgroup_grid` (roles run different code: "
            "synchronize them with barriers, `arrive` and `wait`)");
    return;
  case StmtKind::Assign:
    checkAssign(s);
    return;
  case StmtKind::Return: {
    if (inKernel)
      return notHere("kernels write their result; `return` is for tile and host functions");
    Type t = checkExpr(s.value);
    if (current && current->item->kind == syntax::ItemKind::HostFunction)
      t = reducedForReturn(t); // partial sums are all-reduced (issue 19)
    if (current && current->item->result != syntax::kNone && !t.isError()) {
      // A tile function's result has symbolic extents (its shape params):
      // resolved as in its signature, or the comparison was skipped and a
      // wrong result type only failed in the lowering (K1202).
      bool savedTileSignature = inTileSignature;
      inTileSignature = current->item->kind == syntax::ItemKind::TileFunction;
      Type want = resolveTypeQuiet(current->item->result);
      inTileSignature = savedTileSignature;
      if (!want.isError() && !sameType(t, want)) {
        auto &d = error(DiagId::TypeMismatch, m.expr(s.value).span,
                        "`" + current->item->name.name + "` returns " + typeStr(t) +
                            ", but its declared result is " + typeStr(want));
        d.label(m.type(current->item->result).span, "declared result " + typeStr(want));
        // `convert DT x` for a returned name (an application would need
        // parentheses around it).
        if (t.isTensor() && want.isTensor() && t.tensor.shape == want.tensor.shape &&
            t.tensor.dtype != want.tensor.dtype && t.tensor.space == Space::Register &&
            m.expr(s.value).kind == ExprKind::Name)
          d.fix(Span{m.expr(s.value).span.begin, m.expr(s.value).span.begin},
                std::string("convert ") + dtypeName(want.tensor.dtype) + " ",
                std::string("convert to ") + dtypeName(want.tensor.dtype));
      } else if (!want.isError() && t.isTensor() && t.tensor.space == Space::Global &&
                 (t.tensor.device != want.tensor.device ||
                  t.tensor.sharding != want.tensor.sharding)) {
        error(t.tensor.sharding.kind == want.tensor.sharding.kind &&
                      t.tensor.sharding.kind == ShardKind::None
                  ? DiagId::DeviceMismatch
                  : DiagId::ShardingMismatch,
              m.expr(s.value).span,
              "returns a tensor on " + placeStr(t.tensor) + ", but the declared result is on " +
                  placeStr(want.tensor));
      }
    }
    return;
  }
  case StmtKind::WarpgroupGrid:
    return checkWarpgroupGrid(id, s);
  case StmtKind::Role:
    return checkRole(id, s);
  case StmtKind::Arrive:
  case StmtKind::Wait:
  case StmtKind::TmaLoad:
  case StmtKind::TmaStore:
  case StmtKind::TmaStoreCommit:
  case StmtKind::TmaStoreWait:
  case StmtKind::Wgmma:
  case StmtKind::WgmmaCommit:
  case StmtKind::WgmmaWait:
  case StmtKind::FenceProxyAsync:
    if (!inKernel)
      return notHere("warpgroup, barrier, TMA and wgmma statements are only allowed in a kernel");
    return checkHopperStmt(s);
  case StmtKind::Error:
    return;
  }
}

void Checker::checkCpAsync(const Stmt &s) {
  Type dst = checkExpr(s.target);
  maskedIndexExpr = s.valueMasked ? s.value : syntax::kNone; // CheckMasked.cpp
  Type src = checkExpr(s.value);
  maskedIndexExpr = syntax::kNone;
  useCapability("cp_async", s.keywordSpan);
  if (dst.isError() || src.isError())
    return;
  if (s.valueMasked && !checkMaskedCpAsync(s, src))
    return;
  if (!dst.isTensor() || dst.tensor.space != Space::Shared) {
    error(DiagId::CopyPlacement, m.expr(s.target).span,
          "`cp_async` writes a cuda:shared tile, but the destination is " + typeStr(dst));
    return;
  }
  if (!src.isTensor() || src.tensor.space != Space::Global) {
    error(DiagId::CopyPlacement, m.expr(s.value).span,
          "`cp_async` reads a cuda:global tensor, but the source is " + typeStr(src));
    return;
  }
  if (dst.tensor.dtype != src.tensor.dtype)
    error(DiagId::DTypeMismatch, s.span,
          std::string("`cp_async` copies bytes unchanged: destination is ") +
              dtypeName(dst.tensor.dtype) + ", source is " + dtypeName(src.tensor.dtype));
  if (dst.tensor.shape != src.tensor.shape) {
    error(DiagId::ShapeMismatch, s.span,
          "`cp_async` shapes differ: destination " + printShape(dst.tensor.shape, symbols) +
              ", source " + printShape(src.tensor.shape, symbols))
        .label(m.expr(s.target).span, "destination " + printShape(dst.tensor.shape, symbols))
        .label(m.expr(s.value).span, "source " + printShape(src.tensor.shape, symbols));
    return;
  }
  checkCopyAlignment(s, src);
}

void Checker::checkAssign(const Stmt &s) {
  if (checkAtomicAssign(s)) // CheckAtomics.cpp
    return;
  if (checkMaskedAssign(s)) // CheckMasked.cpp
    return;
  if (checkWarpgroupMove(s)) // CheckPersistent.cpp
    return;
  const Expr &target = m.expr(s.target);
  // A warpgroup tile may be the whole value of a store (`c[...] <- acc`,
  // `<- convert BF16 acc`); the target must then be a global tensor.
  ExprId wgValue = s.value;
  if (const Expr &v = m.expr(wgValue);
      v.kind == ExprKind::Application && v.name.name == "convert" && v.children.size() == 2)
    wgValue = v.children[1];
  const Binding *wg =
      m.expr(wgValue).kind == ExprKind::Name ? lookup(m.expr(wgValue).name.name) : nullptr;
  bool storesWarpgroupTile = wg && wg->type.isTensor() && wg->type.tensor.warpgroup;
  if (storesWarpgroupTile && isWarpgroupVector(wg->type.tensor)) {
    program.exprSymbol[wgValue] = wg->symbol;
    addReference(wg->symbol, m.expr(wgValue).span);
    error(DiagId::WarpgroupTileUse, s.span,
          "warpgroup " +
              std::string(wg->type.tensor.shape[0] == DimExpr::constant(1) ? "row" : "column") +
              " `" + m.expr(wgValue).name.name +
              "` is a broadcast operand of elementwise ops on [64, N] tiles; it is not stored "
              "in this version");
    return;
  }
  bool saved = allowWarpgroupTile;
  allowWarpgroupTile = storesWarpgroupTile;
  maskedIndexExpr = s.valueMasked ? s.value : syntax::kNone;
  Type value = checkExpr(s.value);
  allowWarpgroupTile = saved;
  maskedIndexExpr = s.targetMasked ? s.target : syntax::kNone;
  Type dst = checkExpr(s.target);
  maskedIndexExpr = syntax::kNone;
  if (dst.isError() || value.isError())
    return;
  if ((s.targetMasked || s.valueMasked) && !checkMaskedSides(s, dst, value)) // CheckMasked.cpp
    return;
  if (storesWarpgroupTile && (!dst.isTensor() || dst.tensor.space != Space::Global)) {
    error(DiagId::WarpgroupTileUse, s.span,
          "warpgroup tile `" + m.expr(wgValue).name.name +
              "` can only be stored into a global tensor in this version, not into " +
              typeStr(dst));
    return;
  }
  // The value of an epilogue expression on a warpgroup tile (he: CheckExpr's
  // checkWarpgroupElementwise) goes where the tile itself may go.
  if (!storesWarpgroupTile && value.isTensor() && value.tensor.warpgroup &&
      (!dst.isTensor() || dst.tensor.space != Space::Global)) {
    error(DiagId::WarpgroupTileUse, s.span,
          "the value is a warpgroup tile (an elementwise expression on one); it can only be "
          "stored into a global tensor in this version, not into " +
              typeStr(dst));
    return;
  }
  // What is being assigned?
  ExprId baseId = s.target;
  while (m.expr(baseId).kind == ExprKind::Index || m.expr(baseId).kind == ExprKind::Paren)
    baseId = m.expr(baseId).children[0];
  const Expr &base = m.expr(baseId);
  int sym = program.exprSymbol[baseId];
  const Binding *binding = base.kind == ExprKind::Name ? lookup(base.name.name) : nullptr;
  if (!binding || !dst.isTensor() ||
      binding->kind == BindingKind::Dim || binding->kind == BindingKind::Let ||
      binding->kind == BindingKind::LoopVar) {
    error(DiagId::AssignToImmutable, target.span,
          "cannot assign to `" + syntax::printExpr(m, s.target) +
              "`: only tiles and writable tensors can be assigned");
    return;
  }
  (void)sym;
  const TensorType &d = dst.tensor;
  if (!d.writable) {
    auto &diag = error(DiagId::StoreToReadOnly, s.span,
                       "store into read-only input `" + base.name.name + "`: kernel inputs are "
                       "read-only");
    const Item *item = current ? current->item : nullptr;
    std::string resultName = item && item->resultName.valid() ? item->resultName.name : "result";
    if (item && item->kind == syntax::ItemKind::Kernel) {
      diag.note("did you mean to store into the kernel's result `" + resultName + "`?");
      diag.fix(base.name.span, resultName, "store into the result `" + resultName + "`");
    }
    diag.note("or declare the parameter writable: `(" + base.name.name + " : mut Tensor[...])`");
  }
  if (value.kind == Type::Splat) {
    if (d.space == Space::Global) {
      error(DiagId::OperandPlacement, s.span,
            "`fill` initializes register or shared tiles, not cuda:global tensors");
      return;
    }
    const Expr &fill = m.expr(s.value);
    if (fill.kind == ExprKind::Application && fill.children.size() == 1) {
      ExprId v = fill.children[0];
      std::string tile = syntax::printExpr(m, s.target);
      requireScalarOperand(v, typeOf(v), d.dtype, "the tile `" + tile + "` holds");
    }
    return;
  }
  if (!value.isTensor()) {
    error(DiagId::TypeMismatch, m.expr(s.value).span,
          "cannot assign " + typeStr(value) + " to " + typeStr(dst));
    return;
  }
  const TensorType &v = value.tensor;
  if (d.space == Space::Global && v.space != Space::Register) {
    error(DiagId::OperandPlacement, m.expr(s.value).span,
          std::string("stores into cuda:global take a cuda:register tile, found ") +
              spaceName(v.space) + "; load it into a register tile first");
    return;
  }
  if (d.space == Space::Shared && v.space == Space::Global) {
    auto &diag = error(DiagId::OperandPlacement, m.expr(s.value).span,
                       "copy global memory into a shared tile with `cp_async dst <- src`");
    // The fix-it only where the target has cp_async (issue 11: fix-its never
    // suggest a capability the target lacks).
    if (!this->target || target::hasCapability(this->target->id, target::CapabilityId::CpAsync))
      diag.fix(Span{s.span.begin, s.span.begin}, "cp_async ", "use `cp_async`");
    else
      diag.note(std::string(this->target->name) +
                " has no `cp_async`: load the tile into a register " +
                "tile, then store that into the shared tile");
    return;
  }
  // A 1-D global slice [C] loads into a per-warp row [1, C], and a row stores
  // into one (CheckBroadcast.cpp).
  auto isRowOf = [](const TensorType &row, const TensorType &vec) {
    return row.space == Space::Register && !row.warpgroup && vec.space == Space::Global &&
           vec.shape.size() == 1 && row.shape.size() == 2 && row.shape[0] == DimExpr::constant(1) &&
           row.shape[1] == vec.shape[0];
  };
  bool rowLoad = isRowOf(d, v) || isRowOf(v, d);
  if (d.shape != v.shape && !rowLoad) {
    error(DiagId::ShapeMismatch, s.span,
          "cannot store a tile of shape " + printShape(v.shape, symbols) + " into " +
              printShape(d.shape, symbols))
        .label(target.span, "destination " + printShape(d.shape, symbols))
        .label(m.expr(s.value).span, "value " + printShape(v.shape, symbols));
  }
  if (d.dtype != v.dtype) {
    auto &diag = error(DiagId::DTypeMismatch, s.span,
                       std::string("cannot store a ") + typeStr(value) + " into " +
                           dtypeName(d.dtype) + " `" + base.name.name + "`: element types differ (" +
                           dtypeName(v.dtype) + " vs " + dtypeName(d.dtype) + ")");
    Span valueSpan = m.expr(s.value).span;
    if (v.space == Space::Register)
      diag.fix(Span{valueSpan.begin, valueSpan.begin},
               std::string("convert ") + dtypeName(d.dtype) + " ",
               std::string("convert to ") + dtypeName(d.dtype));
    else
      diag.note(std::string("load it into a ") + dtypeName(v.dtype) +
                " register tile first, then `convert " + dtypeName(d.dtype) + "` it");
  }
}

// --------------------------------------------------------- per-item checks

namespace {

/// Resource errors point at the costliest declaration, label the others that
/// matter, and list every tile with its share in notes (largest first).
void explainTileCosts(Diagnostic &d, const std::vector<ItemState::TileCost> &tiles, uint64_t total,
                      const std::string &unit, const std::function<uint64_t(uint64_t)> &inUnits) {
  for (size_t i = 0; i < tiles.size(); ++i) {
    const ItemState::TileCost &t = tiles[i];
    uint64_t pct = total ? (t.bytes * 100 + total / 2) / total : 0;
    std::string cost = std::to_string(inUnits(t.bytes)) + " " + unit;
    if (i > 0 && i < 4)
      d.label(t.span, cost);
    d.note("`" + t.name + "` " + t.type + ": " + cost + " (" + std::to_string(pct) + "%)");
  }
}

} // namespace

void Checker::checkResources(const Item &item, ItemState &state) {
  KernelSummary &summary = itemSummaries[state.itemIndex];
  summary.sharedBytes = state.sharedBytes;
  summary.threadsPerBlock = state.threadsPerBlock;
  unsigned regs = static_cast<unsigned>(state.registerBytesPerThread / 4) + 24;
  summary.registerEstimate = regs;
  auto tilesOf = [&](bool shared) {
    std::vector<ItemState::TileCost> tiles;
    for (const ItemState::TileCost &t : state.tileCosts)
      if (t.shared == shared)
        tiles.push_back(t);
    std::stable_sort(tiles.begin(), tiles.end(),
                     [](const auto &a, const auto &b) { return a.bytes > b.bytes; });
    return tiles;
  };
  if (target && state.sharedBytes > target->maxSmemPerBlockOptin) {
    auto tiles = tilesOf(true);
    uint64_t limit = target->maxSmemPerBlockOptin;
    auto &d =
        error(DiagId::SharedMemoryLimit, tiles.empty() ? item.name.span : tiles[0].span,
              "kernel `" + item.name.name + "` declares " + std::to_string(state.sharedBytes) +
                  " bytes of shared tiles; " + std::string(target->name) + " allows at most " +
                  std::to_string(limit) + " bytes per block");
    if (!tiles.empty())
      d.note("`" + tiles[0].name + "` is the largest shared tile; the block is " +
             std::to_string(state.sharedBytes - limit) + " bytes over the limit");
    explainTileCosts(d, tiles, state.sharedBytes, "bytes", [](uint64_t b) { return b; });
  }
  // Block-level tiles for the Tile IR backend belong to the block, whose
  // thread count tileiras chooses: the one-warp budget is PTX's.
  bool tileIrBlock = state.blockLevel && options.backend == "tileir";
  if (state.registerBytesPerThread / 4 > 255 && !tileIrBlock) {
    auto tiles = tilesOf(false);
    auto &d = error(DiagId::RegisterLimit, tiles.empty() ? item.name.span : tiles[0].span,
                    "register tiles of `" + item.name.name + "` need about " +
                        std::to_string(state.registerBytesPerThread / 4) +
                        " 32-bit registers per thread; at most 255 are available");
    explainTileCosts(d, tiles, state.registerBytesPerThread, "registers/thread",
                     [](uint64_t b) { return (b + 3) / 4; });
    d.note("use smaller register tiles or more warps (a [64, 64] F32 tile costs 128 registers "
           "per thread)");
  }
}

void Checker::checkCapabilities(const Item &item, ItemState &state) {
  KernelSummary &summary = itemSummaries[state.itemIndex];
  summary.capabilities.assign(state.capabilities.begin(), state.capabilities.end());
  bool isKernel = item.kind == syntax::ItemKind::Kernel;
  // Fix-its never name a capability or target that would only move the
  // error: a suggested capability is on the declared target and the target
  // checked against; a suggested target has every capability the clause names.
  auto lacking = [&](target::CapabilityId cap,
                     const target::TargetInfo *declaredTarget) -> const target::TargetInfo * {
    if (declaredTarget && !target::hasCapability(declaredTarget->id, cap))
      return declaredTarget;
    if (target && isKernel && !target::hasCapability(target->id, cap))
      return target;
    return nullptr;
  };
  // Declared capabilities and their target.
  std::set<std::string> declared;
  const syntax::Requirement *capClause = nullptr;
  const target::TargetInfo *clauseTarget = nullptr;
  for (const syntax::Requirement &r : item.requirements) {
    if (!r.isCapability)
      continue;
    capClause = &r;
    std::vector<target::CapabilityId> named;
    for (const syntax::Ident &c : r.capabilities)
      if (auto cap = target::parseCapabilityName(c.name))
        named.push_back(*cap);
    const target::TargetInfo *declaredTarget = nullptr;
    if (r.target.valid()) {
      declaredTarget = target::lookupTarget(r.target.name);
      if (!declaredTarget) {
        auto &d = error(DiagId::UnknownRequiredCapability, r.target.span,
                        target::unknownTargetMessage(r.target.name, named));
        if (auto s = target::suggestTarget(r.target.name, named))
          d.fix(r.target.span, std::string(*s), "replace with `" + std::string(*s) + "`");
      }
    }
    clauseTarget = declaredTarget;
    std::vector<target::TargetId> on;
    if (declaredTarget)
      on.push_back(declaredTarget->id);
    if (target && isKernel && (!declaredTarget || declaredTarget->id != target->id))
      on.push_back(target->id);
    for (const syntax::Ident &c : r.capabilities) {
      auto cap = target::parseCapabilityName(c.name);
      if (!cap) {
        auto &d = error(DiagId::UnknownRequiredCapability, c.span,
                        target::unknownCapabilityMessage(c.name, on));
        if (auto s = target::suggestCapability(c.name, on)) {
          d.fix(c.span, std::string(*s), "replace with `" + std::string(*s) + "`");
        } else {
          // A family name (`wgmma` for `wgmma_bf16`): the one member the
          // kernel uses, when the targets have it, replaces it (and then
          // counts as declared, so there is one error and one fix-it).
          std::vector<std::string> members;
          for (const std::string &used : state.capabilities)
            if (used.rfind(c.name + "_", 0) == 0)
              if (auto uc = target::parseCapabilityName(used);
                  uc && std::all_of(on.begin(), on.end(), [&](target::TargetId t) {
                    return target::hasCapability(t, *uc);
                  }))
                members.push_back(used);
          if (members.size() == 1) {
            d.fix(c.span, members[0], "replace with `" + members[0] + "`, which the kernel uses");
            declared.insert(members[0]);
          }
        }
        continue;
      }
      declared.insert(c.name);
      if (target && !state.capabilities.count(c.name) && !target::hasCapability(target->id, *cap) &&
          isKernel)
        error(DiagId::CapabilityNotOnTarget, c.span,
              "kernel `" + item.name.name + "` declares `" + c.name + "` (" +
                  target::describeTargetsWith(*cap) + "); target is " + std::string(target->name));
      if (declaredTarget && !target::hasCapability(declaredTarget->id, *cap))
        error(DiagId::DeclaredTargetLacksCapability, c.span,
              std::string(declaredTarget->name) + " does not have `" + c.name +
                  "`; targets that have it: " + target::describeTargetsWith(*cap));
    }
  }
  if (item.kind == syntax::ItemKind::HostFunction)
    return;
  for (const std::string &name : state.capabilities) {
    auto cap = target::parseCapabilityName(name);
    if (!cap)
      continue;
    Span site = state.capabilitySites[name];
    bool covered = declared.count(name) > 0;
    // A declared mma_m16n16k16 capability also covers the mma_m16n8k16 it lowers to.
    if (!covered && isKernel) {
      auto &d = error(DiagId::CapabilityNotDeclared, site,
                      "kernel `" + item.name.name + "` uses `" + name +
                          "` but its `requires capability(...)` does not declare it");
      if (const target::TargetInfo *without = lacking(*cap, capClause ? clauseTarget : nullptr)) {
        d.note(std::string(without->name) + " does not have `" + name +
               "`; targets that have it: " + target::describeTargetsWith(*cap));
      } else if (capClause && !capClause->capabilities.empty()) {
        Span last = capClause->capabilities.back().span;
        d.fix(Span{last.end, last.end}, ", " + name, "declare `" + name + "`");
      } else if (capClause && capClause->target.valid() && clauseTarget) {
        Span t = capClause->target.span;
        d.fix(Span{t.end, t.end}, ", " + name, "declare `" + name + "`");
      } else if (!capClause) {
        std::string t(target ? target->name : target::defaultTargetName());
        Span at{state.lastRequiresEnd.end, state.lastRequiresEnd.end};
        d.fix(at, "\n" + state.indent + "requires capability(" + t + ", " + name + ")",
              "add `requires capability(" + t + ", " + name + ")`");
      }
    }
    if (target && !target::hasCapability(target->id, *cap) && isKernel)
      error(DiagId::CapabilityNotOnTarget, site,
            "kernel `" + item.name.name + "` uses `" + name + "` (" +
                target::describeTargetsWith(*cap) + "); target is " + std::string(target->name));
  }
}

CheckedProgram check(const syntax::Module &module, const CheckOptions &options,
                     DiagnosticSink &sink) {
  Checker checker(module, options, sink);
  return checker.run();
}

} // namespace kina::sema
