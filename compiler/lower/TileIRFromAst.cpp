//===- TileIRFromAst.cpp - Build tile IR from a checked kernel ------------===//
//
// The bridge between the checker and code generation: walks a kernel that
// checked clean and emits it through ir::KernelBuilder.
//
//  * Index expressions are rebuilt from the AST (names resolve to dims, grid
//    ids, loop variables and lets). A `let` whose value is a small tree is
//    inlined; a larger one becomes an ir::LetOp, so a chain of lets that
//    each use the previous one twice stays linear instead of doubling.
//  * Scalars (literals, scalar parameters, `convert DT i` of an index, and
//    arithmetic over them) become ir::ScalarExpr operands computed at run
//    time; the checker has rejected an index used as a scalar (K0708).
//  * Tile expressions are evaluated into register tiles: the assignment's
//    target when there is one, otherwise a temporary whose shape comes from
//    the operands' IR shapes (so it is right inside an inlined tile function
//    whose own types are symbolic).
//  * Views (slices of tensors and shared tiles, `let`s of them, tile
//    function parameters on cuda:global/shared) are ir::Access values;
//    slicing a view composes the offsets.
//  * Calls of `tile` functions are inlined: the callee's dims are bound to
//    the extents of the arguments, its parameters to the arguments (register
//    tiles by value), and its `return` evaluates into the caller's target.
//  * A 1-D register tile [N] is the IR tile [N, 1].
//
// The checker rules out everything this file cannot lower (CheckLowerable
// and target/Lowerable.h); what remains here as `fail(...)` is a compiler
// bug, reported as the internal K1210 at the construct's span.
//
//===----------------------------------------------------------------------===//
#include "lower/TileIRFromAst.h"

#include "ir/Builder.h"

#include <array>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace kina::lower {

using namespace kina::syntax;

namespace {

using UK = ir::UnaryKind;
/// The unary elementwise builtins (and the math builtins, docs/math.md).
const std::pair<const char *, ir::UnaryKind> kUnaryBuiltins[] = {
    {"relu", UK::Relu},
    {"exp", UK::Exp},
    {"neg", UK::Neg},
    // The math builtins (docs/math.md).
    {"sqrt", UK::Sqrt},
    {"rsqrt", UK::Rsqrt},
    {"exp2", UK::Exp2},
    {"log", UK::Log},
    {"log2", UK::Log2},
    {"tanh", UK::Tanh},
    {"erf", UK::Erf},
    {"sigmoid", UK::Sigmoid},
    {"silu", UK::Silu},
    {"gelu", UK::Gelu},
    {"gelu_tanh", UK::GeluTanh},
    {"abs", UK::Abs},
    {"floor", UK::Floor},
    {"ceil", UK::Ceil},
    {"exp2_approx", UK::Exp2Approx},
    {"rsqrt_approx", UK::RsqrtApprox},
    {"tanh_approx", UK::TanhApprox},
    {"gelu_tanh_approx", UK::GeluTanhApprox}};

std::optional<ir::UnaryKind> unaryBuiltin(std::string_view name) {
  for (const auto &[n, kind] : kUnaryBuiltins)
    if (name == n)
      return kind;
  return std::nullopt;
}

/// Inlined index trees larger than this become a LetOp variable.
constexpr size_t kInlineLetNodes = 32;

size_t treeSize(const ir::IndexExpr &e, size_t limit) {
  if (e.isLeaf() || limit == 0)
    return 1;
  size_t n = 1 + treeSize(e.lhs(), limit - 1);
  if (e.kind() != ir::IndexExpr::Kind::Not && n < limit)
    n += treeSize(e.rhs(), limit - n);
  return n;
}

class Lowering {
public:
  Lowering(const sema::Analysis &analysis, const Item &item)
      : m_(analysis.parse.module), prog_(analysis.program), item_(item),
        b_(item.name.name, item.name.span) {
    for (size_t i = 0; i < m_.items.size(); ++i)
      if (m_.items[i].kind == ItemKind::TileFunction && m_.items[i].name.valid())
        tileFunctions_.emplace(m_.items[i].name.name, &m_.items[i]);
    loopsThatRun_.insert(prog_.loopsThatRun.begin(), prog_.loopsThatRun.end());
  }

  llvm::Expected<ir::Kernel> run() {
    signature();
    for (StmtId s : item_.body)
      stmt(s);
    if (failure_)
      return llvm::make_error<LoweringError>(failure_->span, failure_->message);
    auto k = b_.finish();
    if (!k)
      return llvm::make_error<LoweringError>(item_.name.span, llvm::toString(k.takeError()));
    return k;
  }

private:
  const Module &m_;
  const sema::CheckedProgram &prog_;
  const Item &item_;
  ir::KernelBuilder b_;
  std::unordered_map<std::string, const Item *> tileFunctions_;
  std::unordered_set<StmtId> loopsThatRun_; ///< for statements proved to run at least once

  struct Failure {
    Span span;
    std::string message;
  };
  std::optional<Failure> failure_;

  /// What a name stands for.
  struct Value {
    enum Kind { Index, Scalar, Tile, View, Barrier } kind = Index;
    ir::IndexExpr index;       ///< Index
    ir::ScalarExpr scalar;     ///< Scalar
    ir::TileId tile = 0;       ///< Tile: a whole register or shared tile
    ir::Access access;         ///< View: a tensor or shared tile, maybe sliced
    ir::BarrierId barrier = 0; ///< Barrier: a `shared` barrier ring
    /// Index: the step of the strided loop whose variable this is.
    std::optional<ir::IndexExpr> step;
  };
  static Value indexValue(ir::IndexExpr e) { return Value{Value::Index, std::move(e)}; }
  static Value scalarValue(ir::ScalarExpr e) {
    Value v;
    v.kind = Value::Scalar;
    v.scalar = std::move(e);
    return v;
  }
  static Value tileValue(ir::TileId t) {
    Value v;
    v.kind = Value::Tile;
    v.tile = t;
    return v;
  }
  static Value viewValue(ir::Access a) {
    Value v;
    v.kind = Value::View;
    v.access = std::move(a);
    return v;
  }

  /// Scopes; lookups stop at envBase_ so an inlined callee sees only its own
  /// names.
  std::vector<std::unordered_map<std::string, Value>> env_{1};
  size_t envBase_ = 0;
  unsigned temps_ = 0;
  std::vector<const Item *> inlining_; ///< callees being inlined, innermost last

  /// Where the value of the innermost inlined `return` goes.
  struct ReturnSlot {
    std::optional<ir::TileId> dst;
    std::optional<Value> value;
  };
  std::vector<ReturnSlot> returns_;

  void fail(Span span, std::string message) {
    if (!failure_)
      failure_ = Failure{span, std::move(message)};
  }
  bool failed() const { return failure_.has_value(); }

  const Value *lookup(const std::string &name) const {
    for (size_t i = env_.size(); i-- > envBase_;) {
      auto f = env_[i].find(name);
      if (f != env_[i].end())
        return &f->second;
    }
    return nullptr;
  }
  void bind(const std::string &name, Value v) { env_.back()[name] = std::move(v); }

  const sema::Type &typeOf(ExprId id) const { return prog_.exprTypes[id]; }

  std::optional<ir::DType> irDType(sema::DType t, Span span) {
    switch (t) {
    case sema::DType::F16:
      return ir::DType::F16;
    case sema::DType::BF16:
      return ir::DType::BF16;
    case sema::DType::F32:
      return ir::DType::F32;
    case sema::DType::F64:
      return ir::DType::F64;
    case sema::DType::I8:
      return ir::DType::I8;
    case sema::DType::U8:
      return ir::DType::U8;
    case sema::DType::I32:
      return ir::DType::I32;
    case sema::DType::I64:
      return ir::DType::I64;
    default:
      break;
    }
    fail(span, std::string("element type ") + sema::dtypeName(t) +
                   " reached code generation (the checker rejects it, K0710)");
    return std::nullopt;
  }
  std::optional<ir::DType> irDType(const Ident &name) {
    auto dt = sema::parseDType(name.name);
    if (!dt) {
      fail(name.span, "unknown element type `" + name.name + "`");
      return std::nullopt;
    }
    return irDType(*dt, name.span);
  }

