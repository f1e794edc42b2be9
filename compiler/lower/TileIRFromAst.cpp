//===- TileIRFromAst.cpp - Build tile IR from a checked kernel ------------===//
//
// The bridge between the checker and code generation: walks a kernel that
// checked clean and emits it through ir::KernelBuilder. Index expressions are
// rebuilt from the AST (names resolve to dims, grid ids, loop variables and
// inlined lets); nested tile expressions get register temporaries. Anything
// the checker accepts but the backend cannot express is reported as K1209.
//
//===----------------------------------------------------------------------===//
#include "lower/TileIRFromAst.h"

#include "ir/Builder.h"

#include <unordered_map>

namespace kina::lower {

using namespace kina::syntax;

namespace {

struct Unsupported {
  Span span;
  std::string message;
};

class Lowering {
public:
  Lowering(const sema::Analysis &analysis, const Item &item)
      : m_(analysis.parse.module), prog_(analysis.program), item_(item),
        b_(item.name.name, item.name.span) {}

  llvm::Expected<ir::Kernel> run() {
    signature();
    for (StmtId s : item_.body)
      stmt(s);
    if (failure_)
      return llvm::createStringError(llvm::inconvertibleErrorCode(), "%s", failure_->c_str());
    return b_.finish();
  }

  std::optional<Unsupported> unsupported;

private:
  const Module &m_;
  const sema::CheckedProgram &prog_;
  const Item &item_;
  ir::KernelBuilder b_;
  std::optional<std::string> failure_;

  struct Value {
    enum Kind { Index, Param, Tile, View } kind;
    ir::IndexExpr index;
    uint32_t id = 0;   ///< ParamId or TileId
    ExprId viewExpr = kNone;
  };
  std::vector<std::unordered_map<std::string, Value>> env_{1};
  std::unordered_map<std::string, ir::TileId> tilesByName_;
  unsigned temps_ = 0;

  void fail(Span span, std::string message) {
    if (!failure_) {
      failure_ = message;
      unsupported = Unsupported{span, std::move(message)};
    }
  }

  const Value *lookup(const std::string &name) const {
    for (auto it = env_.rbegin(); it != env_.rend(); ++it) {
      auto f = it->find(name);
      if (f != it->end())
        return &f->second;
    }
    return nullptr;
  }

  const sema::Type &typeOf(ExprId id) const { return prog_.exprTypes[id]; }

  static ir::DType irDType(sema::DType t) {
    switch (t) {
    case sema::DType::F16: return ir::DType::F16;
    case sema::DType::BF16: return ir::DType::BF16;
    case sema::DType::F64: return ir::DType::F64;
    case sema::DType::I8: return ir::DType::I8;
    case sema::DType::I32: return ir::DType::I32;
    case sema::DType::I64: return ir::DType::I64;
    default: return ir::DType::F32;
    }
  }

  bool supportedDType(sema::DType t, Span span) {
    switch (t) {
    case sema::DType::F16:
    case sema::DType::BF16:
    case sema::DType::F32:
    case sema::DType::F64:
    case sema::DType::I8:
    case sema::DType::I32:
    case sema::DType::I64: return true;
    default:
      fail(span, std::string("code generation does not support element type ") +
                     sema::dtypeName(t) + " yet");
      return false;
    }
  }

  // ------------------------------------------------------------ signature

