//===- TileToMLIR.cpp - Tile IR to gpu/nvvm/scf/arith/llvm MLIR -----------===//
//
// Emits one gpu.func per tile IR kernel. Index expressions become i32 arith;
// `for`/`if` become scf.for/scf.if; global tensors are !llvm.ptr<1> kernel
// arguments; shared tiles live in one llvm.mlir.global arena in address
// space 3 (XOR-swizzled, see codegen/Layout.h); register tiles are per-lane
// allocas of their slots, indexed only by constants so that LLVM's SROA turns
// them into registers. Warp-level ops expand here:
//
//  * cp_async: the block's threads split the region into 16-byte
//    nvvm.cp.async.shared.global chunks (cache = cg).
//  * mma: per k16 step, ldmatrix.x4 for A (16x16 per fetch) and
//    ldmatrix.x4.trans for B (16x16 per fetch), then one m16n8k16 mma.sync
//    per 16x8 accumulator fragment; the fetches of step k+1 are issued
//    before the mma.sync ops of step k (register double buffering).
//  * loads/stores/elementwise ops follow the accumulator layout (the value
//    of each element comes from ElementwiseToMLIR.cpp); row
//    reductions combine in-lane values and then shuffle (xor 1, 2);
//    transpose exchanges values with shfl.sync.idx.
//
//===----------------------------------------------------------------------===//
#include "codegen/mlir/Lowering.h"

#include "codegen/mlir/ElementwiseLowering.h"
#include "codegen/mlir/HopperLowering.h"
#include "codegen/mlir/MmaOperands.h"
#include "codegen/mlir/SpanLocations.h"

#include "ir/DeadOnEntry.h"
#include "ir/Printer.h"
#include "ir/Verifier.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

#include <map>

namespace kina::codegen::detail {

using namespace mlir;
using ir::IndexExpr;
namespace kir = kina::ir;

namespace {

/// Where a 2-D view of a tensor or shared tile starts, and how to step.
struct View {
  bool global = false;
  int64_t rows = 0, cols = 0;
  Type elem;
  kir::DType dtype = kir::DType::F32;
  bool pairAligned = false; ///< (r, 2c) .. (r, 2c+1) may be accessed as one vector
  // global
  Value ptr;  ///< !llvm.ptr<1>
  Value base; ///< i32 element offset of (0, 0)
  Value rowStride, colStride;
  // shared
  const SharedTileLayout *sl = nullptr;
  Value stageByteOffset; ///< i32 byte offset of the stage in the arena
  Value row0, col0;
  bool alongRow = false; ///< shared [N] view of one row: (r, 0) is column r
  /// A global [N] view (one sliced dimension, read as the column [N, 1])
  /// whose elements are contiguous from an even offset: as a row [1, N]
  /// (asRow) its pairs may be accessed as one vector.
  bool vector = false, rowPairAligned = false;
  /// Global, unit column stride: pairs are vectors where the element offsets
  /// are even (pairAligned when known statically, else checked at run time).
  bool unitCols = false;
  /// Global, unit column stride, element offsets of the base and the row
  /// stride multiples of 4: 16-bit tiles may go 8 bytes per lane (wideAccess).
  bool quadAligned = false;
};

/// A 1-D global view [N] as the row [1, N] of a per-warp or warpgroup row
/// tile (a broadcast operand): element (0, c) is the view's element c.
inline void asRow(View &v) {
  if (!v.global || !v.vector || v.rows == 1)
    return;
  v.cols = v.rows;
  v.rows = 1;
  v.colStride = v.rowStride;
  v.pairAligned = v.rowPairAligned;
}

class Emitter {
public:
  Emitter(MLIRContext &ctx, const kir::Kernel &k, const KernelLayout &layout,
          const SourceFile *source)
      : ctx_(ctx), b_(&ctx), k_(k), layout_(layout), loc_(UnknownLoc::get(&ctx)),
        spans_(ctx, source) {}

  OwningOpRef<ModuleOp> run(bool dynamicShared, std::string &error);

private:
  // ---- types and constants ----
  Type i32() { return b_.getI32Type(); }
  Type i64() { return b_.getI64Type(); }
  Type f32() { return b_.getF32Type(); }
  LLVM::LLVMPointerType ptr(unsigned space) { return LLVM::LLVMPointerType::get(&ctx_, space); }
  Type elemType(kir::DType t) { return em_.elemType(t); }
  Value c32(int64_t v) {
    return arith::ConstantOp::create(b_, loc_, b_.getI32IntegerAttr(static_cast<int32_t>(v)));
  }
  Value scalarConst(Type t, double v) {
    if (isa<FloatType>(t))
      return arith::ConstantOp::create(b_, loc_, FloatAttr::get(t, v));
    return arith::ConstantOp::create(b_, loc_, IntegerAttr::get(t, static_cast<int64_t>(v)));
  }
  std::optional<int64_t> constOf(Value v) {
    if (auto c = v.getDefiningOp<arith::ConstantOp>())
      if (auto a = dyn_cast<IntegerAttr>(c.getValue()))
        return a.getInt();
    return std::nullopt;
  }
  Value add(Value a, Value b) {
    auto ca = constOf(a), cb = constOf(b);
    if (ca && cb)
      return c32(*ca + *cb);
    if (ca == 0)
      return b;
    if (cb == 0)
      return a;
    return arith::AddIOp::create(b_, loc_, a, b);
  }
  Value add(Value a, int64_t c) { return c == 0 ? a : add(a, c32(c)); }
  Value mul(Value a, Value b) {
    auto ca = constOf(a), cb = constOf(b);
    if (ca && cb)
      return c32(*ca * *cb);
    if (ca == 1)
      return b;
    if (cb == 1)
      return a;
    if (ca == 0 || cb == 0)
      return c32(0);
    return arith::MulIOp::create(b_, loc_, a, b);
  }
  Value mul(Value a, int64_t c) { return mul(a, c32(c)); }
  Value divu(Value a, int64_t c) {
    if (c == 1)
      return a;
    if (auto ca = constOf(a))
      return c32(*ca / c);
    return arith::DivUIOp::create(b_, loc_, a, c32(c));
  }
  Value remu(Value a, int64_t c) {
    if (auto ca = constOf(a))
      return c32(*ca % c);
    return arith::RemUIOp::create(b_, loc_, a, c32(c));
  }
  Value xorv(Value a, Value b) {
    auto ca = constOf(a), cb = constOf(b);
    if (ca && cb)
      return c32(*ca ^ *cb);
    if (cb == 0)
      return a;
    return arith::XOrIOp::create(b_, loc_, a, b);
  }

  // ---- index expressions ----
  Value index(const IndexExpr &e);
  /// Signed floor division by a positive constant.
  Value floorDivS(Value a, int64_t c);
  /// Integer division with Kina's meaning: x / 0 = 0 (the reference
  /// interpreter's), never LLVM's undefined behaviour: the divisor is made
  /// nonzero before the division and the quotient selected after it.
  Value intDiv(Value l, Value r, bool isUnsigned) { return em_.intDiv(l, r, isUnsigned); }

  // ---- scalars ----
  /// A scalar operand as a value of element type `dtype` (materialized once
  /// per op; `memo` shares the nodes of a DAG).
  Value scalar(const kir::ScalarExpr &e, kir::DType dtype, std::map<const void *, Value> &memo);
  Value scalarNatural(const kir::ScalarExpr &e, std::map<const void *, Value> &memo);

  // ---- memory ----
  Value regSlotPtr(kir::TileId t, int64_t slot) {
    Type arr = LLVM::LLVMArrayType::get(elemType(k_.tiles[t].dtype),
                                        static_cast<unsigned>(tileSlots(k_.tiles[t])));
    return LLVM::GEPOp::create(b_, loc_, ptr(0), arr, regTiles_[t],
                               ArrayRef<LLVM::GEPArg>{0, static_cast<int32_t>(slot)},
                               LLVM::GEPNoWrapFlags::inbounds);
  }
  Value regLoad(kir::TileId t, int64_t slot) {
    Type et = elemType(k_.tiles[t].dtype);
    return LLVM::LoadOp::create(b_, loc_, et, regSlotPtr(t, slot));
  }
  void regStore(kir::TileId t, int64_t slot, Value v) {
    LLVM::StoreOp::create(b_, loc_, v, regSlotPtr(t, slot));
  }
  std::optional<View> view(const kir::Access &a, std::string &error);
  /// Pointer to element (r, c) of the view; r and c are i32 relative to the view.
  Value elemPtr(const View &v, Value r, Value c);
  /// v as (value, constant) with v == value + constant: peels one addi with
  /// a constant operand (what add(x, c) builds); a constant gives (0, c).
  std::pair<Value, int64_t> splitConst(Value v);
  Value sharedByteOffset(const View &v, Value r, Value c);

  // ---- register layout ----
  /// Row and column (i32, relative to the tile) of slot `slot` in this lane.
  std::pair<Value, Value> slotCoords(const std::vector<int64_t> &shape, int64_t slot);
  // 8 bytes per lane for 16-bit register tiles stored to global memory.
  bool wideAccess(const View &v, const std::vector<int64_t> &shape) const;
  void wideStore(const View &v, kir::TileId src, const std::vector<int64_t> &shape,
                 std::optional<std::pair<Value, Value>> limits);
  bool quadMaskUniform(const kir::Access &a);

  /// The slot of `operand` (shape opShape) that lines up with slot `slot` of
  /// a tile of shape `shape` (broadcast of [R, 1] along columns).
  int64_t broadcastSlot(const std::vector<int64_t> &shape, const std::vector<int64_t> &opShape,
                        int64_t slot);

  // ---- warpgroup tiles of an epilogue (elementwise ops, broadcasts) ----
  /// Slots a thread holds: a [64, N] tile N/2 (the wgmma accumulator
  /// fragment, HopperLayout.h: register i is column 8*(i/4) + 2*(l%4) + i%2
  /// of row 16w + l/4 + 8*((i/2)%2)), a row [1, N] N/4 (the columns of that
  /// fragment: slot 2*(i/4) + i%2 of register i), a column [64, 1] 2 (its two
  /// rows: slot (i/2)%2).
  static bool isWarpgroupVector(const kir::TileDecl &t) {
    return t.scope == kir::RegisterScope::Warpgroup && t.shape.size() == 2 &&
           (t.shape[0] == 1 || t.shape[1] == 1);
  }
  static int64_t tileSlots(const kir::TileDecl &t) {
    if (t.scope != kir::RegisterScope::Warpgroup)
      return registerSlots(t.shape);
    if (t.shape[0] == 1)
      return t.shape[1] / 4;
    if (t.shape[1] == 1)
      return 2;
    return t.shape[1] / 2;
  }
  /// `a_r <- convert BF16 acc`: an F32 warpgroup tile into a 16-bit [64, K]
  /// one, the register-A operand (packed pairs, WgmmaRegisterAToMLIR.cpp).
  bool isRegisterAConvert(const kir::UnaryOp &o) const {
    const kir::TileDecl &d = k_.tiles[o.dst];
    return o.kind == kir::UnaryKind::Convert && !isWarpgroupVector(d) &&
           (d.dtype == kir::DType::BF16 || d.dtype == kir::DType::F16);
  }
  bool isWarpgroupTile(kir::TileId t) const {
    return t < k_.tiles.size() && k_.tiles[t].space == kir::MemSpace::Register &&
           k_.tiles[t].scope == kir::RegisterScope::Warpgroup;
  }
  /// The slot of warpgroup tile `op` that lines up with slot i of `dst`.
  int64_t warpgroupSlot(kir::TileId dst, kir::TileId op, int64_t i) const {
    const auto &d = k_.tiles[dst].shape, &o = k_.tiles[op].shape;
    if (o == d)
      return i;
    if (o[0] == 1)
      return 2 * (i / 4) + i % 2;
    return (i / 2) % 2;
  }
  /// Element `slot` of a warpgroup tile as a value of its element type
  /// ([64, N] tiles keep F32 registers; values of a 16-bit tile are exact in F32).
  Value warpgroupLoad(kir::TileId t, int64_t slot) {
    // In a slot-by-slot run, a loaded row, column or slice is read from
    // memory where first used.
    if (auto it = lazyVectors_.find(t); it != lazyVectors_.end() && !it->second.loaded[slot]) {
      it->second.loaded[slot] = true;
      it->second.load(slot);
    }
    if (isWarpgroupVector(k_.tiles[t]))
      return regLoad(t, slot);
    if (k_.tiles[t].dtype != kir::DType::F32) {
      // A 16-bit [64, N] tile keeps slots 2p and 2p + 1 packed in i32 p
      // (the register-A layout, WgmmaRegisterAToMLIR.cpp).
      Value pair = LLVM::BitcastOp::create(b_, loc_,
                                           VectorType::get({2}, elemType(k_.tiles[t].dtype)),
                                           LLVM::LoadOp::create(b_, loc_, i32(), packedPtr(t, slot)));
      return LLVM::ExtractElementOp::create(b_, loc_, pair, c32(slot % 2));
    }
    auto arr = LLVM::LLVMArrayType::get(f32(), static_cast<unsigned>(k_.tiles[t].shape[1] / 2));
    Value p = LLVM::GEPOp::create(b_, loc_, ptr(0), arr, hopper_->warpgroupTile(t),
                                  ArrayRef<LLVM::GEPArg>{0, static_cast<int32_t>(slot)},
                                  LLVM::GEPNoWrapFlags::inbounds);
    Value v = LLVM::LoadOp::create(b_, loc_, f32(), p);
    return convert(v, elemType(k_.tiles[t].dtype));
  }
  /// The i32 that holds slot `slot` of a 16-bit [64, N] warpgroup tile.
  Value packedPtr(kir::TileId t, int64_t slot) {
    auto arr = LLVM::LLVMArrayType::get(i32(), static_cast<unsigned>(k_.tiles[t].shape[1] / 4));
    return LLVM::GEPOp::create(b_, loc_, ptr(0), arr, hopper_->warpgroupTile(t),
                               ArrayRef<LLVM::GEPArg>{0, static_cast<int32_t>(slot / 2)},
                               LLVM::GEPNoWrapFlags::inbounds);
  }
  void warpgroupStore(kir::TileId t, int64_t slot, Value v) {
    if (isWarpgroupVector(k_.tiles[t]))
      return regStore(t, slot, v);
    if (k_.tiles[t].dtype != kir::DType::F32) {
      Type half = elemType(k_.tiles[t].dtype);
      Value p = packedPtr(t, slot);
      Value pair = LLVM::BitcastOp::create(b_, loc_, VectorType::get({2}, half),
                                           LLVM::LoadOp::create(b_, loc_, i32(), p));
      pair = LLVM::InsertElementOp::create(b_, loc_, pair, convert(v, half), c32(slot % 2));
      LLVM::StoreOp::create(b_, loc_, LLVM::BitcastOp::create(b_, loc_, i32(), pair), p);
      return;
    }
    auto arr = LLVM::LLVMArrayType::get(f32(), static_cast<unsigned>(k_.tiles[t].shape[1] / 2));
    Value p = LLVM::GEPOp::create(b_, loc_, ptr(0), arr, hopper_->warpgroupTile(t),
                                  ArrayRef<LLVM::GEPArg>{0, static_cast<int32_t>(slot)},
                                  LLVM::GEPNoWrapFlags::inbounds);
    LLVM::StoreOp::create(b_, loc_, convert(v, f32()), p);
  }
  /// Marks a register tile's value undefined (ir/DeadOnEntry.h): its
  /// registers are free until the next write.
  void killRegisterTile(kir::TileId t) {
    Value slots = isWarpgroupTile(t) && !isWarpgroupVector(k_.tiles[t]) ? hopper_->warpgroupTile(t)
                                                                        : regTiles_[t];
    if (!slots)
      return;
    Type arr = cast<LLVM::AllocaOp>(slots.getDefiningOp()).getElemType();
    LLVM::StoreOp::create(b_, loc_, LLVM::UndefOp::create(b_, loc_, arr), slots);
  }
  /// The element type a unary op reads, and its scalar operand (emitted now) if any.
  std::pair<kir::DType, Value> unarySource(const kir::UnaryOp &o);
  LogicalResult warpgroupUnary(const kir::UnaryOp &o, std::string &error);
  /// The per-element emission of a warpgroup Unary/BinaryOp (its scalar
  /// operands emitted now); empty with `error` set on an internal error.
  std::function<void(int64_t)> warpgroupElementwise(const kir::Op &op, std::string &error);
  std::function<void(int64_t)> warpgroupVectorSlots(const kir::LoadOp &o, std::string &error);
  /// `x <- t[r ..+ 64, c ..+ N]` into a [64, N] warpgroup tile: each thread
  /// loads the elements of its fragment (a residual read in an epilogue).
  bool isWarpgroupGlobalLoad(const kir::LoadOp &o) const;
  std::function<void(int64_t)> warpgroupGlobalSlots(const kir::LoadOp &o, std::string &error);
  /// The rows/columns a slot-by-slot run loads where first used.
  struct LazyVector {
    std::function<void(int64_t)> load;
    std::vector<bool> loaded;
  };
  std::map<kir::TileId, LazyVector> lazyVectors_;
  LogicalResult warpgroupRun(const kir::Block &blk, size_t from, size_t n, std::string &error);
  /// How many ops from `from` on can be emitted element by element together.
  size_t fusibleWarpgroupRun(const kir::Block &blk, size_t from) const;
  LogicalResult warpgroupBinary(const kir::BinaryOp &o, std::string &error);
  LogicalResult warpgroupVectorLoad(const kir::LoadOp &o, std::string &error);

