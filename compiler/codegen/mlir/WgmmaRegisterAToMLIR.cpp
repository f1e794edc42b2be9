//===- WgmmaRegisterAToMLIR.cpp - wgmma with A from registers -------------===//
//
// A 16-bit warpgroup tile [64, K] is a register A operand of wgmma: thread t
// (lane l of warp w) holds K/4 32-bit registers, register p = elements
// 2p, 2p+1 of the accumulator numbering of codegen/HopperLayout.h (row
// 16w + l/4 + 8*((i/2)%2), column 8*(i/4) + 2*(l%4) + i%2), lower column
// in the low half. For each k16 step s, registers 4s .. 4s+3 are exactly the
// A fragment of wgmma .m64nNk16 (PTX ISA "Register Fragments", matrix A of
// .m64nNk16: a0,a1 row l/4, a2,a3 row l/4+8, a4..a7 the same 8 columns on),
// so the three ways to write such a tile need no shuffles:
//
//  * `a_r <- convert BF16 acc2` (F32 [64, K] warpgroup tile): each pair of
//    f32 registers becomes one packed register (cvt.rn.bf16x2.f32);
//  * `a_r <- a_s[s, r ..+ 64, c ..+ K]` (swizzle_128b stage slice, one
//    panel): per k16 step one ldmatrix.x4 per warp; matrix j of the step is
//    register 4s + j, lane l addresses row l%8 of matrix j = l/8 at row
//    r + 16w + 8*(j%2) + l%8, column c + 16s + 8*(j/2): the addresses of
//    stmatrixRowAddress (HopperLayout.h), the same 128B swizzle;
//  * and `acc <- wgmma acc a_r b_s[...]` issues K/16 instructions
//    `wgmma.mma_async.sync.aligned.m64nNk16.f32.T.T {d}, {a0..a3}, b-desc,
//    p, 1, 1, 0` (PTX ISA wgmma.mma_async, register A form: no trans-a) as
//    inline asm, the accumulators tied in and out like the shared-A form.
//
//===----------------------------------------------------------------------===//
#include "codegen/mlir/HopperEmit.h"