  void signature() {
    for (const Ident &d : item_.dims) {
      ir::DimId id = b_.addDim(d.name, d.span);
      env_.back()[d.name] = Value{Value::Index, ir::IndexExpr::dim(id)};
    }
    for (const Param &p : item_.params) {
      std::vector<ir::IndexExpr> shape;
      for (ExprId e : m_.type(p.type).shape)
        shape.push_back(index(e));
      auto dt = sema::parseDType(m_.type(p.type).dtype.name);
      if (!dt || !supportedDType(*dt, p.span))
        return;
      if (m_.type(p.type).kind == TypeKind::Scalar) {
        fail(p.span, "scalar kernel parameters are not supported by code generation yet");
        return;
      }
      ir::ParamId id = b_.addTensor(p.name.name, irDType(*dt), shape, p.isMutable, p.span);
      env_.back()[p.name.name] = Value{Value::Param, {}, id};
    }
    if (item_.result != kNone) {
      const TypeRef &t = m_.type(item_.result);
      std::vector<ir::IndexExpr> shape;
      for (ExprId e : t.shape)
        shape.push_back(index(e));
      auto dt = sema::parseDType(t.dtype.name);
      std::string name = item_.resultName.valid() ? item_.resultName.name : "result";
      if (dt && supportedDType(*dt, t.span)) {
        ir::ParamId id = b_.addResult(name, irDType(*dt), shape, t.span);
        env_.back()[name] = Value{Value::Param, {}, id};
      }
    }
    for (const Requirement &r : item_.requirements) {
      if (r.isCapability) {
        for (const Ident &c : r.capabilities)
          b_.addCapability(c.name);
        continue;
      }
      if (r.condition != kNone)
        b_.addRequirement(index(r.condition), printExpr(m_, r.condition), r.span);
    }
  }

  // ---------------------------------------------------------- expressions

  ir::IndexExpr index(ExprId id) {
    const Expr &e = m_.expr(id);
    using K = ir::IndexExpr::Kind;
    switch (e.kind) {
    case ExprKind::Integer: return ir::IndexExpr::constant(e.intValue);
    case ExprKind::Paren: return index(e.children[0]);
    case ExprKind::Negate: return ir::IndexExpr::constant(0) - index(e.children[0]);
    case ExprKind::Name: {
      const Value *v = lookup(e.name.name);
      if (v && v->kind == Value::Index)
        return v->index;
      fail(e.span, "`" + e.name.name + "` is not an index value");
      return ir::IndexExpr::constant(0);
    }
    case ExprKind::Application: {
      if ((e.name.name == "block_id" || e.name.name == "warp_id") && e.children.size() == 1) {
        unsigned axis = static_cast<unsigned>(m_.expr(e.children[0]).intValue);
        return e.name.name == "block_id" ? ir::IndexExpr::blockId(axis)
                                         : ir::IndexExpr::warpId(axis);
      }
      fail(e.span, "`" + e.name.name + "` cannot be lowered as an index expression yet");
      return ir::IndexExpr::constant(0);
    }
    case ExprKind::Binary: {
      ir::IndexExpr a = index(e.children[0]);
      ir::IndexExpr b = index(e.children[1]);
      auto constant = [&]() -> int64_t {
        const sema::Type &t = typeOf(e.children[1]);
        return t.kind == sema::Type::Index ? t.index.constantValue().value_or(1) : 1;
      };
      switch (e.op) {
      case BinaryOp::Add: return a + b;
      case BinaryOp::Sub: return a - b;
      case BinaryOp::Mul: return a * b;
      case BinaryOp::Div: return ir::exactDiv(a, constant());
      case BinaryOp::Mod: return ir::mod(a, constant());
      case BinaryOp::Eq: return ir::IndexExpr::binary(K::Eq, a, b);
      case BinaryOp::Ne: return ir::IndexExpr::binary(K::Ne, a, b);
      case BinaryOp::Lt: return ir::IndexExpr::binary(K::Lt, a, b);
      case BinaryOp::Le: return ir::IndexExpr::binary(K::Le, a, b);
      case BinaryOp::Gt: return ir::IndexExpr::binary(K::Gt, a, b);
      case BinaryOp::Ge: return ir::IndexExpr::binary(K::Ge, a, b);
      }
      break;
    }
    default: break;
    }
    fail(e.span, "expression cannot be lowered as an index");
    return ir::IndexExpr::constant(0);
  }

