//===- HopperEmit.h - Shared helpers of the sm_90a emitters -----*- C++ -*-===//
//
// The Hopper op family lowers in one file per op family (HopperToMLIR.cpp:
// roles, barriers, tma_load, wgmma; TmaStoreToMLIR.cpp: tma_store and its
// bulk groups; WarpgroupSharedToMLIR.cpp: stmatrix stores and ldmatrix
// loads of warpgroup tiles; ClusterToMLIR.cpp: multicast and cluster
// arrivals). They share this emitter state: the tile
// emitter's context, the warpgroup tiles' register arrays, and the small
// builders (constants, elected threads, shared addresses of swizzled tiles).
//
// Only compiler/codegen/mlir includes this header.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "codegen/mlir/HopperLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace kina::codegen::detail {

struct HopperEmit {
  explicit HopperEmit(EmitContext &c) : cx(c), b(c.b), loc(c.loc), k(c.kernel) {}

  EmitContext &cx;
  mlir::OpBuilder &b;
  mlir::Location loc;
  const ir::Kernel &k;
  /// By TileId: the alloca of a warpgroup tile's per-thread registers (F32
  /// tiles: N/2 f32; 16-bit tiles: K/4 i32 holding element pairs).
  std::vector<mlir::Value> wgTiles;
  bool groupOpen = false;

  // ---- values ----
  mlir::Type i32() { return b.getI32Type(); }
  mlir::Type i64() { return b.getI64Type(); }
  mlir::Type f32() { return b.getF32Type(); }
  mlir::LLVM::LLVMPointerType ptr(unsigned space) {
    return mlir::LLVM::LLVMPointerType::get(&cx.ctx, space);
  }
  mlir::Value c32(int64_t v) {
    return mlir::arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(static_cast<int32_t>(v)));
  }
  mlir::Value c64(uint64_t v) {
    return mlir::arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(static_cast<int64_t>(v)));
  }
  std::optional<int64_t> constOf(mlir::Value v) {
    if (auto c = v.getDefiningOp<mlir::arith::ConstantOp>())
      if (auto a = mlir::dyn_cast<mlir::IntegerAttr>(c.getValue()))
        return a.getInt();
    return std::nullopt;
  }
  mlir::Value add(mlir::Value a, mlir::Value c) {
    auto ca = constOf(a), cc = constOf(c);
    if (ca && cc)
      return c32(*ca + *cc);
    if (cc == 0)
      return a;
    if (ca == 0)
      return c;
    return mlir::arith::AddIOp::create(b, loc, a, c);
  }
  mlir::Value mul(mlir::Value a, int64_t c) {
    if (c == 1)
      return a;
    if (auto ca = constOf(a))
      return c32(*ca * c);
    return mlir::arith::MulIOp::create(b, loc, a, c32(c));
  }
  mlir::Value divu(mlir::Value a, int64_t c) {
    return mlir::arith::DivUIOp::create(b, loc, a, c32(c));
  }
  mlir::Value remu(mlir::Value a, int64_t c) {
    return mlir::arith::RemUIOp::create(b, loc, a, c32(c));
  }
  mlir::Value cmp(mlir::arith::CmpIPredicate p, mlir::Value l, mlir::Value r) {
    return mlir::arith::CmpIOp::create(b, loc, p, l, r);
  }
  mlir::Value warpgroup() { return divu(cx.tid, 128); }
  mlir::Value threadInWarpgroup() { return remu(cx.tid, 128); }
  mlir::Type elemType(ir::DType t) {
    switch (t) {
    case ir::DType::F16:
      return b.getF16Type();
    case ir::DType::BF16:
      return b.getBF16Type();
    default:
      return f32();
    }
  }

  /// Runs `body` inside `if (cond)`.
  template <typename F> void emitIf(mlir::Value cond, F body) {
    auto ifOp = mlir::scf::IfOp::create(b, loc, cond, /*withElseRegion=*/false);
    mlir::OpBuilder::InsertionGuard g(b);
    b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    body();
  }
  /// Runs `body` on thread 0 of the warpgroup only.
  template <typename F> void elected(F body) {
    emitIf(cmp(mlir::arith::CmpIPredicate::eq, threadInWarpgroup(), c32(0)), body);
  }
  /// `bar.sync 1+wg, 128`: the warpgroup's named barrier (id 0 is the block's).
  void warpgroupBarrier() {
    mlir::NVVM::BarrierOp::create(b, loc, mlir::Type(), add(warpgroup(), c32(1)), c32(128),
                                  mlir::NVVM::BarrierReductionAttr(), mlir::Value());
  }

  // ---- shared memory ----
  mlir::Value sharedAt(mlir::Value byteOffset) {
    return mlir::LLVM::GEPOp::create(b, loc, ptr(3), b.getI8Type(), cx.smem,
                                     llvm::ArrayRef<mlir::LLVM::GEPArg>{byteOffset});
  }
  mlir::Value barrierPtr(ir::BarrierId id, mlir::Value stage) {
    return sharedAt(add(c32(static_cast<int64_t>(cx.layout.barrierOffsets[id])), mul(stage, 8)));
  }
  /// Arena byte offset of the stage of a swizzle_128b tile access.
  mlir::Value stageByteOffset(const ir::Access &a) {
    const ir::TileDecl &t = k.tiles[a.id];
    const SharedTileLayout &sl = *cx.layout.shared[a.id];
    size_t rank = t.shape.size();
    mlir::Value off = c32(static_cast<int64_t>(sl.offsetBytes));
    if (a.slice.empty())
      return off;
    mlir::Value stage = c32(0);
    int64_t stride = 1;
    for (size_t i = rank - 2; i-- > 0;) {
      stage = add(stage, mul(cx.index(a.slice[i].offset), stride));
      stride *= t.shape[i];
    }
    return add(off, mul(stage, static_cast<int64_t>(sl.stageBytes)));
  }
  /// Byte offset in the arena of (stage, row0, col0) of a swizzle_128b tile
  /// access: the verifier guarantees point stages, row0 % 8 == 0 and, for
  /// panelled tiles, a column range inside one 128-byte panel (col0 is then
  /// the panel's base plus an in-row offset that keeps the swizzle phase).
  mlir::Value tileByteOffset(const ir::Access &a) {
    const ir::TileDecl &t = k.tiles[a.id];
    const SharedTileLayout &sl = *cx.layout.shared[a.id];
    size_t rank = t.shape.size();
    mlir::Value off = stageByteOffset(a);
    if (a.slice.empty())
      return off;
    int64_t rowBytes = sl.panelled ? 128 : sl.cols * sl.elemBytes;
    off = add(off, mul(cx.index(a.slice[rank - 2].offset), rowBytes));
    mlir::Value col = cx.index(a.slice[rank - 1].offset);
    if (!sl.panelled)
      return add(off, mul(col, sl.elemBytes));
    int64_t perPanel = 128 / sl.elemBytes;
    mlir::Value panel = divu(col, perPanel), inPanel = remu(col, perPanel);
    return add(off,
               add(mul(panel, static_cast<int64_t>(sl.panelBytes)), mul(inPanel, sl.elemBytes)));
  }

  // ---- warpgroup tile registers ----
  /// Register i of warpgroup tile t (f32 for F32 tiles, i32 pairs otherwise).
  mlir::Value fragmentPtr(ir::TileId t, int64_t i);
  mlir::Value loadFragment(ir::TileId t, int64_t i);
  void storeFragment(ir::TileId t, int64_t i, mlir::Value v);
  /// Registers per thread of warpgroup tile t.
  static int64_t fragmentRegisters(const ir::TileDecl &t) {
    return t.dtype == ir::DType::F32 ? t.shape[1] / 2 : t.shape[1] / 4;
  }
};

