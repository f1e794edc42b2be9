//===- SmokeKernels.cpp - Hand-built Tile IR kernels of the writer --------===//
#include "tileir/SmokeKernels.h"

namespace kina::tileir {

namespace {
SmokeKernel done(BytecodeWriter &w, std::string name, std::array<unsigned, 3> grid) {
  SmokeKernel k;
  k.name = std::move(name);
  k.grid = grid;
  k.bytecode = w.finish();
  k.error = w.error();
  return k;
}
} // namespace

SmokeKernel elementwiseAddKernel(Version v, int n, int tile) {
  BytecodeWriter w(v);
  TypeId f32 = w.scalar(Scalar::F32);
  TypeId ptr = w.tile(w.pointer(f32), {});
  auto args = w.beginEntry("kina_add_f32", {ptr, ptr, ptr});
  TypeId tv = w.tensorView(f32, {n}, {1});
  TypeId pv = w.partitionView({tile}, tv, {0}, std::nullopt);
  TypeId t = w.tile(f32, {tile});
  auto bid = w.tileBlockId();
  ValueId views[3];
  for (int i = 0; i < 3; ++i)
    views[i] = w.makePartitionView(pv, w.makeTensorView(tv, args[i]));
  auto a = w.loadView(t, views[0], {bid[0]});
  auto b = w.loadView(t, views[1], {bid[0]});
  ValueId c = w.binaryF(BytecodeWriter::FBin::Add, t, a.first, b.first);
  w.storeView(c, views[2], {bid[0]});
  w.ret();
  w.endEntry();
  return done(w, "kina_add_f32", {static_cast<unsigned>(n / tile), 1, 1});
}

SmokeKernel elementwiseAddDynamicKernel(Version v, int tile, unsigned gridX) {
  BytecodeWriter w(v);
  TypeId f32 = w.scalar(Scalar::F32), i32 = w.scalar(Scalar::I32);
  TypeId ptr = w.tile(w.pointer(f32), {});
  TypeId n = w.tile(i32, {});
  auto args = w.beginEntry("kina_add_f32_dyn", {ptr, ptr, ptr, n});
  TypeId tv = w.tensorView(f32, {kDynamic}, {1});
  TypeId pv = w.partitionView({tile}, tv, {0}, std::nullopt);
  TypeId t = w.tile(f32, {tile});
  auto bid = w.tileBlockId();
  ValueId views[3];
  for (int i = 0; i < 3; ++i)
    views[i] = w.makePartitionView(pv, w.makeTensorView(tv, args[i], {args[3]}, {}));
  // The index arithmetic a Kina slice `bid * tile ..+ tile` lowers to: the
  // element offset, then the partition index offset / tile (exact).
  TypeId si = w.tile(i32, {});
  ValueId size = w.constantI32(tile);
  ValueId offset = w.binaryI(BytecodeWriter::IBin::Mul, si, bid[0], size);
  ValueId index = w.binaryI(BytecodeWriter::IBin::DivTrunc, si, offset, size);
  auto a = w.loadView(t, views[0], {index});
  auto b = w.loadView(t, views[1], {index});
  ValueId c = w.binaryF(BytecodeWriter::FBin::Add, t, a.first, b.first);
  w.storeView(c, views[2], {index});
  w.ret();
  w.endEntry();
  return done(w, "kina_add_f32_dyn", {gridX, 1, 1});
}

SmokeKernel gemmKernel(Version v, int m, int n, int k, int bm, int bn, int bk) {
  BytecodeWriter w(v);
  TypeId f16 = w.scalar(Scalar::F16), f32 = w.scalar(Scalar::F32), i32 = w.scalar(Scalar::I32);
  TypeId p16 = w.tile(w.pointer(f16), {}), p32 = w.tile(w.pointer(f32), {});
  auto args = w.beginEntry("kina_gemm_f16_f32", {p16, p16, p32});
  TypeId tvA = w.tensorView(f16, {m, k}, {k, 1}), tvB = w.tensorView(f16, {k, n}, {n, 1});
  TypeId tvC = w.tensorView(f32, {m, n}, {n, 1});
  TypeId pvA = w.partitionView({bm, bk}, tvA, {0, 1}, std::nullopt);
  TypeId pvB = w.partitionView({bk, bn}, tvB, {0, 1}, std::nullopt);
  TypeId pvC = w.partitionView({bm, bn}, tvC, {0, 1}, std::nullopt);
  TypeId tA = w.tile(f16, {bm, bk}), tB = w.tile(f16, {bk, bn}), tC = w.tile(f32, {bm, bn});
  TypeId si = w.tile(i32, {});
  auto bid = w.tileBlockId();
  ValueId a = w.makePartitionView(pvA, w.makeTensorView(tvA, args[0]));
  ValueId b = w.makePartitionView(pvB, w.makeTensorView(tvB, args[1]));
  ValueId c = w.makePartitionView(pvC, w.makeTensorView(tvC, args[2]));
  ValueId zero = w.constantSplat(tC, 0, 4);
  auto body =
      w.beginFor(w.constantI32(0), w.constantI32(k / bk), w.constantI32(1), {zero}, {tC}, si);
  auto ta = w.loadView(tA, a, {bid[0], body[0]});
  auto tb = w.loadView(tB, b, {body[0], bid[1]});
  ValueId acc = w.mmaF(tC, ta.first, tb.first, body[1]);
  auto res = w.endFor({acc});
  w.storeView(res[0], c, {bid[0], bid[1]});
  w.ret();
  w.endEntry();
  return done(w, "kina_gemm_f16_f32",
              {static_cast<unsigned>(m / bm), static_cast<unsigned>(n / bn), 1});
}

SmokeKernel softmaxKernel(Version v, int rows, int cols, int br) {
  BytecodeWriter w(v);
  TypeId f32 = w.scalar(Scalar::F32);
  TypeId p32 = w.tile(w.pointer(f32), {});
  auto args = w.beginEntry("kina_softmax_f32", {p32, p32});
  TypeId tv = w.tensorView(f32, {rows, cols}, {cols, 1});
  TypeId pv = w.partitionView({br, cols}, tv, {0, 1}, std::nullopt);
  TypeId t = w.tile(f32, {br, cols}), col = w.tile(f32, {br}), col2 = w.tile(f32, {br, 1});
  TypeId s = w.tile(f32, {});
  auto bid = w.tileBlockId();
  ValueId x = w.makePartitionView(pv, w.makeTensorView(tv, args[0]));
  ValueId y = w.makePartitionView(pv, w.makeTensorView(tv, args[1]));
  ValueId c0 = w.constantI32(0);
  auto in = w.loadView(t, x, {bid[0], c0});
  ValueId mx = w.reduce(col, in.first, 1, BytecodeWriter::Combine::MaxF, s, f32, 0xFF800000u);
  ValueId mb = w.broadcast(t, w.reshape(col2, mx));
  ValueId e = w.exp(t, w.binaryF(BytecodeWriter::FBin::Sub, t, in.first, mb));
  ValueId sum = w.reduce(col, e, 1, BytecodeWriter::Combine::AddF, s, f32, 0);
  ValueId sb = w.broadcast(t, w.reshape(col2, sum));
  w.storeView(w.binaryF(BytecodeWriter::FBin::Div, t, e, sb), y, {bid[0], c0});
  w.ret();
  w.endEntry();
  return done(w, "kina_softmax_f32", {static_cast<unsigned>(rows / br), 1, 1});
}

} // namespace kina::tileir