  /// A slice expression (or a bare tile/tensor name) as an access.
  std::optional<ir::Access> access(ExprId id) {
    const Expr &e = m_.expr(id);
    if (e.kind == ExprKind::Paren)
      return access(e.children[0]);
    ExprId baseId = e.kind == ExprKind::Index ? e.children[0] : id;
    const Expr &base = m_.expr(baseId);
    if (base.kind != ExprKind::Name)
      return std::nullopt;
    const Value *v = lookup(base.name.name);
    if (!v)
      return std::nullopt;
    if (v->kind == Value::View) {
      if (e.kind == ExprKind::Index) {
        fail(e.span, "indexing a `let`-bound view is not supported by code generation yet");
        return std::nullopt;
      }
      return access(v->viewExpr);
    }
    if (v->kind != Value::Param && v->kind != Value::Tile)
      return std::nullopt;
    std::vector<ir::SliceDim> dims;
    if (e.kind == ExprKind::Index) {
      for (size_t i = 1; i < e.children.size(); ++i) {
        const Expr &ix = m_.expr(e.children[i]);
        if (ix.kind == ExprKind::Slice) {
          const sema::Type &len = typeOf(ix.children[1]);
          int64_t n = len.kind == sema::Type::Index ? len.index.constantValue().value_or(1) : 1;
          dims.push_back(ir::SliceDim::range(index(ix.children[0]), n));
        } else {
          dims.push_back(ir::SliceDim::at(index(e.children[i])));
        }
      }
    }
    return v->kind == Value::Param ? ir::Access::tensor(v->id, std::move(dims))
                                   : ir::Access::tile(v->id, std::move(dims));
  }

  /// The register tile named by a bare name, if any.
  std::optional<ir::TileId> tileName(ExprId id) {
    const Expr &e = m_.expr(id);
    if (e.kind == ExprKind::Paren)
      return tileName(e.children[0]);
    if (e.kind != ExprKind::Name)
      return std::nullopt;
    const Value *v = lookup(e.name.name);
    if (v && v->kind == Value::Tile)
      return v->id;
    return std::nullopt;
  }

  bool isRegisterTile(ir::TileId t) const {
    (void)t;
    return true;
  }

  ir::TileId temporary(ExprId id) {
    const sema::Type &t = typeOf(id);
    std::vector<int64_t> shape;
    for (const auto &d : t.tensor.shape)
      shape.push_back(d.constantValue().value_or(1));
    return b_.addRegisterTile("__t" + std::to_string(temps_++), irDType(t.tensor.dtype), shape,
                              m_.expr(id).span);
  }

