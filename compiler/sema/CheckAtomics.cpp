//===- CheckAtomics.cpp - Atomic stores into global tensors ---------------===//
//
// `out[...] <- atomic_add v` (atomic_max, atomic_min), optionally `masked`
// (docs/language.md "Atomics"). The value is a per-warp register tile of F32
// or I32 elements; the target a slice of a writable cuda:global tensor of the
// same element type and shape, in bounds (or masked). K0530 for any other
// place, K0750 for the element types. Coverage.cpp counts an atomic store
// like a store and exempts atomics from the duplicate-store check (several
// blocks combining into one element is the point); a result written by both
// is K0670 there.
//
//===----------------------------------------------------------------------===//
#include "sema/Checker.h"

namespace kina::sema {

bool isAtomicName(const std::string &name) {
  return name == "atomic_add" || name == "atomic_max" || name == "atomic_min";
}

bool Checker::checkAtomicAssign(const Stmt &s) {
  const Expr &v = m.expr(s.value);
  if (v.kind != ExprKind::Application || !isAtomicName(v.name.name) || lookup(v.name.name))
    return false;
  const std::string &f = v.name.name;
  if (v.children.size() != 1) {
    error(DiagId::AtomicPlace, v.span,
          "`" + f + "` takes one register tile, found " + std::to_string(v.children.size()) +
              " arguments");
    return true;
  }
  if (s.valueMasked || (s.targetMasked && s.fill != syntax::kNone)) {
    error(DiagId::AtomicPlace, s.maskedSpan,
          "`" + f +
              "` stores: `masked` goes on its target, without a fill value: `masked out[...] "
              "<- " +
              f + " v`");
    return true;
  }
  ExprId arg = v.children[0];
  Type value = checkExpr(arg);
  maskedIndexExpr = s.targetMasked ? s.target : syntax::kNone;
  Type dst = checkExpr(s.target);
  maskedIndexExpr = syntax::kNone;
  if (value.isError() || dst.isError())
    return true;
  record(s.value, value);
  const Expr &target = m.expr(s.target);
  ExprId baseId = s.target;
  while (m.expr(baseId).kind == ExprKind::Index || m.expr(baseId).kind == ExprKind::Paren)
    baseId = m.expr(baseId).children[0];
  const Expr &base = m.expr(baseId);
  const Binding *binding = base.kind == ExprKind::Name ? lookup(base.name.name) : nullptr;
  if (!binding || !dst.isTensor() || dst.tensor.space != Space::Global ||
      target.kind != ExprKind::Index) {
    error(DiagId::AtomicPlace, target.span,
          "`" + f + "` combines into a slice of a cuda:global tensor, not `" +
              syntax::printExpr(m, s.target) + "` (" + typeStr(dst) + ")")
        .note("for a register or shared tile, compute the value with `add`, `max` or `min`");
    return true;
  }
  if (!value.isTensor() || value.tensor.space != Space::Register || value.tensor.warpgroup) {
    error(DiagId::AtomicPlace, m.expr(arg).span,
          "`" + f + "` takes a per-warp cuda:register tile, found " + typeStr(value) +
              (value.isTensor() && value.tensor.warpgroup ? " (a warpgroup tile)" : ""));
    return true;
  }
  if (!dst.tensor.writable) {
    error(DiagId::StoreToReadOnly, s.span,
          "`" + f + "` into read-only input `" + base.name.name + "`: kernel inputs are read-only")
        .note("combine into the kernel's result, or declare the parameter writable: `(" +
              base.name.name + " : mut Tensor[...])`");
    return true;
  }
  DType dt = dst.tensor.dtype;
  if (dt != DType::F32 && dt != DType::I32) {
    error(DiagId::AtomicDType, s.span,
          "`" + f + "` on " + dtypeName(dt) + " elements of `" + base.name.name +
              "`: atomics combine F32 or I32 elements in this version")
        .note(dt == DType::F16 || dt == DType::BF16
                  ? "16-bit atomics come in pairs (f16x2, bf16x2), which this version does not "
                    "form: accumulate into an F32 tensor"
                  : "accumulate into an F32 or I32 tensor");
    return true;
  }
  if (value.tensor.dtype != dt) {
    error(DiagId::AtomicDType, m.expr(arg).span,
          "`" + f + "` of a " + dtypeName(value.tensor.dtype) + " tile into " + dtypeName(dt) +
              " `" + base.name.name + "`: the element types must match")
        .fix(m.expr(arg).span,
             std::string("(convert ") + dtypeName(dt) + " " + syntax::printExpr(m, arg) + ")",
             std::string("convert the tile to ") + dtypeName(dt));
    return true;
  }
  if (dst.tensor.shape != value.tensor.shape) {
    error(DiagId::ShapeMismatch, s.span,
          "cannot combine a tile of shape " + printShape(value.tensor.shape, symbols) + " into " +
              printShape(dst.tensor.shape, symbols))
        .label(target.span, "destination " + printShape(dst.tensor.shape, symbols))
        .label(m.expr(arg).span, "value " + printShape(value.tensor.shape, symbols));
    return true;
  }
  return true;
}

} // namespace kina::sema