namespace kina::codegen::detail {

using namespace mlir;
namespace kir = kina::ir;

LogicalResult lowerWarpgroupConvert(HopperEmit &e, const kir::UnaryOp &o, std::string &error) {
  const kir::TileDecl &d = e.k.tiles[o.dst];
  if (o.kind != kir::UnaryKind::Convert || o.src.kind != kir::Operand::Kind::Tile ||
      e.k.tiles[o.src.tile].dtype != kir::DType::F32 ||
      (d.dtype != kir::DType::BF16 && d.dtype != kir::DType::F16) || !e.wgTiles[o.dst] ||
      !e.wgTiles[o.src.tile]) {
    error =
        "internal: warpgroup elementwise op on '" + d.name + "' is not the F32 -> 16-bit convert";
    return failure();
  }
  Type to = e.elemType(d.dtype);
  auto v2f = VectorType::get({2}, e.f32());
  for (int64_t p = 0; p < HopperEmit::fragmentRegisters(d); ++p) {
    Value vec = LLVM::UndefOp::create(e.b, e.loc, v2f);
    vec =
        LLVM::InsertElementOp::create(e.b, e.loc, vec, e.loadFragment(o.src.tile, 2 * p), e.c32(0));
    vec = LLVM::InsertElementOp::create(e.b, e.loc, vec, e.loadFragment(o.src.tile, 2 * p + 1),
                                        e.c32(1));
    Value narrow = arith::TruncFOp::create(e.b, e.loc, VectorType::get({2}, to), vec);
    e.storeFragment(o.dst, p, LLVM::BitcastOp::create(e.b, e.loc, e.i32(), narrow));
  }
  return success();
}

LogicalResult lowerLdmatrixLoad(HopperEmit &e, const kir::LoadOp &o, std::string &error) {
  const kir::TileDecl &d = e.k.tiles[o.dst];
  if (!e.wgTiles[o.dst] || o.src.kind != kir::Access::Kind::Tile || !e.cx.layout.shared[o.src.id]) {
    error = "internal: ldmatrix load into '" + d.name + "' has no registers or no shared tile";
    return failure();
  }
  int64_t kk = d.shape[1];
  // (stage, row0, col0) of the slice: col0 is a constant inside one panel.
  Value base = e.tileByteOffset(o.src);
  Value thread = e.threadInWarpgroup();
  Value warp = e.divu(thread, 32), lane = e.remu(thread, 32);
  Value rowInWarp = e.add(e.mul(e.remu(e.divu(lane, 8), 2), 8), e.remu(lane, 8));
  Value rowBase = e.add(base, e.mul(e.add(e.mul(warp, 16), rowInWarp), 128));
  Value key = e.remu(lane, 8);
  Value half = e.divu(lane, 16);
  // The chunk of col0 inside its 128-byte row is part of tileByteOffset's
  // in-row offset; remove it there and apply it inside the XOR below.
  int64_t col0 = 0;
  if (!o.src.slice.empty())
    col0 = o.src.slice.back().offset.asConstant().value_or(0) % 64;
  Value rowStart = e.add(rowBase, e.c32(-col0 * 2));
  auto i32x4 = LLVM::LLVMStructType::getLiteral(&e.cx.ctx, SmallVector<Type>(4, e.i32()));
  for (int64_t s = 0; s < kk / 16; ++s) {
    int64_t chunk0 = (col0 + 16 * s) / 8; // even: a k16 step is two 16-byte chunks
    Value chunk = arith::XOrIOp::create(e.b, e.loc, e.add(half, e.c32(chunk0)), key);
    Value addr = e.sharedAt(e.add(rowStart, e.mul(chunk, 16)));
    Value r = NVVM::LdMatrixOp::create(e.b, e.loc, i32x4, addr, 4u, NVVM::MMALayout::row,
                                       NVVM::LdStMatrixShapeAttr::get(&e.cx.ctx, 8, 8),
                                       NVVM::LdStMatrixEltType::B16);
    for (int64_t j = 0; j < 4; ++j)
      e.storeFragment(o.dst, 4 * s + j,
                      LLVM::ExtractValueOp::create(e.b, e.loc, r, ArrayRef<int64_t>{j}));
  }
  return success();
}

LogicalResult lowerRegisterAWgmma(HopperEmit &e, const kir::WgmmaOp &o, std::string &error,
                                  const std::function<Value(Value)> &descriptor) {
  const kir::TileDecl &acc = e.k.tiles[o.acc];
  const kir::TileDecl &a = e.k.tiles[o.a.id];
  if (!e.wgTiles[o.acc] || !e.wgTiles[o.a.id]) {
    error =
        "internal: register-A wgmma without registers for '" + acc.name + "' or '" + a.name + "'";
    return failure();
  }
  int64_t n = acc.shape[1], regs = n / 2, kSteps = a.shape[1] / 16;
  std::string ty = a.dtype == kir::DType::BF16 ? "bf16" : "f16";
  if (!e.groupOpen) {
    NVVM::WgmmaFenceAlignedOp::create(e.b, e.loc);
    e.groupOpen = true;
  }
  Value offB = e.tileByteOffset(o.b);
  SmallVector<Value> d;
  for (int64_t i = 0; i < regs; ++i)
    d.push_back(e.loadFragment(o.acc, i));
  auto zeroConst = o.zeroWhen.asConstant();
  Value scale0 =
      zeroConst
          ? e.c32(*zeroConst ? 0 : 1)
          : Value(arith::SelectOp::create(e.b, e.loc, e.cx.index(o.zeroWhen), e.c32(0), e.c32(1)));
  SmallVector<Type> fields(static_cast<size_t>(regs), e.f32());
  auto structTy = LLVM::LLVMStructType::getLiteral(&e.cx.ctx, fields);
  for (int64_t ks = 0; ks < kSteps; ++ks) {
    // Operands: $0..$regs-1 the accumulators (out), then a0..a3, b-desc,
    // scale-d, then the accumulators in, tied to the outputs.
    std::string text = "{\n.reg .pred p;\nsetp.ne.b32 p, $" + std::to_string(regs + 5) +
                       ", 0;\nwgmma.mma_async.sync.aligned.m64n" + std::to_string(n) + "k16.f32." +
                       ty + "." + ty + " {";
    std::string constraints;
    for (int64_t i = 0; i < regs; ++i) {
      text += (i ? ", $" : "$") + std::to_string(i);
      constraints += (i ? ",=f" : "=f");
    }
    text += "}, {$" + std::to_string(regs) + ", $" + std::to_string(regs + 1) + ", $" +
            std::to_string(regs + 2) + ", $" + std::to_string(regs + 3) + "}, $" +
            std::to_string(regs + 4) + ", p, 1, 1, 0;\n}";
    constraints += ",r,r,r,r,l,r";
    SmallVector<Value> operands;
    for (int64_t j = 0; j < 4; ++j)
      operands.push_back(e.loadFragment(o.a.id, 4 * ks + j));
    operands.push_back(descriptor(e.add(offB, e.c32(32 * ks))));
    operands.push_back(ks == 0 ? scale0 : e.c32(1));
    for (int64_t i = 0; i < regs; ++i) {
      constraints += "," + std::to_string(i);
      operands.push_back(d[i]);
    }
    auto asmOp = LLVM::InlineAsmOp::create(
        e.b, e.loc, structTy, operands, text, constraints, /*has_side_effects=*/true,
        /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
        LLVM::AsmDialectAttr::get(&e.cx.ctx, LLVM::AsmDialect::AD_ATT), ArrayAttr());
    for (int64_t i = 0; i < regs; ++i)
      d[i] = LLVM::ExtractValueOp::create(e.b, e.loc, asmOp.getResult(0), ArrayRef<int64_t>{i});
  }
  for (int64_t i = 0; i < regs; ++i)
    e.storeFragment(o.acc, i, d[i]);
  return success();
}

} // namespace kina::codegen::detail
