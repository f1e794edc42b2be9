//===- MmaOperands.h - mma.sync operands beyond shared A and B ---*- C++ -*-===//
//
// The MMA operands of issue 14 part 4 on the mma.sync m16n8k16 path, used by
// TileToMLIR.cpp's mma lowering (MmaOperandsToMLIR.cpp explains the
// fragment layouts):
//  * a register A operand: a 16-bit register tile [M, K] in the accumulator
//    layout (codegen/Layout.h) gives the A fragments without shared memory;
//  * a transposed B operand: a shared slice [N, K] read with ldmatrix
//    without .trans (TileToMLIR.cpp, Emitter::mma);
//  * F16 accumulators: slot pairs packed into f16x2 registers.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>

namespace kina::codegen::detail {

/// Packs two 16-bit element values into one mma operand register: an i32
/// for BF16 (the NVVM op takes bf16x2 as i32), a vector<2xf16> for F16.
mlir::Value packMmaPair(mlir::OpBuilder &b, mlir::Location loc, mlir::Value lo, mlir::Value hi,
                        bool bf16);

/// The 4 A registers of m16n8k16 for row block `tm` and k16 step `ks` of a
/// register tile with `fragsK` = K / 8 fragment columns; `slot(i)` loads
/// slot i of the tile (an element value).
llvm::SmallVector<mlir::Value> registerAFragment(mlir::OpBuilder &b, mlir::Location loc,
                                                 llvm::function_ref<mlir::Value(int64_t)> slot,
                                                 int64_t fragsK, int64_t tm, int64_t ks, bool bf16);

} // namespace kina::codegen::detail