  // ---- ops ----
  LogicalResult block(const kir::Block &blk, std::string &error);
  LogicalResult op(const kir::Op &op, std::string &error);
  LogicalResult cpAsync(const kir::CpAsyncOp &o, std::string &error);
  LogicalResult mma(const kir::MmaOp &o, std::string &error);
  /// int8: mma.sync m16n8k32 s8.s8.s32 and dp4a (`dp4a_mma`).
  LogicalResult mmaInt8(const kir::MmaOp &o, const View &a, const View &bv);
  LogicalResult dp4aMma(const kir::MmaOp &o, const View &a, const View &bv);
  LogicalResult load(const kir::LoadOp &o, std::string &error);
  LogicalResult store(const kir::StoreOp &o, std::string &error);
  void unary(const kir::UnaryOp &o);
  void binary(const kir::BinaryOp &o);
  void reduce(const kir::ReduceOp &o);
  void transpose(const kir::TransposeOp &o);
  // ---- masks and ragged edges ----
  /// Rows and columns of a global view inside its tensor (i32, signed:
  /// extent - offset, possibly <= 0 or past the view's size).
  std::pair<Value, Value> maskLimits(const kir::Access &a);
  /// Slot (r, c) of the view lies inside the tensor.
  Value insideMask(Value r, Value c, std::pair<Value, Value> limits);
  LogicalResult maskedLoad(const kir::LoadOp &o, std::string &error);
  /// A masked access's pairs (c, c+1), c even, are inside or outside the
  /// tensor together: the column extent and the slice's column offset are
  /// known even.
  bool pairMaskUniform(const kir::Access &a);
  /// Emits emit(true) (pairs as one access) where staticPairs, emit(false)
  /// where not pairable, else both behind a run-time parity check.
  void versionPairs(bool pairable, bool staticPairs, const View &v, Value colLimit,
                    const std::function<void(bool)> &emit);
  /// `@p ld.global` of `bits` bits at p (fill bits where !inside), and
  /// `@p st.global`: branch-free predicated accesses (inline PTX), so that
  /// all loads of a tile issue before the first use (LLVM turns a select
  /// around a load into a branch per element, which serialises them).
  /// `nc`: the tensor is a read-only (noalias) input, read through the
  /// non-coherent path as LLVM's plain loads of it are (ld.global.nc).
  Value predicatedLoad(Value inside, Value p, unsigned bits, Value fillBits, bool nc);
  void predicatedStore(Value inside, Value p, unsigned bits, Value valueBits);
  Value bitcastTo(Type t, Value v) {
    return v.getType() == t ? v : Value(LLVM::BitcastOp::create(b_, loc_, t, v));
  }
  LogicalResult maskedStore(const kir::StoreOp &o, std::string &error);
  /// `out[...] <- atomic_add v` (max, min), masked or not.
  LogicalResult atomicStore(const kir::StoreOp &o, std::string &error);
  void indexTile(const kir::IndexTileOp &o);
  void select(const kir::SelectOp &o);
  /// Element conversion; integers are signed unless the flag says unsigned
  /// (U8). Float to integer truncates toward zero.
  Value convert(Value v, Type to, bool fromUnsigned = false, bool toUnsigned = false) {
    return em_.convert(v, to, fromUnsigned, toUnsigned);
  }
  Value convert(Value v, kir::DType from, kir::DType to) { return em_.convert(v, from, to); }
  Value shuffle(Value v, Value laneOrMask, NVVM::ShflKind kind);

  MLIRContext &ctx_;
  OpBuilder b_;
  const kir::Kernel &k_;
  const KernelLayout &layout_;
  Location loc_;
  // One element of the elementwise ops (ElementwiseToMLIR.cpp).
  ElementMath em_{b_, loc_};
  SpanLocations spans_; ///< line info: the source position of the op being lowered

  std::vector<Value> dims_, params_, scalars_;
  Value blockId_[3], warpId_[2], tid_, lane_, laneRow_, laneCol2_, smem_;
  std::vector<Value> vars_;
  /// Whether each variable is known >= 0 (a `for` from a non-negative lower
  /// bound, a `let` of a non-negative value): its `/` and `mod` may then use
  /// the unsigned instructions.
  std::vector<char> varNonNegative_;
  bool nonNegative(const IndexExpr &e) const;
  std::vector<Value> regTiles_;
  kir::DeadOnEntry deadOnEntry_{k_};
  // The sm_90a op family (HopperToMLIR.cpp), for kernels with a warpgroup grid.
  std::unique_ptr<EmitContext> hopperContext_;
  std::unique_ptr<HopperLowering> hopper_;
};

Value Emitter::index(const IndexExpr &e) {
  using K = IndexExpr::Kind;
  switch (e.kind()) {
  case K::Const:
    return c32(e.value());
  case K::Dim:
    return dims_[e.index()];
  case K::BlockId:
    return blockId_[e.index()];
  case K::WarpId:
    return warpId_[e.index()];
  case K::WarpgroupId:
    return divu(tid_, 128);
  case K::ClusterRank:
    // %cluster_ctarank exists on sm_90+; without a cluster every block is rank 0.
    if (k_.clusterSize() == 1)
      return c32(0);
    return NVVM::ClusterId::create(b_, loc_, b_.getI32Type());
  case K::Var:
    return vars_[e.index()];
  case K::Not: {
    Value t = arith::ConstantOp::create(b_, loc_, b_.getBoolAttr(true));
    return arith::XOrIOp::create(b_, loc_, index(e.lhs()), t);
  }
  default:
    break;
  }
  Value l = index(e.lhs()), r = index(e.rhs());
  auto cmp = [&](arith::CmpIPredicate p) -> Value {
    return arith::CmpIOp::create(b_, loc_, p, l, r);
  };
  switch (e.kind()) {
  case K::Add:
    return add(l, r);
  case K::Sub:
    if (constOf(r) == 0)
      return l;
    return arith::SubIOp::create(b_, loc_, l, r);
  case K::Mul:
    return mul(l, r);
  // The divisor is positive (a constant, or a dim expression the checker
  // proved > 0). Kina's `/` is exact and its `mod` is the non-negative
  // remainder (docs/language.md): for a dividend known >= 0 both are the
  // unsigned instructions; otherwise `/` is the signed (truncating, so exact)
  // division and `mod` the signed remainder moved into [0, divisor):
  // `(k - 1) mod 3` at k = 0 is 2, where an unsigned remainder of
  // 0xffffffff gave 0.
  case K::Div:
    if (!nonNegative(e.lhs()))
      return arith::DivSIOp::create(b_, loc_, l, r);
    if (auto c = e.rhs().asConstant())
      return divu(l, *c);
    return arith::DivUIOp::create(b_, loc_, l, r);
  case K::Mod: {
    if (nonNegative(e.lhs())) {
      if (auto c = e.rhs().asConstant())
        return remu(l, *c);
      return arith::RemUIOp::create(b_, loc_, l, r);
    }
    if (auto cl = constOf(l), cr = constOf(r); cl && cr && *cr > 0)
      return c32(((*cl % *cr) + *cr) % *cr);
    Value rem = arith::RemSIOp::create(b_, loc_, l, r);
    Value neg = arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::slt, rem, c32(0));
    return arith::SelectOp::create(b_, loc_, neg, add(rem, r), rem);
  }
  case K::FloorDiv:
    return floorDivS(l, *e.rhs().asConstant());
  case K::CeilDiv:
    return floorDivS(add(l, *e.rhs().asConstant() - 1), *e.rhs().asConstant());
  case K::Eq:
    return cmp(arith::CmpIPredicate::eq);
  case K::Ne:
    return cmp(arith::CmpIPredicate::ne);
  case K::Lt:
    return cmp(arith::CmpIPredicate::slt);
  case K::Le:
    return cmp(arith::CmpIPredicate::sle);
  case K::Gt:
    return cmp(arith::CmpIPredicate::sgt);
  case K::Ge:
    return cmp(arith::CmpIPredicate::sge);
  case K::And:
    return arith::AndIOp::create(b_, loc_, l, r);
  case K::Or:
    return arith::OrIOp::create(b_, loc_, l, r);
  default:
    return l;
  }
}

bool Emitter::nonNegative(const IndexExpr &e) const {
  return ir::provablyNonNegative(
      e, [&](unsigned v) { return v < varNonNegative_.size() && varNonNegative_[v]; });
}

Value Emitter::floorDivS(Value a, int64_t c) {
  if (c == 1)
    return a;
  if (auto ca = constOf(a))
    return c32(*IndexExpr::binary(IndexExpr::Kind::FloorDiv, IndexExpr::constant(*ca),
                                  IndexExpr::constant(c))
                    .asConstant());
  // a >= 0 ? a / c : (a - (c - 1)) / c, with truncating signed division.
  Value neg = arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::slt, a, c32(0));
  Value adj =
      arith::SelectOp::create(b_, loc_, neg, arith::SubIOp::create(b_, loc_, a, c32(c - 1)), a);
  return arith::DivSIOp::create(b_, loc_, adj, c32(c));
}

Value Emitter::scalarNatural(const kir::ScalarExpr &e, std::map<const void *, Value> &memo) {
  using K = kir::ScalarExpr::Kind;
  switch (e.kind()) {
  case K::Const:
    return scalarConst(elemType(e.dtype()), e.value());
  case K::Param:
    return scalars_[e.param()];
  case K::Index:
    return convert(index(e.index()), kir::DType::I32, e.dtype());
  case K::Convert: {
    const kir::ScalarExpr &x = e.operand();
    if (x.asConstant())
      return scalar(x, e.dtype(), memo);
    return convert(scalarNatural(x, memo), x.dtype(), e.dtype());
  }
  case K::Math: {
    // A math builtin of a scalar: the same element lowering as on tiles.
    Value x = scalar(e.operand(), e.dtype(), memo);
    return em_.unary(static_cast<kir::UnaryKind>(e.mathKind()), x, e.dtype(), e.dtype());
  }
  case K::Neg: {
    Value x = scalar(e.operand(), e.dtype(), memo);
    if (kir::isFloat(e.dtype()))
      return arith::NegFOp::create(b_, loc_, x);
    return arith::SubIOp::create(b_, loc_, scalarConst(x.getType(), 0), x);
  }
  default:
    break;
  }
  Value l = scalar(e.lhs(), e.dtype(), memo), r = scalar(e.rhs(), e.dtype(), memo);
  bool fl = kir::isFloat(e.dtype()), u = e.dtype() == kir::DType::U8;
  switch (e.kind()) {
  case K::Add:
    return fl ? Value(arith::AddFOp::create(b_, loc_, l, r))
              : Value(arith::AddIOp::create(b_, loc_, l, r));
  case K::Sub:
    return fl ? Value(arith::SubFOp::create(b_, loc_, l, r))
              : Value(arith::SubIOp::create(b_, loc_, l, r));
  case K::Mul:
    return fl ? Value(arith::MulFOp::create(b_, loc_, l, r))
              : Value(arith::MulIOp::create(b_, loc_, l, r));
  default:
    if (fl)
      return arith::DivFOp::create(b_, loc_, l, r);
    return intDiv(l, r, u);
  }
}

Value Emitter::scalar(const kir::ScalarExpr &e, kir::DType dtype,
                      std::map<const void *, Value> &memo) {
  // A literal is a constant of the type it is used at.
  if (auto c = e.asConstant())
    return scalarConst(elemType(dtype), *c);
  Value v;
  const void *key = e.identity();
  if (auto it = memo.find(key); it != memo.end()) {
    v = it->second;
  } else {
    v = scalarNatural(e, memo);
    memo.emplace(key, v);
  }
  return convert(v, e.dtype(), dtype);
}

