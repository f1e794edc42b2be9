//===- CheckMmaOperands.cpp - wmma_mma operands beyond shared A and B -----===//
//
// Issue 14 part 4 (docs/language.md "MMA operands"). On the mma.sync path
// `wmma_mma acc a b` takes
//  * as A, a shared slice [M, K] or any 16-bit register-tile expression
//    [M, K] of B's element type: its accumulator-layout registers are the A
//    fragments (codegen/mlir/MmaOperandsToMLIR.cpp), so attention's P =
//    convert BF16 (exp ...) never goes through shared memory; an F32 tile
//    is K0770 with the fix-it `(convert BF16 x)`;
//  * as B, a shared slice [K, N] or `transpose s` of a shared slice s
//    [N, K] (S = Q Kᵀ with K stored [keys, d]; ldmatrix without .trans);
//    `transpose` of anything else, or of the A operand, is K0153;
//  * as the accumulator, any register-tile expression (CheckExpr.cpp);
//    F16 accumulators with F16 A and B (target/Lowerable.def);
//  * int8 (I8 x I8 -> I32): mma.sync m16n8k32 s8.s8.s32 for `wmma_mma`,
//    dp4a.s32.s32 for `dp4a_mma`. Both read A and B K-major: A a shared
//    slice [M, K], B `transpose s` of a shared slice [N, K] (ldmatrix .trans
//    moves 16-bit elements, so it cannot transpose bytes); anything else is
//    K0154. An int8 `wmma_mma` steps k by 32 (K0104 otherwise).
//
//===----------------------------------------------------------------------===//
#include "sema/Checker.h"

