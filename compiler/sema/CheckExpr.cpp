//===- CheckExpr.cpp - Expressions, slices and primitive operations -------===//
//
// Index arithmetic goes to the refinement solver (exact `/`, bounds of every
// slice); tile operations check shapes, dtypes and placements and record the
// capability each one needs. Every expression's type is recorded for the IDE.
//
//===----------------------------------------------------------------------===//
#include "sema/Builtins.h"
#include "sema/Checker.h"

#include "diag/Spelling.h"
#include "target/Lowerable.h"

#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <cmath>

namespace kina::sema {

/// The math builtins (docs/math.md): their arity, whether F64 tiles and
/// integer tiles are accepted, and the capability of the approximate forms.
struct MathFunction {
  std::string_view name;
  unsigned arity;
  bool f64;
  bool integers;
  std::string_view capability;
};

constexpr MathFunction kMath[] = {
    {"sqrt", 1, true, false, ""},
    {"rsqrt", 1, true, false, ""},
    {"exp2", 1, false, false, ""},
    {"log", 1, false, false, ""},
    {"log2", 1, false, false, ""},
    {"tanh", 1, false, false, ""},
    {"erf", 1, false, false, ""},
    {"sigmoid", 1, false, false, ""},
    {"silu", 1, false, false, ""},
    {"gelu", 1, false, false, ""},
    {"gelu_tanh", 1, false, false, ""},
    {"abs", 1, true, true, ""},
    {"floor", 1, true, false, ""},
    {"ceil", 1, true, false, ""},
    {"pow", 2, false, false, ""},
    {"clamp", 3, true, true, ""},
    {"exp2_approx", 1, false, false, "ex2_approx"},
    {"rsqrt_approx", 1, false, false, "rsqrt_approx"},
    {"tanh_approx", 1, false, false, "tanh_approx"},
    {"gelu_tanh_approx", 1, false, false, "ex2_approx"},
};

static const MathFunction *mathFunction(std::string_view name) {
  for (const MathFunction &m : kMath)
    if (m.name == name)
      return &m;
  return nullptr;
}

bool Checker::requireScalar(ExprId id, const Type &t, DType want) {
  if (t.kind == Type::Index && t.index.isConstant())
    return integerConstantFits(id, *t.index.constantValue(), want);
  if (t.kind != Type::Index)
    return true;
  // Shared decision 1: an index value is not a scalar of any element type.
  const Expr &e = m.expr(id);
  std::string text = syntax::printExpr(m, id);
  bool atomic = e.kind == ExprKind::Name || e.kind == ExprKind::Integer ||
                e.kind == ExprKind::Paren;
  std::string replacement =
      std::string("(convert ") + dtypeName(want) + " " + (atomic ? text : "(" + text + ")") + ")";
  error(DiagId::IndexAsScalar, e.span,
        "`" + text + "` is an index value, not a scalar; convert it explicitly with `convert " +
            dtypeName(want) + "`")
      .fix(e.span, replacement, std::string("convert to ") + dtypeName(want))
      .note("index values (dims, loop variables, grid ids and their lets) are integers; "
            "`convert " +
            std::string(dtypeName(want)) + " e` makes a scalar of them at run time");
  return false;
}

bool Checker::integerConstantFits(ExprId id, int64_t v, DType want) {
  // An integer constant used as a scalar is a constant of the element type
  // it meets (arith.constant on the GPU): one that type cannot hold would
  // wrap there (300 on I8 is 44, -1 on U8 is 255) and saturate in the
  // interpreter. I64 constants travel as doubles: exact to 2^53.
  int64_t lo = 0, hi = 0;
  switch (want) {
  case DType::I8:
    lo = -128, hi = 127;
    break;
  case DType::U8:
    lo = 0, hi = 255;
    break;
  case DType::I32:
    lo = INT32_MIN, hi = INT32_MAX;
    break;
  case DType::I64:
    lo = -(int64_t{1} << 53), hi = int64_t{1} << 53;
    break;
  default:
    return true;
  }
  if (v >= lo && v <= hi)
    return true;
  std::string text = syntax::printExpr(m, id);
  error(DiagId::DTypeMismatch, m.expr(id).span,
        "the integer `" + text + "`" +
            (text == std::to_string(v) ? "" : " = " + std::to_string(v)) + " does not fit " +
            dtypeName(want) + " elements, " + std::to_string(lo) + " to " + std::to_string(hi))
      .note("an integer constant on a tile or scalar is a value of its element type; write one "
            "in range, or `convert` the tile to a wider type first");
  return false;
}

/// A scalar built from literals only (its element type follows its use).
bool Checker::isLiteralScalar(ExprId id) const {
  const Expr &e = m.expr(id);
  switch (e.kind) {
  case ExprKind::Float:
  case ExprKind::Integer: return true;
  case ExprKind::Paren:
  case ExprKind::Negate: return isLiteralScalar(e.children[0]);
  case ExprKind::Binary: return isLiteralScalar(e.children[0]) && isLiteralScalar(e.children[1]);
  default: return false;
  }
}

bool Checker::requireScalarOperand(ExprId id, const Type &t, DType tile, const std::string &what) {
  if (!requireScalar(id, t, tile))
    return false;
  // Integer constants fit every element type; any scalar converts to a
  // float tile's type (rounding, as a literal is rounded). What does not fit
  // is a float scalar on an integer tile: it would truncate (0.25 -> 0).
  if (t.kind != Type::Scalar || t.scalar == tile || isFloat(tile) || !isFloat(t.scalar))
    return true;
  const Expr &e = m.expr(id);
  std::string text = syntax::printExpr(m, id);
  if (isLiteralScalar(id)) {
    auto &d = error(DiagId::DTypeMismatch, e.span,
                    "`" + text + "` is a float literal, but " + what + " " + dtypeName(tile) +
                        " elements");
    const Expr *lit = &e;
    bool negative = false;
    while (lit->kind == ExprKind::Paren || lit->kind == ExprKind::Negate) {
      negative ^= lit->kind == ExprKind::Negate;
      lit = &m.expr(lit->children[0]);
    }
    double v = lit->kind == ExprKind::Float ? lit->floatValue : 0.5;
    if (lit->kind == ExprKind::Float && v == std::floor(v) && std::fabs(v) < 1e15) {
      std::string integer = std::to_string(static_cast<int64_t>(v));
      d.fix(e.span, negative ? "(-" + integer + ")" : integer, "write the integer `" + integer + "`");
    }
    d.note("convert the tile to a float type first (`convert F32 ...`), or write an integer "
           "literal");
    return false;
  }
  bool atomic = e.kind == ExprKind::Name || e.kind == ExprKind::Paren;
  std::string replacement =
      std::string("(convert ") + dtypeName(tile) + " " + (atomic ? text : "(" + text + ")") + ")";
  error(DiagId::DTypeMismatch, e.span,
        "the scalar `" + text + "` is " + dtypeName(t.scalar) + ", but " + what + " " +
            dtypeName(tile) + " elements; convert it with `convert " + dtypeName(tile) + "`")
      .fix(e.span, replacement, std::string("convert to ") + dtypeName(tile));
  return false;
}

Type Checker::record(ExprId id, Type t) {
  if (options.ideTables && options.exprTypeTable) {
    if (id < program.exprTypes.size())
      program.exprTypes[id] = t;
    return t;
  }
  size_t page = id / kTypePage;
  if (page >= typePages.size())
    return t;
  if (!typePages[page]) {
    if (spareTypePages.empty()) {
      typePages[page] = std::make_unique<Type[]>(kTypePage);
    } else {
      typePages[page] = std::move(spareTypePages.back());
      spareTypePages.pop_back();
    }
    usedTypePages.push_back(page);
  }
  typePages[page][id % kTypePage] = t;
  typedExprs.push_back(id);
  return t;
}

const Type &Checker::typeOf(ExprId id) const {
  static const Type none = Type::error();
  if (options.ideTables && options.exprTypeTable)
    return id < program.exprTypes.size() ? program.exprTypes[id] : none;
  size_t page = id / kTypePage;
  if (page >= typePages.size() || !typePages[page])
    return none;
  return typePages[page][id % kTypePage];
}

void Checker::dropExprTypes() {
  // Back to Type::error(), keeping the shape's buffer for the next record.
  const Type none = Type::error();
  for (ExprId id : typedExprs) {
    Type &t = typePages[id / kTypePage][id % kTypePage];
    t.tensor.shape.clear();
    t.tensor.dtype = none.tensor.dtype;
    t.tensor.space = none.tensor.space;
    t.tensor.isTile = none.tensor.isTile;
    t.tensor.writable = none.tensor.writable;
    t.kind = none.kind;
    t.index = none.index;
    t.scalar = none.scalar;
  }
  typedExprs.clear();
  for (size_t page : usedTypePages)
    spareTypePages.push_back(std::move(typePages[page]));
  usedTypePages.clear();
}

std::optional<DimExpr> Checker::exprValueOrNull(ExprId id) const {
  if (id == syntax::kNone)
    return std::nullopt;
  const Type &t = typeOf(id);
  if (t.kind != Type::Index)
    return std::nullopt;
  return t.index;
}

std::optional<DimExpr> Checker::indexValue(ExprId id) {
  if (id == syntax::kNone)
    return std::nullopt;
  Type t = checkExpr(id);
  if (t.isError())
    return std::nullopt;
  if (t.kind != Type::Index) {
    error(DiagId::ExpectedIndex, m.expr(id).span,
          "expected an integer index expression, found " + typeStr(t));
    return std::nullopt;
  }
  if (!t.index.isValid()) {
    error(DiagId::ExpectedIndex, m.expr(id).span, "index arithmetic overflows 64 bits");
    return std::nullopt;
  }
  return t.index;
}

std::optional<int64_t> Checker::constantIndex(ExprId id, const char *what) {
  auto v = indexValue(id);
  if (!v)
    return std::nullopt;
  auto c = v->constantValue();
  if (!c)
    error(DiagId::NonConstantTileShape, m.expr(id).span,
          std::string(what) + " must be a compile-time constant, found `" + str(*v) + "`");
  return c;
}

bool Checker::requireExactDivision(const DimExpr &e, int64_t n, Span span,
                                   const std::string &what) {
  solver::Proof proof = prover.proveDivisible(e, n);
  if (proof.proved()) {
    if (options.proofTables)
      annotateProof(span,
                    "**exact division** " + what + ": `" + str(e) + " mod " + std::to_string(n) +
                        " = 0`, " + dischargedBy({e}),
                    "Index");
    return true;
  }
  std::string fact = str(e) + " mod " + std::to_string(n) + " = 0";
  auto &d = error(DiagId::InexactDivision, span,
                  "cannot prove " + what + " is exact: " + fact + " is not known");
  if (e.isConstant()) {
    // Nothing to require: the numbers themselves do not divide.
  } else if (!proof.Suggestions.empty() && !proof.Suggestions[0].Facts.empty()) {
    std::string s = proof.Suggestions[0].Text;
    addRequiresFix(d, s);
  } else if (symbols.onlyDims(e)) {
    addRequiresFix(d, fact);
  }
  d.note("`/` on dimensions is exact division; write `floor_div " + str(e) + " " +
         std::to_string(n) + "` or `ceil_div` to round");
  return false;
}

Type Checker::checkExpr(ExprId id) {
  if (id == syntax::kNone || id >= m.exprs.size())
    return Type::error();
  const Expr &e = m.expr(id);
  switch (e.kind) {
  case ExprKind::Name: {
    const Binding *b = lookup(e.name.name);
    if (!b && e.name.name == "warpgroup_id")
      return checkWarpgroupId(id, e);
    if (!b && e.name.name == "cluster_rank")
      return checkClusterRank(id, e);
    if (!b && (e.name.name == "row_index" || e.name.name == "col_index"))
      return record(id, checkIndexTileName(id, e));
    if (b && b->type.kind == Type::Barrier) {
      program.exprSymbol[id] = b->symbol;
      addReference(b->symbol, e.span);
      error(DiagId::BarrierPlacement, e.span,
            "`" + e.name.name +
                "` is a barrier: it is used by `arrive`, `wait` and "
                "`tma_load ... completes`, not as a value");
      return record(id, Type::error());
    }
    if (b && b->type.isTensor() && b->type.tensor.warpgroup && !allowWarpgroupTile) {
      program.exprSymbol[id] = b->symbol;
      addReference(b->symbol, e.span);
      error(DiagId::WarpgroupTileUse, e.span,
            "warpgroup tile `" + e.name.name +
                "` can only be a wgmma accumulator or the value "
                "of a store into a global tensor in this version")
          .note("e.g. `c[...] <- " + e.name.name + "` or `c[...] <- convert BF16 " + e.name.name +
                "`");
      return record(id, Type::error());
    }
    if (!b) {
      if (parseDType(e.name.name)) {
        Type t;
        t.kind = Type::DTypeName;
        t.scalar = *parseDType(e.name.name);
        return record(id, t);
      }
      if (literalSuffixes.count(id)) {
        // `1.0f`: a C suffix, read as the literal and a name `f`.
        error(DiagId::UnknownName, e.span,
              "`" + e.name.name + "` after a number: Kina literals have no type suffix")
            .fix(e.span, "", "remove the suffix `" + e.name.name + "`")
            .note("a literal takes the element type of the tile it meets (`add xr 1.0` on an F16 "
                  "tile adds an F16 1.0)");
        return record(id, Type::error());
      }
      auto &d = error(DiagId::UnknownName, e.span, "unknown name `" + e.name.name + "`");
      std::string best;
      unsigned bestDistance = e.name.name.size() <= 3 ? 1 : 2;
      for (auto it = scopes.rbegin(); it != scopes.rend(); ++it)
        for (const auto &[name, binding] : *it) {
          unsigned dd = editDistance(name, e.name.name);
          if (dd <= bestDistance && (best.empty() || dd < bestDistance)) {
            best = name;
            bestDistance = dd;
          }
        }
      if (!best.empty())
        d.fix(e.span, best, "replace with `" + best + "`");
      return record(id, Type::error());
    }
    program.exprSymbol[id] = b->symbol;
    addReference(b->symbol, e.span);
    return record(id, b->type);
  }
  case ExprKind::Integer:
    return record(id, Type::indexValue(DimExpr::constant(e.intValue)));
  case ExprKind::Float:
    return record(id, Type::scalarOf(DType::F32));
  case ExprKind::Paren:
    return record(id, checkExpr(e.children[0]));
  case ExprKind::Negate: {
    Type t = checkExpr(e.children[0]);
    if (t.kind == Type::Index)
      return record(id, Type::indexValue(-t.index));
    if (t.kind == Type::Scalar || t.isError())
      return record(id, t);
    error(DiagId::TypeMismatch, e.span, "cannot negate " + typeStr(t) + "; use `neg x` on tiles");
    return record(id, Type::error());
  }
  case ExprKind::Binary:
    return record(id, checkBinary(id, e));
  case ExprKind::Index:
    return record(id, checkIndex(id, e));
  case ExprKind::Slice:
    error(DiagId::TypeMismatch, e.span, "a slice `a ..+ n` is only allowed inside `[...]`");
    return record(id, Type::error());
  case ExprKind::Application:
    return record(id, checkApplication(id, e));
  case ExprKind::Error:
    return record(id, Type::error());
  }
  return record(id, Type::error());
}

Type Checker::checkBinary(ExprId id, const Expr &e) {
  // `mul xr -1.0` parses as `(mul xr) - 1.0`: an application one argument
  // short on the left of `-` says how to pass a negative argument.
  ExprId savedMinus = minusAfterApplication;
  minusAfterApplication = syntax::kNone;
  if (e.op == syntax::BinaryOp::Sub && m.expr(e.children[0]).kind == ExprKind::Application)
    minusAfterApplication = id;
  Type a = checkExpr(e.children[0]);
  minusAfterApplication = savedMinus;
  Type b = checkExpr(e.children[1]);
  if (a.isError() || b.isError())
    return Type::error();
  using syntax::BinaryOp;
  bool compare = e.op >= BinaryOp::Eq;
  if (a.kind == Type::Index && b.kind == Type::Index) {
    if (compare) {
      Type t;
      t.kind = Type::Bool;
      return t;
    }
    switch (e.op) {
    case BinaryOp::Add: return Type::indexValue(a.index + b.index);
    case BinaryOp::Sub: return Type::indexValue(a.index - b.index);
    case BinaryOp::Mul: return Type::indexValue(symbols.mul(a.index, b.index));
    case BinaryOp::Div:
    case BinaryOp::Mod: {
      // Dimension-expression divisors, strided loop ordinals (CheckLoops.cpp).
      if (auto q = indexQuotient(id, e, a.index, b.index))
        return *q;
      auto n = b.index.constantValue();
      if (!n || *n <= 0) {
        error(DiagId::DivisorNotConstant, m.expr(e.children[1]).span,
              std::string("the right side of `") + syntax::binaryOpSpelling(e.op) +
                  "` must be a positive integer constant, found `" + str(b.index) + "`");
        return Type::error();
      }
      if (e.op == BinaryOp::Mod)
        return Type::indexValue(symbols.mod(a.index, *n));
      if (floorDivision) // `wait ... round (k / 3)`: rounds count whole phases
        return Type::indexValue(symbols.floorDiv(a.index, *n));
      if (!requireExactDivision(a.index, *n, e.span, "`" + syntax::printExpr(m, id) + "`") &&
          a.index.isConstant())
        return Type::error();
      return Type::indexValue(symbols.exactDiv(a.index, *n));
    }
    default: break;
    }
  }
  if ((a.kind == Type::Scalar || a.kind == Type::Index) &&
      (b.kind == Type::Scalar || b.kind == Type::Index)) {
    if (compare) {
      error(DiagId::ScalarCondition, e.span,
            "`" + syntax::printExpr(m, id) +
                "` compares run-time scalars; conditions compare index values")
          .note("data-dependent control flow is not modelled by the grid and fence analyses; "
                "select with `max`/`min` on tiles instead");
      return Type::error();
    }
    // A typed scalar (a parameter, a conversion) fixes the type; literals follow.
    bool aTyped = a.kind == Type::Scalar && !isLiteralScalar(e.children[0]);
    bool bTyped = b.kind == Type::Scalar && !isLiteralScalar(e.children[1]);
    DType want = aTyped ? a.scalar : bTyped ? b.scalar : a.kind == Type::Scalar ? a.scalar : b.scalar;
    bool ok = requireScalar(e.children[0], a, want);
    ok = requireScalar(e.children[1], b, want) && ok;
    if (!ok)
      return Type::error();
    if (aTyped && bTyped && a.scalar != b.scalar) {
      error(DiagId::DTypeMismatch, e.span,
            std::string("scalar operands of `") + syntax::binaryOpSpelling(e.op) +
                "` have different element types: " + dtypeName(a.scalar) + " and " +
                dtypeName(b.scalar) + "; use `convert`");
      return Type::error();
    }
    if (e.op == BinaryOp::Mod) {
      error(DiagId::TypeMismatch, e.span, "`mod` takes integer indices, not scalars");
      return Type::error();
    }
    return Type::scalarOf(want);
  }
  if (compare && (a.isTensor() || b.isTensor())) {
    error(DiagId::TileComparisonPlace, e.span,
          "`" + syntax::printExpr(m, id) +
              "` compares tiles: a tile comparison is the mask of a `select`, nothing else")
        .note("write `select (" + syntax::printExpr(m, id) +
              ") x y` for x where it holds and y elsewhere");
    return Type::error();
  }
  error(DiagId::TypeMismatch, e.span,
        std::string("`") + syntax::binaryOpSpelling(e.op) + "` takes integer indices or scalars, "
        "found " + typeStr(a) + " and " + typeStr(b) + "; use `add`, `sub`, `mul` or `div` on tiles");
  return Type::error();
}

Type Checker::checkIndex(ExprId id, const Expr &e) {
  Type base = checkExpr(e.children[0]);
  size_t count = e.children.size() - 1;
  // Check every index even when the base is broken, to record their types.
  llvm::SmallVector<std::optional<DimExpr>, 4> starts(count), lengths(count);
  llvm::SmallVector<bool, 4> isSlice(count, false);
  for (size_t i = 0; i < count; ++i) {
    const Expr &ix = m.expr(e.children[i + 1]);
    if (ix.kind == ExprKind::Slice) {
      isSlice[i] = true;
      starts[i] = indexValue(ix.children[0]);
      lengths[i] = indexValue(ix.children[1]);
      record(e.children[i + 1], Type::unit());
    } else {
      starts[i] = indexValue(e.children[i + 1]);
    }
  }
  if (base.isError())
    return Type::error();
  if (!base.isTensor()) {
    error(DiagId::ExpectedTile, m.expr(e.children[0]).span,
          "only tensors and tiles can be indexed, `" + syntax::printExpr(m, e.children[0]) +
              "` is " + typeStr(base));
    return Type::error();
  }
  const TensorType &t = base.tensor;
  if (count != t.shape.size()) {
    auto &d =
        error(DiagId::RankMismatch, e.span,
              "`" + syntax::printExpr(m, e.children[0]) + "` has " +
                  std::to_string(t.shape.size()) + " dimension(s) " + printShape(t.shape, symbols) +
                  " but " + std::to_string(count) + " indices are given");
    // A stage index alone (`a_s[s]` of a staged tile) is the form of
    // `tma_load` / `tma_store` only; everywhere else (`cp_async`, loads,
    // stores) the slice is written in full: complete it with whole extents.
    if (count >= 1 && count < t.shape.size() && t.isTile) {
      std::string rest;
      bool constant = true;
      for (size_t i = count; i < t.shape.size(); ++i) {
        auto c = t.shape[i].constantValue();
        constant = constant && c.has_value();
        if (c)
          rest += ", 0 ..+ " + std::to_string(*c);
      }
      if (constant) {
        std::string full = syntax::printExpr(m, e.children[0]) + "[";
        for (size_t i = 0; i < count; ++i)
          full += (i ? ", " : "") + syntax::printExpr(m, e.children[i + 1]);
        full += rest + "]";
        Span last = m.expr(e.children[count]).span;
        d.note("only `tma_load` and `tma_store` take a stage index alone; elsewhere write the "
               "full slice `" +
               full + "`");
        d.fix(Span{last.end, last.end}, rest, "write the full slice `" + full + "`");
      }
    }
    return Type::error();
  }
  TensorType view;
  view.dtype = t.dtype;
  view.space = t.space;
  view.isTile = t.isTile;
  view.writable = t.writable;
  view.layout = t.layout;
  view.warpgroup = t.warpgroup;
  view.shape.reserve(count);
  bool ok = true;
  std::string proofs; // the hover's obligations, one line per dimension
  for (size_t i = 0; i < count; ++i) {
    const Expr &ix = m.expr(e.children[i + 1]);
    if (!starts[i] || (isSlice[i] && !lengths[i])) {
      ok = false;
      continue;
    }
    const DimExpr &extent = t.shape[i];
    auto dimName = [&] {
      return "dimension " + std::to_string(i + 1) + " of `" +
             syntax::printExpr(m, e.children[0]) + "` (extent " + str(extent) + ")";
    };
    if (isSlice[i]) {
      if (!lengths[i]->constantValue()) {
        error(DiagId::NonConstantTileShape, m.expr(ix.children[1]).span,
              "slice length `" + str(*lengths[i]) + "` must be a compile-time constant");
        ok = false;
        continue;
      }
      if (*lengths[i]->constantValue() <= 0) {
        error(DiagId::SliceOutOfBounds, m.expr(ix.children[1]).span, "slice length must be positive");
        ok = false;
        continue;
      }
      solver::Proof lo = prover.proveNonNegative(*starts[i]);
      DimExpr end = *starts[i] + *lengths[i];
      // A masked access (CheckMasked.cpp) touches only the elements inside:
      // its end may pass the extent.
      bool masked = id == maskedIndexExpr;
      solver::Proof hi = masked ? lo : prover.proveLessEqual(end, extent);
      if (!lo.proved() || !hi.proved()) {
        bool endFails = !masked && !hi.proved();
        const solver::Proof &bad = endFails ? hi : lo;
        std::string goal = endFails ? str(end) + " <= " + str(extent) : str(*starts[i]) + " >= 0";
        auto &d = error(DiagId::SliceOutOfBounds, ix.span,
                        "slice `" + syntax::printExpr(m, e.children[i + 1]) +
                            "` may be out of bounds of " + dimName() + ": cannot prove " + goal);
        if (bad.Result == solver::Verdict::Disproved)
          d.note("it is out of bounds whenever the `requires` facts hold");
        if (!bad.Suggestions.empty() && !bad.Suggestions[0].RequiresClauses.empty())
          addRequiresFix(d, bad.Suggestions[0].Text);
        // A ragged edge on purpose: the masked access (CheckMasked.cpp).
        if (endFails && t.space == Space::Global && !t.isTile &&
            prover.proveNonNegative(*starts[i]).proved())
          d.note("if the box may run past the edge on purpose (a `ceil_div` grid), mark the access "
                 "`masked`: `xr <- masked " +
                 syntax::printExpr(m, e.children[0]) + "[...] fill 0.0` or `masked " +
                 syntax::printExpr(m, e.children[0]) + "[...] <- v`");
        // The view's type is still known: keep checking what is done with it.
      } else if (options.proofTables) {
        proofs += "- dimension " + std::to_string(i + 1) + " (extent `" + str(extent) + "`): `" +
                  str(*starts[i]) + " >= 0`" +
                  (masked ? "; masked, so its end may pass the extent"
                          : " and `" + str(end) + " <= " + str(extent) + "`") +
                  ", " + dischargedBy({*starts[i], extent - end}) + "\n";
      }
      view.shape.push_back(*lengths[i]);
    } else {
      solver::Proof lo = prover.proveNonNegative(*starts[i]);
      solver::Proof hi = prover.proveLess(*starts[i], extent);
      if (!lo.proved() || !hi.proved()) {
        error(DiagId::IndexOutOfBounds, ix.span,
              "index `" + str(*starts[i]) + "` may be out of bounds of " + dimName() +
                  ": cannot prove 0 <= " + str(*starts[i]) + " < " + str(extent));
      } else if (options.proofTables) {
        proofs += "- dimension " + std::to_string(i + 1) + ": `0 <= " + str(*starts[i]) + " < " +
                  str(extent) + "`, " + dischargedBy({*starts[i], extent - *starts[i]}) + "\n";
      }
    }
  }
  if (!ok)
    return Type::error();
  Type result = Type::tensorOf(view);
  annotate(e.span, result, true);
  if (!proofs.empty())
    annotateProof(e.span, "**in bounds** (proved by the checker):\n" + proofs, "proof");
  return result;
}

Type Checker::checkApplication(ExprId id, const Expr &e) {
  const std::string &f = e.name.name;
  size_t argc = e.children.size();
  // A name right after a number, with no space (`1.0f`, `2u`): a suffix.
  for (size_t i = 1; i < argc; ++i) {
    const Expr &lit = m.expr(e.children[i - 1]), &name = m.expr(e.children[i]);
    if ((lit.kind == ExprKind::Float || lit.kind == ExprKind::Integer) &&
        name.kind == ExprKind::Name && name.span.begin == lit.span.end)
      literalSuffixes.insert(e.children[i]);
  }
  size_t suffixes = 0;
  for (ExprId a : e.children)
    suffixes += literalSuffixes.count(a);
  auto arity = [&](size_t want) {
    if (argc == want)
      return true;
    if (suffixes > 0 && argc - suffixes == want) {
      // `add xr 1.0f`: the suffix is the error (reported with the argument).
      for (ExprId a : e.children)
        checkExpr(a);
      return false;
    }
    auto &d = error(DiagId::WrongArgumentCount, e.span,
                    "`" + f + "` takes " + std::to_string(want) + " argument(s), " +
                        std::to_string(argc) + " given");
    if (minusAfterApplication != syntax::kNone && argc + 1 == want &&
        m.expr(minusAfterApplication).children[0] == id) {
      ExprId neg = m.expr(minusAfterApplication).children[1];
      std::string arg = syntax::printExpr(m, neg);
      d.note("`" + syntax::printExpr(m, minusAfterApplication) + "` subtracts " + arg + " from `" +
             syntax::printExpr(m, id) +
             "`; a negative argument is written in "
             "parentheses: `" +
             syntax::printExpr(m, id) + " (-" + arg + ")`");
    }
    for (ExprId a : e.children)
      checkExpr(a);
    return false;
  };
  bool inDevice = current && current->item->kind != syntax::ItemKind::HostFunction;

  if (f == "block_id" || f == "warp_id") {
    if (!arity(1))
      return Type::error();
    bool block = f == "block_id";
    auto axis = constantIndex(e.children[0], "the grid axis");
    if (!axis)
      return Type::error();
    const auto &ids = block ? grid.blockIds : grid.warpIds;
    if ((block && !grid.inBlockGrid) || (!block && !grid.inWarpGrid)) {
      error(DiagId::BadGridId, e.span,
            "`" + f + "` is only meaningful inside `" + (block ? "block_grid" : "warp_grid") + "`");
      return Type::error();
    }
    if (*axis < 0 || static_cast<size_t>(*axis) >= ids.size()) {
      error(DiagId::BadGridId, m.expr(e.children[0]).span,
            "axis " + std::to_string(*axis) + " is out of range: the " +
                (block ? "block_grid" : "warp_grid") + " has " + std::to_string(ids.size()) +
                " axis/axes");
      return Type::error();
    }
    return Type::indexValue(ids[*axis]);
  }
  if (f == "floor_div" || f == "ceil_div") {
    if (!arity(2))
      return Type::error();
    auto a = indexValue(e.children[0]);
    auto n = constantIndex(e.children[1], "the divisor");
    if (!a || !n)
      return Type::error();
    if (*n <= 0) {
      error(DiagId::DivisorNotConstant, m.expr(e.children[1]).span, "the divisor must be positive");
      return Type::error();
    }
    DimExpr q = f == "floor_div" ? symbols.floorDiv(*a, *n) : symbols.ceilDiv(*a, *n);
    if (f == "floor_div")
      boundFloorDiv(*a, *n, q);
    return Type::indexValue(q);
  }
  if (f == "fill") {
    if (!arity(1))
      return Type::error();
    Type v = checkExpr(e.children[0]);
    if (v.isError())
      return v;
    if (v.kind != Type::Scalar && v.kind != Type::Index) {
      error(DiagId::TypeMismatch, m.expr(e.children[0]).span, "`fill` takes a scalar value");
      return Type::error();
    }
    if (!requireScalar(e.children[0], v, DType::F32))
      return Type::error();
    Type t;
    t.kind = Type::Splat;
    t.scalar = v.kind == Type::Scalar ? v.scalar : DType::I32;
    return t;
  }
  if (f == "wmma_mma" || f == "dp4a_mma") {
    // dp4a_mma: the same operands, read by dp4a (CheckMmaOperands.cpp).
    bool dp4a = f == "dp4a_mma";
    if (!arity(3))
      return Type::error();
    Type c = checkExpr(e.children[0]);
    Type a = checkMmaA(e.children[1]);
    bool transposedB = false;
    Type b = checkMmaB(e.children[2], transposedB);
    if (c.isError() || a.isError() || b.isError())
      return Type::error();
    const char *roles[] = {"accumulator", "A operand", "B operand"};
    Type *ops[] = {&c, &a, &b};
    for (int i = 0; i < 3; ++i)
      if (!ops[i]->isTensor() || ops[i]->tensor.shape.size() != 2) {
        error(DiagId::ExpectedTile, m.expr(e.children[i]).span,
              std::string("the ") + roles[i] + " of `" + f + "` must be a 2-D tile, found " +
                  typeStr(*ops[i]));
        return Type::error();
      }
    // int8: both operands K-major shared slices (K0154).
    bool int8 = dp4a || (a.tensor.dtype == DType::I8 && b.tensor.dtype == DType::I8);
    if (int8 && !checkMmaInt8Operands(e, a, transposedB))
      return Type::error();
    // Placements per seed 003 §2.3: A and B in shared memory, C in registers.
    bool placed = true;
    if (c.tensor.space != Space::Register) {
      error(DiagId::OperandPlacement, m.expr(e.children[0]).span,
            "the accumulator of `" + f + "` must be on cuda:register, found " +
                spaceName(c.tensor.space));
      placed = false;
    }
    for (int i = 1; i < 3; ++i) {
      // A register A operand (CheckMmaOperands.cpp): a 16-bit register tile.
      if (i == 1 && a.tensor.space == Space::Register) {
        // K0770 already says which element type: no K0703 as well.
        if (!checkMmaRegisterA(e.children[1], a, b))
          return Type::error();
        continue;
      }
      // A register B: the block-level form for the Tile IR backend, whose
      // mmaf takes both operands as values (docs/tile-ir.md). PTX reads B
      // from shared memory (ldmatrix), so there it stays K0404.
      if (i == 2 && b.tensor.space == Space::Register && blockLevelBody &&
          options.backend == "tileir")
        continue;
      if (ops[i]->tensor.space != Space::Shared) {
        error(DiagId::OperandPlacement, m.expr(e.children[i]).span,
              std::string("the ") + roles[i] + " of `" + f + "` must be on " +
                  (i == 1 ? "cuda:shared or cuda:register" : "cuda:shared") + ", found " +
                  spaceName(ops[i]->tensor.space) +
                  (ops[i]->tensor.space == Space::Global ? "; stage it with `cp_async` first"
                   : i == 2 && blockLevelBody && ops[i]->tensor.space == Space::Register
                       ? "; a block-level kernel's register B operand needs the Tile IR backend "
                         "(--backend=tileir)"
                       : ""));
        placed = false;
      }
    }
    // Shapes unify symbolically, so a tile function over [TM, TN, TK] checks
    // once with its own dims; constants are the common case.
    const DimExpr &cm = c.tensor.shape[0], &cn = c.tensor.shape[1];
    const DimExpr &am = a.tensor.shape[0], &ak = a.tensor.shape[1];
    const DimExpr &bk = b.tensor.shape[0], &bn = b.tensor.shape[1];
    auto same = [&](const DimExpr &x, const DimExpr &y) {
      return x == y || prover.proveEqual(x, y).proved();
    };
    if (!same(cm, am) || !same(cn, bn) || !same(ak, bk)) {
      error(DiagId::MmaShape, e.span,
            "`" + f + "` shapes do not agree: accumulator " + printShape(c.tensor.shape, symbols) +
                ", A " + printShape(a.tensor.shape, symbols) + ", B " +
                printShape(b.tensor.shape, symbols) + " (need [m, n] += [m, k] x [k, n])");
      return Type::error();
    }
    namespace lw = target::lowerable;
    const std::pair<const char *, const DimExpr *> mnk[] = {{"m", &cm}, {"n", &cn}, {"k", &ak}};
    auto vm = cm.constantValue(), vn = cn.constantValue(), vk = ak.constantValue();
    if (vm && vn && vk &&
        (*vm % lw::kLanguageMmaTile || *vn % lw::kLanguageMmaTile || *vk % lw::kLanguageMmaTile)) {
      error(DiagId::MmaShape, e.span,
            "`" + f + "` tiles must be multiples of the 16x16x16 tensor-core tile, got m=" +
                std::to_string(*vm) + " n=" + std::to_string(*vn) + " k=" + std::to_string(*vk));
      return Type::error();
    }
    for (auto [name, d] : mnk) {
      if (auto v = d->constantValue()) {
        if (*v % lw::kLanguageMmaTile == 0)
          continue;
        error(DiagId::MmaShape, e.span,
              "`" + f + "` tiles must be multiples of the 16x16x16 tensor-core tile, got " +
                  std::string(name) + "=" + std::to_string(*v));
        return Type::error();
      }
      if (prover.proveDivisible(*d, lw::kLanguageMmaTile).proved())
        continue;
      std::string fact = str(*d) + " mod " + std::to_string(lw::kLanguageMmaTile) + " = 0";
      if (current && current->item->kind == syntax::ItemKind::TileFunction &&
          symbols.onlyDims(*d)) {
        // Over the function's own dims: each call site proves it.
        impliedRequirements[current->itemIndex].push_back({*d, lw::kLanguageMmaTile,
                                                           "its `" + f + "` (" + std::string(name) +
                                                               " = `" + str(*d) +
                                                               "` must be a multiple of 16)",
                                                           e.span});
        continue;
      }
      auto &diag = error(DiagId::MmaShape, e.span,
                         "`" + f + "` needs " + std::string(name) + " = `" + str(*d) +
                             "` to be a multiple of 16: cannot prove " + fact);
      if (symbols.onlyDims(*d))
        addRequiresFix(diag, fact);
      return Type::error();
    }
    // Both MMA forms: the accumulator's type, now in registers.
    auto mmaResult = [&](const std::string &capability) {
      useCapability(capability, e.span);
      if (!placed)
        return Type::error();
      Type result = c;
      result.tensor.space = Space::Register;
      annotate(e.span, result, true);
      return result;
    };
    if (dp4a) {
      if (a.tensor.dtype != DType::I8 || b.tensor.dtype != DType::I8 ||
          c.tensor.dtype != DType::I32) {
        error(DiagId::MmaDTypes, e.span,
              std::string("`dp4a_mma` multiplies I8 x I8 into an I32 accumulator, found ") +
                  dtypeName(a.tensor.dtype) + " x " + dtypeName(b.tensor.dtype) + " with a " +
                  dtypeName(c.tensor.dtype) + " accumulator");
        return Type::error();
      }
      return mmaResult("dp4a");
    }
    if (int8 && !checkMmaInt8K(e, ak))
      return Type::error();
    const lw::MmaLowering *row = lw::mmaLowering(
        dtypeName(a.tensor.dtype), dtypeName(b.tensor.dtype), dtypeName(c.tensor.dtype));
    if (!row) {
      error(DiagId::MmaDTypes, e.span,
            std::string("no tensor-core MMA takes ") + dtypeName(a.tensor.dtype) + " x " +
                dtypeName(b.tensor.dtype) + " with a " + dtypeName(c.tensor.dtype) +
                " accumulator; supported (A_B_C): " + lw::mmaCombinations())
          .note("these are the combinations code generation lowers (target/Lowerable.def)");
      return Type::error();
    }
    return mmaResult(std::string(row->languageCapability));
  }
  if (f == "convert") {
    if (!arity(2))
      return Type::error();
    Type dt = checkExpr(e.children[0]);
    bool savedWarpgroup = allowWarpgroupTile;
    allowWarpgroupTile = allowWarpgroupTile || inDevice;
    Type x = checkExpr(e.children[1]);
    allowWarpgroupTile = savedWarpgroup;
    if (dt.isError() || x.isError())
      return Type::error();
    if (dt.kind != Type::DTypeName) {
      error(DiagId::UnknownDType, m.expr(e.children[0]).span,
            "the first argument of `convert` is an element type such as F16");
      return Type::error();
    }
    if (!x.isTensor()) {
      if (x.kind == Type::Scalar || x.kind == Type::Index)
        return Type::scalarOf(dt.scalar);
      error(DiagId::ExpectedTile, m.expr(e.children[1]).span, "`convert` takes a tile");
      return Type::error();
    }
    if (x.tensor.space != Space::Register) {
      error(DiagId::OperandPlacement, m.expr(e.children[1]).span,
            "`convert` works on register tiles; load the data into a register tile first");
      return Type::error();
    }
    Type r = x;
    r.tensor.dtype = dt.scalar;
    return r;
  }
  if (std::optional<Type> t = checkHostOp(id, e)) // host functions (CheckHost.cpp)
    return *t;
  if (const MathFunction *mf = mathFunction(f))
    return checkMath(id, e, *mf);
  if (f == "atomic_add" || f == "atomic_max" || f == "atomic_min") {
    // Checker::checkAtomicAssign takes the store form before expressions.
    error(DiagId::AtomicPlace, e.span,
          "`" + f + "` is the whole value of a store into a global tensor slice (`out[...] <- " +
              f + " v`), not an expression");
    return Type::error();
  }
  if (f == "select") {
    if (inDevice)
      return checkSelect(id, e);
    error(DiagId::InvalidStatementContext, e.span,
          "`select` computes on register tiles inside kernels and tile functions, not in host "
          "functions");
    for (ExprId a : e.children)
      checkExpr(a);
    return Type::error();
  }
  if (isBlockReductionName(f))
    return checkBlockReduction(id, e);
  static const char *unary[] = {"relu", "exp", "neg"};
  static const char *binary[] = {"add", "sub", "mul", "div", "max", "min"};
  bool isUnary = std::find(std::begin(unary), std::end(unary), f) != std::end(unary);
  bool isBinary = std::find(std::begin(binary), std::end(binary), f) != std::end(binary);
  bool isColumnReduction = f == "col_sum" || f == "col_max";
  if (isUnary || isBinary || f == "row_sum" || f == "row_max" || f == "transpose" ||
      isColumnReduction) {
    if (!arity(isBinary ? 2 : 1))
      return Type::error();
    // Warpgroup tiles may be operands of elementwise ops (the epilogue).
    bool savedWarpgroup = allowWarpgroupTile;
    allowWarpgroupTile = inDevice && (isUnary || isBinary);
    Type x = checkExpr(e.children[0]);
    Type y = isBinary ? checkExpr(e.children[1]) : Type::unit();
    allowWarpgroupTile = savedWarpgroup;
    if (x.isError() || y.isError())
      return Type::error();
    if (inDevice &&
        ((x.isTensor() && x.tensor.warpgroup) || (y.isTensor() && y.tensor.warpgroup))) {
      if (!isUnary && !isBinary) {
        error(DiagId::WarpgroupElementwise, m.expr(e.children[0]).span,
              "`" + f + "` of a warpgroup tile is not lowered in this version");
        return Type::error();
      }
      if (f == "exp" && !isFloat(x.tensor.dtype)) {
        error(DiagId::DTypeMismatch, e.span, "`exp` takes floating-point elements");
        return Type::error();
      }
      return checkWarpgroupElementwise(e, f, x, isBinary ? &y : nullptr);
    }
    if (!x.isTensor()) {
      error(DiagId::ExpectedTile, m.expr(e.children[0]).span,
            "`" + f + "` takes a tile or tensor, found " + typeStr(x));
      return Type::error();
    }
    if (!inDevice) {
      // Host level: whole tensors, operands on one placement.
      if (isBinary && y.isTensor() && y.tensor.space != x.tensor.space) {
        error(DiagId::CrossPlacement, e.span,
              "`" + f + "` operands are on different placements: " + spaceName(x.tensor.space) +
                  " and " + spaceName(y.tensor.space) +
                  "; move one with `copy_to_device` or `copy_to_host`");
        return Type::error();
      }
    } else if (x.tensor.space != Space::Register) {
      error(DiagId::OperandPlacement, m.expr(e.children[0]).span,
            "`" + f + "` computes on register tiles, found " + spaceName(x.tensor.space) +
                "; load it into a `register` tile first");
      return Type::error();
    }
    if (f == "exp" && inDevice && !isFloat(x.tensor.dtype)) {
      error(DiagId::DTypeMismatch, e.span,
            std::string("`exp` takes floating-point elements, found ") +
                dtypeName(x.tensor.dtype) + "; convert first: `exp (convert F32 ...)`");
      return Type::error();
    }
    Type r = x;
    r.tensor.writable = true;
    if (isBinary) {
      if (y.kind == Type::Scalar || y.kind == Type::Index) {
        if (inDevice && !requireScalarOperand(e.children[1], y, x.tensor.dtype,
                                              "`" + f + "` computes on"))
          return Type::error();
        return r;
      }
      if (!y.isTensor()) {
        error(DiagId::ExpectedTile, m.expr(e.children[1]).span,
              "`" + f + "` takes a tile or a scalar as second operand, found " + typeStr(y));
        return Type::error();
      }
      if (inDevice && y.tensor.space == Space::Global)
        return checkBroadcastSlice(e, f, x, y);
      if (inDevice && y.tensor.space != Space::Register) {
        error(DiagId::OperandPlacement, m.expr(e.children[1]).span,
              "`" + f + "` computes on register tiles, found " + spaceName(y.tensor.space));
        return Type::error();
      }
      if (x.tensor.dtype != y.tensor.dtype) {
        error(DiagId::DTypeMismatch, e.span,
              "`" + f + "` operands have different element types: " + dtypeName(x.tensor.dtype) +
                  " and " + dtypeName(y.tensor.dtype) + "; use `convert`");
        return Type::error();
      }
      // An [R, 1] column or (inside kernels) a [1, C] row of x's shape.
      bool column = isBroadcastOf(y.tensor.shape, x.tensor.shape) &&
                    (inDevice || y.tensor.shape[1] == DimExpr::constant(1));
      if (y.tensor.shape != x.tensor.shape && !column) {
        error(DiagId::BroadcastMismatch, e.span,
              "`" + f + "` operand shapes " + printShape(x.tensor.shape, symbols) + " and " +
                  printShape(y.tensor.shape, symbols) + " cannot be broadcast");
        return Type::error();
      }
      return r;
    }
    if (isColumnReduction) {
      if (!inDevice) {
        error(DiagId::InvalidStatementContext, e.span,
              "`" + f + "` computes on register tiles inside kernels and tile functions");
        return Type::error();
      }
      return checkColumnReduction(e, f, x);
    }
    if (f == "row_sum" || f == "row_max" || f == "transpose") {
      if (x.tensor.shape.size() != 2) {
        error(DiagId::ShapeMismatch, m.expr(e.children[0]).span,
              "`" + f + "` takes a 2-D tile, found " + printShape(x.tensor.shape, symbols));
        return Type::error();
      }
      if (f == "transpose")
        std::swap(r.tensor.shape[0], r.tensor.shape[1]);
      else
        r.tensor.shape[1] = DimExpr::constant(1);
      if (!inDevice)
        r = meshRules(e, r);
      annotate(e.span, r, true);
      return r;
    }
    return inDevice ? r : meshRules(e, r);
  }
  if (f == "matmul" || f == "copy_to_device" || f == "copy_to_host") {
    if (inDevice) {
      error(DiagId::InvalidStatementContext, e.span,
            "`" + f + "` is a host-level operation; inside kernels use tiles and `wmma_mma`");
      for (ExprId a : e.children)
        checkExpr(a);
      return Type::error();
    }
    if (f == "matmul") {
      if (!arity(2))
        return Type::error();
      Type a = checkExpr(e.children[0]);
      Type b = checkExpr(e.children[1]);
      if (a.isError() || b.isError())
        return Type::error();
      if (!a.isTensor() || !b.isTensor() || a.tensor.shape.size() != 2 ||
          b.tensor.shape.size() != 2) {
        error(DiagId::ExpectedTile, e.span, "`matmul` takes two 2-D tensors");
        return Type::error();
      }
      if (a.tensor.space != b.tensor.space) {
        error(DiagId::CrossPlacement, e.span,
              std::string("`matmul` operands are on different placements: ") +
                  spaceName(a.tensor.space) + " and " + spaceName(b.tensor.space) +
                  "; move one with `copy_to_device` or `copy_to_host`")
            .label(m.expr(e.children[0]).span, spaceName(a.tensor.space))
            .label(m.expr(e.children[1]).span, spaceName(b.tensor.space));
        return Type::error();
      }
      if (a.tensor.shape[1] != b.tensor.shape[0]) {
        error(DiagId::ShapeMismatch, e.span,
              "`matmul` inner dimensions differ: " + printShape(a.tensor.shape, symbols) + " x " +
                  printShape(b.tensor.shape, symbols));
        return Type::error();
      }
      if (a.tensor.dtype != b.tensor.dtype) {
        error(DiagId::DTypeMismatch, e.span, "`matmul` operands have different element types");
        return Type::error();
      }
      Type r = a;
      r.tensor.shape = {a.tensor.shape[0], b.tensor.shape[1]};
      return meshRules(e, r);
    }
    // `copy_to_device d x` names the device (issue 19); `copy_to_device x` is device 0.
    bool withDevice = f == "copy_to_device" && e.children.size() == 2;
    if (withDevice) {
      Type d = checkExpr(e.children[0]);
      if (d.isError()) {
        checkExpr(e.children[1]);
        return Type::error();
      }
      if (d.kind != Type::Index) {
        error(DiagId::BadDeviceIndex, m.expr(e.children[0]).span,
              "`copy_to_device d x` takes a device index d, a non-negative integer constant; "
              "found " +
                  typeStr(d));
        checkExpr(e.children[1]);
        return Type::error();
      }
    } else if (!arity(1))
      return Type::error();
    ExprId src = e.children[withDevice ? 1 : 0];
    Type x = checkExpr(src);
    if (x.isError())
      return x;
    bool toDevice = f == "copy_to_device";
    Space from = toDevice ? Space::Host : Space::Global;
    // A copy between devices (`copy_to_device 1 x`, x on cuda:global(0)) is
    // a peer copy where the hardware allows it, staged otherwise.
    bool peer = withDevice && x.isTensor() && x.tensor.space == Space::Global;
    if (!x.isTensor() || (x.tensor.space != from && !peer)) {
      error(DiagId::CrossPlacement, m.expr(src).span,
            "`" + f + "` takes a tensor on " + spaceName(from) + ", found " + typeStr(x));
      return Type::error();
    }
    Type r = x;
    r.tensor.space = toDevice ? Space::Global : Space::Host;
    return meshRules(e, r);
  }
  if (f == "all_reduce" || f == "all_gather" || f == "reduce_scatter")
    return checkCollective(id, e); // issue 19 (CheckMesh.cpp)
  // Calls of tile functions, kernels (from host functions) and host functions.
  auto it = itemsByName.find(f);
  if (it == itemsByName.end()) {
    auto &d = error(DiagId::UnknownFunction, e.name.span, "unknown function `" + f + "`");
    // Only names that exist and can be called here (sema/Builtins.h).
    std::vector<std::pair<std::string, syntax::ItemKind>> items;
    for (const auto &[name, index] : itemsByName)
      items.emplace_back(name, m.items[index].kind);
    std::sort(items.begin(), items.end());
    std::string best =
        suggestFunction(f, current ? current->item->kind : syntax::ItemKind::Kernel, items);
    if (!best.empty())
      d.fix(e.name.span, best, "replace with `" + best + "`");
    for (ExprId a : e.children)
      checkExpr(a);
    return Type::error();
  }
  return checkCall(id, e, it->second);
}

Type Checker::checkMath(ExprId id, const Expr &e, const MathFunction &mf) {
  (void)id;
  const std::string f(mf.name);
  if (e.children.size() != mf.arity) {
    error(DiagId::WrongArgumentCount, e.span,
          "`" + f + "` takes " + std::to_string(mf.arity) + " argument(s), " +
              std::to_string(e.children.size()) + " given");
    for (ExprId a : e.children)
      checkExpr(a);
    return Type::error();
  }
  bool inDevice = current && current->item->kind != syntax::ItemKind::HostFunction;
  std::vector<Type> args;
  bool savedWarpgroup = allowWarpgroupTile;
  allowWarpgroupTile = inDevice;
  for (ExprId a : e.children)
    args.push_back(checkExpr(a));
  allowWarpgroupTile = savedWarpgroup;
  for (const Type &t : args)
    if (t.isError())
      return Type::error();
  if (!inDevice) {
    error(DiagId::InvalidStatementContext, e.span,
          "`" + f +
              "` computes on register tiles inside kernels and tile functions, not in host "
              "functions");
    return Type::error();
  }
  // `pow 2.0 x`: a scalar base broadcast over the exponent tile.
  size_t tileArg = mf.arity == 2 && !args[0].isTensor() && args[1].isTensor() ? 1 : 0;
  const Type &x = args[tileArg];
  const Expr &xe = m.expr(e.children[tileArg]);
  if (x.kind == Type::Scalar || x.kind == Type::Index) {
    if (mf.arity != 1) {
      error(DiagId::ScalarMathNotAvailable, e.span,
            "`" + f +
                "` of scalars is not available in this version; apply it to a register "
                "tile")
          .note("the one-argument math builtins take scalars: `sqrt eps`, `exp2 (neg s)`");
      return Type::error();
    }
    // `rsqrt eps`: a scalar of the operand's type (a literal's: F32).
    if (!requireScalar(e.children[0], x, DType::F32))
      return Type::error();
    DType sdt = x.kind == Type::Scalar && !isLiteralScalar(e.children[0]) ? x.scalar : DType::F32;
    if (!isFloat(sdt) && !mf.integers) {
      std::string text = syntax::printExpr(m, e.children[0]);
      bool atomic = xe.kind == ExprKind::Name || xe.kind == ExprKind::Paren;
      error(DiagId::MathNeedsFloat, xe.span,
            "`" + f + "` takes a floating-point scalar, found " + dtypeName(sdt))
          .fix(xe.span, "(convert F32 " + (atomic ? text : "(" + text + ")") + ")",
               "convert to F32");
      return Type::error();
    }
    if (!isFloat(sdt)) {
      // abs of an integer scalar: not lowered as a scalar in this version.
      error(DiagId::ScalarMathNotAvailable, e.span,
            "`" + f + "` of an integer scalar is not available in this version");
      return Type::error();
    }
    if (sdt == DType::F64 && !mf.f64) {
      error(DiagId::MathF64NotAvailable, e.span,
            "`" + f + "` of an F64 scalar is not available in this version")
          .note("the accurate form computes in F64 and rounds once to F32, F16 or BF16 "
                "(docs/math.md)");
      return Type::error();
    }
    if (!mf.capability.empty())
      useCapability(std::string(mf.capability), e.span);
    return Type::scalarOf(sdt);
  }
  if (!x.isTensor()) {
    error(DiagId::ExpectedTile, xe.span, "`" + f + "` takes a register tile, found " + typeStr(x));
    return Type::error();
  }
  if (x.tensor.space != Space::Register) {
    error(DiagId::OperandPlacement, xe.span,
          "`" + f + "` computes on register tiles, found " + spaceName(x.tensor.space) +
              "; load it into a `register` tile first");
    return Type::error();
  }
  DType dt = x.tensor.dtype;
  if (!isFloat(dt) && !mf.integers) {
    std::string text = syntax::printExpr(m, e.children[tileArg]);
    bool atomic = xe.kind == ExprKind::Name || xe.kind == ExprKind::Paren;
    error(DiagId::MathNeedsFloat, xe.span,
          "`" + f + "` takes floating-point elements, found " + dtypeName(dt) +
              "; convert first: `" + f + " (convert F32 " + text + ")`")
        .fix(xe.span, "(convert F32 " + (atomic ? text : "(" + text + ")") + ")", "convert to F32");
    return Type::error();
  }
  if (dt == DType::F64 && !mf.f64) {
    auto &d = error(DiagId::MathF64NotAvailable, e.span,
                    "`" + f + "` of F64 elements is not available in this version");
    if (!mf.capability.empty())
      d.note("`" + f + "` is the F32 hardware instruction; for F64 use the accurate form");
    else
      d.note(
          "the accurate form computes in F64 and rounds once to F32, F16 or BF16 (docs/math.md)");
    return Type::error();
  }
  if (x.tensor.warpgroup) {
    if (tileArg != 0) {
      error(DiagId::WarpgroupElementwise, e.span,
            "`" + f + "` takes the warpgroup tile as its first operand in this version");
      return Type::error();
    }
    if (mf.arity == 3) {
      for (size_t i = 1; i < 3; ++i)
        if (args[i].kind != Type::Scalar && args[i].kind != Type::Index) {
          error(DiagId::TypeMismatch, m.expr(e.children[i]).span,
                "`clamp` takes scalar bounds, found " + typeStr(args[i]));
          return Type::error();
        } else if (!requireScalarOperand(e.children[i], args[i], dt, "`clamp` computes on")) {
          return Type::error();
        }
    } else if (mf.arity == 2) {
      Type r = checkWarpgroupElementwise(e, f, x, &args[1]);
      if (r.isError())
        return r;
    }
    if (!mf.capability.empty())
      useCapability(std::string(mf.capability), e.span);
    Type r = x;
    r.tensor.writable = true;
    return r;
  }
  // The other operands: scalars of the tile's element type, or (pow) a tile
  // of the same element type and shape, or an [R, 1] column.
  for (size_t i = 0; i < args.size(); ++i) {
    if (i == tileArg)
      continue;
    const Type &y = args[i];
    ExprId ye = e.children[i];
    if (y.kind == Type::Scalar || y.kind == Type::Index) {
      if (!requireScalarOperand(ye, y, dt, "`" + f + "` computes on"))
        return Type::error();
      continue;
    }
    if (mf.arity == 3 || !y.isTensor()) {
      error(DiagId::TypeMismatch, m.expr(ye).span,
            "`" + f + "` takes " + (mf.arity == 3 ? "scalar bounds" : "a tile or a scalar") +
                ", found " + typeStr(y));
      return Type::error();
    }
    if (y.tensor.space != Space::Register) {
      error(DiagId::OperandPlacement, m.expr(ye).span,
            "`" + f + "` computes on register tiles, found " + spaceName(y.tensor.space));
      return Type::error();
    }
    if (y.tensor.dtype != dt) {
      error(DiagId::DTypeMismatch, e.span,
            "`" + f + "` operands have different element types: " + dtypeName(dt) + " and " +
                dtypeName(y.tensor.dtype) + "; use `convert`");
      return Type::error();
    }
    bool column = isBroadcastOf(y.tensor.shape, x.tensor.shape);
    if (y.tensor.shape != x.tensor.shape && !(column && i == 1)) {
      error(DiagId::BroadcastMismatch, e.span,
            "`" + f + "` operand shapes " + printShape(x.tensor.shape, symbols) + " and " +
                printShape(y.tensor.shape, symbols) + " cannot be broadcast");
      return Type::error();
    }
  }
  if (mf.arity == 3) {
    // Literal bounds are checked here; run-time bounds are the author's.
    auto literal = [&](ExprId a) -> std::optional<double> {
      const Expr *ex = &m.expr(a);
      bool negative = false;
      while (ex->kind == ExprKind::Paren || ex->kind == ExprKind::Negate) {
        negative ^= ex->kind == ExprKind::Negate;
        ex = &m.expr(ex->children[0]);
      }
      if (ex->kind == ExprKind::Float)
        return negative ? -ex->floatValue : ex->floatValue;
      if (ex->kind == ExprKind::Integer)
        return static_cast<double>(negative ? -ex->intValue : ex->intValue);
      return std::nullopt;
    };
    auto lo = literal(e.children[1]), hi = literal(e.children[2]);
    if (lo && hi && *lo > *hi) {
      Span both{m.expr(e.children[1]).span.begin, m.expr(e.children[2]).span.end};
      std::string l = syntax::printExpr(m, e.children[1]), h = syntax::printExpr(m, e.children[2]);
      error(DiagId::ClampBoundsOrder, both, "`clamp` bounds are out of order: " + l + " > " + h)
          .fix(both, h + " " + l, "swap the bounds");
      return Type::error();
    }
  }
  if (!mf.capability.empty())
    useCapability(std::string(mf.capability), e.span);
  Type r = x;
  r.tensor.writable = true;
  return r;
}

Type Checker::checkWarpgroupElementwise(const Expr &e, const std::string &f, const Type &x,
                                        const Type *y) {
  const Expr &xe = m.expr(e.children[0]);
  if (!x.isTensor() || !x.tensor.warpgroup) {
    error(DiagId::WarpgroupElementwise, xe.span,
          "`" + f + "` takes the warpgroup tile as its first operand in this version, found " +
              typeStr(x));
    return Type::error();
  }
  const auto &shape = x.tensor.shape;
  bool xVector = isWarpgroupVector(x.tensor);
  if (y) {
    const Expr &ye = m.expr(e.children[1]);
    if (y->kind == Type::Scalar || y->kind == Type::Index) {
      if (!requireScalarOperand(e.children[1], *y, x.tensor.dtype, "`" + f + "` computes on"))
        return Type::error();
    } else if (!y->isTensor()) {
      error(DiagId::ExpectedTile, ye.span,
            "`" + f + "` takes a tile or a scalar as second operand, found " + typeStr(*y));
      return Type::error();
    } else if (xVector && !(y->tensor.warpgroup && y->tensor.shape == shape &&
                            y->tensor.dtype == x.tensor.dtype)) {
      // Rows and columns compute among themselves; the [64, N] tile goes
      // first when one is broadcast over it.
      auto &d = error(DiagId::BroadcastMismatch, e.span,
                      "`" + f + "` of the warpgroup " +
                          (shape[0] == DimExpr::constant(1) ? "row " : "column ") +
                          printShape(shape, symbols) + " " + dtypeName(x.tensor.dtype) +
                          " takes a scalar or a warpgroup tile of the same shape and element "
                          "type, found " +
                          typeStr(*y));
      bool commutes = f == "add" || f == "mul" || f == "max" || f == "min";
      if (commutes && y->tensor.warpgroup)
        d.note("to broadcast it over a [64, N] tile, put that tile first: `" + f + " " +
               syntax::printExpr(m, e.children[1]) + " " + syntax::printExpr(m, e.children[0]) +
               "`");
      return Type::error();
    } else if (y->tensor.warpgroup && isWarpgroupVector(y->tensor)) {
      // A declared row [1, N] or column [64, 1] broadcast over the tile,
      // converted to its element type where used.
      const auto &ys = y->tensor.shape;
      bool fits = (ys[0] == DimExpr::constant(1) && ys[1] == shape[1]) ||
                  (ys[1] == DimExpr::constant(1) && ys[0] == shape[0]);
      if (!fits) {
        error(DiagId::BroadcastMismatch, e.span,
              "`" + f + "` operand shapes " + printShape(shape, symbols) + " and " +
                  printShape(ys, symbols) +
                  " cannot be broadcast: a warpgroup tile [64, N] takes a row [1, N] or a "
                  "column [64, 1]");
        return Type::error();
      }
      if (!isFloat(x.tensor.dtype)) {
        error(DiagId::DTypeMismatch, ye.span,
              std::string("the warpgroup tile is ") + dtypeName(x.tensor.dtype) +
                  "; a broadcast row or column applies to float tiles");
        return Type::error();
      }
    } else if (y->tensor.warpgroup) {
      if (y->tensor.shape != shape || y->tensor.dtype != x.tensor.dtype) {
        error(DiagId::BroadcastMismatch, e.span,
              "`" + f + "` of warpgroup tiles " + printShape(shape, symbols) + " " +
                  dtypeName(x.tensor.dtype) + " and " + printShape(y->tensor.shape, symbols) + " " +
                  dtypeName(y->tensor.dtype) + ": they need the same shape and element type");
        return Type::error();
      }
    } else {
      // A broadcast slice of a global tensor, NumPy's trailing alignment:
      // [N] and [1, N] are rows (one value per column), [64, 1] a column.
      const auto &ys = y->tensor.shape;
      bool row = (ys.size() == 1 && ys[0] == shape[1]) ||
                 (ys.size() == 2 && ys[0] == DimExpr::constant(1) && ys[1] == shape[1]);
      bool column = ys.size() == 2 && ys[0] == shape[0] && ys[1] == DimExpr::constant(1);
      // A whole [64, N] slice (a residual added in the epilogue): each thread
      // reads the elements of its own fragment.
      bool whole = ys.size() == 2 && ys[0] == shape[0] && ys[1] == shape[1];
      if (y->tensor.space != Space::Global) {
        error(DiagId::WarpgroupElementwise, ye.span,
              "the broadcast operand of `" + f +
                  "` on a warpgroup tile is read from a global "
                  "tensor, found " +
                  spaceName(y->tensor.space));
        return Type::error();
      }
      if (!row && !column && !whole) {
        error(DiagId::BroadcastMismatch, e.span,
              "`" + f + "` operand shapes " + printShape(shape, symbols) + " and " +
                  printShape(ys, symbols) +
                  " cannot be broadcast: a warpgroup tile [64, N] takes a "
                  "slice of the same shape, a row [N] or [1, N], or a column [64, 1]");
        return Type::error();
      }
      if (!isFloat(y->tensor.dtype) && isFloat(x.tensor.dtype)) {
        error(DiagId::DTypeMismatch, ye.span,
              std::string("the broadcast operand is ") + dtypeName(y->tensor.dtype) +
                  ", the warpgroup tile " + dtypeName(x.tensor.dtype) +
                  "; a float tile takes float broadcast operands (converted on load)");
        return Type::error();
      }
    }
  }
  Type r = x;
  r.tensor.writable = true;
  return r;
}

} // namespace kina::sema