  /// Evaluates a register-tile expression into `dst`.
  void evaluateInto(ir::TileId dst, ExprId id) {
    const Expr &e = m_.expr(id);
    Span span = e.span;
    if (e.kind == ExprKind::Paren)
      return evaluateInto(dst, e.children[0]);
    if (auto t = tileName(id)) {
      if (*t != dst)
        b_.unary(ir::UnaryKind::Copy, dst, ir::Operand::ofTile(*t), span);
      return;
    }
    if (e.kind == ExprKind::Index || e.kind == ExprKind::Name) {
      if (auto a = access(id)) {
        b_.load(dst, *a, span);
        return;
      }
    }
    if (e.kind != ExprKind::Application) {
      fail(span, "this tile expression cannot be lowered yet");
      return;
    }
    const std::string &f = e.name.name;
    auto operand = [&](ExprId arg) -> ir::Operand {
      const sema::Type &t = typeOf(arg);
      if (t.kind == sema::Type::Scalar || t.kind == sema::Type::Index) {
        const Expr &x = m_.expr(arg);
        double v = x.kind == ExprKind::Float     ? x.floatValue
                   : x.kind == ExprKind::Integer ? static_cast<double>(x.intValue)
                                                 : 0.0;
        if (x.kind == ExprKind::Paren && m_.expr(x.children[0]).kind == ExprKind::Negate) {
          const Expr &inner = m_.expr(m_.expr(x.children[0]).children[0]);
          v = -(inner.kind == ExprKind::Float ? inner.floatValue : static_cast<double>(inner.intValue));
        }
        return ir::Operand::ofScalar(v);
      }
      if (auto t2 = tileName(arg))
        return ir::Operand::ofTile(*t2);
      ir::TileId tmp = temporary(arg);
      evaluateInto(tmp, arg);
      return ir::Operand::ofTile(tmp);
    };
    if (f == "fill") {
      b_.fill(dst, scalarValue(e.children[0]), span);
      return;
    }
    if (f == "wmma_mma") {
      auto acc = tileName(e.children[0]);
      auto a = access(e.children[1]);
      auto bb = access(e.children[2]);
      if (!acc || !a || !bb) {
        fail(span, "`wmma_mma` operands must be a register tile and two shared-tile slices");
        return;
      }
      b_.mma(dst, *acc, *a, *bb, span);
      return;
    }
    static const std::pair<const char *, ir::UnaryKind> unary[] = {
        {"relu", ir::UnaryKind::Relu}, {"exp", ir::UnaryKind::Exp}, {"neg", ir::UnaryKind::Neg}};
    for (auto &[name, kind] : unary)
      if (f == name) {
        b_.unary(kind, dst, operand(e.children[0]), span);
        return;
      }
    if (f == "convert") {
      b_.unary(ir::UnaryKind::Convert, dst, operand(e.children[1]), span);
      return;
    }
    static const std::pair<const char *, ir::BinaryKind> binary[] = {
        {"add", ir::BinaryKind::Add}, {"sub", ir::BinaryKind::Sub}, {"mul", ir::BinaryKind::Mul},
        {"div", ir::BinaryKind::Div}, {"max", ir::BinaryKind::Max}, {"min", ir::BinaryKind::Min}};
    for (auto &[name, kind] : binary)
      if (f == name) {
        ir::Operand lhs = operand(e.children[0]);
        ir::Operand rhs = operand(e.children[1]);
        b_.binary(kind, dst, lhs, rhs, span);
        return;
      }
    if (f == "row_sum" || f == "row_max" || f == "transpose") {
      ir::Operand src = operand(e.children[0]);
      if (f == "transpose")
        b_.transpose(dst, src.tile, span);
      else
        b_.rowReduce(f == "row_sum" ? ir::ReduceKind::Sum : ir::ReduceKind::Max, dst, src.tile,
                     span);
      return;
    }
    // Tile-function calls are not inlined by the backend yet.
    fail(span, "`" + f + "` cannot be lowered to tile IR yet");
  }

  double scalarValue(ExprId id) {
    const Expr &e = m_.expr(id);
    if (e.kind == ExprKind::Float)
      return e.floatValue;
    if (e.kind == ExprKind::Integer)
      return static_cast<double>(e.intValue);
    if (e.kind == ExprKind::Paren)
      return scalarValue(e.children[0]);
    if (e.kind == ExprKind::Negate)
      return -scalarValue(e.children[0]);
    fail(e.span, "`fill` needs a literal value");
    return 0;
  }

  // ----------------------------------------------------------- statements

