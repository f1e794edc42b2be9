//===- CheckHost.cpp - Host-level tensor algebra (issue 16) ---------------===//
//
// The operations of host functions beyond matmul and the copies: the
// activations (gelu, gelu_tanh, silu), the row-wise normalisations
// (softmax, layernorm, rmsnorm) and the elementwise binaries with a bias
// broadcast over the rows (`add y b` with b : [N] or [1, N]). Each is
// placement-polymorphic like matmul: its operands share one placement
// (K0405 otherwise) and the result stays there. compiler/algebraic builds
// the algebraic IR from what this accepts; pass A picks a kernel per op.
//
//===----------------------------------------------------------------------===//
#include "sema/Checker.h"

namespace kina::sema {

namespace {

bool isHostActivation(const std::string &f) {
  return f == "gelu" || f == "gelu_tanh" || f == "silu";
}

bool isHostOnlyOp(const std::string &f) {
  return f == "softmax" || f == "layernorm" || f == "rmsnorm";
}

bool isHostBinary(const std::string &f) {
  return f == "add" || f == "sub" || f == "mul" || f == "div" || f == "max" || f == "min";
}

/// What pass A does with a host-level operation (hover; the exact kernel
/// depends on the dims: `kina report --fn`).
std::string passANote(const std::string &f, const Type &r, const std::string &fn) {
  std::string report =
      "\n\n`kina report --fn " + fn + " --dims ...` shows the kernel chosen for your shapes.";
  if (r.tensor.space == Space::Host)
    return "On `host` tensors: computed on the CPU." + report;
  if (f == "softmax")
    return "Pass A: stdlib `softmax_f32` (F32; M mod 64, N mod 128), launched through the launch "
           "guard." +
           report;
  if (f == "layernorm" || f == "rmsnorm")
    return "Pass A: no stdlib kernel computes it on `cuda:global` in this version (K1281 at run "
           "time); "
           "call a kernel of your own, or compute it on the host." +
           report;
  std::string epi =
      f == "add" ? "the bias of the GEMM it follows (cuBLASLt BIAS)"
      : f == "relu"
          ? "the GEMM epilogue (cuBLASLt RELU_BIAS, stdlib `gemm_bf16_hopper_persistent_bias_relu`)"
      : f == "gelu_tanh"
          ? "the GEMM epilogue (cuBLASLt GELU_BIAS, stdlib `gemm_bf16_hopper_persistent_bias_gelu`)"
          : "";
  return "Pass A: " +
         (epi.empty() ? std::string()
                      : "fused into " + epi + " when it follows a `matmul`; otherwise ") +
         "one generated Kina kernel for the elementwise chain it belongs to" +
         (f == "gelu" ? " (cuBLASLt's GELU is the tanh form, so `gelu` never fuses there)" : "") +
         "." + report;
}

} // namespace

void Checker::annotateHostOp(const Expr &e, const Type &r) {
  if (r.isError() || !r.isTensor() || !options.ideTables)
    return;
  TypeAnnotation a;
  a.span = e.name.span;
  a.type = typeStr(r);
  a.shape = printShape(r.tensor.shape, symbols);
  a.markdown = "`" + e.name.name + "` : `" + a.type + "`\n\n" +
               passANote(e.name.name, r, current ? current->item->name.name : "NAME");
  program.annotations.push_back(std::move(a));
}

std::optional<Type> Checker::checkHostOp(ExprId id, const Expr &e) {
  (void)id;
  const std::string &f = e.name.name;
  bool inDevice = current && current->item->kind != syntax::ItemKind::HostFunction;
  if (inDevice) {
    if (!isHostOnlyOp(f))
      return std::nullopt;
    error(DiagId::InvalidStatementContext, e.span,
          "`" + f +
              "` is a host-level operation on whole tensors; inside kernels compute it on "
              "register tiles (stdlib/softmax.kina shows how)");
    for (ExprId a : e.children)
      checkExpr(a);
    return Type::error();
  }
  if (!isHostActivation(f) && !isHostOnlyOp(f) && !isHostBinary(f))
    return std::nullopt;
  Type r = meshRules(e, checkHostOpTyped(e));
  annotateHostOp(e, r);
  return r;
}

Type Checker::checkHostOpTyped(const Expr &e) {
  const std::string &f = e.name.name;
  size_t want = f == "layernorm" ? 3 : f == "rmsnorm" || isHostBinary(f) ? 2 : 1;
  if (e.children.size() != want) {
    error(DiagId::WrongArgumentCount, e.span,
          "`" + f + "` takes " + std::to_string(want) + " argument(s), " +
              std::to_string(e.children.size()) + " given");
    for (ExprId a : e.children)
      checkExpr(a);
    return Type::error();
  }
  std::vector<Type> args;
  for (ExprId a : e.children)
    args.push_back(checkExpr(a));
  for (const Type &t : args)
    if (t.isError())
      return Type::error();
  const Type &x = args[0];
  if (!x.isTensor()) {
    error(DiagId::ExpectedTile, m.expr(e.children[0]).span,
          "`" + f + "` takes a tensor, found " + typeStr(x));
    return Type::error();
  }
  Type r = x;
  r.tensor.writable = true;
  if (isHostBinary(f)) {
    const Type &y = args[1];
    if (y.kind == Type::Scalar || y.kind == Type::Index)
      return r; // a scalar operand, as before
    if (!y.isTensor()) {
      error(DiagId::ExpectedTile, m.expr(e.children[1]).span,
            "`" + f + "` takes a tensor or a scalar as second operand, found " + typeStr(y));
      return Type::error();
    }
    if (y.tensor.space != x.tensor.space) {
      error(DiagId::CrossPlacement, e.span,
            "`" + f + "` operands are on different placements: " + spaceName(x.tensor.space) +
                " and " + spaceName(y.tensor.space) +
                "; move one with `copy_to_device` or `copy_to_host`");
      return Type::error();
    }
    if (x.tensor.dtype != y.tensor.dtype) {
      error(DiagId::DTypeMismatch, e.span,
            "`" + f + "` operands have different element types: " + dtypeName(x.tensor.dtype) +
                " and " + dtypeName(y.tensor.dtype));
      return Type::error();
    }
    const auto &xs = x.tensor.shape, &ys = y.tensor.shape;
    bool same = xs == ys;
    bool column =
        ys.size() == 2 && xs.size() == 2 && ys[0] == xs[0] && ys[1] == DimExpr::constant(1);
    // A bias over the rows: [N] or [1, N] against [M, N].
    bool row =
        xs.size() == 2 && ((ys.size() == 1 && ys[0] == xs[1]) ||
                           (ys.size() == 2 && ys[0] == DimExpr::constant(1) && ys[1] == xs[1]));
    if (!same && !column && !row) {
      error(DiagId::BroadcastMismatch, e.span,
            "`" + f + "` operand shapes " + printShape(xs, symbols) + " and " +
                printShape(ys, symbols) +
                " cannot be broadcast (host functions broadcast [M, 1] columns and [N] or [1, N] "
                "rows over [M, N])");
      return Type::error();
    }
    return r;
  }
  if (!isFloat(x.tensor.dtype)) {
    error(DiagId::DTypeMismatch, m.expr(e.children[0]).span,
          "`" + f + "` takes floating-point elements, found " + dtypeName(x.tensor.dtype));
    return Type::error();
  }
  if (isHostActivation(f))
    return r;
  if (x.tensor.shape.size() != 2) {
    error(DiagId::ShapeMismatch, m.expr(e.children[0]).span,
          "`" + f + "` normalises the rows of a 2-D tensor, found " +
              printShape(x.tensor.shape, symbols));
    return Type::error();
  }
  // layernorm x gamma beta, rmsnorm x gamma: per-column weights [N].
  for (size_t i = 1; i < args.size(); ++i) {
    const Type &w = args[i];
    const Expr &we = m.expr(e.children[i]);
    if (!w.isTensor()) {
      error(DiagId::ExpectedTile, we.span,
            "`" + f + "` takes a weight tensor, found " + typeStr(w));
      return Type::error();
    }
    if (w.tensor.space != x.tensor.space) {
      error(DiagId::CrossPlacement, we.span,
            "`" + f + "` operands are on different placements: " + spaceName(x.tensor.space) +
                " and " + spaceName(w.tensor.space) +
                "; move one with `copy_to_device` or `copy_to_host`");
      return Type::error();
    }
    if (w.tensor.dtype != x.tensor.dtype) {
      error(DiagId::DTypeMismatch, we.span,
            "`" + f + "` weights have element type " + dtypeName(w.tensor.dtype) + ", the input " +
                dtypeName(x.tensor.dtype));
      return Type::error();
    }
    if (w.tensor.shape.size() != 1 || w.tensor.shape[0] != x.tensor.shape[1]) {
      error(DiagId::ShapeMismatch, we.span,
            "`" + f + "` weights must have shape [" + str(x.tensor.shape[1]) +
                "] (one per column of " + printShape(x.tensor.shape, symbols) + "), found " +
                printShape(w.tensor.shape, symbols));
      return Type::error();
    }
  }
  return r;
}

} // namespace kina::sema
