//===- CheckMasked.cpp - Masks and ragged edges ---------------------------===//
//
// Typing of the masked constructs (docs/language.md "Masks and ragged
// edges"): masked loads and stores of global slices, the index tiles
// `row_index`/`col_index`, and `select (a OP b) x y`. A masked access is
// safe by construction (its mask is "inside the tensor"), so checkIndex
// proves only its slice starts >= 0 (maskedIndexExpr); the coverage proof
// clips its boxes to the tensor (Coverage.cpp).
//
//===----------------------------------------------------------------------===//
#include "sema/Checker.h"

namespace kina::sema {

using syntax::ExprKind;

namespace {

bool isIndexTileName(const std::string &n) { return n == "row_index" || n == "col_index"; }

} // namespace

Type Checker::checkIndexTileName(ExprId, const Expr &e) {
  error(DiagId::IndexTileUse, e.span,
        "`" + e.name.name +
            "` takes its shape from the tile it is assigned to: it stands only as the whole "
            "value of an assignment")
      .note("declare `register ri : Tile[I32, [R, C], on=cuda:register]`, write `ri <- " +
            e.name.name + "`, then compute with `ri`");
  return Type::error();
}

bool Checker::checkMaskedAssign(const Stmt &s) {
  if (s.targetMasked || s.valueMasked) {
    // Masked accesses move per-warp register tiles; a warpgroup tile (the
    // wgmma accumulator) has its own stores (checkWarpgroupMove), unmasked.
    ExprId id = s.targetMasked ? s.value : s.target;
    const Expr *e = &m.expr(id);
    if (e->kind == ExprKind::Application && e->name.name == "convert" && e->children.size() == 2)
      e = &m.expr(e->children[1]);
    const Binding *b = e->kind == ExprKind::Name ? lookup(e->name.name) : nullptr;
    if (b && b->type.isTensor() && b->type.tensor.warpgroup) {
      // Type both sides (their names resolve, later passes see the store).
      bool saved = allowWarpgroupTile;
      allowWarpgroupTile = true;
      maskedIndexExpr = s.valueMasked ? s.value : s.target;
      checkExpr(s.value);
      checkExpr(s.target);
      allowWarpgroupTile = saved;
      maskedIndexExpr = syntax::kNone;
      error(DiagId::MaskedAccessPlace, s.maskedSpan,
            "`" + e->name.name +
                "` is a warpgroup tile: masked loads and stores move per-warp register tiles "
                "in this version");
      return true;
    }
  }
  const Expr &v = m.expr(s.value);
  if (v.kind != ExprKind::Name || !isIndexTileName(v.name.name) || lookup(v.name.name))
    return false;
  Type dst = checkExpr(s.target);
  if (dst.isError())
    return true;
  const Expr &target = m.expr(s.target);
  if (s.targetMasked || target.kind != ExprKind::Name || !dst.isTensor() ||
      dst.tensor.space != Space::Register || dst.tensor.warpgroup || dst.tensor.shape.size() != 2) {
    error(DiagId::IndexTileUse, s.span,
          "`" + v.name.name + "` fills a whole 2-D per-warp register tile, not `" +
              syntax::printExpr(m, s.target) + "` (" + typeStr(dst) + ")");
    return true;
  }
  if (dst.tensor.dtype != DType::I32) {
    auto &d = error(DiagId::IndexTileDType, s.span,
                    "`" + v.name.name + "` produces I32 positions, but `" + target.name.name +
                        "` holds " + dtypeName(dst.tensor.dtype) + " elements");
    if (const Binding *b = lookup(target.name.name); b && b->symbol >= 0)
      d.label(program.symbolInfos[b->symbol].definition, "declared here");
    d.note("declare it `Tile[I32, ...]` and convert afterwards: `convert " +
           std::string(dtypeName(dst.tensor.dtype)) + " " + target.name.name + "`");
  }
  return true;
}

bool Checker::checkMaskedSides(const Stmt &s, const Type &dst, const Type &value) {
  // Only slices of global tensors are masked: tiles have constant extents.
  auto global = [&](ExprId side, const Type &t) {
    if (!t.isTensor() || t.tensor.space == Space::Global)
      return true;
    error(DiagId::MaskedNotGlobal, s.maskedSpan,
          "`masked` lets a slice of a cuda:global tensor reach past its extents; `" +
              syntax::printExpr(m, side) + "` is " + typeStr(t) +
              ", whose extents are constants: slice it exactly")
        .fix(Span{s.maskedSpan.begin, m.expr(side).span.begin}, "", "remove `masked`");
    return false;
  };
  if (s.valueMasked) {
    if (!global(s.value, value))
      return false;
    if (!dst.isTensor() || dst.tensor.space != Space::Register || dst.tensor.warpgroup ||
        m.expr(s.target).kind != ExprKind::Name) {
      error(DiagId::MaskedAccessPlace, s.maskedSpan,
            "a masked load reads into a whole per-warp register tile, not into `" +
                syntax::printExpr(m, s.target) + "` (" + typeStr(dst) + ")")
          .note("load into a `register` tile with `masked fill V`, then store that tile");
      return false;
    }
    if (s.fill == syntax::kNone) {
      bool fl = isFloat(dst.tensor.dtype);
      error(DiagId::MaskedFill, s.maskedSpan,
            "a masked load needs the value the elements outside `" + syntax::printExpr(m, s.value) +
                "` read as")
          .fix(Span{m.expr(s.value).span.end, m.expr(s.value).span.end},
               fl ? " fill 0.0" : " fill 0", "fill with zero")
          .note("zero suits sums and products of a GEMM; before a `row_max` use `fill "
                "(-3.0e38)`");
      return false;
    }
    Type f = checkExpr(s.fill);
    if (f.isError())
      return false;
    if (f.kind != Type::Scalar && f.kind != Type::Index) {
      error(DiagId::MaskedFill, m.expr(s.fill).span,
            "the fill value of a masked load is a scalar, found " + typeStr(f));
      return false;
    }
    return requireScalarOperand(s.fill, f, dst.tensor.dtype, "the masked load fills");
  }
  // A masked store.
  if (!global(s.target, dst))
    return false;
  if (value.isTensor() && value.tensor.warpgroup) {
    error(DiagId::MaskedAccessPlace, s.maskedSpan,
          "the value is a warpgroup tile expression: masked stores take per-warp register tiles "
          "in this version");
    return false;
  }
  if (s.fill != syntax::kNone) {
    error(DiagId::MaskedFill, m.expr(s.fill).span,
          "a masked store writes only the elements inside `" + syntax::printExpr(m, s.target) +
              "`: there is nothing to fill")
        .fix(Span{m.expr(s.target).span.end, m.expr(s.fill).span.end}, "", "remove the fill value");
    return false;
  }
  return true;
}

bool Checker::checkMaskedCpAsync(const Stmt &s, const Type &src) {
  if (src.isTensor() && src.tensor.space != Space::Global)
    return true; // checkCpAsync reports the placement
  if (s.fill != syntax::kNone) {
    error(DiagId::MaskedFill, m.expr(s.fill).span,
          "a masked `cp_async` writes zeros past the edges of `" + syntax::printExpr(m, s.value) +
              "` (cp.async's zero fill): it takes no fill value")
        .fix(Span{m.expr(s.value).span.end, m.expr(s.fill).span.end}, "", "remove the fill value")
        .note("for another fill value, load into a register tile with `masked ... fill V` and "
              "store that tile");
    return false;
  }
  return true;
}

Type Checker::checkSelect(ExprId, const Expr &e) {
  if (e.children.size() != 3) {
    error(DiagId::WrongArgumentCount, e.span,
          "`select` takes 3 arguments, (a OP b) x y; " + std::to_string(e.children.size()) +
              " given");
    for (ExprId a : e.children)
      checkExpr(a);
    return Type::error();
  }
  ExprId condId = e.children[0];
  while (m.expr(condId).kind == ExprKind::Paren)
    condId = m.expr(condId).children[0];
  const Expr &cond = m.expr(condId);
  if (cond.kind != ExprKind::Binary || cond.op < syntax::BinaryOp::Eq) {
    error(DiagId::SelectOperands, m.expr(e.children[0]).span,
          "the first operand of `select` is a comparison of tiles, `(a <= b)`, found `" +
              syntax::printExpr(m, e.children[0]) + "`");
    for (ExprId a : e.children)
      checkExpr(a);
    return Type::error();
  }
  ExprId ids[4] = {cond.children[0], cond.children[1], e.children[1], e.children[2]};
  Type ts[4];
  bool bad = false;
  for (int i = 0; i < 4; ++i) {
    ts[i] = checkExpr(ids[i]);
    bad |= ts[i].isError();
  }
  if (bad)
    return Type::error();
  for (int i = 0; i < 4; ++i) {
    const Type &t = ts[i];
    if (t.isTensor() && t.tensor.space != Space::Register) {
      error(DiagId::OperandPlacement, m.expr(ids[i]).span,
            "`select` computes on register tiles, found " + typeStr(t) +
                "; load it into a `register` tile first");
      return Type::error();
    }
    if (!t.isTensor() && t.kind != Type::Scalar && t.kind != Type::Index) {
      error(DiagId::SelectOperands, m.expr(ids[i]).span,
            "`select` takes register tiles and scalars, found " + typeStr(t));
      return Type::error();
    }
  }
  // One element type per pair: the comparison's, the values'.
  auto pairType = [&](int i, int j, DiagId mismatch, const char *what) -> std::optional<DType> {
    const Type &a = ts[i], &b = ts[j];
    if (!a.isTensor() && !b.isTensor()) {
      error(DiagId::SelectOperands, Span{m.expr(ids[i]).span.begin, m.expr(ids[j]).span.end},
            std::string("`select` needs a register tile among its ") + what + "; both are scalars")
          .note(i == 0 ? "comparisons of index values belong in `if`, not in `select`"
                       : "x or y gives the result its shape and element type");
      return std::nullopt;
    }
    if (a.isTensor() && b.isTensor()) {
      if (a.tensor.dtype == b.tensor.dtype)
        return a.tensor.dtype;
      // Convert the integer side to the float one (never truncate floats),
      // else the right side to the left's type.
      bool toLeft = isFloat(a.tensor.dtype) || !isFloat(b.tensor.dtype);
      int from = toLeft ? j : i;
      DType to = toLeft ? a.tensor.dtype : b.tensor.dtype;
      std::string text = syntax::printExpr(m, ids[from]);
      bool atomic =
          m.expr(ids[from]).kind == ExprKind::Name || m.expr(ids[from]).kind == ExprKind::Paren;
      std::string replacement =
          std::string("(convert ") + dtypeName(to) + " " + (atomic ? text : "(" + text + ")") + ")";
      error(mismatch, Span{m.expr(ids[i]).span.begin, m.expr(ids[j]).span.end},
            std::string("the ") + what + " of `select` have different element types: " +
                dtypeName(a.tensor.dtype) + " and " + dtypeName(b.tensor.dtype))
          .fix(m.expr(ids[from]).span, replacement, std::string("convert to ") + dtypeName(to));
      return std::nullopt;
    }
    int scalar = a.isTensor() ? j : i;
    DType dt = a.isTensor() ? a.tensor.dtype : b.tensor.dtype;
    if (!requireScalarOperand(ids[scalar], ts[scalar], dt,
                              std::string("`select` ") + (i == 0 ? "compares" : "yields")))
      return std::nullopt;
    return dt;
  };
  auto cmpType = pairType(0, 1, DiagId::CompareDTypeMismatch, "comparison operands");
  auto valueType = pairType(2, 3, DiagId::SelectDTypeMismatch, "values");
  if (!cmpType || !valueType)
    return Type::error();
  // The result's shape: the first tile that is not a column [R, 1] (x, y
  // first); every other tile has it or is the column of its rows.
  const TensorType *shapeOf = nullptr;
  for (int pass = 0; pass < 2 && !shapeOf; ++pass)
    for (int i : {2, 3, 0, 1}) {
      if (!ts[i].isTensor() || shapeOf)
        continue;
      const auto &sh = ts[i].tensor.shape;
      bool column =
          sh.size() == 2 && (sh[1] == DimExpr::constant(1) || sh[0] == DimExpr::constant(1));
      if (pass == 1 || !column)
        shapeOf = &ts[i].tensor;
    }
  std::vector<DimExpr> shape = shapeOf->shape;
  for (int i = 0; i < 4; ++i) {
    if (!ts[i].isTensor())
      continue;
    const auto &sh = ts[i].tensor.shape;
    bool column = isBroadcastOf(sh, shape); // an [R, 1] column or a [1, C] row
    if (sh != shape && !column) {
      error(
          DiagId::BroadcastMismatch, m.expr(ids[i]).span,
          "`select` operand `" + syntax::printExpr(m, ids[i]) + "` has shape " +
              printShape(sh, symbols) + ", the result " + printShape(shape, symbols) +
              "; operands have the result's shape, are [R, 1] columns or [1, C] rows, or scalars");
      return Type::error();
    }
  }
  TensorType r;
  r.dtype = *valueType;
  r.shape = std::move(shape);
  r.space = Space::Register;
  r.isTile = true;
  r.writable = true;
  Type t = Type::tensorOf(std::move(r));
  annotate(e.span, t, true);
  return t;
}

} // namespace kina::sema
