//===- CheckBroadcast.cpp - Broadcasts and reductions of per-warp tiles ---===//
//
// Typing of issue 14 part 3 on per-warp register tiles (docs/language.md
// "Broadcasting and reductions"):
//
//  * the second operand of an elementwise op may be an [R, 1] column or a
//    [1, C] row of the first one's shape (register tiles), or a slice of a
//    global tensor broadcast NumPy-style by trailing alignment: a row
//    `b[o ..+ C]` / `b[r, o ..+ C]` / `b[o ..+ 1, c ..+ C]`, a column
//    `b[o ..+ R, c ..+ 1]` or a whole `[R, C]` slice (a residual), read
//    straight into the lanes that need it and converted to the tile's
//    element type when both are floats;
//  * `col_sum x` / `col_max x`: [R, C] -> [1, C];
//  * `block_sum x` / `block_max x`: the elementwise sum (max) of x over all
//    warps of the block, through a shared scratch tile and two barriers the
//    compiler places. Every warp must evaluate it equally often, which
//    Divergence.cpp proves as for `block_sync` (K0660, K0661).
//
//===----------------------------------------------------------------------===//
#include "sema/Checker.h"

#include "target/Lowerable.h"

namespace kina::sema {

using syntax::ExprKind;

bool isBroadcastOf(const std::vector<DimExpr> &y, const std::vector<DimExpr> &x) {
  if (y.size() != 2 || x.size() != 2)
    return false;
  DimExpr one = DimExpr::constant(1);
  return (y[0] == x[0] && y[1] == one) || (y[0] == one && y[1] == x[1]);
}

bool isBlockReductionName(const std::string &f) { return f == "block_sum" || f == "block_max"; }

bool exprHasBlockReduction(const Module &m, ExprId id) {
  if (id == syntax::kNone)
    return false;
  const Expr &e = m.expr(id);
  if (e.kind == ExprKind::Application && isBlockReductionName(e.name.name))
    return true;
  for (ExprId c : e.children)
    if (exprHasBlockReduction(m, c))
      return true;
  return false;
}

bool stmtHasBlockReduction(const Module &m, const Stmt &s) {
  return exprHasBlockReduction(m, s.value) || exprHasBlockReduction(m, s.target);
}

Type Checker::checkBroadcastSlice(const Expr &e, const std::string &f, const Type &x,
                                  const Type &y) {
  const Expr &ye = m.expr(e.children[1]);
  const auto &shape = x.tensor.shape;
  const auto &ys = y.tensor.shape;
  DimExpr one = DimExpr::constant(1);
  bool row = shape.size() == 2 && ((ys.size() == 1 && ys[0] == shape[1]) ||
                                   (ys.size() == 2 && ys[0] == one && ys[1] == shape[1]));
  bool column = shape.size() == 2 && ys.size() == 2 && ys[0] == shape[0] && ys[1] == one;
  bool whole = ys == shape;
  if (!row && !column && !whole) {
    error(DiagId::BroadcastMismatch, e.span,
          "`" + f + "` operand shapes " + printShape(shape, symbols) + " and " +
              printShape(ys, symbols) +
              " cannot be broadcast: a tile [R, C] takes a slice of its shape, a row [C] or "
              "[1, C], or a column [R, 1]")
        .label(ye.span, printShape(ys, symbols));
    return Type::error();
  }
  if (y.tensor.dtype != x.tensor.dtype && !(isFloat(y.tensor.dtype) && isFloat(x.tensor.dtype))) {
    error(DiagId::BroadcastSliceDType, ye.span,
          std::string("the broadcast operand is ") + dtypeName(y.tensor.dtype) + ", the tile " +
              dtypeName(x.tensor.dtype) +
              "; a float slice is converted to a float tile's type as it is loaded, other "
              "element types must be equal")
        .note(std::string("load it into a register tile of its type (") +
              dtypeName(y.tensor.dtype) + ") first and `convert " + dtypeName(x.tensor.dtype) +
              "` that tile");
    return Type::error();
  }
  Type r = x;
  r.tensor.writable = true;
  return r;
}

Type Checker::checkColumnReduction(const Expr &e, const std::string &f, const Type &x) {
  if (x.tensor.shape.size() != 2) {
    error(DiagId::ShapeMismatch, m.expr(e.children[0]).span,
          "`" + f + "` takes a 2-D tile, found " + printShape(x.tensor.shape, symbols));
    return Type::error();
  }
  Type r = x;
  r.tensor.writable = true;
  r.tensor.shape[0] = DimExpr::constant(1);
  annotate(e.span, r, true);
  return r;
}

Type Checker::checkBlockReduction(ExprId, const Expr &e) {
  const std::string &f = e.name.name;
  if (e.children.size() != 1) {
    error(DiagId::WrongArgumentCount, e.span,
          "`" + f + "` takes 1 argument(s), " + std::to_string(e.children.size()) + " given");
    for (ExprId a : e.children)
      checkExpr(a);
    return Type::error();
  }
  Type x = checkExpr(e.children[0]);
  if (x.isError())
    return x;
  const char *why = nullptr;
  if (current && current->item && current->item->kind == syntax::ItemKind::TileFunction)
    why = "a tile function (its callers' warp grids differ); reduce in the kernel";
  else if (grid.inWarpgroupGrid)
    why = "a warpgroup grid (its roles run different code and talk through barriers)";
  else if (!grid.inWarpGrid)
    why = "code outside a `warp_grid`";
  if (why) {
    error(DiagId::BlockReductionPlace, e.span,
          "`" + f +
              "` combines the tiles of every warp of the block, so it stands directly in "
              "a kernel's `warp_grid`; here it is in " +
              why);
    return Type::error();
  }
  if (!x.isTensor() || x.tensor.space != Space::Register || x.tensor.warpgroup) {
    error(DiagId::OperandPlacement, m.expr(e.children[0]).span,
          "`" + f + "` takes a per-warp register tile, found " + typeStr(x) +
              "; load it into a `register` tile first");
    return Type::error();
  }
  if (x.tensor.shape.size() != 2) {
    error(DiagId::ShapeMismatch, m.expr(e.children[0]).span,
          "`" + f +
              "` takes a 2-D register tile (a column [R, 1], a row [1, C] or a tile [R, C]), "
              "found " +
              printShape(x.tensor.shape, symbols));
    return Type::error();
  }
  if (f == "block_sum" && x.tensor.dtype != DType::F32 && x.tensor.dtype != DType::F64 &&
      x.tensor.dtype != DType::I32 && x.tensor.dtype != DType::I64) {
    error(DiagId::BlockReductionDType, m.expr(e.children[0]).span,
          std::string("`block_sum` of ") + dtypeName(x.tensor.dtype) +
              " would round after every warp's partial sum; sum in F32")
        .fix(m.expr(e.children[0]).span,
             "(convert F32 " + syntax::printExpr(m, e.children[0]) + ")", "sum in F32");
    return Type::error();
  }
  // The scratch tile the lowering adds: one copy of the tile per warp.
  uint64_t warps = 1, elements = 1;
  for (int64_t w : grid.warpGrid)
    warps = saturatingMul(warps, static_cast<uint64_t>(w));
  for (const DimExpr &d : x.tensor.shape)
    elements = saturatingMul(elements, static_cast<uint64_t>(d.constantValue().value_or(1)));
  uint64_t bytes = saturatingMul(saturatingMul(warps, elements), dtypeBytes(x.tensor.dtype));
  if (current) {
    current->sharedBytes = saturatingAdd(current->sharedBytes, bytes);
    current->tileCosts.push_back({"(" + f + " scratch)", e.span,
                                  std::string(dtypeName(x.tensor.dtype)) + " [" +
                                      std::to_string(warps) + " x " + std::to_string(elements) +
                                      "]",
                                  bytes, true});
  }
  Type r = x;
  r.tensor.writable = true;
  annotate(e.span, r, true);
  return r;
}

} // namespace kina::sema