std::optional<View> Emitter::view(const kir::Access &a, std::string &error) {
  View v;
  if (a.kind == kir::Access::Kind::Tensor) {
    const kir::TensorParam &p = k_.params[a.id];
    v.global = true;
    v.ptr = params_[a.id];
    v.dtype = p.dtype;
    v.elem = elemType(p.dtype);
    size_t rank = p.shape.size();
    // Row-major strides as values and as expressions (for alignment facts).
    std::vector<Value> strides(rank);
    std::vector<IndexExpr> strideExprs(rank);
    Value s = c32(1);
    IndexExpr se = IndexExpr::constant(1);
    for (size_t i = rank; i-- > 0;) {
      strides[i] = s;
      strideExprs[i] = se;
      s = mul(s, index(p.shape[i]));
      se = se * p.shape[i];
    }
    std::vector<size_t> keep;
    Value base = c32(0);
    IndexExpr baseExpr = IndexExpr::constant(0);
    if (a.slice.empty()) {
      for (size_t i = 0; i < rank; ++i)
        keep.push_back(i);
    } else {
      for (size_t i = 0; i < rank; ++i) {
        base = add(base, mul(index(a.slice[i].offset), strides[i]));
        baseExpr = baseExpr + a.slice[i].offset * strideExprs[i];
        if (!a.slice[i].point)
          keep.push_back(i);
      }
    }
    if (keep.size() != 2 && keep.size() != 1) {
      error = "access to '" + p.name + "' must have one or two sliced dimensions";
      return std::nullopt;
    }
    auto extent = [&](size_t i) -> int64_t {
      if (!a.slice.empty())
        return a.slice[i].size;
      return p.shape[i].asConstant().value_or(0);
    };
    // One sliced dimension is a column vector ([N] as [N, 1]).
    bool vector = keep.size() == 1;
    v.rows = extent(keep[0]);
    v.cols = vector ? 1 : extent(keep[1]);
    v.base = base;
    v.rowStride = strides[keep[0]];
    v.colStride = vector ? c32(1) : strides[keep[1]];
    bool unitCols = !vector && keep[1] == rank - 1;
    v.unitCols = unitCols || (vector && keep[0] == rank - 1);
    v.pairAligned = unitCols && knownMultiple(k_, baseExpr) % 2 == 0 &&
                    knownMultiple(k_, strideExprs[keep[0]]) % 2 == 0;
    v.quadAligned = unitCols && knownMultiple(k_, baseExpr) % 4 == 0 &&
                    knownMultiple(k_, strideExprs[keep[0]]) % 4 == 0;
    v.vector = vector;
    v.rowPairAligned = vector && keep[0] == rank - 1 && knownMultiple(k_, baseExpr) % 2 == 0;
    return v;
  }
  const kir::TileDecl &t = k_.tiles[a.id];
  if (t.space != kir::MemSpace::Shared || !layout_.shared[a.id]) {
    error = "tile '" + t.name + "' is not in shared memory";
    return std::nullopt;
  }
  const SharedTileLayout &sl = *layout_.shared[a.id];
  v.sl = &sl;
  v.dtype = t.dtype;
  v.elem = elemType(t.dtype);
  size_t rank = t.shape.size();
  Value stage = c32(0);
  IndexExpr col0Expr = IndexExpr::constant(0);
  if (a.slice.empty()) {
    if (sl.stages != 1) {
      error = "staged shared tile '" + t.name + "' must be indexed by its stage";
      return std::nullopt;
    }
    v.row0 = c32(0);
    v.col0 = c32(0);
    v.rows = sl.rows;
    v.cols = sl.cols;
  } else {
    int64_t stride = 1;
    for (size_t i = rank - 2; i-- > 0;) {
      if (!a.slice[i].point && a.slice[i].size != 1) {
        error = "stage dimensions of '" + t.name + "' must be indexed by a single stage";
        return std::nullopt;
      }
      stage = add(stage, mul(index(a.slice[i].offset), stride));
      stride *= t.shape[i];
    }
    const kir::SliceDim &rd = a.slice[rank - 2], &cd = a.slice[rank - 1];
    if (rd.point && cd.point) {
      error = "one of the last two dimensions of '" + t.name + "' must be a range";
      return std::nullopt;
    }
    v.row0 = index(rd.offset);
    v.col0 = index(cd.offset);
    col0Expr = cd.offset;
    v.rows = rd.point ? cd.size : rd.size;
    v.cols = rd.point || cd.point ? 1 : cd.size;
    v.alongRow = rd.point; // a vector along one row: element r is column r
  }
  v.stageByteOffset =
      add(mul(stage, static_cast<int64_t>(sl.stageBytes)), static_cast<int64_t>(sl.offsetBytes));
  v.pairAligned =
      !v.alongRow && knownMultiple(k_, col0Expr) % 2 == 0 && (sl.swizzled || sl.cols % 2 == 0);
  return v;
}

Value Emitter::sharedByteOffset(const View &v, Value r, Value c) {
  const SharedTileLayout &sl = *v.sl;
  if (v.alongRow)
    std::swap(r, c);
  Value row = add(v.row0, r), col = add(v.col0, c);
  Value off;
  if (!sl.swizzled) {
    off = mul(add(mul(row, sl.cols), col), static_cast<int64_t>(sl.elemBytes));
  } else if (sl.panelled) {
    // Panel-major 128-byte panels (Layout.h): panel col / perPanel, then the
    // 8-chunk 128B swizzle inside it.
    int64_t perChunk = 16 / sl.elemBytes, perPanel = 128 / sl.elemBytes;
    Value c = remu(col, perPanel);
    Value q = add(mul(row, 8), divu(c, perChunk));
    off = add(mul(divu(col, perPanel), static_cast<int64_t>(sl.panelBytes)),
              add(mul(xorv(q, remu(row, 8)), 16),
                  mul(remu(c, perChunk), static_cast<int64_t>(sl.elemBytes))));
  } else {
    int64_t perChunk = 16 / sl.elemBytes;
    Value q = add(mul(row, static_cast<int64_t>(sl.chunksPerRow)), divu(col, perChunk));
    Value key = sl.chunksPerRow >= 8 ? remu(row, 8) : remu(divu(q, 8), 8);
    off = add(mul(xorv(q, key), 16), mul(remu(col, perChunk), static_cast<int64_t>(sl.elemBytes)));
  }
  return add(v.stageByteOffset, off);
}

std::pair<Value, int64_t> Emitter::splitConst(Value v) {
  if (auto c = constOf(v))
    return {c32(0), *c};
  if (auto a = v.getDefiningOp<arith::AddIOp>()) {
    if (auto c = constOf(a.getRhs()))
      return {a.getLhs(), *c};
    if (auto c = constOf(a.getLhs()))
      return {a.getRhs(), *c};
  }
  return {v, 0};
}

Value Emitter::elemPtr(const View &v, Value r, Value c) {
  if (v.global) {
    // The constant part of the column becomes a constant GEP on a pointer
    // that all columns of one row share, so register-tile accesses of a row
    // differ by constants: LLVM's alias analysis, load/store vectorizer and
    // straight-line strength reduction then compare them in constant time
    // instead of reasoning about zext(i32 sums), and ptxas folds the
    // constants into [reg+imm] addresses.
    auto [cv, cc] = splitConst(c);
    std::optional<int64_t> cs = constOf(v.colStride);
    if (!cs) {
      cv = c;
      cc = 0;
    }
    Value off = add(v.base, add(mul(r, v.rowStride), mul(cv, v.colStride)));
    Value off64 = arith::ExtUIOp::create(b_, loc_, i64(), off);
    Value p = LLVM::GEPOp::create(b_, loc_, ptr(1), v.elem, v.ptr, ArrayRef<LLVM::GEPArg>{off64},
                                  LLVM::GEPNoWrapFlags::inbounds);
    if (cc != 0)
      p = LLVM::GEPOp::create(b_, loc_, ptr(1), v.elem, p,
                              ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(cc * *cs)},
                              LLVM::GEPNoWrapFlags::inbounds);
    return p;
  }
  Value off = sharedByteOffset(v, r, c);
  return LLVM::GEPOp::create(b_, loc_, ptr(3), b_.getI8Type(), smem_, ArrayRef<LLVM::GEPArg>{off},
                             LLVM::GEPNoWrapFlags::inbounds);
}

std::pair<Value, Value> Emitter::slotCoords(const std::vector<int64_t> &shape, int64_t slot) {
  if (shape[0] == 1 && shape[1] != 1) // a row [1, C] (codegen/Layout.h)
    return {c32(0), add(laneCol2_, (slot / 2) * 8 + slot % 2)};
  if (shape[1] == 1) {
    int64_t fm = slot / 2, h = slot % 2;
    return {add(laneRow_, fm * 16 + h * 8), c32(0)};
  }
  int64_t fragsN = shape[1] / 8;
  int64_t frag = slot / 4, s = slot % 4;
  int64_t fm = frag / fragsN, fn = frag % fragsN;
  return {add(laneRow_, fm * 16 + (s / 2) * 8), add(laneCol2_, fn * 8 + s % 2)};
}

int64_t Emitter::broadcastSlot(const std::vector<int64_t> &shape,
                               const std::vector<int64_t> &opShape, int64_t slot) {
  if (opShape == shape)
    return slot;
  int64_t fragsN = shape[1] / 8;
  int64_t frag = slot / 4, s = slot % 4;
  if (opShape[0] == 1 && opShape[1] != 1) // [1, C] operand: the slot's column
    return (frag % fragsN) * 2 + s % 2;
  // [R, 1] operand of an [R, C] op.
  int64_t fm = frag / fragsN;
  return fm * 2 + s / 2;
}

Value Emitter::shuffle(Value v, Value laneOrMask, NVVM::ShflKind kind) {
  Type t = v.getType();
  Value full = c32(-1), clamp = c32(0x1f);
  auto shfl32 = [&](Value x) -> Value {
    return NVVM::ShflOp::create(b_, loc_, x.getType(), full, x, laneOrMask, clamp, kind,
                                UnitAttr());
  };
  if (t.getIntOrFloatBitWidth() == 64) {
    // shfl moves 32 bits: a 64-bit value goes as its two halves (converting
    // it to f32 or i32, as narrower types go, would drop half its bits).
    Value bits = isa<FloatType>(t) ? Value(arith::BitcastOp::create(b_, loc_, i64(), v)) : v;
    Value c = arith::ConstantOp::create(b_, loc_, b_.getI64IntegerAttr(32));
    Value lo = shfl32(arith::TruncIOp::create(b_, loc_, i32(), bits));
    Value hi =
        shfl32(arith::TruncIOp::create(b_, loc_, i32(), arith::ShRUIOp::create(b_, loc_, bits, c)));
    Value r = arith::OrIOp::create(
        b_, loc_, arith::ExtUIOp::create(b_, loc_, i64(), lo),
        arith::ShLIOp::create(b_, loc_, arith::ExtUIOp::create(b_, loc_, i64(), hi), c));
    return isa<FloatType>(t) ? Value(arith::BitcastOp::create(b_, loc_, t, r)) : r;
  }
  // Narrower values widen exactly to f32 or i32 and back.
  Value x = t == f32() || t == i32() ? v : convert(v, isa<FloatType>(t) ? f32() : i32());
  Value r = shfl32(x);
  return r.getType() == t ? r : convert(r, t);
}

LogicalResult Emitter::cpAsync(const kir::CpAsyncOp &o, std::string &error) {
  auto dst = view(o.dst, error);
  auto src = view(o.src, error);
  if (!dst || !src)
    return failure();
  unsigned eb = kir::dtypeBytes(dst->dtype);
  int64_t perChunk = 16 / eb;
  int64_t chunksPerRow = dst->cols / perChunk;
  int64_t total = dst->rows * chunksPerRow;
  int64_t threads = k_.threadsPerBlock();
  // Masked: each chunk copies the bytes inside the tensor (src-size) and
  // zero-fills the rest; a chunk wholly outside copies 0 bytes from the
  // tensor's first element (a valid address; the dims are >= 1).
  std::optional<std::pair<Value, Value>> limits;
  if (o.masked)
    limits = maskLimits(o.src);
  for (int64_t it = 0; it * threads < total; ++it) {
    Value id = add(tid_, it * threads);
    auto emitChunk = [&] {
      Value r = divu(id, chunksPerRow);
      Value c = mul(remu(id, chunksPerRow), perChunk);
      Value d = elemPtr(*dst, r, c);
      Value s = elemPtr(*src, r, c);
      Value srcSize;
      if (limits) {
        Value inRow = arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::slt, r, limits->first);
        Value cols = arith::SubIOp::create(b_, loc_, limits->second, c);
        cols = arith::MaxSIOp::create(
            b_, loc_, arith::MinSIOp::create(b_, loc_, cols, c32(perChunk)), c32(0));
        Value bytes =
            arith::SelectOp::create(b_, loc_, inRow, mul(cols, static_cast<int64_t>(eb)), c32(0));
        Value none = arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::eq, bytes, c32(0));
        s = LLVM::SelectOp::create(b_, loc_, none, src->ptr, s);
        srcSize = bytes;
      }
      NVVM::CpAsyncOp::create(b_, loc_, d, s, 16, NVVM::LoadCacheModifierKind::CG, srcSize);
    };
    if ((it + 1) * threads > total) {
      Value inRange = arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::ult, id, c32(total));
      auto ifOp = scf::IfOp::create(b_, loc_, inRange, /*withElseRegion=*/false);
      OpBuilder::InsertionGuard g(b_);
      b_.setInsertionPoint(ifOp.thenBlock()->getTerminator());
      emitChunk();
    } else {
      emitChunk();
    }
  }
  return success();
}

