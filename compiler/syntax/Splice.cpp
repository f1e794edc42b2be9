//===- Splice.cpp - Move items' parses into one Module --------------------===//
//
// ParseCache keeps each item's Module on its own; a file's Module is their
// concatenation. Ids index the arenas, so each appended node's ids move by
// the arena sizes before it; spans move with the item's place in the text.
//
//===----------------------------------------------------------------------===//
#include "syntax/Splice.h"

namespace kina::syntax {
namespace {

struct Mover {
  int64_t delta;
  uint32_t exprBase, stmtBase, typeBase;

  void span(Span &s) const {
    if (s.begin == 0 && s.end == 0)
      return;
    s.begin = static_cast<uint32_t>(s.begin + delta);
    s.end = static_cast<uint32_t>(s.end + delta);
  }
  void ident(Ident &i) const { span(i.span); }
  void expr(ExprId &id) const {
    if (id != kNone)
      id += exprBase;
  }
  void stmt(StmtId &id) const {
    if (id != kNone)
      id += stmtBase;
  }
  void type(TypeId &id) const {
    if (id != kNone)
      id += typeBase;
  }
  template <typename T, typename Fn> static void each(std::vector<T> &v, Fn fn) {
    for (T &x : v)
      fn(x);
  }
};

} // namespace

void appendItemParse(ParseResult &into, const ParseCache::Item &item, int64_t delta) {
  appendModule(into.module, item.module, delta);
  appendShiftedDiagnostics(into.diagnostics, item.diagnostics, delta);
}

void appendModule(Module &to, const Module &from, int64_t delta) {
  Mover mv{delta, static_cast<uint32_t>(to.exprs.size()), static_cast<uint32_t>(to.stmts.size()),
           static_cast<uint32_t>(to.types.size())};
  auto exprId = [&](ExprId &id) { mv.expr(id); };
  auto stmtId = [&](StmtId &id) { mv.stmt(id); };

  for (Expr e : from.exprs) {
    mv.span(e.span);
    mv.ident(e.name);
    Mover::each(e.children, exprId);
    to.exprs.push_back(std::move(e));
  }
  for (Stmt s : from.stmts) {
    mv.span(s.span);
    mv.span(s.keywordSpan);
    mv.ident(s.name);
    mv.type(s.type);
    mv.expr(s.target);
    mv.expr(s.value);
    mv.expr(s.end);
    mv.span(s.countSpan);
    Mover::each(s.shape, exprId);
    mv.span(s.shapeSpan);
    Mover::each(s.body, stmtId);
    Mover::each(s.elseBody, stmtId);
    mv.span(s.bodySpan);
    to.stmts.push_back(std::move(s));
  }
  for (TypeRef t : from.types) {
    mv.span(t.span);
    mv.ident(t.dtype);
    Mover::each(t.shape, exprId);
    mv.span(t.shapeSpan);
    mv.span(t.placement.span);
    mv.expr(t.placement.device);
    to.types.push_back(std::move(t));
  }
  for (Item it : from.items) {
    mv.span(it.span);
    mv.span(it.keywordSpan);
    mv.ident(it.name);
    Mover::each(it.dims, [&](Ident &d) { mv.ident(d); });
    mv.span(it.dimsSpan);
    for (Requirement &r : it.requirements) {
      mv.span(r.span);
      mv.expr(r.condition);
      mv.ident(r.target);
      Mover::each(r.capabilities, [&](Ident &c) { mv.ident(c); });
    }
    for (Param &p : it.params) {
      mv.span(p.span);
      mv.ident(p.name);
      mv.span(p.mutSpan);
      mv.type(p.type);
    }
    mv.type(it.result);
    mv.ident(it.resultName);
    mv.span(it.resultSpan);
    Mover::each(it.body, stmtId);
    mv.span(it.bodySpan);
    to.items.push_back(std::move(it));
  }
}

void appendShiftedDiagnostics(std::vector<Diagnostic> &to, const std::vector<Diagnostic> &from,
                              int64_t delta) {
  Mover mv{delta, 0, 0, 0};
  for (Diagnostic d : from) {
    mv.span(d.span);
    for (SpanLabel &l : d.labels)
      mv.span(l.span);
    for (FixIt &f : d.fixits)
      mv.span(f.span);
    to.push_back(std::move(d));
  }
}

void appendItemHeaders(Module &to, const Module &from, int64_t delta) {
  Mover mv{delta, 0, 0, 0};
  for (const Item &it : from.items) {
    Item h;
    h.kind = it.kind;
    h.span = it.span;
    h.keywordSpan = it.keywordSpan;
    h.name = it.name;
    mv.span(h.span);
    mv.span(h.keywordSpan);
    mv.ident(h.name);
    to.items.push_back(std::move(h));
  }
}

} // namespace kina::syntax
