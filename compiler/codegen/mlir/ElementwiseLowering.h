//===- ElementwiseLowering.h - One element of the tile IR's elementwise ops -*- C++ -*-===//
//
// The meaning of one element of a UnaryOp or BinaryOp (conversions, the
// arithmetic, relu/exp and the math builtins of docs/math.md) as MLIR
// arith/llvm ops on scalars. The register-layout loops that apply it to
// every slot of a tile live with their scope: warp tiles in TileToMLIR.cpp,
// warpgroup tiles in HopperToMLIR.cpp; both call this, so a function has one
// lowering whatever tile holds it. Implemented in ElementwiseToMLIR.cpp.
//
// Only compiler/codegen/mlir includes this header.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "ir/TileIR.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"

namespace kina::codegen::detail {

class ElementMath {
public:
  ElementMath(mlir::OpBuilder &b, mlir::Location loc) : b_(b), loc_(loc) {}

  mlir::Type elemType(ir::DType t);
  mlir::Value constant(mlir::Type t, double v);
  /// Element conversion; integers are signed unless the flag says unsigned
  /// (U8). Float to integer truncates toward zero.
  mlir::Value convert(mlir::Value v, mlir::Type to, bool fromUnsigned = false,
                      bool toUnsigned = false);
  /// `convert`: to an integer type it saturates (from floats after
  /// truncating toward zero, NaN to 0; from integers of another width or
  /// signedness), as the interpreter's convertTo does.
  mlir::Value convert(mlir::Value v, ir::DType from, ir::DType to);
  /// Integer division with Kina's meaning: x / 0 = 0 (the reference
  /// interpreter's), never LLVM's undefined behaviour.
  mlir::Value intDiv(mlir::Value l, mlir::Value r, bool isUnsigned);

  /// `kind` of x, an element of type `src`; the result is of type `dst`
  /// (they differ only for Convert).
  mlir::Value unary(ir::UnaryKind kind, mlir::Value x, ir::DType src, ir::DType dst);
  /// `kind` of two elements of type `dt`.
  mlir::Value binary(ir::BinaryKind kind, mlir::Value l, mlir::Value r, ir::DType dt);

private:
  /// exp of an f64 to about one ulp (ex2.approx is f32 only; no libdevice).
  mlir::Value expF64(mlir::Value x);
  /// An accurate math kind (MathAlgorithms.h) of a float element: widened
  /// to f64, computed, rounded back (F64 elements stay f64).
  mlir::Value accurate(ir::UnaryKind kind, mlir::Value x, ir::DType dt);
  mlir::Value intrinsic(const char *name, mlir::Type result, mlir::ValueRange args);
  mlir::Value absBits(mlir::Value x);

  mlir::OpBuilder &b_;
  mlir::Location loc_;
};

} // namespace kina::codegen::detail