LogicalResult Emitter::mma(const kir::MmaOp &o, std::string &error) {
  // Register A (MmaOperandsToMLIR.cpp): a whole 16-bit register tile.
  bool registerA = o.a.kind == kir::Access::Kind::Tile && o.a.id < k_.tiles.size() &&
                   k_.tiles[o.a.id].space == kir::MemSpace::Register;
  std::optional<View> a;
  if (!registerA)
    a = view(o.a, error);
  // A register B is the block-level form's, for the Tile IR backend only
  // (the checker rejects it for PTX: K0404).
  if (o.b.kind == kir::Access::Kind::Tile && o.b.id < k_.tiles.size() &&
      k_.tiles[o.b.id].space == kir::MemSpace::Register) {
    error = "a register B operand of wmma_mma has no PTX lowering (Tile IR backend only)";
    return failure();
  }
  auto bv = view(o.b, error);
  if ((!registerA && !a) || !bv)
    return failure();
  if (bv->dtype == kir::DType::I8) {
    // The checker admits I8 only as shared A and transposed shared B (K0154).
    if (!a || !o.transB || a->dtype != kir::DType::I8) {
      error = "an I8 mma needs a shared A and a transposed shared B (the checker's K0154)";
      return failure();
    }
    return o.dp4a ? dp4aMma(o, *a, *bv) : mmaInt8(o, *a, *bv);
  }
  if (o.dp4a) {
    error = "dp4a_mma takes I8 operands";
    return failure();
  }
  const auto &accShape = k_.tiles[o.acc].shape;
  int64_t M = accShape[0], N = accShape[1];
  int64_t K = registerA ? k_.tiles[o.a.id].shape[1] : a->cols;
  int64_t tilesM = M / 16, tilesN = N / 8, steps = K / 16;
  bool bf16 = bv->dtype == kir::DType::BF16;
  bool f16Acc = k_.tiles[o.acc].dtype == kir::DType::F16;
  Type i32t = i32();
  Type opType = bf16 ? i32t : Type(VectorType::get({2}, b_.getF16Type()));
  auto i32x = [&](unsigned n) {
    SmallVector<Type> ts(n, i32t);
    return LLVM::LLVMStructType::getLiteral(&ctx_, ts);
  };
  auto shape88 = NVVM::LdStMatrixShapeAttr::get(&ctx_, 8, 8);
  auto asOperand = [&](Value v) -> Value {
    return bf16 ? v : Value(LLVM::BitcastOp::create(b_, loc_, opType, v));
  };
  auto ldmatrix = [&](Value p, unsigned num, bool trans) {
    Value s = NVVM::LdMatrixOp::create(b_, loc_, i32x(num), p, num,
                                       trans ? NVVM::MMALayout::col : NVVM::MMALayout::row, shape88,
                                       NVVM::LdStMatrixEltType::B16);
    SmallVector<Value> regs;
    for (unsigned i = 0; i < num; ++i)
      regs.push_back(asOperand(LLVM::ExtractValueOp::create(b_, loc_, s, ArrayRef<int64_t>{i})));
    return regs;
  };
  Value lane16 = remu(lane_, 16), laneHi = divu(lane_, 16);
  Value lane8 = remu(lane_, 8), laneQ = divu(lane_, 8);
  // Fragments of one k16 step: A[tm] = 4 regs, B[tn] = 2 regs.
  using Frags = std::pair<std::vector<SmallVector<Value>>, std::vector<SmallVector<Value>>>;
  auto fetch = [&](int64_t ks) {
    Frags f;
    f.first.resize(tilesM);
    f.second.resize(tilesN);
    for (int64_t tm = 0; tm < tilesM; ++tm) {
      if (registerA) {
        f.first[tm] = registerAFragment(
            b_, loc_, [&](int64_t s) { return regLoad(o.a.id, s); }, K / 8, tm, ks, bf16);
        continue;
      }
      Value r = add(lane16, tm * 16);
      Value c = add(mul(laneHi, 8), ks * 16);
      f.first[tm] = ldmatrix(elemPtr(*a, r, c), 4, false);
    }
    for (int64_t tn = 0; tn < tilesN; tn += 2) {
      bool pair = tn + 1 < tilesN;
      // x4: matrices (k0-7,n0-7) (k8-15,n0-7) (k0-7,n8-15) (k8-15,n8-15).
      Value q = pair ? laneQ : remu(laneQ, 2);
      // Matrix q covers k half q % 2 and n block q / 2. B [K, N] rows are
      // k: ldmatrix .trans gives the column-major fragment. Transposed B
      // [N, K] rows are n: the plain ldmatrix of the same matrices is that
      // fragment.
      Value kHalf = mul(remu(q, 2), 8), nHalf = mul(divu(q, 2), 8);
      Value r = o.transB ? add(add(nHalf, lane8), tn * 8) : add(add(kHalf, lane8), ks * 16);
      Value c = o.transB ? add(kHalf, ks * 16) : add(nHalf, tn * 8);
      auto regs = ldmatrix(elemPtr(*bv, r, c), pair ? 4 : 2, !o.transB);
      f.second[tn] = {regs[0], regs[1]};
      if (pair)
        f.second[tn + 1] = {regs[2], regs[3]};
    }
    return f;
  };
  Type f16x2 = VectorType::get({2}, b_.getF16Type());
  Type accStruct = f16Acc ? LLVM::LLVMStructType::getLiteral(&ctx_, {f16x2, f16x2})
                          : LLVM::LLVMStructType::getLiteral(&ctx_, {f32(), f32(), f32(), f32()});
  std::array<NVVM::MMATypes, 2> ptxTypes =
      bf16 ? std::array<NVVM::MMATypes, 2>{NVVM::MMATypes::bf16, NVVM::MMATypes::bf16}
           : std::array<NVVM::MMATypes, 2>{NVVM::MMATypes::f16, NVVM::MMATypes::f16};
  std::array<NVVM::MMALayout, 2> layouts{NVVM::MMALayout::row, NVVM::MMALayout::col};
  // Accumulators stay in SSA values across the k steps.
  std::vector<SmallVector<Value, 4>> acc(tilesM * tilesN);
  for (int64_t f = 0; f < tilesM * tilesN; ++f)
    for (int s = 0; s < 4; ++s)
      acc[f].push_back(regLoad(o.acc, f * 4 + s));
  Frags cur = fetch(0);
  for (int64_t ks = 0; ks < steps; ++ks) {
    Frags next;
    if (ks + 1 < steps)
      next = fetch(ks + 1);
    for (int64_t tm = 0; tm < tilesM; ++tm)
      for (int64_t tn = 0; tn < tilesN; ++tn) {
        auto &c = acc[tm * tilesN + tn];
        if (f16Acc) {
          // Two f16x2 registers (MmaOperandsToMLIR.cpp).
          SmallVector<Value> packed{packMmaPair(b_, loc_, c[0], c[1], false),
                                    packMmaPair(b_, loc_, c[2], c[3], false)};
          Value d = NVVM::MmaOp::create(b_, loc_, accStruct, cur.first[tm], cur.second[tn], packed,
                                        ArrayRef<int64_t>{16, 8, 16}, std::nullopt, std::nullopt,
                                        ptxTypes, layouts);
          for (int s = 0; s < 4; ++s) {
            Value h = LLVM::ExtractValueOp::create(b_, loc_, d, ArrayRef<int64_t>{s / 2});
            c[s] = LLVM::ExtractElementOp::create(b_, loc_, h, c32(s % 2));
          }
          continue;
        }
        Value d = NVVM::MmaOp::create(b_, loc_, accStruct, cur.first[tm], cur.second[tn], c,
                                      ArrayRef<int64_t>{16, 8, 16}, std::nullopt, std::nullopt,
                                      ptxTypes, layouts);
        for (int s = 0; s < 4; ++s)
          c[s] = LLVM::ExtractValueOp::create(b_, loc_, d, ArrayRef<int64_t>{s});
      }
    cur = std::move(next);
  }
  for (int64_t f = 0; f < tilesM * tilesN; ++f)
    for (int s = 0; s < 4; ++s)
      regStore(o.dst, f * 4 + s, acc[f][s]);
  return success();
}

// int8 mma.sync m16n8k32 .row.col.s32.s8.s8.s32 (PTX ISA "Matrix Fragments
// for mma.m16n8k32", .s8; CUTLASS SM80_16x8x32_S32S8S8S32_TN), g = lane / 4,
// t = lane % 4, four bytes per register:
//  * A (16x32): a0 = row g, k 4t..4t+3; a1 = row g+8; a2 = row g, k 16+4t..;
//    a3 = row g+8, k 16+4t..: ldmatrix.x4 (8 rows x 16 bytes per matrix,
//    lane L holds bytes 4(L%4).. of row L/4) of the matrices (rows 0-7, k
//    0-15), (8-15, 0-15), (0-7, 16-31), (8-15, 16-31): the f16 A fetch with
//    the k offsets doubled, since a 16-byte row is 16 bytes of k either way;
//  * B (32x8): b0 = column n = g, k 4t..4t+3; b1 = the same n, k 16+4t..: B
//    is read from s [N, K] (transposed B, the only int8 form) with plain
//    ldmatrix, matrices (n 0-7, k 0-15), (n 0-7, k 16-31) per 8 columns.
//    ldmatrix.trans transposes 16-bit elements, so a [K, N] B has no such
//    load: the checker rejects it (K0154);
//  * C/D (16x8 s32): c0,c1 = row g, columns 2t, 2t+1; c2,c3 = row g+8: the
//    F32 accumulator layout, so an I32 register tile is the accumulator.
// .s32 adds wrap (no .satfinite), as the reference interpreter's do.
LogicalResult Emitter::mmaInt8(const kir::MmaOp &o, const View &a, const View &bv) {
  const auto &accShape = k_.tiles[o.acc].shape;
  int64_t M = accShape[0], N = accShape[1], K = a.cols;
  int64_t tilesM = M / 16, tilesN = N / 8, steps = K / 32;
  Type i32t = i32();
  auto i32x = [&](unsigned n) {
    SmallVector<Type> ts(n, i32t);
    return LLVM::LLVMStructType::getLiteral(&ctx_, ts);
  };
  auto shape88 = NVVM::LdStMatrixShapeAttr::get(&ctx_, 8, 8);
  auto ldmatrix = [&](Value p, unsigned num) {
    Value s = NVVM::LdMatrixOp::create(b_, loc_, i32x(num), p, num, NVVM::MMALayout::row, shape88,
                                       NVVM::LdStMatrixEltType::B16);
    SmallVector<Value> regs;
    for (unsigned i = 0; i < num; ++i)
      regs.push_back(LLVM::ExtractValueOp::create(b_, loc_, s, ArrayRef<int64_t>{i}));
    return regs;
  };
  Value lane16 = remu(lane_, 16), laneHi = divu(lane_, 16);
  Value lane8 = remu(lane_, 8), laneQ = divu(lane_, 8);
  using Frags = std::pair<std::vector<SmallVector<Value>>, std::vector<SmallVector<Value>>>;
  auto fetch = [&](int64_t ks) {
    Frags f;
    f.first.resize(tilesM);
    f.second.resize(tilesN);
    for (int64_t tm = 0; tm < tilesM; ++tm)
      f.first[tm] = ldmatrix(elemPtr(a, add(lane16, tm * 16), add(mul(laneHi, 16), ks * 32)), 4);
    for (int64_t tn = 0; tn < tilesN; tn += 2) {
      bool pair = tn + 1 < tilesN;
      // x4: matrices (n0-7, k0-15) (n0-7, k16-31) (n8-15, k0-15) (n8-15, k16-31).
      Value q = pair ? laneQ : remu(laneQ, 2);
      Value kHalf = mul(remu(q, 2), 16), nHalf = mul(divu(q, 2), 8);
      auto regs =
          ldmatrix(elemPtr(bv, add(add(nHalf, lane8), tn * 8), add(kHalf, ks * 32)), pair ? 4 : 2);
      f.second[tn] = {regs[0], regs[1]};
      if (pair)
        f.second[tn + 1] = {regs[2], regs[3]};
    }
    return f;
  };
  Type accStruct = i32x(4);
  std::array<NVVM::MMATypes, 2> ptxTypes{NVVM::MMATypes::s8, NVVM::MMATypes::s8};
  std::array<NVVM::MMALayout, 2> layouts{NVVM::MMALayout::row, NVVM::MMALayout::col};
  std::vector<SmallVector<Value, 4>> acc(tilesM * tilesN);
  for (int64_t f = 0; f < tilesM * tilesN; ++f)
    for (int s = 0; s < 4; ++s)
      acc[f].push_back(regLoad(o.acc, f * 4 + s));
  Frags cur = fetch(0);
  for (int64_t ks = 0; ks < steps; ++ks) {
    Frags next;
    if (ks + 1 < steps)
      next = fetch(ks + 1);
    for (int64_t tm = 0; tm < tilesM; ++tm)
      for (int64_t tn = 0; tn < tilesN; ++tn) {
        auto &c = acc[tm * tilesN + tn];
        Value d = NVVM::MmaOp::create(b_, loc_, accStruct, cur.first[tm], cur.second[tn], c,
                                      ArrayRef<int64_t>{16, 8, 32}, std::nullopt,
                                      NVVM::MMAIntOverflow::wrapped, ptxTypes, layouts);
        for (int s = 0; s < 4; ++s)
          c[s] = LLVM::ExtractValueOp::create(b_, loc_, d, ArrayRef<int64_t>{s});
      }
    cur = std::move(next);
  }
  for (int64_t f = 0; f < tilesM * tilesN; ++f)
    for (int s = 0; s < 4; ++s)
      regStore(o.dst, f * 4 + s, acc[f][s]);
  return success();
}

// `dp4a_mma acc a (transpose s)`: the targets without int8 tensor cores
// (dp4a, sm_61 and newer). Each lane computes the accumulator elements it
// holds (codegen/Layout.h: rows g + 8h + 16fm, columns 2t + i + 8fn) with
// dp4a.s32.s32, reading per k16 chunk one 16-byte vector of each of its A
// rows and of each of its B rows (s [N, K], so k is contiguous in both);
// 16-byte chunks are whole under the shared swizzle. The adds wrap.
LogicalResult Emitter::dp4aMma(const kir::MmaOp &o, const View &a, const View &bv) {
  const auto &accShape = k_.tiles[o.acc].shape;
  int64_t M = accShape[0], N = accShape[1], K = a.cols;
  int64_t tilesM = M / 16, tilesN = N / 8, chunks = K / 16;
  Type v4i32 = VectorType::get({4}, i32());
  Type v4i8 = VectorType::get({4}, b_.getI8Type());
  int64_t slots = tilesM * tilesN * 4;
  std::vector<Value> acc(slots);
  for (int64_t s = 0; s < slots; ++s)
    acc[s] = regLoad(o.acc, s);
  auto words = [&](const View &v, Value row, int64_t chunk) {
    Value vec = LLVM::LoadOp::create(b_, loc_, v4i32, elemPtr(v, row, c32(chunk * 16)), 16);
    SmallVector<Value, 4> w;
    for (int i = 0; i < 4; ++i)
      w.push_back(LLVM::BitcastOp::create(b_, loc_, v4i8,
                                          LLVM::ExtractElementOp::create(b_, loc_, vec, c32(i))));
    return w;
  };
  auto sgn = NVVM::DotAccumulateType::SIGNED;
  for (int64_t ch = 0; ch < chunks; ++ch) {
    // The lane's A rows (2 per 16-row block) and B rows (= columns, 2 per 8).
    std::vector<SmallVector<Value, 4>> aw(tilesM * 2), bw(tilesN * 2);
    for (int64_t r = 0; r < tilesM * 2; ++r)
      aw[r] = words(a, add(laneRow_, (r / 2) * 16 + (r % 2) * 8), ch);
    for (int64_t c = 0; c < tilesN * 2; ++c)
      bw[c] = words(bv, add(laneCol2_, (c / 2) * 8 + c % 2), ch);
    for (int64_t s = 0; s < slots; ++s) {
      int64_t frag = s / 4, slot = s % 4;
      int64_t fm = frag / tilesN, fn = frag % tilesN;
      const auto &ar = aw[fm * 2 + slot / 2];
      const auto &bc = bw[fn * 2 + slot % 2];
      for (int i = 0; i < 4; ++i)
        acc[s] = NVVM::DotAccumulate4WayOp::create(b_, loc_, i32(), ar[i], sgn, bc[i], sgn, acc[s]);
    }
  }
  for (int64_t s = 0; s < slots; ++s)
    regStore(o.dst, s, acc[s]);
  return success();
}