namespace kina::sema {

using syntax::ExprKind;

namespace {

/// `transpose x` (through parentheses): x, else kNone.
ExprId transposedOperand(const syntax::Module &m, ExprId id) {
  while (m.expr(id).kind == ExprKind::Paren)
    id = m.expr(id).children[0];
  const Expr &e = m.expr(id);
  if (e.kind == ExprKind::Application && e.name.name == "transpose" && e.children.size() == 1)
    return e.children[0];
  return syntax::kNone;
}

} // namespace

Type Checker::checkMmaA(ExprId id) {
  ExprId inner = transposedOperand(m, id);
  if (inner == syntax::kNone)
    return checkExpr(id);
  Type x = checkExpr(inner);
  if (x.isError())
    return x;
  if (x.isTensor() && x.tensor.space != Space::Register) {
    error(DiagId::MmaOperandTranspose, m.expr(id).span,
          std::string("the A operand of `wmma_mma` cannot be a transposed ") +
              spaceName(x.tensor.space) + " tile: only B may be written `transpose s`")
        .note("store A in shared memory as [M, K], or load it into a register tile and "
              "transpose that");
    return Type::error();
  }
  // A transposed register tile is an ordinary register expression.
  return checkExpr(id);
}

Type Checker::checkMmaB(ExprId id, bool &transposed) {
  transposed = false;
  ExprId inner = transposedOperand(m, id);
  if (inner == syntax::kNone)
    return checkExpr(id);
  Type x = checkExpr(inner);
  if (x.isError())
    return x;
  if (!x.isTensor() || x.tensor.space != Space::Shared || x.tensor.shape.size() != 2) {
    error(DiagId::MmaOperandTranspose, m.expr(id).span,
          "the B operand `transpose s` of `wmma_mma` needs s to be a 2-D slice of a shared tile, "
          "found " +
              typeStr(x))
        .note(
            x.isTensor() && x.tensor.space == Space::Global
                ? "stage it with `cp_async` into a shared tile [N, K] first"
                : "B is read from shared memory with ldmatrix; a register tile is not a B operand");
    return Type::error();
  }
  transposed = true;
  Type t = x;
  std::swap(t.tensor.shape[0], t.tensor.shape[1]);
  // The transposed view's type, for hovers and the later passes.
  for (ExprId p = id;; p = m.expr(p).children[0]) {
    record(p, t);
    if (m.expr(p).kind != ExprKind::Paren)
      break;
  }
  return t;
}

bool Checker::checkMmaRegisterA(ExprId id, const Type &a, const Type &b) {
  auto sixteen = [](DType d) { return d == DType::F16 || d == DType::BF16; };
  // B of another type is the MMA element-type error (K0703).
  if (!sixteen(b.tensor.dtype) || a.tensor.dtype == b.tensor.dtype)
    return true;
  DType want = b.tensor.dtype == DType::F16 ? DType::F16 : DType::BF16;
  std::string text = syntax::printExpr(m, id);
  const Expr &e = m.expr(id);
  bool atomic = e.kind == ExprKind::Name || e.kind == ExprKind::Paren;
  error(DiagId::MmaRegisterADType, e.span,
        std::string("a register A operand of `wmma_mma` must be ") + dtypeName(want) +
            " (the B operand's element type), found " + dtypeName(a.tensor.dtype))
      .fix(e.span,
           std::string("(convert ") + dtypeName(want) + " " + (atomic ? text : "(" + text + ")") +
               ")",
           std::string("convert to ") + dtypeName(want))
      .note("the 16-bit register tile's fragments are the A fragments of mma.sync");
  return false;
}

bool Checker::checkMmaInt8Operands(const Expr &e, const Type &a, bool transposedB) {
  const std::string &f = e.name.name;
  const char *instruction = f == "dp4a_mma" ? "dp4a" : "mma.sync m16n8k32";
  if (a.tensor.space == Space::Register) {
    error(DiagId::MmaInt8Operand, m.expr(e.children[1]).span,
          "the I8 A operand of `" + f + "` must be a shared slice [M, K], found a register tile")
        .note(std::string(instruction) +
              " reads four consecutive k bytes per register; the register layout holds two "
              "columns per register: stage A in a shared tile");
    return false;
  }
  if (!transposedB) {
    error(DiagId::MmaInt8Operand, m.expr(e.children[2]).span,
          "the I8 B operand of `" + f +
              "` is read K-major: write `transpose s` of a shared slice s [N, K]")
        .note(f == "dp4a_mma"
                  ? "dp4a multiplies four consecutive k bytes of a B column, which a B stored "
                    "[K, N] keeps a row apart; store B as [N, K] (K contiguous, the int8 \"TN\" "
                    "layout)"
                  : "ldmatrix .trans moves 16-bit elements, not bytes, so a B stored [K, N] has "
                    "no mma.sync m16n8k32 fragment load; store B as [N, K] (K contiguous, the "
                    "int8 \"TN\" layout)");
    return false;
  }
  return true;
}

bool Checker::checkMmaInt8K(const Expr &e, const DimExpr &k) {
  constexpr int64_t step = 32;
  if (auto v = k.constantValue()) {
    if (*v % step == 0)
      return true;
    error(DiagId::MmaShape, e.span,
          "an I8 `wmma_mma` is mma.sync m16n8k32: k = " + std::to_string(*v) +
              " must be a multiple of 32")
        .note("`dp4a_mma` takes k a multiple of 16");
    return false;
  }
  if (prover.proveDivisible(k, step).proved())
    return true;
  std::string fact = str(k) + " mod 32 = 0";
  if (current && current->item->kind == syntax::ItemKind::TileFunction && symbols.onlyDims(k)) {
    impliedRequirements[current->itemIndex].push_back(
        {k, step, "its I8 `wmma_mma` (k = `" + str(k) + "` must be a multiple of 32)", e.span});
    return true;
  }
  auto &diag = error(DiagId::MmaShape, e.span,
                     "an I8 `wmma_mma` is mma.sync m16n8k32: k = `" + str(k) +
                         "` must be a multiple of 32: cannot prove " + fact);
  if (symbols.onlyDims(k))
    addRequiresFix(diag, fact);
  return false;
}

} // namespace kina::sema
