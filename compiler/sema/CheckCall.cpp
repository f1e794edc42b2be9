//===- CheckCall.cpp - Calls, type equality and copy alignment ------------===//
//
// Tile-function calls are shape-polymorphic: the callee's dims are inferred
// from the argument shapes, its `requires` clauses are instantiated and proved
// at the call site, and its capabilities flow into the caller.
//
//===----------------------------------------------------------------------===//
#include "sema/Checker.h"

#include <algorithm>

namespace kina::sema {

Type Checker::resolveTypeQuiet(syntax::TypeId id) {
  DiagnosticSink scratch;
  DiagnosticSink *saved = active;
  active = &scratch;
  auto t = resolveType(id, false);
  active = saved;
  return t.value_or(Type::error());
}

bool Checker::sameType(const Type &a, const Type &b) const {
  if (a.kind != b.kind)
    return false;
  if (a.kind == Type::Scalar)
    return a.scalar == b.scalar;
  if (a.kind != Type::Tensor)
    return true;
  return a.tensor.dtype == b.tensor.dtype && a.tensor.shape == b.tensor.shape &&
         a.tensor.space == b.tensor.space;
}

void Checker::checkCopyAlignment(const Stmt &s, const Type &src) {
  unsigned bytes = dtypeBytes(src.tensor.dtype);
  if (src.tensor.shape.empty() || bytes == 0 || 16 % bytes != 0)
    return;
  int64_t per16 = 16 / bytes; // elements per 16-byte chunk
  auto rowLength = src.tensor.shape.back().constantValue();
  if (rowLength && *rowLength % per16 != 0) {
    error(DiagId::MisalignedCopy, m.expr(s.value).span,
          "`cp_async` moves 16-byte chunks, but a row of this copy is " +
              std::to_string(*rowLength * bytes) + " bytes; make the last extent a multiple of " +
              std::to_string(per16));
    return;
  }
  const Expr &value = m.expr(s.value);
  if (value.kind != ExprKind::Index)
    return;
  const Type &base = typeOf(value.children[0]);
  if (!base.isTensor() || base.tensor.shape.empty())
    return;
  // Row stride of the source tensor.
  const DimExpr &stride = base.tensor.shape.back();
  if (base.tensor.shape.size() >= 2) {
    solver::Proof p = prover.proveDivisible(stride, per16);
    if (!p.proved()) {
      std::string fact = str(stride) + " mod " + std::to_string(per16) + " = 0";
      auto &d = error(DiagId::MisalignedCopy, m.expr(value.children[0]).span,
                      "`cp_async` needs 16-byte aligned rows: cannot prove " + fact +
                          " for the row stride of `" + syntax::printExpr(m, value.children[0]) +
                          "`");
      if (symbols.onlyDims(stride))
        addRequiresFix(d, fact);
    }
  }
  // Column offset of the last index.
  ExprId last = value.children.back();
  const Expr &ix = m.expr(last);
  ExprId startId = ix.kind == ExprKind::Slice ? ix.children[0] : last;
  auto start = exprValueOrNull(startId);
  if (start && !prover.proveDivisible(*start, per16).proved())
    error(DiagId::MisalignedCopy, m.expr(startId).span,
          "`cp_async` needs 16-byte aligned chunks: cannot prove the column offset `" +
              str(*start) + "` is a multiple of " + std::to_string(per16));
}

namespace {

void collectCalls(const Module &m, ExprId id, const std::unordered_map<std::string, int> &items,
                  std::vector<int> &out) {
  if (id == syntax::kNone || id >= m.exprs.size())
    return;
  const Expr &e = m.expr(id);
  if (e.kind == ExprKind::Application) {
    auto it = items.find(e.name.name);
    if (it != items.end() && m.items[it->second].kind == syntax::ItemKind::TileFunction)
      out.push_back(it->second);
  }
  for (ExprId c : e.children)
    collectCalls(m, c, items, out);
}

void collectCalls(const Module &m, const std::vector<StmtId> &body,
                  const std::unordered_map<std::string, int> &items, std::vector<int> &out) {
  for (StmtId s : body) {
    const Stmt &st = m.stmt(s);
    for (ExprId e : {st.target, st.value, st.end})
      collectCalls(m, e, items, out);
    collectCalls(m, st.body, items, out);
    collectCalls(m, st.elseBody, items, out);
  }
}

} // namespace

bool Checker::tileFunctionReaches(int from, int to) {
  if (from == to)
    return true;
  if (callGraph.empty()) {
    callGraph.resize(m.items.size());
    for (size_t i = 0; i < m.items.size(); ++i)
      if (m.items[i].kind == syntax::ItemKind::TileFunction)
        collectCalls(m, m.items[i].body, itemsByName, callGraph[i]);
  }
  std::vector<bool> seen(m.items.size(), false);
  std::vector<int> work{from};
  while (!work.empty()) {
    int i = work.back();
    work.pop_back();
    for (int j : callGraph[i]) {
      if (j == to)
        return true;
      if (!seen[j]) {
        seen[j] = true;
        work.push_back(j);
      }
    }
  }
  return false;
}

Type Checker::checkCall(ExprId id, const Expr &e, int calleeIndex) {
  const Item &callee = m.items[calleeIndex];
  bool inKernel = current && current->item->kind == syntax::ItemKind::Kernel;
  bool inHost = current && current->item->kind == syntax::ItemKind::HostFunction;
  if (callee.kind == syntax::ItemKind::HostFunction && !inHost) {
    error(DiagId::InvalidStatementContext, e.span,
          "host function `" + callee.name.name + "` cannot be called from device code");
    return Type::error();
  }
  if (callee.kind == syntax::ItemKind::Kernel && !inHost) {
    error(DiagId::InvalidStatementContext, e.span,
          "kernel `" + callee.name.name + "` is launched from host functions, not called from " +
              (inKernel ? "another kernel" : "a tile function") +
              "; factor the shared part into a `tile` function");
    return Type::error();
  }
  if (callee.kind == syntax::ItemKind::TileFunction && current &&
      tileFunctionReaches(calleeIndex, current->itemIndex)) {
    // A cycle of tile-function calls through this one. Found on the call
    // graph of the syntax, so the report does not depend on the order the
    // items are checked in (kina check splits them over threads).
    error(DiagId::RecursiveTileFunction, e.name.span,
          "recursive call: `" + callee.name.name + "` leads back to `" + current->item->name.name +
              "` (directly or through other tile functions); tile functions are inlined, so "
              "they cannot recurse")
        .label(callee.name.span, "defined here");
    return Type::error();
  }
  std::vector<Type> args;
  for (ExprId a : e.children)
    args.push_back(checkExpr(a));
  program.exprSymbol[id] = -1;
  for (const Type &a : args)
    if (a.isError())
      return Type::error();
  if (args.size() != callee.params.size()) {
    error(DiagId::WrongArgumentCount, e.span,
          "`" + callee.name.name + "` takes " + std::to_string(callee.params.size()) +
              " argument(s), " + std::to_string(args.size()) + " given");
    return Type::error();
  }
  // Capabilities flow from callee to caller.
  if (itemCheckState[calleeIndex] == 0) {
    // A callee's own errors are reported where it is defined, not here.
    DiagnosticSink scratch;
    DiagnosticSink *saved = active;
    // With a subset selected, only a callee outside it is checked silently;
    // a selected callee reports as if it had been checked on its own.
    if (!options.onlyItems.empty() && !selected[calleeIndex])
      active = &scratch;
    else
      active = &sink;
    checkItem(calleeIndex);
    active = saved;
  }
  if (itemCheckState[calleeIndex] == 2 && callee.kind == syntax::ItemKind::TileFunction)
    for (const std::string &c : itemSummaries[calleeIndex].capabilities)
      useCapability(c, e.span);

  // Infer the callee's dims from bare-name extents of its parameter types.
  std::unordered_map<std::string, DimExpr> dimValues;
  for (size_t i = 0; i < callee.params.size(); ++i) {
    if (!args[i].isTensor() || callee.params[i].type == syntax::kNone)
      continue;
    const syntax::TypeRef &pt = m.type(callee.params[i].type);
    for (size_t d = 0; d < pt.shape.size() && d < args[i].tensor.shape.size(); ++d) {
      const Expr &dim = m.expr(pt.shape[d]);
      if (dim.kind == ExprKind::Name)
        for (const syntax::Ident &cd : callee.dims)
          if (cd.name == dim.name.name && !dimValues.count(cd.name))
            dimValues.emplace(cd.name, args[i].tensor.shape[d]);
    }
  }
  for (const syntax::Ident &cd : callee.dims)
    if (!dimValues.count(cd.name)) {
      error(DiagId::RequiresAtCallSite, e.span,
            "cannot infer dimension `" + cd.name + "` of `" + callee.name.name +
                "` from the arguments");
      return Type::error();
    }
  // Instantiate the signature in a scope where the callee's dims are bound.
  auto savedScopes = std::move(scopes);
  scopes.clear();
  scopes.emplace_back();
  for (const auto &[name, value] : dimValues)
    scopes.back()[name] = Binding{BindingKind::Dim, -1, Type::indexValue(value)};
  DiagnosticSink scratch;
  DiagnosticSink *saved = active;
  active = &scratch;
  std::vector<Type> paramTypes;
  bool savedTileSignature = inTileSignature;
  inTileSignature = true;
  for (const syntax::Param &p : callee.params)
    paramTypes.push_back(resolveType(p.type, true).value_or(Type::error()));
  Type result = callee.result == syntax::kNone ? Type::unit()
                                               : resolveType(callee.result, true).value_or(Type::error());
  std::vector<std::pair<const syntax::Requirement *, std::pair<DimExpr, DimExpr>>> conditions;
  std::vector<std::string> goalTexts;
  for (const syntax::Requirement &r : callee.requirements) {
    if (r.isCapability || r.condition == syntax::kNone)
      continue;
    const Expr &c = m.expr(r.condition);
    if (c.kind != ExprKind::Binary)
      continue;
    auto lhs = indexValue(c.children[0]);
    auto rhs = indexValue(c.children[1]);
    if (!lhs || !rhs)
      continue;
    // The goal as the user wrote it, with the call's values: `48 mod 32 = 0`.
    const Expr &l = m.expr(c.children[0]);
    std::string goal = str(*lhs);
    if (l.kind == ExprKind::Binary && l.op == syntax::BinaryOp::Mod)
      if (auto operand = indexValue(l.children[0]))
        goal = str(*operand) + " mod " + syntax::printExpr(m, l.children[1]);
    goalTexts.push_back(goal + " " + syntax::binaryOpSpelling(c.op) + " " + str(*rhs));
    conditions.push_back({&r, {*lhs, *rhs}});
  }
  inTileSignature = savedTileSignature;
  active = saved;
  scopes = std::move(savedScopes);

  bool ok = true;
  for (size_t i = 0; i < args.size(); ++i) {
    const Type &want = paramTypes[i];
    if (want.isError())
      continue;
    if (args[i].isTensor() && want.isTensor() && args[i].tensor.space != want.tensor.space) {
      Space from = args[i].tensor.space, to = want.tensor.space;
      // How the value moves: copy_to_device / copy_to_host between the host
      // and the device; inside a kernel, into a tile declared for it.
      std::string how;
      if (from == Space::Host)
        how = "move it with `copy_to_device`";
      else if (to == Space::Host)
        how = "move it with `copy_to_host`";
      else if (to == Space::Shared && from == Space::Global)
        how = "copy it into a `shared` tile with `cp_async` (or a load into a register tile and "
              "a store into the shared tile) and pass that tile";
      else if (to == Space::Shared)
        how = "store it into a `shared` tile and pass that tile";
      else if (to == Space::Register)
        how = "load it into a `register` tile (`r <- " + syntax::printExpr(m, e.children[i]) +
              "`) and pass that tile";
      else
        how = "store it into a " + std::string(spaceName(to)) + " tensor first";
      error(DiagId::CrossPlacement, m.expr(e.children[i]).span,
            std::string("argument ") + std::to_string(i + 1) + " of `" + callee.name.name +
                "` is on " + spaceName(from) + " but the parameter is on " + spaceName(to) + "; " +
                how)
          .label(callee.params[i].span, "parameter declared here");
      ok = false;
      continue;
    }
    if (!sameType(args[i], want)) {
      error(DiagId::TypeMismatch, m.expr(e.children[i]).span,
            "argument " + std::to_string(i + 1) + " of `" + callee.name.name + "` must be " +
                typeStr(want) + ", found " + typeStr(args[i]))
          .label(callee.params[i].span, "parameter declared here");
      ok = false;
    }
  }
  for (size_t ci = 0; ci < conditions.size(); ++ci) {
    auto &[req, sides] = conditions[ci];
    const Expr &c = m.expr(req->condition);
    const DimExpr &lhs = sides.first;
    const DimExpr &rhs = sides.second;
    solver::Proof p;
    using syntax::BinaryOp;
    switch (c.op) {
    case BinaryOp::Eq: {
      auto atom = lhs.asAtom();
      if (atom && rhs.isConstant() && *rhs.constantValue() == 0 &&
          symbols.info(*atom).Kind == solver::AtomKind::Mod)
        p = prover.proveDivisible(symbols.info(*atom).Operand, symbols.info(*atom).Divisor);
      else
        p = prover.proveEqual(lhs, rhs);
      break;
    }
    case BinaryOp::Le: p = prover.proveLessEqual(lhs, rhs); break;
    case BinaryOp::Lt: p = prover.proveLess(lhs, rhs); break;
    case BinaryOp::Ge: p = prover.proveLessEqual(rhs, lhs); break;
    case BinaryOp::Gt: p = prover.proveLess(rhs, lhs); break;
    default: p.Result = solver::Verdict::Proved; break;
    }
    if (!p.proved()) {
      const std::string &goal = goalTexts[ci];
      auto &d = error(DiagId::RequiresAtCallSite, e.span,
                      "`" + callee.name.name + "` requires (" + syntax::printExpr(m, req->condition) +
                          "), which is not proved here: cannot prove " + goal);
      d.label(req->span, "required here");
      if (!p.Suggestions.empty() && !p.Suggestions[0].RequiresClauses.empty())
        addRequiresFix(d, p.Suggestions[0].Text);
      ok = false;
    }
  }
  // What the callee's body needs of its dims beyond its `requires`.
  if (auto implied = impliedRequirements.find(calleeIndex); implied != impliedRequirements.end()) {
    const auto &atoms = itemDimAtoms[calleeIndex];
    auto lookup = [&](solver::AtomId a) -> const DimExpr * {
      for (const auto &[name, atom] : atoms)
        if (atom == a)
          if (auto v = dimValues.find(name); v != dimValues.end())
            return &v->second;
      return nullptr;
    };
    for (const ImpliedRequirement &r : implied->second) {
      DimExpr here = symbols.substitute(r.value, lookup);
      if (prover.proveDivisible(here, r.modulus).proved())
        continue;
      if (current->item->kind == syntax::ItemKind::TileFunction && symbols.onlyDims(here)) {
        // A tile function calling another passes the need on to its callers.
        impliedRequirements[current->itemIndex].push_back(
            {here, r.modulus, "its call of `" + callee.name.name + "`, through " + r.why, e.span});
        continue;
      }
      std::string needed = str(r.value) + " mod " + std::to_string(r.modulus) + " = 0";
      auto &d = error(DiagId::RequiresAtCallSite, e.span,
                      "`" + callee.name.name + "` needs (" + needed +
                          "), which is not proved here: cannot prove " + str(here) + " mod " +
                          std::to_string(r.modulus) + " = 0");
      d.label(r.span, "implied by " + r.why);
      ok = false;
    }
  }
  if (!ok)
    return Type::error();
  if (result.isTensor() && callee.kind == syntax::ItemKind::TileFunction &&
      result.tensor.space == Space::Register)
    result.tensor.writable = true;
  if (inHost && callee.kind == syntax::ItemKind::Kernel)
    result = meshRules(e, result); // launched on the device of its operands (issue 19)
  annotate(e.span, result, true);
  return result;
}

} // namespace kina::sema