LogicalResult Emitter::load(const kir::LoadOp &o, std::string &error) {
  auto src = view(o.src, error);
  if (!src)
    return failure();
  const auto &shape = k_.tiles[o.dst].shape;
  if (shape[0] == 1)
    asRow(*src);
  int64_t slots = registerSlots(shape);
  bool pairs = shape[1] != 1 && src->pairAligned;
  unsigned eb = kir::dtypeBytes(src->dtype);
  for (int64_t s = 0; s < slots; s += pairs ? 2 : 1) {
    auto [r, c] = slotCoords(shape, s);
    Value p = elemPtr(*src, r, c);
    if (pairs) {
      Type vt = VectorType::get({2}, src->elem);
      Value v = LLVM::LoadOp::create(b_, loc_, vt, p, 2 * eb);
      for (int i = 0; i < 2; ++i)
        regStore(o.dst, s + i, LLVM::ExtractElementOp::create(b_, loc_, v, c32(i)));
    } else {
      regStore(o.dst, s, LLVM::LoadOp::create(b_, loc_, src->elem, p, eb));
    }
  }
  return success();
}

LogicalResult Emitter::store(const kir::StoreOp &o, std::string &error) {
  auto dst = view(o.dst, error);
  if (!dst)
    return failure();
  const auto &shape = k_.tiles[o.src].shape;
  if (shape[0] == 1)
    asRow(*dst);
  if (wideAccess(*dst, shape)) {
    wideStore(*dst, o.src, shape, std::nullopt);
    return success();
  }
  int64_t slots = registerSlots(shape);
  bool pairs = shape[1] != 1 && dst->pairAligned;
  unsigned eb = kir::dtypeBytes(dst->dtype);
  for (int64_t s = 0; s < slots; s += pairs ? 2 : 1) {
    auto [r, c] = slotCoords(shape, s);
    // Row vectors are replicated over the 4 lanes of a row: lane%4 == 0 writes;
    // a [1, C] row over the 8 row groups: lanes 0..3 write.
    std::optional<OpBuilder::InsertionGuard> guard;
    if (shape[1] == 1 || shape[0] == 1) {
      Value first = arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::eq,
                                          shape[1] == 1 ? laneCol2_ : laneRow_, c32(0));
      auto ifOp = scf::IfOp::create(b_, loc_, first, /*withElseRegion=*/false);
      guard.emplace(b_);
      b_.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    }
    Value p = elemPtr(*dst, r, c);
    if (pairs) {
      Type vt = VectorType::get({2}, dst->elem);
      Value v = LLVM::UndefOp::create(b_, loc_, vt);
      for (int i = 0; i < 2; ++i)
        v = LLVM::InsertElementOp::create(
            b_, loc_, v, convert(regLoad(o.src, s + i), k_.tiles[o.src].dtype, dst->dtype), c32(i));
      LLVM::StoreOp::create(b_, loc_, v, p, 2 * eb);
    } else {
      LLVM::StoreOp::create(b_, loc_, convert(regLoad(o.src, s), k_.tiles[o.src].dtype, dst->dtype),
                            p, eb);
    }
  }
  return success();
}

// ---- masks and ragged edges ----
// A masked access touches only the elements of its box inside the tensor:
// each element is predicated on (row < rowLimit && col < colLimit), a load
// of an element outside yields the fill value, a store of one is skipped.
// The checker proved every slice start >= 0, so one upper compare per
// dimension suffices. Accesses of 2, 4 and 8 bytes are predicated PTX
// instructions, not branches, so a tile's loads are all in flight at once;
// a pair (c, c+1) goes as one access where it cannot straddle the edge
// (pairMaskUniform), otherwise elements go one by one.

std::pair<Value, Value> Emitter::maskLimits(const kir::Access &a) {
  const kir::TensorParam &p = k_.params[a.id];
  std::vector<Value> limits;
  for (size_t i = 0; i < p.shape.size(); ++i) {
    bool point = !a.slice.empty() && a.slice[i].point;
    if (point)
      continue;
    Value extent = index(p.shape[i]);
    limits.push_back(
        a.slice.empty() ? extent
                        : Value(arith::SubIOp::create(b_, loc_, extent, index(a.slice[i].offset))));
  }
  // One kept dimension is a column [N, 1] (the view's rule).
  if (limits.size() == 1)
    return {limits[0], c32(1)};
  return {limits[limits.size() - 2], limits[limits.size() - 1]};
}

Value Emitter::insideMask(Value r, Value c, std::pair<Value, Value> limits) {
  Value inRow = arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::slt, r, limits.first);
  Value inCol = arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::slt, c, limits.second);
  return arith::AndIOp::create(b_, loc_, inRow, inCol);
}

void Emitter::versionPairs(bool pairable, bool staticPairs, const View &v, Value colLimit,
                           const std::function<void(bool)> &emit) {
  if (!pairable || staticPairs) {
    emit(pairable && staticPairs);
    return;
  }
  // Parities unknown at compile time: one uniform branch picks the pair
  // version when the element offsets (base, row stride) and the column
  // limit are even (then (c, c+1), c even, are inside together and 2-element
  // aligned), the element version otherwise.
  Value bits = v.vector
                   ? Value(arith::OrIOp::create(b_, loc_, v.base, colLimit))
                   : Value(arith::OrIOp::create(
                         b_, loc_, arith::OrIOp::create(b_, loc_, v.base, v.rowStride), colLimit));
  Value even = arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::eq,
                                     arith::AndIOp::create(b_, loc_, bits, c32(1)), c32(0));
  auto ifOp = scf::IfOp::create(b_, loc_, even, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard g(b_);
  b_.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  emit(true);
  b_.setInsertionPoint(ifOp.elseBlock()->getTerminator());
  emit(false);
}

bool Emitter::pairMaskUniform(const kir::Access &a) {
  const kir::TensorParam &p = k_.params[a.id];
  size_t last = p.shape.size() - 1;
  if (!a.slice.empty() && a.slice[last].point)
    return false;
  return knownMultiple(k_, p.shape[last]) % 2 == 0 &&
         (a.slice.empty() || knownMultiple(k_, a.slice[last].offset) % 2 == 0);
}

static const char *ptxReg(unsigned bits) { return bits == 16 ? "h" : bits == 32 ? "r" : "l"; }

Value Emitter::predicatedLoad(Value inside, Value p, unsigned bits, Value fillBits, bool nc) {
  Type it = b_.getIntegerType(bits);
  Value pred = arith::ExtUIOp::create(b_, loc_, i32(), inside);
  std::string text = "{\n .reg .pred p;\n setp.ne.b32 p, $2, 0;\n mov.b" + std::to_string(bits) +
                     " $0, $3;\n @p ld.global" + (nc ? ".nc" : "") + ".b" + std::to_string(bits) +
                     " $0, [$1];\n}";
  std::string cons = std::string("=") + ptxReg(bits) + ",l,r," + ptxReg(bits) + ",~{memory}";
  auto op = LLVM::InlineAsmOp::create(
      b_, loc_, it, ValueRange{p, pred, fillBits}, text, cons, /*has_side_effects=*/true,
      /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
      LLVM::AsmDialectAttr::get(b_.getContext(), LLVM::AsmDialect::AD_ATT), ArrayAttr());
  return op.getResult(0);
}

void Emitter::predicatedStore(Value inside, Value p, unsigned bits, Value valueBits) {
  Value pred = arith::ExtUIOp::create(b_, loc_, i32(), inside);
  std::string text = "{\n .reg .pred p;\n setp.ne.b32 p, $1, 0;\n @p st.global.b" +
                     std::to_string(bits) + " [$0], $2;\n}";
  std::string cons = std::string("l,r,") + ptxReg(bits) + ",~{memory}";
  LLVM::InlineAsmOp::create(
      b_, loc_, TypeRange{}, ValueRange{p, pred, valueBits}, text, cons,
      /*has_side_effects=*/true, /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
      LLVM::AsmDialectAttr::get(b_.getContext(), LLVM::AsmDialect::AD_ATT), ArrayAttr());
}

// ---- 8-byte stores ----
// In the mma layout a lane holds 2 adjacent columns of each 8-column
// fragment, so a warp's store touches 8 rows x 16 bytes: half of each
// 32-byte sector, twice the transactions (issue 14's norms measured 2.9 M
// L2 write sectors for 1 M of data, bench/results/s15b). For 16-bit tiles
// whose fragments come in pairs (fn even, fn + 1), lanes L and L^1 swap one
// pair: the even lane then holds columns fn*8 + 2q .. +3 and the odd lane
// (fn+1)*8 + 2q - 2 .. +3 (q = L % 4), 8 contiguous bytes each, and a warp
// instruction covers 8 rows x 32 bytes, whole sectors. Partner lanes share
// a row, so a row mask is uniform for both; a column mask needs its limit
// and the slice start to be multiples of 4 (quadMaskUniform). Every lane
// runs the shuffle; only the store is predicated. Loads stay pair by pair:
// the L1 merges a load's half sectors, and the swap's live values cost the
// causal d64 attention kernel a spill when loads took it too.

bool Emitter::wideAccess(const View &v, const std::vector<int64_t> &shape) const {
  return v.global && v.quadAligned && kir::dtypeBytes(v.dtype) == 2 && shape.size() == 2 &&
         shape[0] % 16 == 0 && shape[1] % 16 == 0;
}

bool Emitter::quadMaskUniform(const kir::Access &a) {
  const kir::TensorParam &p = k_.params[a.id];
  size_t last = p.shape.size() - 1;
  if (!a.slice.empty() && a.slice[last].point)
    return false;
  return knownMultiple(k_, p.shape[last]) % 4 == 0 &&
         (a.slice.empty() || knownMultiple(k_, a.slice[last].offset) % 4 == 0);
}

void Emitter::wideStore(const View &v, kir::TileId src, const std::vector<int64_t> &shape,
                        std::optional<std::pair<Value, Value>> limits) {
  Value odd = arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::ne,
                                    arith::AndIOp::create(b_, loc_, lane_, c32(1)), c32(0));
  Value c32Bits = arith::ConstantOp::create(b_, loc_, b_.getI64IntegerAttr(32));
  auto packed = [&](int64_t slot) -> Value {
    Value vec = LLVM::UndefOp::create(b_, loc_, VectorType::get({2}, v.elem));
    for (int i = 0; i < 2; ++i)
      vec = LLVM::InsertElementOp::create(
          b_, loc_, vec, convert(regLoad(src, slot + i), k_.tiles[src].dtype, v.dtype), c32(i));
    return LLVM::BitcastOp::create(b_, loc_, i32(), vec);
  };
  int64_t fragsN = shape[1] / 8;
  for (int64_t fm = 0; fm < shape[0] / 16; ++fm)
    for (int64_t fn = 0; fn < fragsN; fn += 2)
      for (int64_t h = 0; h < 2; ++h) {
        int64_t slotA = (fm * fragsN + fn) * 4 + h * 2, slotB = slotA + 4;
        Value pairA = packed(slotA), pairB = packed(slotB);
        Value send = arith::SelectOp::create(b_, loc_, odd, pairA, pairB);
        Value recv = shuffle(send, c32(1), NVVM::ShflKind::bfly);
        Value lo = arith::SelectOp::create(b_, loc_, odd, recv, pairA);
        Value hi = arith::SelectOp::create(b_, loc_, odd, pairB, recv);
        Value bits = arith::OrIOp::create(
            b_, loc_, arith::ExtUIOp::create(b_, loc_, i64(), lo),
            arith::ShLIOp::create(b_, loc_, arith::ExtUIOp::create(b_, loc_, i64(), hi), c32Bits));
        Value r = add(laneRow_, fm * 16 + h * 8);
        Value c =
            add(add(laneCol2_, fn * 8), arith::SelectOp::create(b_, loc_, odd, c32(6), c32(0)));
        Value p = elemPtr(v, r, c);
        if (limits)
          predicatedStore(insideMask(r, c, *limits), p, 64, bits);
        else
          LLVM::StoreOp::create(b_, loc_, bits, p, 8);
      }
}

LogicalResult Emitter::maskedLoad(const kir::LoadOp &o, std::string &error) {
  auto src = view(o.src, error);
  if (!src)
    return failure();
  if (!src->global) {
    error = "a masked load must read a global tensor";
    return failure();
  }
  const auto &t = k_.tiles[o.dst];
  auto limits = maskLimits(o.src);
  if (t.shape[0] == 1 && t.shape[1] != 1 && src->vector) {
    asRow(*src);
    limits = {c32(1), limits.first};
  }
  std::map<const void *, Value> memo;
  Value fill = scalar(o.fill, t.dtype, memo);
  unsigned eb = kir::dtypeBytes(src->dtype);
  // Predicated loads of 2, 4 or 8 bytes; a pair of 16- or 32-bit elements
  // goes as one access when its two mask bits agree (pairMaskUniform).
  bool predicated = (eb == 2 || eb == 4 || eb == 8) && fill.getType() == src->elem;
  bool pairable = predicated && eb <= 4 && t.shape[1] != 1 && src->unitCols;
  auto emit = [&](bool pairs) {
    for (int64_t s = 0; s < registerSlots(t.shape); s += pairs ? 2 : 1) {
      auto [r, c] = slotCoords(t.shape, s);
      Value inside = insideMask(r, c, limits);
      if (predicated) {
        unsigned bits = eb * 8 * (pairs ? 2 : 1);
        Type et = b_.getIntegerType(eb * 8);
        Value fb = bitcastTo(et, fill);
        if (pairs) {
          Value lo = arith::ExtUIOp::create(b_, loc_, b_.getIntegerType(bits), fb);
          Value hi = arith::ShLIOp::create(
              b_, loc_, lo,
              arith::ConstantOp::create(b_, loc_, b_.getIntegerAttr(lo.getType(), eb * 8)));
          fb = arith::OrIOp::create(b_, loc_, lo, hi);
        }
        Value v =
            predicatedLoad(inside, elemPtr(*src, r, c), bits, fb, !k_.params[o.src.id].writable);
        if (!pairs) {
          regStore(o.dst, s, bitcastTo(src->elem, v));
          continue;
        }
        Value vec = LLVM::BitcastOp::create(b_, loc_, VectorType::get({2}, src->elem), v);
        for (int i = 0; i < 2; ++i)
          regStore(o.dst, s + i, LLVM::ExtractElementOp::create(b_, loc_, vec, c32(i)));
        continue;
      }
      auto ifOp =
          scf::IfOp::create(b_, loc_, TypeRange{src->elem}, inside, /*withElseRegion=*/true);
      {
        OpBuilder::InsertionGuard g(b_);
        b_.setInsertionPointToStart(ifOp.thenBlock());
        Value v = LLVM::LoadOp::create(b_, loc_, src->elem, elemPtr(*src, r, c), eb);
        scf::YieldOp::create(b_, loc_, v);
        b_.setInsertionPointToStart(ifOp.elseBlock());
        scf::YieldOp::create(b_, loc_, fill);
      }
      regStore(o.dst, s, ifOp.getResult(0));
    }
  };
  versionPairs(pairable, src->pairAligned && pairMaskUniform(o.src), *src, limits.second, emit);
  return success();
}

