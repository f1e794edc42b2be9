//===- WarpgroupSharedToMLIR.cpp - warpgroup tiles <-> swizzled shared ----===//
//
// `c_s[i] <- acc` / `c_s[i] <- convert BF16 acc`: the 128 threads of the
// warpgroup write their accumulator fragments into one whole stage [64, N]
// of a 16-bit swizzle_128b tile with stmatrix.sync.aligned.m8n8.x4.b16
// (PTX ISA "Warp-level matrix store instruction: stmatrix").
//
// Why the fragment maps onto stmatrix without shuffles: register i of the
// wgmma accumulator (PTX ISA "Register Fragments", wgmma .m64nNk16 D; see
// codegen/HopperLayout.h) of lane l in warp w is row 16w + l/4 + 8*((i/2)%2),
// column 8*(i/4) + 2*(l%4) + i%2. For the 8-column chunk c (registers
// 4c .. 4c+3) the pair (4c, 4c+1) is row l/4, columns 2*(l%4) and +1 of the
// warp's top 8x8 block and (4c+2, 4c+3) the same of its bottom block: the
// fragment of one 8x8 matrix of stmatrix (lane l holds row l/4, columns
// 2*(l%4) .. +1, as one 32-bit register, lower column in the low half).
// One x4 instruction stores the four 8x8 blocks of a 16x16 square: matrices
// 0..3 = (top, c = 2q), (bottom, 2q), (top, 2q+1), (bottom, 2q+1); lane l
// gives the address of row l%8 of matrix l/8. F32 pairs are converted to
// one packed register (cvt.rn.bf16x2.f32 / cvt.rn.f16x2.f32 from a
// vector<2xf32> fptrunc); 16-bit tiles already hold the pairs.
//
// Addresses follow the panel-major 128B swizzle (codegen/Layout.h): row r,
// column col of a stage is at panel(col) * rows * 128 + r * 128 +
// (((col % 64) / 8) ^ (r % 8)) * 16 for 16-bit types; a 16-column square
// never straddles a 64-column panel, so the panel is a compile-time
// constant per square and each row address is 16-byte aligned.
//
//===----------------------------------------------------------------------===//
#include "codegen/mlir/HopperEmit.h"

namespace kina::codegen::detail {

using namespace mlir;
namespace kir = kina::ir;

namespace {

/// Packs two f32 into one i32 of two `to` elements (lower column low).
Value packPair(HopperEmit &e, Value lo, Value hi, Type to) {
  auto v2f = VectorType::get({2}, e.f32());
  Value vec = LLVM::UndefOp::create(e.b, e.loc, v2f);
  vec = LLVM::InsertElementOp::create(e.b, e.loc, vec, lo, e.c32(0));
  vec = LLVM::InsertElementOp::create(e.b, e.loc, vec, hi, e.c32(1));
  Value narrow = arith::TruncFOp::create(e.b, e.loc, VectorType::get({2}, to), vec);
  return LLVM::BitcastOp::create(e.b, e.loc, e.i32(), narrow);
}

} // namespace

std::optional<StoreChunks> stmatrixStoreChunks(HopperEmit &e, const kir::StoreOp &o,
                                               std::string &error) {
  const kir::TileDecl &src = e.k.tiles[o.src];
  const kir::TileDecl &dst = e.k.tiles[o.dst.id];
  if (!e.wgTiles[o.src] || !e.cx.layout.shared[o.dst.id]) {
    error = "internal: stmatrix store of '" + src.name + "' has no registers or no shared tile";
    return std::nullopt;
  }
  const SharedTileLayout &sl = *e.cx.layout.shared[o.dst.id];
  Type to = e.elemType(dst.dtype);
  Value base = e.stageByteOffset(o.dst);
  Value thread = e.threadInWarpgroup();
  Value warp = e.divu(thread, 32), lane = e.remu(thread, 32);
  // Row of this lane's address: 16w + 8 * (matrix % 2) + l % 8, matrix = l / 8.
  Value rowInBlock = e.add(e.mul(e.remu(e.divu(lane, 8), 2), 8), e.remu(lane, 8));
  Value row = e.add(e.mul(warp, 16), rowInBlock);
  Value rowBase = e.add(base, e.mul(row, 128));
  Value key = e.remu(lane, 8);   // row % 8, since 16w + 8x is a multiple of 8
  Value half = e.divu(lane, 16); // matrices 2, 3 are the right 8 columns
  StoreChunks chunks;
  chunks.slotsPerChunk = 8; // one 16x16 square: F32 registers 8q .. 8q + 7
  chunks.count = src.shape[1] / 16;
  chunks.emit = [&e, o, to, rowBase, key, half, panelBytes = sl.panelBytes,
                 f32Source = src.dtype == kir::DType::F32](int64_t q) {
    auto pair = [&](int64_t i) -> Value { // registers i, i+1 as one packed i32
      if (f32Source)
        return packPair(e, e.loadFragment(o.src, i), e.loadFragment(o.src, i + 1), to);
      return e.loadFragment(o.src, i / 2);
    };
    int64_t c0 = 2 * q, c1 = 2 * q + 1; // 8-column chunks of this square
    SmallVector<Value> regs = {pair(4 * c0), pair(4 * c0 + 2), pair(4 * c1), pair(4 * c1 + 2)};
    int64_t panel = (16 * q) / 64, chunk0 = ((16 * q) % 64) / 8;
    Value chunk = arith::XOrIOp::create(e.b, e.loc, e.add(half, e.c32(chunk0)), key);
    Value off =
        e.add(e.add(rowBase, e.c32(panel * static_cast<int64_t>(panelBytes))), e.mul(chunk, 16));
    NVVM::StMatrixOp::create(e.b, e.loc, e.sharedAt(off), regs, NVVM::MMALayout::row,
                             NVVM::LdStMatrixShapeAttr::get(&e.cx.ctx, 8, 8),
                             NVVM::LdStMatrixEltType::B16);
  };
  return chunks;
}

LogicalResult lowerStmatrixStore(HopperEmit &e, const kir::StoreOp &o, std::string &error) {
  auto chunks = stmatrixStoreChunks(e, o, error);
  if (!chunks)
    return failure();
  for (int64_t q = 0; q < chunks->count; ++q)
    chunks->emit(q);
  return success();
}

} // namespace kina::codegen::detail