  /// IR shape of a declared tile: constant extents, [N] as [N, 1] in registers.
  std::optional<std::vector<int64_t>> tileShape(const TypeRef &t, bool registerTile) {
    std::vector<int64_t> shape;
    for (ExprId e : t.shape) {
      auto c = index(e).asConstant();
      if (!c || *c <= 0) {
        fail(m_.expr(e).span, "tile extent is not a positive constant");
        return std::nullopt;
      }
      shape.push_back(*c);
    }
    if (registerTile && shape.size() == 1)
      shape.push_back(1);
    return shape;
  }

  // ------------------------------------------------------------ signature

  void signature() {
    for (const Ident &d : item_.dims) {
      ir::DimId id = b_.addDim(d.name, d.span);
      bind(d.name, indexValue(ir::IndexExpr::dim(id)));
    }
    for (const Param &p : item_.params) {
      const TypeRef &t = m_.type(p.type);
      auto dt = irDType(t.dtype);
      if (!dt)
        return;
      if (t.kind == TypeKind::Scalar) {
        ir::ScalarId id = b_.addScalar(p.name.name, *dt, p.span);
        bind(p.name.name, scalarValue(ir::ScalarExpr::param(id, *dt)));
        continue;
      }
      std::vector<ir::IndexExpr> shape;
      for (ExprId e : t.shape)
        shape.push_back(index(e));
      ir::ParamId id = b_.addTensor(p.name.name, *dt, shape, p.isMutable, p.span);
      bind(p.name.name, viewValue(ir::Access::tensor(id)));
    }
    if (item_.result != kNone) {
      const TypeRef &t = m_.type(item_.result);
      std::vector<ir::IndexExpr> shape;
      for (ExprId e : t.shape)
        shape.push_back(index(e));
      std::string name = item_.resultName.valid() ? item_.resultName.name : "result";
      if (auto dt = irDType(t.dtype)) {
        ir::ParamId id = b_.addResult(name, *dt, shape, t.span);
        bind(name, viewValue(ir::Access::tensor(id)));
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

  // ---------------------------------------------------- index expressions

  /// A positive constant the checker has proved (divisors, slice lengths).
  std::optional<int64_t> positiveConstant(ExprId id, const char *what) {
    auto c = index(id).asConstant();
    if (!c || *c <= 0) {
      fail(m_.expr(id).span, std::string(what) + " is not a positive constant");
      return std::nullopt;
    }
    return c;
  }

  ir::IndexExpr index(ExprId id) {
    const Expr &e = m_.expr(id);
    using K = ir::IndexExpr::Kind;
    switch (e.kind) {
    case ExprKind::Integer:
      return ir::IndexExpr::constant(e.intValue);
    case ExprKind::Paren:
      return index(e.children[0]);
    case ExprKind::Negate:
      return ir::IndexExpr::constant(0) - index(e.children[0]);
    case ExprKind::Name: {
      const Value *v = lookup(e.name.name);
      if (v && v->kind == Value::Index)
        return v->index;
      fail(e.span, "`" + e.name.name + "` is not an index value");
      return ir::IndexExpr::constant(0);
    }
    case ExprKind::Application: {
      const std::string &f = e.name.name;
      if ((f == "block_id" || f == "warp_id") && e.children.size() == 1) {
        auto axis = index(e.children[0]).asConstant();
        if (!axis || *axis < 0 || *axis > 2) {
          fail(e.span, "grid axis is not a constant 0, 1 or 2");
          return ir::IndexExpr::constant(0);
        }
        unsigned a = static_cast<unsigned>(*axis);
        return f == "block_id" ? ir::IndexExpr::blockId(a) : ir::IndexExpr::warpId(a);
      }
      if ((f == "floor_div" || f == "ceil_div") && e.children.size() == 2) {
        ir::IndexExpr a = index(e.children[0]);
        auto n = positiveConstant(e.children[1], "the divisor");
        if (!n)
          return ir::IndexExpr::constant(0);
        return f == "floor_div" ? ir::floorDiv(a, *n) : ir::ceilDiv(a, *n);
      }
      fail(e.span, "`" + f + "` is not an index operation");
      return ir::IndexExpr::constant(0);
    }
    case ExprKind::Binary: {
      ir::IndexExpr a = index(e.children[0]);
      switch (e.op) {
      case BinaryOp::Div:
      case BinaryOp::Mod: {
        // A dimension-expression divisor (the checker proved it >= 1 and
        // the dividend >= 0: truncation is floor division).
        if (const sema::Type &d = typeOf(e.children[1]);
            d.kind == sema::Type::Index && !d.index.isConstant()) {
          ir::IndexExpr divisor = index(e.children[1]);
          return e.op == BinaryOp::Div ? ir::div(a, divisor) : ir::mod(a, divisor);
        }
        // `t / S` on a strided loop's variable: the ordinal, rounded down.
        if (e.op == BinaryOp::Div && m_.expr(e.children[0]).kind == ExprKind::Name)
          if (const Value *v = lookup(m_.expr(e.children[0]).name.name);
              v && v->kind == Value::Index && v->step) {
            auto n = positiveConstant(e.children[1], "the divisor");
            if (!n)
              return ir::IndexExpr::constant(0);
            return ir::floorDiv(a, *n);
          }
        auto n = positiveConstant(e.children[1], "the divisor");
        if (!n)
          return ir::IndexExpr::constant(0);
        if (e.op == BinaryOp::Div && floorDivision_) // `wait ... round (k / 3)`
          return ir::floorDiv(a, *n);
        return e.op == BinaryOp::Div ? ir::exactDiv(a, *n) : ir::mod(a, *n);
      }
      default:
        break;
      }
      ir::IndexExpr b = index(e.children[1]);
      switch (e.op) {
      case BinaryOp::Add:
        return a + b;
      case BinaryOp::Sub:
        return a - b;
      case BinaryOp::Mul:
        return a * b;
      case BinaryOp::Eq:
        return ir::IndexExpr::binary(K::Eq, a, b);
      case BinaryOp::Ne:
        return ir::IndexExpr::binary(K::Ne, a, b);
      case BinaryOp::Lt:
        return ir::IndexExpr::binary(K::Lt, a, b);
      case BinaryOp::Le:
        return ir::IndexExpr::binary(K::Le, a, b);
      case BinaryOp::Gt:
        return ir::IndexExpr::binary(K::Gt, a, b);
      case BinaryOp::Ge:
        return ir::IndexExpr::binary(K::Ge, a, b);
      default:
        break;
      }
      break;
    }
    default:
      break;
    }
    fail(e.span, "expression cannot be lowered as an index");
    return ir::IndexExpr::constant(0);
  }

  // --------------------------------------------------------------- scalars

  /// A scalar operand (literal, scalar parameter, converted index, or
  /// arithmetic over them).
  ir::ScalarExpr scalar(ExprId id) {
    const Expr &e = m_.expr(id);
    const sema::Type &t = typeOf(id);
    switch (e.kind) {
    case ExprKind::Float:
      return ir::ScalarExpr(e.floatValue);
    case ExprKind::Integer:
      return ir::ScalarExpr(static_cast<double>(e.intValue));
    case ExprKind::Paren:
      return scalar(e.children[0]);
    case ExprKind::Negate: {
      ir::ScalarExpr x = scalar(e.children[0]);
      if (auto c = x.asConstant())
        return ir::ScalarExpr(-*c);
      return ir::ScalarExpr::neg(x, x.dtype());
    }
    default:
      break;
    }
    if (t.kind == sema::Type::Index) {
      // Only constants: the checker rejects other index values here (K0708).
      if (auto c = index(id).asConstant())
        return ir::ScalarExpr(static_cast<double>(*c));
      fail(e.span, "an index value is used as a scalar without `convert` (K0708)");
      return ir::ScalarExpr();
    }
    if (e.kind == ExprKind::Name) {
      const Value *v = lookup(e.name.name);
      if (v && v->kind == Value::Scalar)
        return v->scalar;
      fail(e.span, "`" + e.name.name + "` is not a scalar value");
      return ir::ScalarExpr();
    }
    if (e.kind == ExprKind::Application && e.name.name == "convert" && e.children.size() == 2) {
      const sema::Type &dt = typeOf(e.children[0]);
      auto to = irDType(dt.scalar, m_.expr(e.children[0]).span);
      if (!to)
        return ir::ScalarExpr();
      ExprId x = e.children[1];
      if (typeOf(x).kind == sema::Type::Index) {
        ir::IndexExpr i = index(x);
        if (auto c = i.asConstant(); c && ir::isFloat(*to))
          return ir::ScalarExpr(static_cast<double>(*c));
        return ir::ScalarExpr::index(i, *to);
      }
      ir::ScalarExpr s = scalar(x);
      if (s.asConstant() && ir::isFloat(*to))
        return s; // a literal takes the type of its use anyway
      return ir::ScalarExpr::convert(s, *to);
    }
    if (e.kind == ExprKind::Application && t.kind == sema::Type::Scalar && e.children.size() == 1 &&
        !tileFunctions_.count(e.name.name)) {
      // `sqrt eps`: a math builtin of a scalar (the checker allows the
      // floating-point ones; docs/math.md).
      if (auto k = unaryBuiltin(e.name.name); k && ir::isMathKind(*k)) {
        auto to = irDType(t.scalar, e.span);
        if (!to)
          return ir::ScalarExpr();
        return ir::ScalarExpr::math(static_cast<uint8_t>(*k), scalar(e.children[0]), *to);
      }
    }
    if (e.kind == ExprKind::Application && tileFunctions_.count(e.name.name)) {
      auto r = call(id, e, std::nullopt);
      if (r && r->kind == Value::Scalar)
        return r->scalar;
      fail(e.span, "the tile function does not return a scalar");
      return ir::ScalarExpr();
    }
    if (e.kind == ExprKind::Binary && t.kind == sema::Type::Scalar) {
      auto to = irDType(t.scalar, e.span);
      if (!to)
        return ir::ScalarExpr();
      using SK = ir::ScalarExpr::Kind;
      SK k;
      switch (e.op) {
      case BinaryOp::Add:
        k = SK::Add;
        break;
      case BinaryOp::Sub:
        k = SK::Sub;
        break;
      case BinaryOp::Mul:
        k = SK::Mul;
        break;
      case BinaryOp::Div:
        k = SK::Div;
        break;
      default:
        fail(e.span, "this scalar operation cannot be lowered");
        return ir::ScalarExpr();
      }
      return ir::ScalarExpr::binary(k, scalar(e.children[0]), scalar(e.children[1]), *to);
    }
    fail(e.span, "expression cannot be lowered as a scalar");
    return ir::ScalarExpr();
  }

  bool isScalarExpr(ExprId id) const {
    auto k = typeOf(id).kind;
    return k == sema::Type::Scalar || k == sema::Type::Index;
  }

  // ----------------------------------------------------------------- views

  /// The IR shape of an access (points dropped).
  std::vector<int64_t> accessShape(const ir::Access &a) {
    std::vector<int64_t> shape;
    if (a.kind == ir::Access::Kind::Tile && a.slice.empty())
      return b_.tileDecl(a.id).shape;
    if (a.slice.empty()) {
      for (const ir::IndexExpr &d : b_.tensorParam(a.id).shape)
        shape.push_back(d.asConstant().value_or(0));
      return shape;
    }
    for (const ir::SliceDim &d : a.slice)
      if (!d.point)
        shape.push_back(d.size);
    return shape;
  }

  /// Extent of dimension `dim` (of the visible, non-point dims) of a view.
  ir::IndexExpr viewExtent(const ir::Access &a, size_t dim) {
    if (a.slice.empty()) {
      if (a.kind == ir::Access::Kind::Tile) {
        const auto &s = b_.tileDecl(a.id).shape;
        return ir::IndexExpr::constant(dim < s.size() ? s[dim] : 1);
      }
      const auto &s = b_.tensorParam(a.id).shape;
      return dim < s.size() ? s[dim] : ir::IndexExpr::constant(1);
    }
    size_t seen = 0;
    for (const ir::SliceDim &d : a.slice) {
      if (d.point)
        continue;
      if (seen++ == dim)
        return ir::IndexExpr::constant(d.size);
    }
    return ir::IndexExpr::constant(1);
  }

  /// Indexes a view with `base[i, ...]`: offsets of the visible dimensions
  /// are added, points keep their place.
  std::optional<ir::Access> compose(const ir::Access &base, const Expr &e) {
    ir::Access out = base;
    if (out.slice.empty()) {
      size_t rank = base.kind == ir::Access::Kind::Tile ? b_.tileDecl(base.id).shape.size()
                                                        : b_.tensorParam(base.id).shape.size();
      for (size_t i = 0; i < rank; ++i)
        out.slice.push_back(ir::SliceDim::range(ir::IndexExpr::constant(0), 0));
      // Mark the sizes as the full extents (constant for tiles).
      for (size_t i = 0; i < rank; ++i)
        out.slice[i].size = viewExtent(base, i).asConstant().value_or(0);
    }
    std::vector<size_t> visible;
    for (size_t i = 0; i < out.slice.size(); ++i)
      if (!out.slice[i].point)
        visible.push_back(i);
    if (visible.size() != e.children.size() - 1) {
      fail(e.span, "index count does not match the view's rank");
      return std::nullopt;
    }
    for (size_t j = 1; j < e.children.size(); ++j) {
      ir::SliceDim &d = out.slice[visible[j - 1]];
      const Expr &ix = m_.expr(e.children[j]);
      if (ix.kind == ExprKind::Slice) {
        auto n = positiveConstant(ix.children[1], "the slice length");
        if (!n)
          return std::nullopt;
        d = ir::SliceDim::range(d.offset + index(ix.children[0]), *n);
      } else {
        d = ir::SliceDim::at(d.offset + index(e.children[j]));
      }
    }
    // Offsets of zero from the placeholder above fold away.
    for (ir::SliceDim &d : out.slice)
      d.offset = simplifyZero(d.offset);
    return out;
  }

  static ir::IndexExpr simplifyZero(const ir::IndexExpr &e) {
    if (e.kind() == ir::IndexExpr::Kind::Add) {
      if (e.lhs().asConstant() == std::optional<int64_t>(0) && e.lhs().isLeaf())
        return e.rhs();
      if (e.rhs().asConstant() == std::optional<int64_t>(0) && e.rhs().isLeaf())
        return e.lhs();
    }
    return e;
  }

  /// A tensor or shared-tile view named or sliced by `id`.
  std::optional<ir::Access> view(ExprId id) {
    const Expr &e = m_.expr(id);
    if (e.kind == ExprKind::Paren)
      return view(e.children[0]);
    if (e.kind == ExprKind::Index) {
      auto base = view(e.children[0]);
      if (!base)
        return std::nullopt;
      return compose(*base, e);
    }
    if (e.kind == ExprKind::Name) {
      const Value *v = lookup(e.name.name);
      if (v && v->kind == Value::View)
        return v->access;
      if (v && v->kind == Value::Tile)
        return ir::Access::tile(v->tile);
      fail(e.span, "`" + e.name.name + "` is not a tensor or tile");
      return std::nullopt;
    }
    if (e.kind == ExprKind::Application && tileFunctions_.count(e.name.name)) {
      auto r = call(id, e, std::nullopt);
      if (!r)
        return std::nullopt;
      if (r->kind == Value::View)
        return r->access;
      if (r->kind == Value::Tile)
        return ir::Access::tile(r->tile);
    }
    fail(e.span, "expression cannot be lowered as a tensor or tile view");
    return std::nullopt;
  }

  /// The register tile a bare name (or a tile function parameter) denotes.
  std::optional<ir::TileId> registerName(ExprId id) {
    const Expr &e = m_.expr(id);
    if (e.kind == ExprKind::Paren)
      return registerName(e.children[0]);
    if (e.kind != ExprKind::Name)
      return std::nullopt;
    const Value *v = lookup(e.name.name);
    if (v && v->kind == Value::Tile && b_.tileDecl(v->tile).space == ir::MemSpace::Register)
      return v->tile;
    return std::nullopt;
  }

  // ---------------------------------------------------------- tile values

  ir::TileId temporary(ir::DType dtype, std::vector<int64_t> shape, Span span) {
    // Inside a warpgroup grid every register tile is a warpgroup tile: the
    // epilogue's intermediate values, and its broadcast rows [1, N] and
    // columns [64, 1] (tile IR "warpgroup vectors").
    return b_.addRegisterTile("__t" + std::to_string(temps_++), dtype, std::move(shape), span,
                              inWarpgroupGrid_ ? ir::RegisterScope::Warpgroup
                                               : ir::RegisterScope::Warp);
  }

  std::optional<ir::DType> tensorDType(ExprId id) {
    const sema::Type &t = typeOf(id);
    if (!t.isTensor()) {
      fail(m_.expr(id).span, "expected a tile-valued expression");
      return std::nullopt;
    }
    return irDType(t.tensor.dtype, m_.expr(id).span);
  }

  /// The destination for a result of `dtype`/`shape`: `dst` when given.
  ir::TileId destination(std::optional<ir::TileId> dst, ir::DType dtype, std::vector<int64_t> shape,
                         Span span) {
    return dst ? *dst : temporary(dtype, std::move(shape), span);
  }

  /// Evaluates a register-tile expression; the result is in `dst` when given,
  /// else in a register tile this returns (the named tile itself, or a
  /// temporary).
  std::optional<ir::TileId> tile(ExprId id, std::optional<ir::TileId> dst) {
    if (failed())
      return std::nullopt;
    const Expr &e = m_.expr(id);
    Span span = e.span;
    if (e.kind == ExprKind::Paren)
      return tile(e.children[0], dst);
    if (e.kind == ExprKind::Name) {
      const Value *v = lookup(e.name.name);
      if (v && v->kind == Value::Scalar && typeOf(id).kind == sema::Type::Splat) {
        if (!dst) {
          fail(span, "`fill` needs a destination tile");
          return std::nullopt;
        }
        b_.fill(*dst, v->scalar, span);
        return dst;
      }
    }
    if (auto t = registerName(id)) {
      if (dst && *dst != *t)
        b_.unary(ir::UnaryKind::Copy, *dst, ir::Operand::ofTile(*t), span);
      return dst ? *dst : *t;
    }
    if (e.kind == ExprKind::Name || e.kind == ExprKind::Index) {
      // In a warpgroup grid `a_r <- a_s[s]` names a whole stage, as the
      // tma_load and wgmma operands do (the checker accepts it).
      auto a = inWarpgroupGrid_ ? stagedView(id) : view(id);
      if (!a)
        return std::nullopt;
      return load(*a, id, dst);
    }
    if (e.kind != ExprKind::Application) {
      fail(span, "this tile expression cannot be lowered");
      return std::nullopt;
    }
    const std::string &f = e.name.name;
    if (tileFunctions_.count(f)) {
      auto r = call(id, e, dst);
      if (!r)
        return std::nullopt;
      if (r->kind == Value::Tile) {
        if (dst && *dst != r->tile)
          b_.unary(ir::UnaryKind::Copy, *dst, ir::Operand::ofTile(r->tile), span);
        return dst ? *dst : r->tile;
      }
      if (r->kind == Value::View)
        return load(r->access, id, dst);
      fail(span, "the tile function does not return a tile");
      return std::nullopt;
    }
    if (f == "fill" && e.children.size() == 1) {
      if (!dst) {
        fail(span, "`fill` needs a destination tile");
        return std::nullopt;
      }
      b_.fill(*dst, scalar(e.children[0]), span);
      return dst;
    }
    auto dtype = tensorDType(id);
    if (!dtype)
      return std::nullopt;
    if ((f == "wmma_mma" || f == "dp4a_mma") && e.children.size() == 3) {
      // MMA operands (issue 14 part 4, sema/CheckMmaOperands.cpp): A may be
      // any 16-bit register-tile expression, B `transpose s` of a shared
      // slice s [N, K].
      auto acc = tile(e.children[0], std::nullopt);
      std::optional<ir::Access> a;
      const sema::Type &at = typeOf(e.children[1]);
      if (at.isTensor() && at.tensor.space == sema::Space::Register) {
        auto t = tile(e.children[1], std::nullopt);
        if (t)
          a = ir::Access::tile(*t);
      } else {
        a = view(e.children[1]);
      }
      ExprId bId = e.children[2];
      while (m_.expr(bId).kind == ExprKind::Paren)
        bId = m_.expr(bId).children[0];
      bool transB = false;
      if (const Expr &be = m_.expr(bId); be.kind == ExprKind::Application &&
                                         be.name.name == "transpose" && be.children.size() == 1) {
        transB = true;
        bId = be.children[0];
      }
      auto bb = view(bId);
      if (!acc || !a || !bb)
        return std::nullopt;
      ir::TileId out = destination(dst, *dtype, b_.tileDecl(*acc).shape, span);
      b_.mma(out, *acc, *a, *bb, span, transB, f == "dp4a_mma");
      return out;
    }
    const auto &unary = kUnaryBuiltins;
    for (auto &[name, kind] : unary)
      if (f == name && e.children.size() == 1) {
        auto src = tile(e.children[0], std::nullopt);
        if (!src)
          return std::nullopt;
        ir::TileId out = destination(dst, *dtype, b_.tileDecl(*src).shape, span);
        b_.unary(kind, out, ir::Operand::ofTile(*src), span);
        return out;
      }
    if (f == "convert" && e.children.size() == 2) {
      auto src = tile(e.children[1], std::nullopt);
      if (!src)
        return std::nullopt;
      ir::TileId out = destination(dst, *dtype, b_.tileDecl(*src).shape, span);
      b_.unary(ir::UnaryKind::Convert, out, ir::Operand::ofTile(*src), span);
      return out;
    }
    if (f == "select" && e.children.size() == 3)
      return select(id, e, *dtype, dst);
    if (f == "clamp" && e.children.size() == 3) {
      // min (max x lo) hi: the bounds are scalars (the checker's rule).
      auto src = tile(e.children[0], std::nullopt);
      if (!src)
        return std::nullopt;
      ir::TileId out = destination(dst, *dtype, b_.tileDecl(*src).shape, span);
      b_.binary(ir::BinaryKind::Max, out, ir::Operand::ofTile(*src),
                ir::Operand::ofScalar(scalar(e.children[1])), span);
      b_.binary(ir::BinaryKind::Min, out, ir::Operand::ofTile(out),
                ir::Operand::ofScalar(scalar(e.children[2])), span);
      return out;
    }
    static const std::pair<const char *, ir::BinaryKind> binary[] = {
        {"add", ir::BinaryKind::Add}, {"sub", ir::BinaryKind::Sub}, {"mul", ir::BinaryKind::Mul},
        {"div", ir::BinaryKind::Div}, {"max", ir::BinaryKind::Max}, {"min", ir::BinaryKind::Min},
        {"pow", ir::BinaryKind::Pow}};
    for (auto &[name, kind] : binary)
      if (f == name && e.children.size() == 2) {
        // One operand may be a scalar (`pow 2.0 x` has it on the left).
        bool scalarLhs = isScalarExpr(e.children[0]);
        ir::Operand ops[2];
        std::optional<ir::TileId> shapeOf;
        for (int i = 0; i < 2; ++i) {
          if (isScalarExpr(e.children[i])) {
            ops[i] = ir::Operand::ofScalar(scalar(e.children[i]));
            continue;
          }
          // A global slice broadcast over a per-warp tile (`add x bias[...]`).
          auto t = i == 1 && !inWarpgroupGrid_ && isGlobalSlice(e.children[i])
                       ? broadcastSlice(e.children[i], *dtype)
                       : tile(e.children[i], std::nullopt);
          if (!t)
            return std::nullopt;
          // A warpgroup epilogue's broadcast slice (`add acc bias[...]` with
          // a BF16 bias) is converted to the tile's element type on load.
          if (inWarpgroupGrid_ && b_.tileDecl(*t).dtype != *dtype) {
            ir::TileId c = temporary(*dtype, b_.tileDecl(*t).shape, span);
            b_.unary(ir::UnaryKind::Convert, c, ir::Operand::ofTile(*t), span);
            t = c;
          }
          ops[i] = ir::Operand::ofTile(*t);
          if (!shapeOf || (scalarLhs && i == 1))
            shapeOf = *t;
        }
        if (!shapeOf) {
          fail(span, "`" + f + "` of two scalars cannot be lowered as a tile");
          return std::nullopt;
        }
        ir::TileId out = destination(dst, *dtype, b_.tileDecl(*shapeOf).shape, span);
        b_.binary(kind, out, ops[0], ops[1], span);
        return out;
      }
    if ((f == "row_sum" || f == "row_max" || f == "transpose") && e.children.size() == 1) {
      auto src = tile(e.children[0], std::nullopt);
      if (!src)
        return std::nullopt;
      std::vector<int64_t> s = b_.tileDecl(*src).shape;
      if (s.size() != 2) {
        fail(span, "`" + f + "` of a tile that is not 2-D");
        return std::nullopt;
      }
      if (f == "transpose") {
        // The lowering reads every source slot while writing the result:
        // never in place.
        bool inPlace = dst && *dst == *src;
        ir::TileId out = inPlace || !dst ? temporary(*dtype, {s[1], s[0]}, span) : *dst;
        b_.transpose(out, *src, span);
        if (inPlace)
          b_.unary(ir::UnaryKind::Copy, *dst, ir::Operand::ofTile(out), span);
        return inPlace ? *dst : out;
      }
      ir::TileId out = destination(dst, *dtype, {s[0], 1}, span);
      b_.rowReduce(f == "row_sum" ? ir::ReduceKind::Sum : ir::ReduceKind::Max, out, *src, span);
      return out;
    }
    if ((f == "col_sum" || f == "col_max") && e.children.size() == 1) {
      auto src = tile(e.children[0], std::nullopt);
      if (!src)
        return std::nullopt;
      std::vector<int64_t> s = b_.tileDecl(*src).shape;
      if (s.size() != 2) {
        fail(span, "`" + f + "` of a tile that is not 2-D");
        return std::nullopt;
      }
      ir::TileId out = destination(dst, *dtype, {1, s[1]}, span);
      b_.colReduce(f == "col_sum" ? ir::ReduceKind::Sum : ir::ReduceKind::Max, out, *src, span);
      return out;
    }
    if ((f == "block_sum" || f == "block_max") && e.children.size() == 1)
      return blockReduction(e, f == "block_sum", *dtype, dst);
    fail(span, "`" + f + "` cannot be lowered to tile IR");
    return std::nullopt;
  }

  // ------------------------------------------- broadcasting and reductions

  bool isGlobalSlice(ExprId id) {
    const Expr &e = m_.expr(id);
    if (e.kind == ExprKind::Paren)
      return isGlobalSlice(e.children[0]);
    const sema::Type &t = typeOf(id);
    return (e.kind == ExprKind::Name || e.kind == ExprKind::Index) && t.isTensor() &&
           t.tensor.space == sema::Space::Global;
  }

  /// A global slice broadcast over a per-warp tile of element type `want`:
  /// a 1-D slice [C] is the row [1, C] (NumPy's trailing alignment), a 2-D
  /// one keeps its shape; a float slice is converted to `want` after loading.
  std::optional<ir::TileId> broadcastSlice(ExprId id, ir::DType want) {
    Span span = m_.expr(id).span;
    auto a = view(id);
    if (!a)
      return std::nullopt;
    std::vector<int64_t> shape = accessShape(*a);
    if (shape.size() == 1)
      shape = {1, shape[0]};
    ir::DType dt = b_.tensorParam(a->id).dtype;
    ir::TileId t = temporary(dt, shape, span);
    b_.load(t, *a, span);
    if (dt == want)
      return t;
    ir::TileId c = temporary(want, shape, span);
    b_.unary(ir::UnaryKind::Convert, c, ir::Operand::ofTile(t), span);
    return c;
  }

  /// `block_sum x` / `block_max x`: every warp stores its x into its rows of
  /// a shared scratch tile [W * R, C], a barrier, each warp combines the W
  /// copies in warp order (the same order in every warp, so every warp gets
  /// the same bits), and a barrier before the scratch can be written again.
  std::optional<ir::TileId> blockReduction(const Expr &e, bool sum, ir::DType dtype,
                                           std::optional<ir::TileId> dst) {
    Span span = e.span;
    auto src = tile(e.children[0], std::nullopt);
    if (!src)
      return std::nullopt;
    std::vector<int64_t> s = b_.tileDecl(*src).shape;
    if (s.size() != 2) {
      fail(span, "a block reduction of a tile that is not 2-D");
      return std::nullopt;
    }
    int64_t warps = warpGrid_[0] * warpGrid_[1];
    ir::TileId scratch = b_.addSharedTile("__block_reduce" + std::to_string(blockReductions_++),
                                          dtype, {warps * s[0], s[1]}, span);
    ir::IndexExpr warp = warpGrid_[1] == 1
                             ? ir::IndexExpr::warpId(0)
                             : ir::IndexExpr::warpId(0) * warpGrid_[1] + ir::IndexExpr::warpId(1);
    auto rows = [&](ir::IndexExpr first) {
      return ir::Access::tile(scratch, {ir::SliceDim::range(std::move(first), s[0]),
                                        ir::SliceDim::range(ir::IndexExpr::constant(0), s[1])});
    };
    b_.store(rows(warp * s[0]), *src, false, span);
    b_.blockSync(span);
    ir::TileId out = destination(dst, dtype, s, span);
    b_.load(out, rows(ir::IndexExpr::constant(0)), span);
    if (warps > 1) {
      ir::TileId part = temporary(dtype, s, span);
      for (int64_t w = 1; w < warps; ++w) {
        b_.load(part, rows(ir::IndexExpr::constant(w * s[0])), span);
        b_.binary(sum ? ir::BinaryKind::Add : ir::BinaryKind::Max, out, ir::Operand::ofTile(out),
                  ir::Operand::ofTile(part), span);
      }
    }
    b_.blockSync(span);
    return out;
  }

  std::optional<ir::TileId> load(const ir::Access &a, ExprId id, std::optional<ir::TileId> dst) {
    std::vector<int64_t> shape = accessShape(a);
    // A 1-D slice is a column [N, 1] of a warp tile, and a row [1, N] (one
    // value per column, NumPy's trailing alignment) of a warpgroup one.
    if (shape.size() == 1)
      shape =
          inWarpgroupGrid_ ? std::vector<int64_t>{1, shape[0]} : std::vector<int64_t>{shape[0], 1};
    ir::DType dt =
        a.kind == ir::Access::Kind::Tile ? b_.tileDecl(a.id).dtype : b_.tensorParam(a.id).dtype;
    if (a.kind == ir::Access::Kind::Tile && a.slice.empty() &&
        b_.tileDecl(a.id).space == ir::MemSpace::Register) {
      if (dst && *dst != a.id)
        b_.unary(ir::UnaryKind::Copy, *dst, ir::Operand::ofTile(a.id), m_.expr(id).span);
      return dst ? *dst : a.id;
    }
    ir::TileId out = destination(dst, dt, shape, m_.expr(id).span);
    b_.load(out, a, m_.expr(id).span);
    return out;
  }

  // ----------------------------------------------------- tile-function calls

  /// Inlines a call of a tile function. A register result goes into `dst`
  /// when given; a tensor or shared result comes back as a view.
  std::optional<Value> call(ExprId id, const Expr &e, std::optional<ir::TileId> dst) {
    const Item &callee = *tileFunctions_.at(e.name.name);
    for (const Item *open : inlining_)
      if (open == &callee) {
        fail(e.span, "recursive call of `" + callee.name.name + "` (the checker rejects it)");
        return std::nullopt;
      }
    if (e.children.size() != callee.params.size()) {
      fail(e.span, "argument count does not match `" + callee.name.name + "`");
      return std::nullopt;
    }
    // Arguments are evaluated in the caller's scope.
    std::vector<Value> args;
    std::unordered_map<std::string, ir::IndexExpr> dims;
    for (size_t i = 0; i < callee.params.size(); ++i) {
      const Param &p = callee.params[i];
      const TypeRef &pt = m_.type(p.type);
      ExprId arg = e.children[i];
      Value v;
      if (pt.kind == TypeKind::Scalar) {
        v = scalarValue(scalar(arg));
      } else if (pt.placement.kind == PlacementKind::Register) {
        // By value: a `mut` parameter the callee assigns gets its own copy.
        std::optional<ir::TileId> t;
        if (p.isMutable) {
          auto src = tile(arg, std::nullopt);
          if (src) {
            t = temporary(b_.tileDecl(*src).dtype, b_.tileDecl(*src).shape, m_.expr(arg).span);
            b_.unary(ir::UnaryKind::Copy, *t, ir::Operand::ofTile(*src), m_.expr(arg).span);
          }
        } else {
          t = tile(arg, std::nullopt);
        }
        if (!t)
          return std::nullopt;
        v = tileValue(*t);
      } else {
        auto a = view(arg);
        if (!a)
          return std::nullopt;
        v = viewValue(*a);
      }
      if (failed())
        return std::nullopt;
      // The callee's dims are the extents of the arguments.
      for (size_t d = 0; d < pt.shape.size(); ++d) {
        const Expr &dimExpr = m_.expr(pt.shape[d]);
        if (dimExpr.kind != ExprKind::Name || dims.count(dimExpr.name.name))
          continue;
        for (const Ident &cd : callee.dims)
          if (cd.name == dimExpr.name.name) {
            if (v.kind == Value::Tile) {
              const auto &s = b_.tileDecl(v.tile).shape;
              dims.emplace(cd.name, ir::IndexExpr::constant(d < s.size() ? s[d] : 1));
            } else {
              dims.emplace(cd.name, viewExtent(v.access, d));
            }
          }
      }
      args.push_back(std::move(v));
    }
    // The callee's body in a scope of its own.
    size_t savedBase = envBase_;
    env_.emplace_back();
    envBase_ = env_.size() - 1;
    inlining_.push_back(&callee);
    for (const Ident &cd : callee.dims) {
      auto it = dims.find(cd.name);
      if (it == dims.end()) {
        fail(e.span, "cannot infer dimension `" + cd.name + "` of `" + callee.name.name + "`");
        break;
      }
      bind(cd.name, indexValue(it->second));
    }
    for (size_t i = 0; i < callee.params.size() && i < args.size(); ++i)
      bind(callee.params[i].name.name, args[i]);
    returns_.push_back(ReturnSlot{dst, std::nullopt});
    for (StmtId s : callee.body)
      stmt(s);
    ReturnSlot slot = std::move(returns_.back());
    returns_.pop_back();
    inlining_.pop_back();
    env_.pop_back();
    envBase_ = savedBase;
    if (failed())
      return std::nullopt;
    if (!slot.value) {
      fail(e.span, "`" + callee.name.name + "` returns no value");
      return std::nullopt;
    }
    (void)id;
    return slot.value;
  }

  // ----------------------------------------------------------- statements

  void body(const std::vector<StmtId> &stmts) {
    env_.emplace_back();
    for (StmtId c : stmts)
      stmt(c);
    env_.pop_back();
  }

  void stmt(StmtId id) {
    if (failed())
      return;
    const Stmt &s = m_.stmt(id);
    if (!returns_.empty() && returns_.back().value) {
      fail(s.span, "statement after `return` (the checker rejects it)");
      return;
    }
    switch (s.kind) {
    case StmtKind::BlockGrid: {
      std::vector<ir::IndexExpr> g;
      for (ExprId e : s.shape)
        g.push_back(index(e));
      if (g.empty() || g.size() > 3) {
        fail(s.shapeSpan, "a block grid has 1 to 3 extents");
        return;
      }
      while (g.size() < 3)
        g.push_back(ir::IndexExpr::constant(1));
      b_.setBlockGrid(g[0], g[1], g[2]);
      env_.emplace_back();
      if (!s.cluster.empty()) {
        // `cluster [C0, C1]`: constants the checker proved (K0134).
        std::vector<int64_t> c;
        for (ExprId e : s.cluster) {
          auto v = positiveConstant(e, "a cluster extent");
          if (!v)
            return;
          c.push_back(*v);
        }
        while (c.size() < 3)
          c.push_back(1);
        b_.setCluster(c[0], c[1], c[2]);
        bind("cluster_rank", indexValue(ir::IndexExpr::clusterRank()));
      }
      bool saved = inGrid_;
      inGrid_ = true;
      for (StmtId c : s.body)
        stmt(c);
      inGrid_ = saved;
      env_.pop_back();
      return;
    }
    case StmtKind::WarpGrid: {
      std::vector<int64_t> w;
      for (ExprId e : s.shape) {
        auto c = index(e).asConstant();
        if (!c || *c <= 0) {
          fail(m_.expr(e).span, "warp_grid extent is not a positive constant");
          return;
        }
        w.push_back(*c);
      }
      if (w.empty() || w.size() > 2) {
        fail(s.shapeSpan, "a warp grid has 1 or 2 extents");
        return;
      }
      b_.setWarpGrid(w[0], w.size() > 1 ? w[1] : 1);
      warpGrid_ = {w[0], w.size() > 1 ? w[1] : 1};
      body(s.body);
      return;
    }
    case StmtKind::Let: {
      const sema::Type &t = typeOf(s.value);
      if (t.kind == sema::Type::Index) {
        ir::IndexExpr v = index(s.value);
        // Inside the grids a large value is computed once (ir::LetOp); the
        // signature-level formulas (grids) may only use dims, so top-level
        // lets are always inlined.
        if (inGrid_ && treeSize(v, kInlineLetNodes + 1) > kInlineLetNodes) {
          ir::VarId var = b_.let(s.name.name, v, s.span);
          bind(s.name.name, indexValue(ir::IndexExpr::var(var)));
        } else {
          bind(s.name.name, indexValue(v));
        }
      } else if (t.kind == sema::Type::Scalar) {
        bind(s.name.name, scalarValue(scalar(s.value)));
      } else if (t.kind == sema::Type::Splat) {
        // `let z = fill v in`: z fills whatever it is assigned to.
        const Expr &fillExpr = m_.expr(s.value);
        ExprId v = s.value;
        while (m_.expr(v).kind == ExprKind::Paren)
          v = m_.expr(v).children[0];
        if (m_.expr(v).kind == ExprKind::Application && m_.expr(v).children.size() == 1)
          bind(s.name.name, scalarValue(scalar(m_.expr(v).children[0])));
        else if (m_.expr(v).kind == ExprKind::Name && lookup(m_.expr(v).name.name))
          bind(s.name.name, *lookup(m_.expr(v).name.name));
        else
          fail(fillExpr.span, "this `fill` value cannot be lowered");
      } else if (t.isTensor() && t.tensor.space == sema::Space::Register) {
        // A let names the value at this point: evaluate it now.
        auto src = tile(s.value, std::nullopt);
        if (!src)
          return;
        ir::TileId copy = *src;
        if (registerName(s.value)) {
          const ir::TileDecl &d = b_.tileDecl(*src);
          copy = temporary(d.dtype, d.shape, s.span);
          b_.unary(ir::UnaryKind::Copy, copy, ir::Operand::ofTile(*src), s.span);
        }
        bind(s.name.name, tileValue(copy));
      } else {
        auto a = view(s.value);
        if (a)
          bind(s.name.name, viewValue(*a));
      }
      return;
    }
    case StmtKind::Shared:
    case StmtKind::Register: {
      const TypeRef &t = m_.type(s.type);
      if (t.kind == TypeKind::Barrier) {
        auto stages = positiveConstant(t.stages, "the barrier's stages");
        auto arrivals = positiveConstant(t.arrivals, "the barrier's arrivals");
        if (!stages || !arrivals)
          return;
        Value v;
        v.kind = Value::Barrier;
        v.barrier = b_.addBarrier(s.name.name, *stages, *arrivals, s.span);
        bind(s.name.name, std::move(v));
        return;
      }
      bool reg = s.kind == StmtKind::Register;
      auto shape = tileShape(t, reg);
      auto dt = irDType(t.dtype);
      if (!shape || !dt)
        return;
      ir::SharedLayout layout =
          t.layout.valid() ? ir::SharedLayout::Swizzle128B : ir::SharedLayout::None;
      ir::TileId tile = reg ? b_.addRegisterTile(s.name.name, *dt, *shape, s.span,
                                                 inWarpgroupGrid_ ? ir::RegisterScope::Warpgroup
                                                                  : ir::RegisterScope::Warp)
                            : b_.addSharedTile(s.name.name, *dt, *shape, s.span, layout);
      bind(s.name.name, tileValue(tile));
      return;
    }
    case StmtKind::WarpgroupGrid: {
      auto g = s.shape.size() == 1 ? index(s.shape[0]).asConstant() : std::nullopt;
      if (!g || *g <= 0) {
        fail(s.shapeSpan, "warpgroup_grid extent is not a positive constant");
        return;
      }
      b_.setWarpgroups(*g);
      env_.emplace_back();
      bind("warpgroup_id", indexValue(ir::IndexExpr::warpgroupId()));
      bool saved = inWarpgroupGrid_;
      inWarpgroupGrid_ = true;
      for (StmtId c : s.body)
        stmt(c);
      inWarpgroupGrid_ = saved;
      env_.pop_back();
      return;
    }
    case StmtKind::Role: {
      auto first = index(s.first).asConstant();
      auto last = s.last != kNone ? index(s.last).asConstant() : first;
      if (!first || !last) {
        fail(s.span, "role warpgroups are not constants");
        return;
      }
      b_.beginRole(s.name.name, *first, *last, s.count, s.span);
      body(s.body);
      b_.endRole();
      return;
    }
    case StmtKind::Arrive: {
      auto bar = barrierStage(s.barrier);
      if (!bar)
        return;
      int64_t bytes = 0;
      if (s.expectTx != kNone) {
        auto c = positiveConstant(s.expectTx, "the expect_tx byte count");
        if (!c)
          return;
        bytes = *c;
      }
      if (s.clusterArrive)
        b_.barrierArriveCluster(bar->first, bar->second, s.span);
      else
        b_.barrierArrive(bar->first, bar->second, bytes, s.span);
      return;
    }
    case StmtKind::Wait: {
      auto bar = barrierStage(s.barrier);
      if (!bar)
        return;
      floorDivision_ = true;
      ir::IndexExpr round = index(s.round);
      floorDivision_ = false;
      b_.barrierWait(bar->first, bar->second, round, s.span);
      return;
    }
    case StmtKind::TmaLoad: {
      auto dst = stagedView(s.target);
      auto src = stagedView(s.value);
      auto bar = barrierStage(s.barrier);
      if (!dst || !src || !bar)
        return;
      b_.tmaLoad(*dst, *src, bar->first, bar->second, s.multicast, s.span);
      return;
    }
    case StmtKind::Wgmma: {
      auto acc = registerName(s.target);
      if (!acc) {
        fail(m_.expr(s.target).span, "the wgmma accumulator is not a register tile");
        return;
      }
      auto a = stagedView(s.operandA);
      auto b = stagedView(s.operandB);
      if (!a || !b)
        return;
      ir::IndexExpr zero =
          s.zeroWhen != kNone ? index(s.zeroWhen) : ir::KernelBuilder::falseCondition();
      b_.wgmma(*acc, *a, *b, zero, s.span);
      return;
    }
    case StmtKind::WgmmaCommit:
      b_.wgmmaCommit(s.span);
      return;
    case StmtKind::WgmmaWait:
      b_.wgmmaWait(static_cast<unsigned>(s.count), s.span);
      return;
    case StmtKind::FenceProxyAsync:
      b_.fenceProxyAsync(s.span);
      return;
    case StmtKind::TmaStore: {
      auto dst = view(s.target);
      auto src = stagedView(s.value);
      if (!dst || !src)
        return;
      b_.tmaStore(*dst, *src, s.span);
      return;
    }
    case StmtKind::TmaStoreCommit:
      b_.tmaStoreCommit(s.span);
      return;
    case StmtKind::TmaStoreWait:
      b_.tmaStoreWait(static_cast<unsigned>(s.count), s.span);
      return;
    case StmtKind::For: {
      ir::VarId v =
          s.step != kNone
              ? b_.beginFor(s.name.name, index(s.value), index(s.end), index(s.step), s.span)
              : b_.beginFor(s.name.name, index(s.value), index(s.end), s.span);
      if (loopsThatRun_.count(id))
        b_.markLoopRuns();
      env_.emplace_back();
      Value var = indexValue(ir::IndexExpr::var(v));
      if (s.step != kNone)
        var.step = index(s.step); // `v / step` is the iteration's ordinal (floor)
      bind(s.name.name, std::move(var));
      for (StmtId c : s.body)
        stmt(c);
      env_.pop_back();
      b_.endFor();
      return;
    }
    case StmtKind::If: {
      b_.beginIf(index(s.value), s.span);
      body(s.body);
      if (s.hasElse) {
        b_.beginElse();
        body(s.elseBody);
      }
      b_.endIf();
      return;
    }
    case StmtKind::CpAsync: {
      auto dst = view(s.target);
      auto src = view(s.value);
      if (!dst || !src)
        return;
      if (s.valueMasked)
        b_.maskedCpAsync(*dst, *src, s.span); // zeros past the tensor's edges
      else
        b_.cpAsync(*dst, *src, s.span);
      return;
    }
    case StmtKind::Commit:
      b_.cpAsyncCommit(s.span);
      return;
    case StmtKind::WaitAll:
      b_.cpAsyncWait(0, s.span);
      return;
    case StmtKind::WaitGroup:
      b_.cpAsyncWait(static_cast<unsigned>(s.count), s.span);
      return;
    case StmtKind::BlockSync:
      b_.blockSync(s.span);
      return;
    case StmtKind::Assign:
      assign(s);
      return;
    case StmtKind::Return: {
      if (returns_.empty()) {
        fail(s.span, "`return` outside a tile function");
        return;
      }
      ReturnSlot &slot = returns_.back();
      const sema::Type &t = typeOf(s.value);
      if (t.isTensor() && t.tensor.space == sema::Space::Register) {
        auto r = tile(s.value, slot.dst);
        if (r)
          slot.value = tileValue(*r);
      } else if (t.isTensor()) {
        if (auto a = view(s.value))
          slot.value = viewValue(*a);
      } else if (t.kind == sema::Type::Scalar) {
        slot.value = scalarValue(scalar(s.value));
      } else {
        fail(s.span, "this return value cannot be lowered");
      }
      return;
    }
    case StmtKind::Error:
      fail(s.span, "statement did not parse");
      return;
    }
  }

  /// The tile a store writes: `v`, or `convert DT v` (convert set; the
  /// store converts each element).
  std::optional<ir::TileId> storedTile(ExprId value, bool &convert) {
    const Expr &e = m_.expr(value);
    convert = e.kind == ExprKind::Application && e.name.name == "convert" &&
              e.children.size() == 2 && typeOf(e.children[1]).isTensor();
    return tile(convert ? e.children[1] : value, std::nullopt);
  }

  /// `atomic_add v` (max, min) as the whole value of a store, or None.
  ir::AtomicKind atomicOf(ExprId value) const {
    const Expr &e = m_.expr(value);
    if (e.kind != ExprKind::Application || e.children.size() != 1 || lookup(e.name.name))
      return ir::AtomicKind::None;
    return e.name.name == "atomic_add"   ? ir::AtomicKind::Add
           : e.name.name == "atomic_max" ? ir::AtomicKind::Max
           : e.name.name == "atomic_min" ? ir::AtomicKind::Min
                                         : ir::AtomicKind::None;
  }

  /// `out[...] <- atomic_add v`, `masked out[...] <- atomic_max v`.
  void atomicAssign(const Stmt &s, ir::AtomicKind kind) {
    auto dst = view(s.target);
    if (!dst)
      return;
    auto t = tile(m_.expr(s.value).children[0], std::nullopt);
    if (!t)
      return;
    b_.atomicStore(*dst, *t, kind, s.targetMasked, s.span);
  }

  void assign(const Stmt &s) {
    if (auto kind = atomicOf(s.value); kind != ir::AtomicKind::None)
      return atomicAssign(s, kind);
    if (s.valueMasked || s.targetMasked || isIndexTile(s.value))
      return maskedAssign(s);
    if (auto t = registerName(s.target)) {
      tile(s.value, *t);
      return;
    }
    // `c_s[i] <- acc`: a shared stage keeps its trailing dims whole.
    auto dst = stagedView(s.target);
    if (!dst)
      return;
    bool convert = false;
    auto t = storedTile(s.value, convert);
    if (!t)
      return;
    b_.store(*dst, *t, convert, s.span);
  }

  // ------------------------------------------- masks and ragged edges

  bool isIndexTile(ExprId id) const {
    const Expr &e = m_.expr(id);
    return e.kind == ExprKind::Name && (e.name.name == "row_index" || e.name.name == "col_index") &&
           !lookup(e.name.name);
  }

  /// `x <- masked t[...] fill V`, `masked t[...] <- v`, `ri <- row_index`.
  void maskedAssign(const Stmt &s) {
    if (isIndexTile(s.value)) {
      auto t = registerName(s.target);
      if (!t)
        return fail(s.span, "an index tile needs a register tile destination");
      b_.indexTile(*t, m_.expr(s.value).name.name == "row_index" ? 0 : 1, s.span);
      return;
    }
    if (s.valueMasked) {
      auto t = registerName(s.target);
      auto a = view(s.value);
      if (!t || !a)
        return fail(s.span, "a masked load needs a register tile destination and a tensor slice");
      b_.maskedLoad(*t, *a, scalar(s.fill), s.span);
      return;
    }
    auto dst = view(s.target);
    if (!dst)
      return;
    bool convert = false;
    auto t = storedTile(s.value, convert);
    if (!t)
      return;
    b_.maskedStore(*dst, *t, convert, s.span);
  }

  /// `select (a OP b) x y` into dst (or a temporary).
  std::optional<ir::TileId> select(ExprId id, const Expr &e, ir::DType dtype,
                                   std::optional<ir::TileId> dst) {
    ExprId condId = e.children[0];
    while (m_.expr(condId).kind == ExprKind::Paren)
      condId = m_.expr(condId).children[0];
    const Expr &cond = m_.expr(condId);
    static const std::pair<syntax::BinaryOp, ir::CompareKind> kinds[] = {
        {syntax::BinaryOp::Eq, ir::CompareKind::Eq}, {syntax::BinaryOp::Ne, ir::CompareKind::Ne},
        {syntax::BinaryOp::Lt, ir::CompareKind::Lt}, {syntax::BinaryOp::Le, ir::CompareKind::Le},
        {syntax::BinaryOp::Gt, ir::CompareKind::Gt}, {syntax::BinaryOp::Ge, ir::CompareKind::Ge}};
    std::optional<ir::CompareKind> cmp;
    for (auto &[op, kind] : kinds)
      if (cond.kind == ExprKind::Binary && cond.op == op)
        cmp = kind;
    if (!cmp) {
      fail(e.span, "`select` needs a comparison");
      return std::nullopt;
    }
    ExprId ids[4] = {cond.children[0], cond.children[1], e.children[1], e.children[2]};
    ir::Operand ops[4];
    for (int i = 0; i < 4; ++i) {
      if (isScalarExpr(ids[i])) {
        ops[i] = ir::Operand::ofScalar(scalar(ids[i]));
        continue;
      }
      auto t = tile(ids[i], std::nullopt);
      if (!t)
        return std::nullopt;
      ops[i] = ir::Operand::ofTile(*t);
    }
    std::vector<int64_t> shape;
    for (const auto &d : typeOf(id).tensor.shape) {
      auto c = d.constantValue();
      if (!c) {
        fail(e.span, "`select` of a tile with a symbolic shape");
        return std::nullopt;
      }
      shape.push_back(*c);
    }
    ir::TileId out = destination(dst, dtype, std::move(shape), e.span);
    b_.select(out, *cmp, ops[0], ops[1], ops[2], ops[3], e.span);
    return out;
  }

  /// `B[s]`: the barrier and the stage index.
  std::optional<std::pair<ir::BarrierId, ir::IndexExpr>> barrierStage(ExprId id) {
    const Expr &e = m_.expr(id);
    if (e.kind != ExprKind::Index || e.children.size() != 2 ||
        m_.expr(e.children[0]).kind != ExprKind::Name) {
      fail(e.span, "a barrier stage `B[s]` was expected (the checker rejects this, K0127)");
      return std::nullopt;
    }
    const Value *v = lookup(m_.expr(e.children[0]).name.name);
    if (!v || v->kind != Value::Barrier) {
      fail(e.span, "not a barrier (the checker rejects this, K0412)");
      return std::nullopt;
    }
    return std::make_pair(v->barrier, index(e.children[1]));
  }

  /// A tma_load destination or wgmma operand: a shared tile indexed by fewer
  /// indices than its rank keeps its trailing dimensions whole (`a_s[s]`).
  std::optional<ir::Access> stagedView(ExprId id) {
    const Expr &e = m_.expr(id);
    if (e.kind != ExprKind::Index)
      return view(id);
    auto base = view(e.children[0]);
    if (!base)
      return std::nullopt;
    size_t count = e.children.size() - 1;
    if (base->kind != ir::Access::Kind::Tile || !base->slice.empty() ||
        count >= b_.tileDecl(base->id).shape.size())
      return compose(*base, e);
    std::vector<int64_t> shape = b_.tileDecl(base->id).shape;
    ir::Access out = *base;
    for (size_t i = 0; i < shape.size(); ++i) {
      if (i >= count) {
        out.slice.push_back(ir::SliceDim::range(ir::IndexExpr::constant(0), shape[i]));
        continue;
      }
      const Expr &ix = m_.expr(e.children[i + 1]);
      if (ix.kind == ExprKind::Slice) {
        auto n = positiveConstant(ix.children[1], "the slice length");
        if (!n)
          return std::nullopt;
        out.slice.push_back(ir::SliceDim::range(index(ix.children[0]), *n));
      } else {
        out.slice.push_back(ir::SliceDim::at(index(e.children[i + 1])));
      }
    }
    return out;
  }

  bool inGrid_ = false;          ///< inside `block_grid`, where ops may be emitted
  std::array<int64_t, 2> warpGrid_{1, 1}; ///< the enclosing `warp_grid` (block reductions)
  int blockReductions_ = 0;               ///< scratch tiles of `block_sum`/`block_max`
  bool inWarpgroupGrid_ = false; ///< register tiles declared here are warpgroup tiles
  bool floorDivision_ = false;   ///< lowering a `wait` round: `/` is floor division
};

} // namespace

char LoweringError::ID = 0;

void LoweringError::log(llvm::raw_ostream &os) const { os << message; }

Diagnostic loweringDiagnostic(llvm::Error error, Span fallback) {
  Span span = fallback;
  std::string message;
  llvm::handleAllErrors(
      std::move(error),
      [&](const LoweringError &e) {
        span = e.span;
        message = e.message;
      },
      [&](const llvm::ErrorInfoBase &e) { message = e.message(); });
  Diagnostic d{DiagId::LoweringFailed,
               span,
               "internal error: the checked kernel could not be lowered to tile IR: " + message,
               {},
               {},
               {}};
  d.note("this is a compiler bug: the checker should have rejected the construct with a "
         "coded error; please report it");
  return d;
}

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