LogicalResult Emitter::maskedStore(const kir::StoreOp &o, std::string &error) {
  auto dst = view(o.dst, error);
  if (!dst)
    return failure();
  if (!dst->global) {
    error = "a masked store must write a global tensor";
    return failure();
  }
  const auto &shape = k_.tiles[o.src].shape;
  auto limits = maskLimits(o.dst);
  if (shape[0] == 1 && shape[1] != 1 && dst->vector) {
    asRow(*dst);
    limits = {c32(1), limits.first};
  }
  unsigned eb = kir::dtypeBytes(dst->dtype);
  if (wideAccess(*dst, shape) && quadMaskUniform(o.dst)) {
    wideStore(*dst, o.src, shape, limits);
    return success();
  }
  bool predicated = eb == 2 || eb == 4 || eb == 8;
  bool pairable = predicated && eb <= 4 && shape[1] != 1 && dst->unitCols;
  auto emit = [&](bool pairs) {
    for (int64_t s = 0; s < registerSlots(shape); s += pairs ? 2 : 1) {
      auto [r, c] = slotCoords(shape, s);
      Value inside = insideMask(r, c, limits);
      // Row vectors are replicated over the 4 lanes of a row: lane%4 == 0 writes
      // (a [1, C] row over the 8 row groups: lanes 0..3).
      if (shape[1] == 1 || shape[0] == 1)
        inside = arith::AndIOp::create(b_, loc_, inside,
                                       arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::eq,
                                                             shape[1] == 1 ? laneCol2_ : laneRow_,
                                                             c32(0)));
      if (predicated) {
        Type et = b_.getIntegerType(eb * 8);
        auto bitsOf = [&](int64_t slot) -> Value {
          Value v = convert(regLoad(o.src, slot), k_.tiles[o.src].dtype, dst->dtype);
          return bitcastTo(et, v);
        };
        Value v = bitsOf(s);
        if (pairs) {
          Type wt = b_.getIntegerType(eb * 16);
          Value lo = arith::ExtUIOp::create(b_, loc_, wt, v);
          Value hi = arith::ShLIOp::create(
              b_, loc_, arith::ExtUIOp::create(b_, loc_, wt, bitsOf(s + 1)),
              arith::ConstantOp::create(b_, loc_, b_.getIntegerAttr(wt, eb * 8)));
          v = arith::OrIOp::create(b_, loc_, lo, hi);
        }
        predicatedStore(inside, elemPtr(*dst, r, c), eb * 8 * (pairs ? 2 : 1), v);
        continue;
      }
      auto ifOp = scf::IfOp::create(b_, loc_, inside, /*withElseRegion=*/false);
      OpBuilder::InsertionGuard g(b_);
      b_.setInsertionPoint(ifOp.thenBlock()->getTerminator());
      LLVM::StoreOp::create(b_, loc_, convert(regLoad(o.src, s), k_.tiles[o.src].dtype, dst->dtype),
                            elemPtr(*dst, r, c), eb);
    }
  };
  versionPairs(pairable, dst->pairAligned && pairMaskUniform(o.dst), *dst, limits.second, emit);
  return success();
}

// ---- atomics ----
// Each element is one relaxed atomicrmw at device scope on its global
// address (red/atom.global: add.f32, add/max/min.s32 on every target; LLVM
// expands an f32 max/min the target lacks into a compare-and-swap loop).
// Elements go one by one; a masked one is predicated like a masked store,
// and replicated lanes update once, as a plain store writes: an [R, 1]
// column's 4 lanes of a row (lane % 4 == 0) and a [1, C] row's 8 row groups
// (lane / 4 == 0), so each element is combined exactly once per warp.

LogicalResult Emitter::atomicStore(const kir::StoreOp &o, std::string &error) {
  auto dst = view(o.dst, error);
  if (!dst)
    return failure();
  const auto &t = k_.tiles[o.src];
  if (!dst->global || t.dtype != dst->dtype ||
      (t.dtype != kir::DType::F32 && t.dtype != kir::DType::I32)) {
    error = "an atomic store takes an F32 or I32 register tile into a global tensor of its type";
    return failure();
  }
  bool fl = t.dtype == kir::DType::F32;
  LLVM::AtomicBinOp bin =
      o.atomic == kir::AtomicKind::Add   ? (fl ? LLVM::AtomicBinOp::fadd : LLVM::AtomicBinOp::add)
      : o.atomic == kir::AtomicKind::Max ? (fl ? LLVM::AtomicBinOp::fmax : LLVM::AtomicBinOp::max)
                                         : (fl ? LLVM::AtomicBinOp::fmin : LLVM::AtomicBinOp::min);
  std::optional<std::pair<Value, Value>> limits;
  if (o.masked)
    limits = maskLimits(o.dst);
  unsigned eb = kir::dtypeBytes(dst->dtype);
  for (int64_t s = 0; s < registerSlots(t.shape); ++s) {
    auto [r, c] = slotCoords(t.shape, s);
    Value cond;
    if (limits)
      cond = insideMask(r, c, *limits);
    if (t.shape[1] == 1 || t.shape[0] == 1) {
      Value first = arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::eq,
                                          t.shape[1] == 1 ? laneCol2_ : laneRow_, c32(0));
      cond = cond ? Value(arith::AndIOp::create(b_, loc_, cond, first)) : first;
    }
    std::optional<OpBuilder::InsertionGuard> guard;
    if (cond) {
      auto ifOp = scf::IfOp::create(b_, loc_, cond, /*withElseRegion=*/false);
      guard.emplace(b_);
      b_.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    }
    LLVM::AtomicRMWOp::create(b_, loc_, bin, elemPtr(*dst, r, c), regLoad(o.src, s),
                              LLVM::AtomicOrdering::monotonic, b_.getStringAttr("device"),
                              b_.getI64IntegerAttr(eb), false, nullptr, nullptr, nullptr, nullptr);
  }
  return success();
}

void Emitter::indexTile(const kir::IndexTileOp &o) {
  const auto &shape = k_.tiles[o.dst].shape;
  for (int64_t s = 0; s < registerSlots(shape); ++s) {
    auto [r, c] = slotCoords(shape, s);
    regStore(o.dst, s, o.axis == 0 ? r : c);
  }
}

void Emitter::select(const kir::SelectOp &o) {
  const auto &shape = k_.tiles[o.dst].shape;
  kir::DType dt = k_.tiles[o.dst].dtype;
  const kir::Operand &tileSide = o.lhs.kind == kir::Operand::Kind::Tile ? o.lhs : o.rhs;
  kir::DType ct = k_.tiles[tileSide.tile].dtype;
  // Scalars are materialized once, before the per-slot loop, each in the
  // type it is used at (the comparison's, the result's).
  std::map<const void *, Value> memo;
  auto scalarOf = [&](const kir::Operand &x, kir::DType t) -> Value {
    if (auto c = x.scalar.asConstant())
      return scalarConst(elemType(t), *c);
    return scalar(x.scalar, t, memo);
  };
  Value scalars[4];
  const kir::Operand *ops[4] = {&o.lhs, &o.rhs, &o.onTrue, &o.onFalse};
  for (int i = 0; i < 4; ++i)
    if (ops[i]->kind == kir::Operand::Kind::Scalar)
      scalars[i] = scalarOf(*ops[i], i < 2 ? ct : dt);
  auto operand = [&](int i, int64_t s) -> Value {
    if (ops[i]->kind == kir::Operand::Kind::Scalar)
      return scalars[i];
    return regLoad(ops[i]->tile, broadcastSlot(shape, k_.tiles[ops[i]->tile].shape, s));
  };
  bool fl = kir::isFloat(ct), u = ct == kir::DType::U8;
  auto predicate = [&](Value l, Value r) -> Value {
    using K = kir::CompareKind;
    if (fl) {
      // Ordered comparisons (false on NaN), but `!=` is true on NaN.
      arith::CmpFPredicate p = o.cmp == K::Eq   ? arith::CmpFPredicate::OEQ
                               : o.cmp == K::Ne ? arith::CmpFPredicate::UNE
                               : o.cmp == K::Lt ? arith::CmpFPredicate::OLT
                               : o.cmp == K::Le ? arith::CmpFPredicate::OLE
                               : o.cmp == K::Gt ? arith::CmpFPredicate::OGT
                                                : arith::CmpFPredicate::OGE;
      return arith::CmpFOp::create(b_, loc_, p, l, r);
    }
    arith::CmpIPredicate p =
        o.cmp == K::Eq   ? arith::CmpIPredicate::eq
        : o.cmp == K::Ne ? arith::CmpIPredicate::ne
        : o.cmp == K::Lt ? (u ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt)
        : o.cmp == K::Le ? (u ? arith::CmpIPredicate::ule : arith::CmpIPredicate::sle)
        : o.cmp == K::Gt ? (u ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::sgt)
                         : (u ? arith::CmpIPredicate::uge : arith::CmpIPredicate::sge);
    return arith::CmpIOp::create(b_, loc_, p, l, r);
  };
  // All values first: dst may be one of the operands (`s <- select (..) s y`).
  int64_t slots = registerSlots(shape);
  std::vector<Value> out(slots);
  for (int64_t s = 0; s < slots; ++s)
    out[s] = arith::SelectOp::create(b_, loc_, predicate(operand(0, s), operand(1, s)),
                                     operand(2, s), operand(3, s));
  for (int64_t s = 0; s < slots; ++s)
    regStore(o.dst, s, out[s]);
}

std::pair<kir::DType, Value> Emitter::unarySource(const kir::UnaryOp &o) {
  kir::DType dt = k_.tiles[o.dst].dtype;
  // The operand's own element type (a scalar operand of convert keeps its).
  kir::DType srcType = o.src.kind == kir::Operand::Kind::Tile ? k_.tiles[o.src.tile].dtype
                       : o.kind == kir::UnaryKind::Convert    ? o.src.scalar.dtype()
                                                              : dt;
  std::map<const void *, Value> memo;
  Value scalarOperand;
  if (o.src.kind == kir::Operand::Kind::Scalar)
    scalarOperand = scalar(o.src.scalar, srcType, memo);
  return {srcType, scalarOperand};
}

void Emitter::unary(const kir::UnaryOp &o) {
  const auto &shape = k_.tiles[o.dst].shape;
  kir::DType dt = k_.tiles[o.dst].dtype;
  auto [srcType, scalarOperand] = unarySource(o);
  for (int64_t s = 0; s < registerSlots(shape); ++s) {
    Value x = scalarOperand ? scalarOperand : regLoad(o.src.tile, s);
    regStore(o.dst, s, em_.unary(o.kind, x, srcType, dt));
  }
}

void Emitter::binary(const kir::BinaryOp &o) {
  const auto &shape = k_.tiles[o.dst].shape;
  kir::DType dt = k_.tiles[o.dst].dtype;
  Type et = elemType(dt);
  // Scalars are materialized once, before the per-slot loop.
  std::map<const void *, Value> memo;
  Value scalars[2];
  const kir::Operand *ops[2] = {&o.lhs, &o.rhs};
  for (int i = 0; i < 2; ++i)
    if (ops[i]->kind == kir::Operand::Kind::Scalar && !ops[i]->scalar.asConstant())
      scalars[i] = scalar(ops[i]->scalar, dt, memo);
  auto operand = [&](const kir::Operand &x, int64_t s) -> Value {
    if (x.kind == kir::Operand::Kind::Scalar) {
      if (auto c = x.scalar.asConstant())
        return scalarConst(et, *c);
      return scalars[&x == &o.lhs ? 0 : 1];
    }
    return regLoad(x.tile, broadcastSlot(shape, k_.tiles[x.tile].shape, s));
  };
  for (int64_t s = 0; s < registerSlots(shape); ++s)
    regStore(o.dst, s, em_.binary(o.kind, operand(o.lhs, s), operand(o.rhs, s), dt));
}

void Emitter::reduce(const kir::ReduceOp &o) {
  const auto &shape = k_.tiles[o.src].shape;
  Type et = elemType(k_.tiles[o.src].dtype);
  bool fl = isa<FloatType>(et);
  auto combine = [&](Value a, Value b) -> Value {
    if (o.kind == kir::ReduceKind::Sum)
      return fl ? Value(arith::AddFOp::create(b_, loc_, a, b))
                : Value(arith::AddIOp::create(b_, loc_, a, b));
    if (fl)
      return LLVM::MaxNumOp::create(b_, loc_, a, b);
    return k_.tiles[o.src].dtype == kir::DType::U8 ? Value(arith::MaxUIOp::create(b_, loc_, a, b))
                                                   : Value(arith::MaxSIOp::create(b_, loc_, a, b));
  };
  int64_t tilesM = shape[0] / 16;
  if ((!o.columns && shape[1] == 1) || (o.columns && shape[0] == 1)) {
    for (int64_t s = 0; s < registerSlots(shape); ++s)
      regStore(o.dst, s, regLoad(o.src, s));
    return;
  }
  // A sum of 16-bit floats accumulates in f32 and rounds once at the end, as
  // the interpreter does (rounding after every add made the result depend on
  // the order of the adds: a few bf16 ulps over 64 elements).
  bool widen = o.kind == kir::ReduceKind::Sum && fl && et.getIntOrFloatBitWidth() == 16;
  int64_t fragsN = shape[1] / 8;
  if (o.columns) {
    // `col_sum`: each lane combines the rows of its fragments (R/8 of them),
    // then the 8 row groups of a column, which differ in lane bits 2..4.
    for (int64_t fn = 0; fn < fragsN; ++fn)
      for (int64_t i = 0; i < 2; ++i) {
        Value acc;
        for (int64_t fm = 0; fm < tilesM; ++fm)
          for (int64_t h = 0; h < 2; ++h) {
            Value x = regLoad(o.src, (fm * fragsN + fn) * 4 + h * 2 + i);
            if (widen)
              x = convert(x, f32());
            acc = acc ? combine(acc, x) : x;
          }
        for (int64_t m : {4, 8, 16})
          acc = combine(acc, shuffle(acc, c32(m), NVVM::ShflKind::bfly));
        regStore(o.dst, fn * 2 + i, widen ? convert(acc, et) : acc);
      }
    return;
  }
  for (int64_t fm = 0; fm < tilesM; ++fm)
    for (int64_t h = 0; h < 2; ++h) {
      Value acc;
      for (int64_t fn = 0; fn < fragsN; ++fn)
        for (int64_t i = 0; i < 2; ++i) {
          Value x = regLoad(o.src, (fm * fragsN + fn) * 4 + h * 2 + i);
          if (widen)
            x = convert(x, f32());
          acc = acc ? combine(acc, x) : x;
        }
      // The 4 lanes of a row differ in lane bits 0 and 1.
      for (int64_t m : {1, 2})
        acc = combine(acc, shuffle(acc, c32(m), NVVM::ShflKind::bfly));
      regStore(o.dst, fm * 2 + h, widen ? convert(acc, et) : acc);
    }
}

