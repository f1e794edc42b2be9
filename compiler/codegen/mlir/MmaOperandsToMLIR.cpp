//===- MmaOperandsToMLIR.cpp - register A and F16 accumulators -----------===//
//
// mma.sync m16n8k16 fragments (PTX ISA "Matrix Fragments for mma.m16n8k16
// with floating point type"), g = lane / 4, t = lane % 4:
//  * A (16x16): a0,a1 = row g, columns 2t, 2t+1; a2,a3 = row g+8, the same
//    columns; a4..a7 = the same rows, columns 2t+8, 2t+9;
//  * C/D (16x8): c0,c1 = row g, columns 2t, 2t+1; c2,c3 = row g+8.
// A register tile [M, K] is stored in the C layout (codegen/Layout.h: slot
// s of fragment (fm, fn) is row fm*16 + (s/2)*8 + g, column fn*8 + 2t +
// s%2), so the A fragment of row block tm and k16 step ks is fragments
// (tm, 2ks) and (tm, 2ks+1) pairwise: {s0,s1}, {s2,s3} of the first, then
// of the second. This is FlashAttention-2's "P stays in registers": the
// F32 scores converted to BF16 are the A operand of P x V with no shuffle.
//
// An F16 accumulator (mma .f16.f16.f16.f16) holds c0,c1 and c2,c3 as two
// f16x2 registers; the tile keeps four F16 slots, packed here per mma.
//
//===----------------------------------------------------------------------===//
#include "codegen/mlir/MmaOperands.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinTypes.h"

namespace kina::codegen::detail {

using namespace mlir;

Value packMmaPair(OpBuilder &b, Location loc, Value lo, Value hi, bool bf16) {
  auto vt = VectorType::get({2}, lo.getType());
  Value v = LLVM::UndefOp::create(b, loc, vt);
  auto idx = [&](int32_t i) {
    return LLVM::ConstantOp::create(b, loc, b.getI32Type(), b.getI32IntegerAttr(i));
  };
  v = LLVM::InsertElementOp::create(b, loc, v, lo, idx(0));
  v = LLVM::InsertElementOp::create(b, loc, v, hi, idx(1));
  if (!bf16)
    return v;
  return LLVM::BitcastOp::create(b, loc, b.getI32Type(), v);
}

SmallVector<Value> registerAFragment(OpBuilder &b, Location loc,
                                     llvm::function_ref<Value(int64_t)> slot, int64_t fragsK,
                                     int64_t tm, int64_t ks, bool bf16) {
  SmallVector<Value> regs;
  for (int64_t half = 0; half < 2; ++half) {
    int64_t frag = tm * fragsK + 2 * ks + half;
    for (int64_t pair = 0; pair < 2; ++pair)
      regs.push_back(
          packMmaPair(b, loc, slot(frag * 4 + 2 * pair), slot(frag * 4 + 2 * pair + 1), bf16));
  }
  return regs;
}

} // namespace kina::codegen::detail
