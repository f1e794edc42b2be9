//===- Build.cpp - The algebraic IR of a checked host function ------------===//
#include "algebraic/Build.h"

#include "sema/Types.h"

#include <map>

namespace kina::algebraic {

using syntax::Expr;
using syntax::ExprId;
using syntax::ExprKind;
using syntax::ItemKind;

std::vector<std::string> hostFunctionNames(const sema::Analysis &analysis) {
  std::vector<std::string> names;
  for (const syntax::Item &item : analysis.parse.module.items)
    if (item.kind == ItemKind::HostFunction)
      names.push_back(item.name.name);
  return names;
}

namespace {

struct Builder {
  const sema::Analysis &a;
  const syntax::Module &m;
  const syntax::Item &item;
  Function f;
  std::map<std::string, int> scope; ///< params and `let` names -> op index
  std::vector<Diagnostic> diags;

  void notCompiled(Span span, std::string what) {
    diags.push_back(Diagnostic{DiagId::HostConstructNotCompiled,
                               span,
                               what + " is checked but not compiled in this version",
                               {},
                               {},
                               {}});
  }

  std::optional<TensorType> typeOf(const sema::Type &t, Span span) {
    if (!t.isTensor()) {
      notCompiled(span, "a host-level value that is not a tensor");
      return std::nullopt;
    }
    TensorType r;
    r.dtype = sema::dtypeName(t.tensor.dtype);
    for (const auto &d : t.tensor.shape)
      r.shape.push_back(a.program.symbols->str(d));
    if (t.tensor.space == sema::Space::Host)
      r.on = Placement::Host;
    else if (t.tensor.space == sema::Space::Global)
      r.on = Placement::Device;
    else {
      notCompiled(span, "a host-level tensor outside host and cuda:global memory");
      return std::nullopt;
    }
    if (r.on == Placement::Device) {
      const sema::Sharding &sh = t.tensor.sharding;
      r.device = sh.kind == sema::ShardKind::None ? t.tensor.device : 0;
      r.shard = sh.kind == sema::ShardKind::Replicated ? Shard::Replicated
                : sh.kind == sema::ShardKind::Sharded  ? Shard::Sharded
                : sh.kind == sema::ShardKind::Partial  ? Shard::Partial
                                                       : Shard::None;
      r.shardDim = sh.kind == sema::ShardKind::Sharded ? sh.dim : -1;
      r.mesh = sh.mesh;
    }
    return r;
  }

  /// Sums partial sums that `fn` reads but is not linear in: an all_reduce
  /// before the use (the checker typed the use as if it were there).
  void reducePartials(const std::string &fn, std::vector<int> &operands, bool scalarOperand,
                      Span span) {
    bool allPartial = !operands.empty();
    for (int v : operands)
      allPartial &= f.ops[v].type.shard == Shard::Partial;
    for (int &v : operands) {
      if (f.ops[v].type.shard != Shard::Partial ||
          sema::keepsPartialSums(fn, operands.size(), allPartial, scalarOperand))
        continue;
      Op r;
      r.kind = OpKind::AllReduce;
      r.operands = {v};
      r.type = f.ops[v].type;
      r.type.shard = Shard::Replicated;
      r.inserted = true;
      r.insertedFor = "`" + fn + "` reads the sum of the partial sums";
      r.span = span;
      v = add(std::move(r));
    }
  }

  int add(Op op) {
    f.ops.push_back(std::move(op));
    return int(f.ops.size()) - 1;
  }

  /// The op computing expression `id`, or -1 after a diagnostic.
  int build(ExprId id) {
    const Expr &e = m.expr(id);
    switch (e.kind) {
    case ExprKind::Paren:
      return build(e.children[0]);
    case ExprKind::Name: {
      auto it = scope.find(e.name.name);
      if (it != scope.end())
        return it->second;
      notCompiled(e.span, "`" + e.name.name + "` (a dimension used as a value)");
      return -1;
    }
    case ExprKind::Application:
      return application(id, e);
    default:
      notCompiled(e.span, "`" + syntax::printExpr(m, id) + "` at host level");
      return -1;
    }
  }