// ---- op families in files of their own ----
/// TmaStoreToMLIR.cpp: tma_store (one box per 128-byte panel, issued by
/// thread 0 of the warpgroup after the warpgroup barrier), commit, wait.
mlir::LogicalResult lowerTmaStore(HopperEmit &e, const ir::TmaStoreOp &o, std::string &error);
void lowerTmaStoreCommit(HopperEmit &e);
void lowerTmaStoreWait(HopperEmit &e, const ir::TmaStoreWaitOp &o);
/// At the end of a role that issues tma_stores: wait_group 0 (writes done).
void lowerTmaStoreRoleEnd(HopperEmit &e);
/// True when the block (or a nested one) holds a tma_store.
bool hasTmaStore(const ir::Block &b);
/// WarpgroupSharedToMLIR.cpp: a warpgroup tile into a whole stage of a
/// 16-bit swizzle_128b tile with stmatrix (converted from F32 when asked).
mlir::LogicalResult lowerStmatrixStore(HopperEmit &e, const ir::StoreOp &o, std::string &error);
/// The same store in chunks: chunk q reads only registers
/// [q * slotsPerChunk, (q + 1) * slotsPerChunk) of the source, so an
/// epilogue computed element by element can store each chunk once its
/// registers are final (TileToMLIR.cpp's slot-by-slot runs).
std::optional<StoreChunks> stmatrixStoreChunks(HopperEmit &e, const ir::StoreOp &o,
                                               std::string &error);
/// WgmmaRegisterAToMLIR.cpp: 16-bit warpgroup tiles as register A operands:
/// the F32 -> 16-bit convert, the ldmatrix load from a swizzled stage, and
/// wgmma with A from registers (`descriptor` builds B's descriptor).
mlir::LogicalResult lowerWarpgroupConvert(HopperEmit &e, const ir::UnaryOp &o, std::string &error);
mlir::LogicalResult lowerLdmatrixLoad(HopperEmit &e, const ir::LoadOp &o, std::string &error);
mlir::LogicalResult lowerRegisterAWgmma(HopperEmit &e, const ir::WgmmaOp &o, std::string &error,
                                        const std::function<mlir::Value(mlir::Value)> &descriptor);

/// ClusterToMLIR.cpp: TMA multicast and cluster arrivals (s3.md "Cluster
/// multicast"). True when a cluster launch multicasts or arrives remotely.
bool usesClusterSharing(const ir::Kernel &k);
/// True when a generic-proxy access touches a multicast destination tile:
/// cluster arrivals then release, and their waits acquire, at cluster scope.
bool clusterGenericAccess(const ir::Kernel &k);
/// By BarrierId: true when the barrier's waits must acquire at cluster
/// scope (it receives `arrive ... cluster` and clusterGenericAccess holds).
std::vector<bool> clusterArrivedBarriers(const ir::Kernel &k);
/// The i16 ctaMask naming every CTA of the cluster.
mlir::Value clusterMulticastMask(HopperEmit &e);
/// `arrive B[s] cluster`: warpgroup barrier, then thread 0 arrives on stage
/// s in every CTA of the cluster (mapa + mbarrier.arrive.shared::cluster).
void lowerClusterArrive(HopperEmit &e, const ir::BarrierArriveOp &o);
/// The parity wait with a cluster-scope acquire (barriers with remote arrivals).
void lowerClusterWait(HopperEmit &e, mlir::Value bar, mlir::Value parity);
/// barrier.cluster.arrive.release + wait.acquire by every thread.
void lowerClusterSync(HopperEmit &e);

} // namespace kina::codegen::detail