void Emitter::transpose(const kir::TransposeOp &o) {
  // dst[r][c] = src[c][r]; see codegen/Layout.h for the layout. For dst slot
  // (fr, fc, s) lane L holds r = fr*16 + (s/2)*8 + L/4, c = fc*8 + 2(L%4) + s%2.
  // src element (c, r) is in src fragment (c/16, r/8) = (fc/2, 2fr + s/2),
  // slot (fc%2)*2 + (L/4)%2, of lane (2(L%4) + s%2)*4 + (L/4)/2.
  const auto &dshape = k_.tiles[o.dst].shape;
  const auto &sshape = k_.tiles[o.src].shape;
  int64_t dFragsN = dshape[1] / 8, sFragsN = sshape[1] / 8;
  Value quad = remu(lane_, 4), row8 = divu(lane_, 4);
  Value odd = arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::ne, remu(row8, 2), c32(0));
  for (int64_t slot = 0; slot < registerSlots(dshape); ++slot) {
    int64_t frag = slot / 4, s = slot % 4;
    int64_t fr = frag / dFragsN, fc = frag % dFragsN;
    int64_t srcFrag = (fc / 2) * sFragsN + 2 * fr + s / 2;
    int64_t srcSlot0 = srcFrag * 4 + (fc % 2) * 2;
    Value srcLane = add(mul(add(mul(quad, 2), s % 2), 4), divu(row8, 2));
    Value v0 = shuffle(regLoad(o.src, srcSlot0), srcLane, NVVM::ShflKind::idx);
    Value v1 = shuffle(regLoad(o.src, srcSlot0 + 1), srcLane, NVVM::ShflKind::idx);
    regStore(o.dst, slot, arith::SelectOp::create(b_, loc_, odd, v1, v0));
  }
}

LogicalResult Emitter::warpgroupUnary(const kir::UnaryOp &o, std::string &error) {
  auto slots = warpgroupElementwise(kir::Op{o, {}}, error);
  if (!slots)
    return failure();
  for (int64_t i = 0; i < tileSlots(k_.tiles[o.dst]); ++i)
    slots(i);
  return success();
}

LogicalResult Emitter::warpgroupBinary(const kir::BinaryOp &o, std::string &error) {
  auto slots = warpgroupElementwise(kir::Op{o, {}}, error);
  if (!slots)
    return failure();
  for (int64_t i = 0; i < tileSlots(k_.tiles[o.dst]); ++i)
    slots(i);
  return success();
}

std::function<void(int64_t)> Emitter::warpgroupElementwise(const kir::Op &op, std::string &error) {
  if (!hopper_) {
    error = "internal: a warpgroup elementwise op outside a warpgroup grid";
    return {};
  }
  if (auto *u = op.as<kir::UnaryOp>()) {
    const kir::UnaryOp o = *u;
    if (o.src.kind == kir::Operand::Kind::Tile && !isWarpgroupTile(o.src.tile)) {
      error = "internal: a warp tile operand of a warpgroup elementwise op";
      return {};
    }
    kir::DType dt = k_.tiles[o.dst].dtype;
    auto [srcType, scalarOperand] = unarySource(o);
    return [this, o, dt, srcType = srcType, scalarOperand = scalarOperand](int64_t i) {
      Value x = scalarOperand ? scalarOperand
                              : warpgroupLoad(o.src.tile, warpgroupSlot(o.dst, o.src.tile, i));
      warpgroupStore(o.dst, i, em_.unary(o.kind, x, srcType, dt));
    };
  }
  const kir::BinaryOp o = *op.as<kir::BinaryOp>();
  kir::DType dt = k_.tiles[o.dst].dtype;
  Type et = elemType(dt);
  std::map<const void *, Value> memo;
  std::array<Value, 2> scalars;
  std::array<kir::Operand, 2> ops = {o.lhs, o.rhs};
  for (int i = 0; i < 2; ++i) {
    if (ops[i].kind == kir::Operand::Kind::Scalar && !ops[i].scalar.asConstant())
      scalars[i] = scalar(ops[i].scalar, dt, memo);
    if (ops[i].kind == kir::Operand::Kind::Tile && !isWarpgroupTile(ops[i].tile)) {
      error = "internal: a warp tile operand of a warpgroup elementwise op";
      return {};
    }
  }
  return [this, o, dt, et, scalars, ops](int64_t i) {
    auto operand = [&](int which) -> Value {
      const kir::Operand &x = ops[which];
      if (x.kind == kir::Operand::Kind::Scalar) {
        if (auto c = x.scalar.asConstant())
          return scalarConst(et, *c);
        return scalars[which];
      }
      return warpgroupLoad(x.tile, warpgroupSlot(o.dst, x.tile, i));
    };
    warpgroupStore(o.dst, i, em_.binary(o.kind, operand(0), operand(1), dt));
  };
}

size_t Emitter::fusibleWarpgroupRun(const kir::Block &blk, size_t from) const {
  // Consecutive elementwise ops on [64, N] warpgroup tiles of one shape,
  // whose tile operands are tiles of that shape (slot i reads slot i) or
  // broadcast rows/columns (never written by these ops), can be emitted
  // slot by slot: element i of every op, then element i + 1. The values
  // between the ops of the run then live for one element, not for a whole
  // [64, N] tile next to the accumulator.
  const std::vector<int64_t> *shape = nullptr;
  std::vector<kir::TileId> touched; // tiles the run so far reads or writes
  size_t n = 0;
  for (size_t j = from; j < blk.ops.size(); ++j, ++n) {
    const kir::Op &op = blk.ops[j];
    kir::TileId dst;
    std::vector<const kir::Operand *> operands;
    if (auto *l = op.as<kir::LoadOp>();
        l && isWarpgroupTile(l->dst) &&
        (isWarpgroupVector(k_.tiles[l->dst]) ||
         (isWarpgroupGlobalLoad(*l) && (!shape || k_.tiles[l->dst].shape == *shape)))) {
      // A row/column load joins when no earlier op of the run touches it.
      if (std::find(touched.begin(), touched.end(), l->dst) != touched.end())
        break;
      touched.push_back(l->dst);
      continue;
    }
    if (auto *st = op.as<kir::StoreOp>()) {
      // A store of the run's result ends the run: each chunk of it is
      // stored as soon as its registers are computed.
      if (shape && isWarpgroupTile(st->src) && !isWarpgroupVector(k_.tiles[st->src]) &&
          k_.tiles[st->src].dtype == kir::DType::F32 && k_.tiles[st->src].shape == *shape)
        ++n;
      break;
    }
    if (auto *u = op.as<kir::UnaryOp>(); u && !isRegisterAConvert(*u)) {
      dst = u->dst;
      operands = {&u->src};
    } else if (auto *b = op.as<kir::BinaryOp>()) {
      dst = b->dst;
      operands = {&b->lhs, &b->rhs};
    } else {
      break;
    }
    if (!isWarpgroupTile(dst))
      break;
    if (isWarpgroupVector(k_.tiles[dst])) {
      // Elementwise on rows/columns of one shape (a convert of the bias):
      // computed lazily like a load, element by element where first used.
      bool sameShape = std::find(touched.begin(), touched.end(), dst) == touched.end();
      for (const kir::Operand *x : operands)
        if (x->kind == kir::Operand::Kind::Tile &&
            (!isWarpgroupTile(x->tile) || k_.tiles[x->tile].shape != k_.tiles[dst].shape))
          sameShape = false;
      if (!sameShape)
        break;
      touched.push_back(dst);
      continue;
    }
    if (shape && k_.tiles[dst].shape != *shape)
      break;
    bool ok = true;
    for (const kir::Operand *x : operands)
      if (x->kind == kir::Operand::Kind::Tile &&
          (!isWarpgroupTile(x->tile) || (!isWarpgroupVector(k_.tiles[x->tile]) &&
                                         k_.tiles[x->tile].shape != k_.tiles[dst].shape)))
        ok = false;
    if (!ok)
      break;
    shape = &k_.tiles[dst].shape;
    touched.push_back(dst);
    for (const kir::Operand *x : operands)
      if (x->kind == kir::Operand::Kind::Tile)
        touched.push_back(x->tile);
  }
  return shape ? n : 0;
}

LogicalResult Emitter::warpgroupRun(const kir::Block &blk, size_t from, size_t n,
                                    std::string &error) {
  std::vector<std::function<void(int64_t)>> slots;
  kir::TileId dst = 0;
  std::optional<StoreChunks> store;
  for (size_t j = from; j < from + n; ++j) {
    const kir::Op &op = blk.ops[j];
    if (auto *st = op.as<kir::StoreOp>()) {
      store = hopper_->storeChunks(*st, error);
      if (!store)
        return failure();
      if (store->slotsPerChunk * store->count != tileSlots(k_.tiles[st->src])) {
        error = "internal: the chunks of a warpgroup store do not cover its tile";
        return failure();
      }
      continue;
    }
    if (auto *l = op.as<kir::LoadOp>()) {
      auto load = isWarpgroupGlobalLoad(*l) ? warpgroupGlobalSlots(*l, error)
                                            : warpgroupVectorSlots(*l, error);
      if (!load)
        return failure();
      lazyVectors_[l->dst] = {std::move(load), std::vector<bool>(tileSlots(k_.tiles[l->dst]))};
      continue;
    }
    auto slot = warpgroupElementwise(op, error);
    if (!slot)
      return failure();
    kir::TileId d =
        op.as<kir::UnaryOp>() ? op.as<kir::UnaryOp>()->dst : op.as<kir::BinaryOp>()->dst;
    if (isWarpgroupVector(k_.tiles[d])) {
      lazyVectors_[d] = {std::move(slot), std::vector<bool>(tileSlots(k_.tiles[d]))};
      continue;
    }
    slots.push_back(std::move(slot));
    dst = d;
  }
  for (int64_t s = 0; s < tileSlots(k_.tiles[dst]); ++s) {
    for (auto &slot : slots)
      slot(s);
    if (store && (s + 1) % store->slotsPerChunk == 0)
      store->emit(s / store->slotsPerChunk);
  }
  // Elements no op of the run read are still computed, in program order
  // (TileIds grow along the block): later ops may read them.
  for (size_t j = from; j < from + n; ++j) {
    const kir::Op &op = blk.ops[j];
    if (op.as<kir::StoreOp>())
      continue;
    kir::TileId d = op.as<kir::LoadOp>()    ? op.as<kir::LoadOp>()->dst
                    : op.as<kir::UnaryOp>() ? op.as<kir::UnaryOp>()->dst
                                            : op.as<kir::BinaryOp>()->dst;
    if (!lazyVectors_.count(d))
      continue;
    for (int64_t s = 0; s < tileSlots(k_.tiles[d]); ++s)
      (void)warpgroupLoad(d, s);
  }
  lazyVectors_.clear();
  return success();
}

LogicalResult Emitter::warpgroupVectorLoad(const kir::LoadOp &o, std::string &error) {
  auto slot = warpgroupVectorSlots(o, error);
  if (!slot)
    return failure();
  for (int64_t s = 0; s < tileSlots(k_.tiles[o.dst]); ++s)
    slot(s);
  return success();
}

bool Emitter::isWarpgroupGlobalLoad(const kir::LoadOp &o) const {
  return isWarpgroupTile(o.dst) && !isWarpgroupVector(k_.tiles[o.dst]) &&
         o.src.kind == kir::Access::Kind::Tensor;
}

std::function<void(int64_t)> Emitter::warpgroupGlobalSlots(const kir::LoadOp &o,
                                                           std::string &error) {
  auto v = view(o.src, error);
  if (!v)
    return {};
  if (!v->global || v->cols != k_.tiles[o.dst].shape[1]) {
    error = "internal: warpgroup tile '" + k_.tiles[o.dst].name + "' loaded from a non-2-D view";
    return {};
  }
  // Slot s of the accumulator fragment (HopperLayout.h): row 16w + l/4 +
  // 8 * ((s/2) % 2), column 8 * (s/4) + 2 * (l%4) + s%2.
  Value thread = remu(tid_, 128);
  Value warp = divu(thread, 32), lane = remu(thread, 32);
  Value row0 = add(mul(warp, 16), divu(lane, 4));
  Value col0 = mul(remu(lane, 4), 2);
  return [this, view = *v, row0, col0, dst = o.dst](int64_t s) {
    Value r = add(row0, 8 * ((s / 2) % 2));
    Value c = add(col0, 8 * (s / 4) + s % 2);
    warpgroupStore(dst, s, LLVM::LoadOp::create(b_, loc_, view.elem, elemPtr(view, r, c)));
  };
}

std::function<void(int64_t)> Emitter::warpgroupVectorSlots(const kir::LoadOp &o,
                                                           std::string &error) {
  const kir::TileDecl &t = k_.tiles[o.dst];
  auto v = view(o.src, error);
  if (!v)
    return {};
  if (!v->global) {
    error = "internal: warpgroup row/column '" + t.name + "' loaded from shared memory";
    return {};
  }
  // The thread's place in the accumulator fragment (HopperLayout.h).
  Value thread = remu(tid_, 128);
  Value warp = divu(thread, 32), lane = remu(thread, 32);
  bool row = t.shape[0] == 1;
  return [this, view = *v, warp, lane, row, dst = o.dst](int64_t s) {
    // Row slot s: column 8*(s/2) + 2*(l%4) + s%2; column slot h: row 16w + l/4 + 8h.
    Value at = row ? add(mul(remu(lane, 4), 2), 8 * (s / 2) + s % 2)
                   : add(add(mul(warp, 16), divu(lane, 4)), 8 * s);
    // A 1-D view [N] has N rows of one column.
    bool alongRows = view.cols == 1;
    Value p = alongRows ? elemPtr(view, at, c32(0)) : elemPtr(view, c32(0), at);
    regStore(dst, s, LLVM::LoadOp::create(b_, loc_, view.elem, p));
  };
}