  int application(ExprId id, const Expr &e) {
    static const std::map<std::string, OpKind> kinds = {
        {"copy_to_device", OpKind::CopyToDevice},
        {"copy_to_host", OpKind::CopyToHost},
        {"matmul", OpKind::MatMul},
        {"transpose", OpKind::Transpose},
        {"add", OpKind::Add},
        {"sub", OpKind::Sub},
        {"mul", OpKind::Mul},
        {"div", OpKind::Div},
        {"max", OpKind::Max},
        {"min", OpKind::Min},
        {"relu", OpKind::Relu},
        {"exp", OpKind::Exp},
        {"neg", OpKind::Neg},
        {"gelu", OpKind::Gelu},
        {"gelu_tanh", OpKind::GeluTanh},
        {"silu", OpKind::Silu},
        {"softmax", OpKind::Softmax},
        {"layernorm", OpKind::LayerNorm},
        {"rmsnorm", OpKind::RmsNorm},
        {"all_reduce", OpKind::AllReduce},
        {"all_gather", OpKind::AllGather},
        {"reduce_scatter", OpKind::ReduceScatter},
    };
    const std::string &fn = e.name.name;
    auto type = typeOf(a.program.exprTypes[id], e.span);
    if (!type)
      return -1;
    Op op;
    op.type = *type;
    op.span = e.span;
    auto k = kinds.find(fn);
    if (k == kinds.end()) {
      const syntax::Item *callee = nullptr;
      for (const syntax::Item &it : m.items)
        if (it.name.name == fn)
          callee = &it;
      if (!callee || callee->kind != ItemKind::Kernel) {
        notCompiled(e.span, std::string("a call of ") +
                                (callee && callee->kind == ItemKind::HostFunction
                                     ? "the host function"
                                     : "the tile function or builtin") +
                                " `" + fn + "` from a host function");
        return -1;
      }
      op.kind = OpKind::Call;
      op.name = fn;
    } else {
      op.kind = k->second;
    }
    size_t n = e.children.size();
    // `copy_to_device d x`: the device is in the result's type.
    size_t firstOperand = op.kind == OpKind::CopyToDevice && n == 2 ? 1 : 0;
    for (size_t i = firstOperand; i < n; ++i) {
      ExprId c = e.children[i];
      const sema::Type &ct = a.program.exprTypes[c];
      if (i == 1 && isElementwiseBinary(op.kind) &&
          (ct.kind == sema::Type::Scalar || ct.kind == sema::Type::Index)) {
        const Expr *ce = &m.expr(c);
        while (ce->kind == ExprKind::Paren)
          ce = &m.expr(ce->children[0]);
        bool neg = ce->kind == ExprKind::Negate;
        if (neg)
          ce = &m.expr(ce->children[0]);
        if (ce->kind != ExprKind::Float && ce->kind != ExprKind::Integer) {
          notCompiled(ce->span, "a scalar operand other than a literal");
          return -1;
        }
        double v = ce->kind == ExprKind::Float ? ce->floatValue : double(ce->intValue);
        op.scalar = neg ? -v : v;
        op.broadcast = Broadcast::Scalar;
        continue;
      }
      int v = build(c);
      if (v < 0)
        return -1;
      op.operands.push_back(v);
    }
    reducePartials(op.kind == OpKind::Call ? std::string("call") : fn, op.operands,
                   op.broadcast == Broadcast::Scalar, e.span);
    if (isElementwiseBinary(op.kind) && op.broadcast == Broadcast::None) {
      const TensorType &x = f.ops[op.operands[0]].type, &y = f.ops[op.operands[1]].type;
      if (y.shape != x.shape)
        op.broadcast = y.shape.size() == 2 && y.shape[1] == "1" && x.shape[1] != "1"
                           ? Broadcast::Column
                           : Broadcast::Row;
    }
    return add(std::move(op));
  }
};

} // namespace

std::variant<Function, std::vector<Diagnostic>> buildFunction(const sema::Analysis &analysis,
                                                              const std::string &name) {
  const syntax::Module &m = analysis.parse.module;
  const syntax::Item *item = nullptr;
  for (const syntax::Item &it : m.items)
    if (it.kind == ItemKind::HostFunction && it.name.name == name)
      item = &it;
  if (!item) {
    std::string list;
    for (const std::string &n : hostFunctionNames(analysis))
      list += (list.empty() ? "" : ", ") + n;
    return std::vector<Diagnostic>{Diagnostic{
        DiagId::HostFunctionNotFound,
        Span{},
        "no host function `" + name + "` in the file" +
            (list.empty() ? std::string(" (it has none)") : " (host functions: " + list + ")"),
        {},
        {},
        {}}};
  }
  Builder b{analysis, m, *item, {}, {}, {}};
  b.f.name = name;
  b.f.span = item->span;
  for (const syntax::Ident &d : item->dims)
    b.f.dims.push_back(d.name);
  for (const syntax::Requirement &r : item->requirements)
    if (!r.isCapability && r.condition != syntax::kNone)
      b.f.requirements.push_back(syntax::printExpr(m, r.condition));
  for (const syntax::Param &p : item->params) {
    const syntax::TypeRef &t = m.type(p.type);
    Op op;
    op.kind = OpKind::Param;
    op.name = p.name.name;
    op.span = p.span;
    op.type.dtype = t.dtype.name;
    for (ExprId d : t.shape)
      op.type.shape.push_back(syntax::printExpr(m, d));
    // No placement is `host` in a host function, as the checker reads it.
    op.type.on = t.placement.kind == syntax::PlacementKind::Host ||
                         t.placement.kind == syntax::PlacementKind::None
                     ? Placement::Host
                     : Placement::Device;
    // Issue 19: the device index and the sharding (constants the checker proved).
    if (t.placement.device != syntax::kNone)
      op.type.device = evalDim(syntax::printExpr(m, t.placement.device), {}).value_or(0);
    if (t.sharding.kind != syntax::ShardingKind::None) {
      op.type.shard =
          t.sharding.kind == syntax::ShardingKind::Sharded ? Shard::Sharded : Shard::Replicated;
      if (t.sharding.dim != syntax::kNone)
        op.type.shardDim = int(m.expr(t.sharding.dim).intValue);
      for (ExprId d : t.sharding.mesh)
        op.type.mesh.push_back(m.expr(d).intValue);
    }
    int v = b.add(std::move(op));
    b.f.params.push_back(v);
    b.scope[p.name.name] = v;
  }
  for (syntax::StmtId sid : item->body) {
    const syntax::Stmt &s = m.stmt(sid);
    if (s.kind == syntax::StmtKind::Let) {
      int v = b.build(s.value);
      if (v < 0)
        break;
      if (b.f.ops[v].name.empty() && b.f.ops[v].kind != OpKind::Param)
        b.f.ops[v].name = s.name.name;
      b.scope[s.name.name] = v;
    } else if (s.kind == syntax::StmtKind::Return) {
      b.f.result = b.build(s.value);
      if (b.f.result >= 0) { // partial sums are returned summed
        std::vector<int> r{b.f.result};
        b.reducePartials("return", r, false, s.span);
        b.f.result = r[0];
      }
    } else {
      b.notCompiled(s.span, "this statement in a host function");
      break;
    }
  }
  if (!b.diags.empty())
    return std::move(b.diags);
  return std::move(b.f);
}

} // namespace kina::algebraic