  void stmt(StmtId id) {
    if (failure_)
      return;
    const Stmt &s = m_.stmt(id);
    switch (s.kind) {
    case StmtKind::BlockGrid: {
      std::vector<ir::IndexExpr> g;
      for (ExprId e : s.shape)
        g.push_back(index(e));
      if (g.size() > 2) {
        fail(s.shapeSpan, "3-D block grids are not supported by code generation yet");
        return;
      }
      b_.setBlockGrid(g[0], g.size() > 1 ? g[1] : ir::IndexExpr::constant(1));
      env_.emplace_back();
      for (StmtId c : s.body)
        stmt(c);
      env_.pop_back();
      return;
    }
    case StmtKind::WarpGrid: {
      std::vector<int64_t> w;
      for (ExprId e : s.shape) {
        const sema::Type &t = typeOf(e);
        w.push_back(t.kind == sema::Type::Index ? t.index.constantValue().value_or(1) : 1);
      }
      b_.setWarpGrid(w[0], w.size() > 1 ? w[1] : 1);
      env_.emplace_back();
      for (StmtId c : s.body)
        stmt(c);
      env_.pop_back();
      return;
    }
    case StmtKind::Let: {
      const sema::Type &t = typeOf(s.value);
      if (t.kind == sema::Type::Index)
        env_.back()[s.name.name] = Value{Value::Index, index(s.value)};
      else
        env_.back()[s.name.name] = Value{Value::View, {}, 0, s.value};
      return;
    }
    case StmtKind::Shared:
    case StmtKind::Register: {
      const TypeRef &t = m_.type(s.type);
      std::vector<int64_t> shape;
      for (ExprId e : t.shape) {
        const sema::Type &d = typeOf(e);
        shape.push_back(d.kind == sema::Type::Index ? d.index.constantValue().value_or(1) : 1);
      }
      auto dt = sema::parseDType(t.dtype.name);
      if (!dt || !supportedDType(*dt, t.span))
        return;
      ir::TileId tile = s.kind == StmtKind::Shared
                            ? b_.addSharedTile(s.name.name, irDType(*dt), shape, s.span)
                            : b_.addRegisterTile(s.name.name, irDType(*dt), shape, s.span);
      env_.back()[s.name.name] = Value{Value::Tile, {}, tile};
      return;
    }
    case StmtKind::For: {
      ir::VarId v = b_.beginFor(s.name.name, index(s.value), index(s.end), s.span);
      env_.emplace_back();
      env_.back()[s.name.name] = Value{Value::Index, ir::IndexExpr::var(v)};
      for (StmtId c : s.body)
        stmt(c);
      env_.pop_back();
      b_.endFor();
      return;
    }
    case StmtKind::If: {
      b_.beginIf(index(s.value), s.span);
      env_.emplace_back();
      for (StmtId c : s.body)
        stmt(c);
      env_.pop_back();
      if (s.hasElse) {
        b_.beginElse();
        env_.emplace_back();
        for (StmtId c : s.elseBody)
          stmt(c);
        env_.pop_back();
      }
      b_.endIf();
      return;
    }
    case StmtKind::CpAsync: {
      auto dst = access(s.target);
      auto src = access(s.value);
      if (!dst || !src) {
        fail(s.span, "`cp_async` operands cannot be lowered");
        return;
      }
      b_.cpAsync(*dst, *src, s.span);
      return;
    }
    case StmtKind::Commit: b_.cpAsyncCommit(s.span); return;
    case StmtKind::WaitAll: b_.cpAsyncWait(0, s.span); return;
    case StmtKind::WaitGroup: b_.cpAsyncWait(static_cast<unsigned>(s.count), s.span); return;
    case StmtKind::BlockSync: b_.blockSync(s.span); return;
    case StmtKind::Assign: {
      const sema::Type &dstType = typeOf(s.target);
      const Expr &target = m_.expr(s.target);
      bool registerTarget = dstType.isTensor() && dstType.tensor.space == sema::Space::Register &&
                            target.kind == ExprKind::Name;
      if (registerTarget) {
        evaluateInto(*tileName(s.target), s.value);
        return;
      }
      auto dst = access(s.target);
      if (!dst) {
        fail(s.span, "store target cannot be lowered");
        return;
      }
      const Expr &value = m_.expr(s.value);
      bool convert = false;
      ExprId src = s.value;
      if (value.kind == ExprKind::Application && value.name.name == "convert") {
        convert = true;
        src = value.children[1];
      }
      ir::TileId tile;
      if (auto t = tileName(src)) {
        tile = *t;
      } else {
        tile = temporary(src);
        evaluateInto(tile, src);
      }
      b_.store(*dst, tile, convert, s.span);
      return;
    }
    case StmtKind::Return:
    case StmtKind::Error: return;
    }
  }
};

} // namespace

llvm::Expected<ir::Kernel> lowerKernel(const sema::Analysis &analysis, std::string_view kernel) {
  for (const Diagnostic &d : analysis.diagnostics)
    if (d.severity() == Severity::Error)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "the file has errors; run `kina check` to see them");
  for (const Item &item : analysis.parse.module.items) {
    if (item.kind != ItemKind::Kernel || item.name.name != kernel)
      continue;
    Lowering lowering(analysis, item);
    return lowering.run();
  }
  return llvm::createStringError(llvm::inconvertibleErrorCode(), "no kernel named `%s` in the file",
                                 std::string(kernel).c_str());
}

} // namespace kina::lower