LogicalResult Emitter::op(const kir::Op &op, std::string &error) {
  SpanLocations::Scope at(spans_, op.span); // line info: every MLIR op built below
  // The elementwise ops of a warpgroup epilogue, and its broadcast loads.
  // The convert into a 16-bit [64, K] tile is the register-A operand's
  // packed form (HopperToMLIR), not an epilogue op.
  if (auto *o = op.as<kir::UnaryOp>(); o && isWarpgroupTile(o->dst) && !isRegisterAConvert(*o))
    return warpgroupUnary(*o, error);
  if (auto *o = op.as<kir::BinaryOp>(); o && isWarpgroupTile(o->dst))
    return warpgroupBinary(*o, error);
  if (auto *o = op.as<kir::LoadOp>();
      o && isWarpgroupTile(o->dst) && isWarpgroupVector(k_.tiles[o->dst]))
    return warpgroupVectorLoad(*o, error);
  if (auto *o = op.as<kir::LoadOp>(); o && isWarpgroupGlobalLoad(*o)) {
    auto slot = warpgroupGlobalSlots(*o, error);
    if (!slot)
      return failure();
    for (int64_t s = 0; s < tileSlots(k_.tiles[o->dst]); ++s)
      slot(s);
    return success();
  }
  if (HopperLowering::isHopperOp(k_, op)) {
    if (!hopper_) {
      error = "internal: a Hopper op in a kernel without a warpgroup grid";
      return failure();
    }
    return hopper_->op(op, error);
  }
  if (hopper_ && (op.as<kir::ForOp>() || op.as<kir::IfOp>()))
    hopper_->resetGroupState(); // a wgmma group never spans a region boundary
  if (auto *o = op.as<kir::LetOp>()) {
    vars_[o->var] = index(o->value);
    varNonNegative_[o->var] = nonNegative(o->value);
  } else if (auto *o = op.as<kir::FillOp>()) {
    const auto &t = k_.tiles[o->dst];
    std::map<const void *, Value> memo;
    Value c = scalar(o->value, t.dtype, memo);
    for (int64_t s = 0; s < registerSlots(t.shape); ++s)
      regStore(o->dst, s, c);
  } else if (auto *o = op.as<kir::CpAsyncOp>()) {
    return cpAsync(*o, error);
  } else if (op.as<kir::CpAsyncCommitOp>()) {
    NVVM::CpAsyncCommitGroupOp::create(b_, loc_);
  } else if (auto *o = op.as<kir::CpAsyncWaitOp>()) {
    NVVM::CpAsyncWaitGroupOp::create(b_, loc_, o->pending);
  } else if (op.as<kir::BlockSyncOp>()) {
    NVVM::Barrier0Op::create(b_, loc_);
  } else if (auto *o = op.as<kir::MmaOp>()) {
    return mma(*o, error);
  } else if (auto *o = op.as<kir::LoadOp>()) {
    return o->masked ? maskedLoad(*o, error) : load(*o, error);
  } else if (auto *o = op.as<kir::StoreOp>()) {
    if (o->atomic != kir::AtomicKind::None)
      return atomicStore(*o, error);
    return o->masked ? maskedStore(*o, error) : store(*o, error);
  } else if (auto *o = op.as<kir::IndexTileOp>()) {
    indexTile(*o);
  } else if (auto *o = op.as<kir::SelectOp>()) {
    select(*o);
  } else if (auto *o = op.as<kir::UnaryOp>()) {
    unary(*o);
  } else if (auto *o = op.as<kir::BinaryOp>()) {
    binary(*o);
  } else if (auto *o = op.as<kir::ReduceOp>()) {
    reduce(*o);
  } else if (auto *o = op.as<kir::TransposeOp>()) {
    transpose(*o);
  } else if (auto *o = op.as<kir::ForOp>()) {
    // scf.for with a positive step runs lo, lo + step, ... < hi, none when
    // lo >= hi: the meaning of `for v in (lo .. hi step S)`.
    Value lo = index(o->lower), hi = index(o->upper), step = index(o->step);
    auto loop = scf::ForOp::create(b_, loc_, lo, hi, step);
    OpBuilder::InsertionGuard g(b_);
    b_.setInsertionPoint(loop.getBody()->getTerminator());
    vars_[o->var] = loop.getInductionVar();
    varNonNegative_[o->var] = nonNegative(o->lower); // the step is positive
    if (hopper_)
      hopper_->resetGroupState();
    for (kir::TileId t : deadOnEntry_.tiles(*o))
      killRegisterTile(t);
    return block(o->body, error);
  } else if (auto *o = op.as<kir::IfOp>()) {
    auto ifOp = scf::IfOp::create(b_, loc_, index(o->cond), /*withElseRegion=*/true);
    OpBuilder::InsertionGuard g(b_);
    b_.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    if (failed(block(o->thenBody, error)))
      return failure();
    b_.setInsertionPoint(ifOp.elseBlock()->getTerminator());
    if (hopper_)
      hopper_->resetGroupState();
    return block(o->elseBody, error);
  } else {
    // Never drop an op silently: an op this emitter does not know is an error.
    error = "op at offset " + std::to_string(op.span.begin) + " is not lowered yet";
    return failure();
  }
  return success();
}

LogicalResult Emitter::block(const kir::Block &blk, std::string &error) {
  for (size_t i = 0; i < blk.ops.size();) {
    size_t run = hopper_ ? fusibleWarpgroupRun(blk, i) : 0;
    if (run >= 2) {
      SpanLocations::Scope at(spans_, blk.ops[i].span); // a fused run: its first op's line
      if (failed(warpgroupRun(blk, i, run, error)))
        return failure();
      i += run;
      continue;
    }
    if (failed(op(blk.ops[i], error)))
      return failure();
    ++i;
  }
  return success();
}

OwningOpRef<ModuleOp> Emitter::run(bool dynamicShared, std::string &error) {
  spans_.attach(b_);
  SpanLocations::Scope at(spans_, k_.span); // the function and its prologue: the kernel's line
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc_);
  (*module)->setAttr(gpu::GPUDialect::getContainerModuleAttrName(), b_.getUnitAttr());
  b_.setInsertionPointToStart(module->getBody());
  auto gm = gpu::GPUModuleOp::create(b_, loc_, kGpuModuleName);
  b_.setInsertionPointToStart(gm.getBody());

  LLVM::GlobalOp arena;
  if (layout_.sharedBytes > 0) {
    auto arrTy = LLVM::LLVMArrayType::get(
        b_.getI8Type(), dynamicShared ? 0 : static_cast<unsigned>(layout_.sharedBytes));
    arena =
        LLVM::GlobalOp::create(b_, loc_, arrTy, /*isConstant=*/false,
                               dynamicShared ? LLVM::Linkage::External : LLVM::Linkage::Internal,
                               kSharedArenaName, Attribute(),
                               /*alignment=*/layout_.alignBase1024 ? 1024 : 128,
                               /*addrSpace=*/3);
  }

  SmallVector<Type> argTypes;
  // ABI: tensor pointers, then scalar parameters by value, then the dims.
  for (size_t i = 0; i < k_.params.size(); ++i)
    argTypes.push_back(ptr(1));
  for (const kir::ScalarParam &p : k_.scalars)
    argTypes.push_back(elemType(p.dtype));
  for (size_t i = 0; i < k_.dims.size(); ++i)
    argTypes.push_back(i32());
  // Then one 128-byte CUtensorMap per tensor map, by value in the parameter
  // space (grid_constant: the kernel takes its address for TMA, it is never
  // copied; HOPPER-GEMM.md 2.3-3).
  std::vector<TensorMapUse> maps = planTensorMaps(k_);
  size_t firstMap = argTypes.size();
  for (size_t i = 0; i < maps.size(); ++i)
    argTypes.push_back(ptr(0));
  auto fn = gpu::GPUFuncOp::create(b_, loc_, k_.name, b_.getFunctionType(argTypes, {}));
  for (size_t i = 0; i < maps.size(); ++i) {
    unsigned a = static_cast<unsigned>(firstMap + i);
    // byval and nvvm.grid_constant are set on the lowered kernel
    // (Pipeline.cpp): gpu.func cannot carry them.
    fn.setArgAttr(a, LLVM::LLVMDialect::getAlignAttrName(), b_.getI64IntegerAttr(64));
  }
  if (unsigned regs = roleLaunchRegisters(k_)) {
    // The allocation setmaxnreg decreases and increases from; one block per SM.
    fn->setAttr(NVVM::NVVMDialect::getMaxnregAttrName(), b_.getI32IntegerAttr(regs));
    fn->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(), b_.getI32IntegerAttr(1));
  }
  if (k_.clusterSize() > 1) // .reqnctapercluster: the runtime launches with the same shape
    fn->setAttr("nvvm.cluster_dim", b_.getDenseI32ArrayAttr({static_cast<int32_t>(k_.cluster[0]),
                                                             static_cast<int32_t>(k_.cluster[1]),
                                                             static_cast<int32_t>(k_.cluster[2])}));
  fn->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b_.getUnitAttr());
  int32_t threads = static_cast<int32_t>(k_.threadsPerBlock());
  fn.setKnownBlockSizeAttr(b_.getDenseI32ArrayAttr({threads, 1, 1}));
  Block &entry = fn.getBody().front();
  b_.setInsertionPointToStart(&entry);
  for (size_t i = 0; i < k_.params.size(); ++i) {
    params_.push_back(entry.getArgument(i));
    fn.setArgAttr(i, LLVM::LLVMDialect::getNoAliasAttrName(), b_.getUnitAttr());
    if (!k_.params[i].writable)
      fn.setArgAttr(i, LLVM::LLVMDialect::getReadonlyAttrName(), b_.getUnitAttr());
  }
  for (size_t i = 0; i < k_.scalars.size(); ++i)
    scalars_.push_back(entry.getArgument(k_.params.size() + i));
  for (size_t i = 0; i < k_.dims.size(); ++i)
    dims_.push_back(entry.getArgument(k_.params.size() + k_.scalars.size() + i));

  Value t = gpu::ThreadIdOp::create(b_, loc_, gpu::Dimension::x);
  tid_ = arith::IndexCastUIOp::create(b_, loc_, i32(), t);
  for (unsigned d = 0; d < 2; ++d) {
    Value bid = gpu::BlockIdOp::create(b_, loc_, d == 0 ? gpu::Dimension::x : gpu::Dimension::y);
    blockId_[d] = arith::IndexCastUIOp::create(b_, loc_, i32(), bid);
  }
  // block_id 2 only when the grid has a third axis (keeps 2-D kernels' IR as it was).
  if (k_.blockGrid[2].asConstant() != std::optional<int64_t>(1)) {
    Value bid = gpu::BlockIdOp::create(b_, loc_, gpu::Dimension::z);
    blockId_[2] = arith::IndexCastUIOp::create(b_, loc_, i32(), bid);
  } else {
    blockId_[2] = c32(0);
  }
  Value warp = divu(tid_, 32);
  warpId_[0] = divu(warp, k_.warpGrid[1]);
  warpId_[1] = remu(warp, k_.warpGrid[1]);
  lane_ = remu(tid_, 32);
  laneRow_ = divu(lane_, 4);
  laneCol2_ = mul(remu(lane_, 4), 2);
  if (arena)
    smem_ = LLVM::AddressOfOp::create(b_, loc_, arena);
  if (arena && layout_.alignBase1024) {
    // A dynamic shared-memory base is only 16-byte aligned: round it up to
    // the 1024 bytes of the 128B swizzle pattern (layout_.sharedBytes has
    // the slack).
    Value a = LLVM::PtrToIntOp::create(b_, loc_, i32(), smem_);
    Value r = arith::AndIOp::create(b_, loc_, arith::AddIOp::create(b_, loc_, a, c32(1023)),
                                    c32(~int64_t(1023)));
    smem_ = LLVM::IntToPtrOp::create(b_, loc_, ptr(3), r);
  }

  regTiles_.resize(k_.tiles.size());
  Value one = c32(1);
  for (size_t i = 0; i < k_.tiles.size(); ++i) {
    const auto &tile = k_.tiles[i];
    if (tile.space != kir::MemSpace::Register ||
        (tile.scope == kir::RegisterScope::Warpgroup && !isWarpgroupVector(tile)))
      continue; // [64, N] warpgroup tiles: HopperLowering::prologue
    Type arr =
        LLVM::LLVMArrayType::get(elemType(tile.dtype), static_cast<unsigned>(tileSlots(tile)));
    regTiles_[i] = LLVM::AllocaOp::create(b_, loc_, ptr(0), arr, one, 16);
  }
  vars_.resize(k_.vars.size());
  varNonNegative_.assign(k_.vars.size(), 0);
  if (k_.warpgroups > 0) {
    hopperContext_ = std::make_unique<EmitContext>(
        EmitContext{ctx_,
                    b_,
                    loc_,
                    k_,
                    layout_,
                    [this](const IndexExpr &e) { return index(e); },
                    [this](const kir::Block &blk, std::string &err) { return block(blk, err); },
                    tid_,
                    smem_,
                    params_,
                    {},
                    maps});
    for (size_t i = 0; i < maps.size(); ++i)
      hopperContext_->tensorMaps.push_back(entry.getArgument(static_cast<unsigned>(firstMap + i)));
    hopper_ = std::make_unique<HopperLowering>(*hopperContext_);
    hopper_->prologue();
  }
  if (failed(block(k_.body, error)))
    return nullptr;
  if (hopper_)
    hopper_->epilogue();
  gpu::ReturnOp::create(b_, loc_);
  return module;
}

} // namespace

OwningOpRef<ModuleOp> buildModule(MLIRContext &ctx, const kir::Kernel &kernel,
                                  const KernelLayout &layout, bool dynamicShared,
                                  const SourceFile *source, std::string &error) {
  ctx.loadDialect<arith::ArithDialect, gpu::GPUDialect, LLVM::LLVMDialect, NVVM::NVVMDialect,
                  scf::SCFDialect>();
  Emitter e(ctx, kernel, layout, source);
  return e.run(dynamicShared, error);
}

} // namespace kina::codegen::detail
