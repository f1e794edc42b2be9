//===- HopperToMLIR.cpp - sm_90a ops of the tile IR to NVVM ---------------===//
//
// Lowers the Hopper op family (HopperLowering.h) to MLIR 22's NVVM dialect:
//
//  * roles: `if (warpgroup in first..last)`, with nvvm.setmaxregister
//    decrease/increase against the launch's per-thread allocation, executed
//    by all four warps of each warpgroup;
//  * barriers: 8-byte mbarriers in the shared arena, initialised by thread 0
//    (nvvm.mbarrier.init), fence.mbarrier_init and bar.sync before the body;
//    arrive = a warpgroup-local named barrier (bar.sync 1+wg, 128) so that
//    the warpgroup's earlier work is ordered before it, then one elected
//    thread (thread 0 of the warpgroup) arrives, with expect_tx when given;
//    wait = nvvm.mbarrier.try_wait.parity (a spin loop after
//    convert-nvvm-to-llvm) on parity round & 1, skipped when round < 0;
//  * tma_load: the elected thread issues
//    nvvm.cp.async.bulk.tensor.shared.cluster.global with the kernel's
//    by-value tensor map, coordinates inner first, completing on the barrier;
//  * wgmma: nvvm.wgmma.fence.aligned before the first wgmma of a group, then
//    K/16 m64nNk16 instructions with 128B-swizzle descriptors (start address
//    + 32 B per k16); scale-d = 0 on the first when zero_when holds. A
//    constant zero_when uses nvvm.wgmma.mma_async; a run-time one needs the
//    scale-d predicate operand that the NVVM op (an attribute there) does not
//    have, so it is the same instruction as llvm.inline_asm with
//    `setp.ne.b32 p, scale, 0`. Commit and wait are the NVVM ops;
//  * stores of a warpgroup tile: each thread writes its fragment registers
//    (HopperLayout.h) as pairs, converted to the destination type;
//  * clusters: a multicast tma_load passes the cluster's ctaMask, cluster
//    arrivals, cluster-scope waits and the exit barrier are ClusterToMLIR.cpp.
//
//===----------------------------------------------------------------------===//
#include "codegen/mlir/HopperEmit.h"

#include "ir/Verifier.h"

namespace kina::codegen::detail {

using namespace mlir;
namespace kir = kina::ir;

unsigned roleLaunchRegisters(const kir::Kernel &k) {
  for (const kir::Op &op : k.body.ops)
    if (auto *r = op.as<kir::RoleOp>(); r && r->registers > 0)
      return static_cast<unsigned>(kir::launchRegisters(k.threadsPerBlock()));
  return 0;
}

mlir::Value HopperEmit::fragmentPtr(kir::TileId t, int64_t i) {
  const kir::TileDecl &d = k.tiles[t];
  Type et = d.dtype == kir::DType::F32 ? f32() : i32();
  auto arr = LLVM::LLVMArrayType::get(et, static_cast<unsigned>(fragmentRegisters(d)));
  return LLVM::GEPOp::create(b, loc, ptr(0), arr, wgTiles[t],
                             ArrayRef<LLVM::GEPArg>{0, static_cast<int32_t>(i)},
                             LLVM::GEPNoWrapFlags::inbounds);
}
mlir::Value HopperEmit::loadFragment(kir::TileId t, int64_t i) {
  Type et = k.tiles[t].dtype == kir::DType::F32 ? f32() : i32();
  return LLVM::LoadOp::create(b, loc, et, fragmentPtr(t, i));
}
void HopperEmit::storeFragment(kir::TileId t, int64_t i, Value v) {
  LLVM::StoreOp::create(b, loc, v, fragmentPtr(t, i));
}

struct HopperLowering::Impl : HopperEmit {
  explicit Impl(EmitContext &c) : HopperEmit(c) {}

  // ---- ops ----
  void prologue() {
    wgTiles.resize(k.tiles.size());
    Value one = c32(1);
    for (size_t i = 0; i < k.tiles.size(); ++i) {
      const kir::TileDecl &t = k.tiles[i];
      if (t.space != kir::MemSpace::Register || t.scope != kir::RegisterScope::Warpgroup)
        continue;
      Type et = t.dtype == kir::DType::F32 ? f32() : i32();
      auto arr = LLVM::LLVMArrayType::get(et, static_cast<unsigned>(fragmentRegisters(t)));
      wgTiles[i] = LLVM::AllocaOp::create(b, loc, ptr(0), arr, one, 16);
    }
    if (k.barriers.empty())
      return;
    emitIf(cmp(arith::CmpIPredicate::eq, cx.tid, c32(0)), [&] {
      for (size_t id = 0; id < k.barriers.size(); ++id)
        for (int64_t s = 0; s < k.barriers[id].stages; ++s)
          NVVM::MBarrierInitOp::create(b, loc, barrierPtr(static_cast<kir::BarrierId>(id), c32(s)),
                                       c32(k.barriers[id].arrivals), Value());
      // Makes the initialisation visible to the async proxy (TMA completes
      // transactions on these barriers) before the block barrier.
      NVVM::FenceMbarrierInitOp::create(b, loc);
    });
    if (k.clusterSize() > 1) {
      // fence.mbarrier_init is a release at cluster scope; the cluster
      // barrier (every thread of every CTA of the cluster) makes the
      // initialised barriers visible cluster-wide before any use.
      NVVM::ClusterArriveOp::create(b, loc, UnitAttr::get(&cx.ctx));
      NVVM::ClusterWaitOp::create(b, loc, UnitAttr::get(&cx.ctx));
    } else {
      NVVM::Barrier0Op::create(b, loc);
    }
  }

  LogicalResult role(const kir::RoleOp &o, std::string &error) {
    Value wg = warpgroup();
    Value in =
        arith::AndIOp::create(b, loc, cmp(arith::CmpIPredicate::uge, wg, c32(o.firstWarpgroup)),
                              cmp(arith::CmpIPredicate::ule, wg, c32(o.lastWarpgroup)));
    auto ifOp = scf::IfOp::create(b, loc, in, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    unsigned launch = roleLaunchRegisters(k);
    if (o.registers > 0 && static_cast<unsigned>(o.registers) != launch)
      NVVM::SetMaxRegisterOp::create(b, loc, static_cast<uint32_t>(o.registers),
                                     static_cast<unsigned>(o.registers) < launch
                                         ? NVVM::SetMaxRegisterAction::decrease
                                         : NVVM::SetMaxRegisterAction::increase);
    groupOpen = false;
    LogicalResult r = cx.block(o.body, error);
    groupOpen = false;
    if (succeeded(r) && hasTmaStore(o.body))
      lowerTmaStoreRoleEnd(*this);
    return r;
  }

  void arrive(const kir::BarrierArriveOp &o) {
    if (o.cluster && k.clusterSize() > 1)
      return lowerClusterArrive(*this, o);
    // Orders the whole warpgroup's earlier work before the elected arrival.
    warpgroupBarrier();
    Value stage = cx.index(o.stage);
    elected([&] {
      Value bar = barrierPtr(o.barrier, stage);
      if (o.expectTxBytes > 0)
        NVVM::MBarrierArriveExpectTxOp::create(b, loc, Type(), bar, c32(o.expectTxBytes),
                                               NVVM::MemScopeKind::CTA, false, Value());
      else
        NVVM::MBarrierArriveOp::create(b, loc, Type(), bar, Value(), NVVM::MemScopeKind::CTA,
                                       false);
    });
  }

  void wait(const kir::BarrierWaitOp &o) {
    auto cr = o.round.asConstant();
    if (cr && *cr < 0)
      return; // a round before the first is complete
    Value round = cx.index(o.round);
    Value stage = cx.index(o.stage);
    auto spin = [&] {
      // Round r is the (r+1)-th completion, i.e. the phase with parity r & 1
      // (PTX ISA mbarrier.try_wait.parity: waits for the completion of the
      // phase indicated by phaseParity).
      Value parity = arith::AndIOp::create(b, loc, round, c32(1));
      if (clusterArrived()[o.barrier])
        return lowerClusterWait(*this, barrierPtr(o.barrier, stage), parity);
      NVVM::MBarrierTryWaitParityOp::create(b, loc, barrierPtr(o.barrier, stage), parity,
                                            c32(0x989680));
    };
    if (cr)
      spin();
    else
      emitIf(cmp(arith::CmpIPredicate::sge, round, c32(0)), spin);
  }

  LogicalResult tmaLoad(const kir::TmaLoadOp &o, std::string &error) {
    int map = tensorMapIndex(cx.maps, k, o);
    if (map < 0 || static_cast<size_t>(map) >= cx.tensorMaps.size()) {
      error = "internal: tma_load has no tensor map parameter";
      return failure();
    }
    // One box per 128-byte panel of the destination (the verifier makes the
    // box cover whole rows): panel p lands at base + p * panelBytes and
    // reads columns col0 + p * panelCols of the source.
    const SharedTileLayout &sl = *cx.layout.shared[o.dst.id];
    int64_t panelCols = cx.maps[map].boxCols;
    int64_t panels = sl.panelled ? sl.cols / panelCols : 1;
    Value base = tileByteOffset(o.dst);
    Value col0 = cx.index(o.src.slice[1].offset), row0 = cx.index(o.src.slice[0].offset);
    Value bar = barrierPtr(o.barrier, cx.index(o.stage));
    Value desc = cx.tensorMaps[map];
    // A multicast copy lands in (and completes on) every CTA of the cluster.
    Value mask = o.multicast && k.clusterSize() > 1 ? clusterMulticastMask(*this) : Value();
    elected([&] {
      for (int64_t p = 0; p < panels; ++p) {
        Value dst = LLVM::AddrSpaceCastOp::create(
            b, loc, ptr(7), sharedAt(add(base, c32(p * static_cast<int64_t>(sl.panelBytes)))));
        SmallVector<Value> coords = {add(col0, c32(p * panelCols)), row0}; // innermost first
        NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
            b, loc, dst, desc, coords, bar, ValueRange{}, mask, Value(), NVVM::TMALoadMode::TILE,
            false, NVVM::CTAGroupKindAttr(), Value());
      }
    });
    return success();
  }

  /// The descriptor of a 128B-swizzled K-major operand at arena byte offset
  /// `byteOffset` (HopperLayout.h, wgmmaDescriptor128B).
  Value descriptor(Value byteOffset) {
    Value addr = LLVM::PtrToIntOp::create(b, loc, i32(), sharedAt(byteOffset));
    Value a64 = arith::ExtUIOp::create(b, loc, i64(), addr);
    Value field =
        arith::ShRUIOp::create(b, loc, arith::AndIOp::create(b, loc, a64, c64(0x3FFFF)), c64(4));
    return arith::OrIOp::create(b, loc, field, c64(kWgmmaDescriptor128BFixed));
  }

  LogicalResult wgmma(const kir::WgmmaOp &o, std::string &error) {
    if (o.a.kind == kir::Access::Kind::Tile && o.a.id < k.tiles.size() &&
        k.tiles[o.a.id].space == kir::MemSpace::Register)
      return lowerRegisterAWgmma(*this, o, error, [&](Value off) { return descriptor(off); });
    const kir::TileDecl &acc = k.tiles[o.acc];
    if (!wgTiles[o.acc]) {
      error = "internal: warpgroup tile '" + acc.name + "' has no registers";
      return failure();
    }
    int64_t n = acc.shape[1], regs = n / 2;
    std::vector<int64_t> aShape = kir::accessShape(k, o.a);
    int64_t kSteps = aShape.size() == 2 ? aShape[1] / 16 : 0;
    bool bf16 = k.tiles[o.a.id].dtype == kir::DType::BF16;
    Value offA = tileByteOffset(o.a), offB = tileByteOffset(o.b);
    if (!groupOpen) {
      NVVM::WgmmaFenceAlignedOp::create(b, loc);
      groupOpen = true;
    }
    auto arr = LLVM::LLVMArrayType::get(f32(), static_cast<unsigned>(regs));
    SmallVector<Type> fields(static_cast<size_t>(regs), f32());
    auto structTy = LLVM::LLVMStructType::getLiteral(&cx.ctx, fields);
    SmallVector<Value> d;
    for (int64_t i = 0; i < regs; ++i) {
      Value p = LLVM::GEPOp::create(b, loc, ptr(0), arr, wgTiles[o.acc],
                                    ArrayRef<LLVM::GEPArg>{0, static_cast<int32_t>(i)},
                                    LLVM::GEPNoWrapFlags::inbounds);
      d.push_back(LLVM::LoadOp::create(b, loc, f32(), p));
    }
    auto zeroConst = o.zeroWhen.asConstant();
    Value scale0;
    if (!zeroConst)
      scale0 = arith::SelectOp::create(b, loc, cx.index(o.zeroWhen), c32(0), c32(1));
    for (int64_t ks = 0; ks < kSteps; ++ks) {
      Value descA = descriptor(add(offA, c32(32 * ks)));
      Value descB = descriptor(add(offB, c32(32 * ks)));
      Value result;
      if (zeroConst || ks > 0) {
        bool zero = ks == 0 && zeroConst && *zeroConst != 0;
        Value in = LLVM::UndefOp::create(b, loc, structTy);
        for (int64_t i = 0; i < regs; ++i)
          in = LLVM::InsertValueOp::create(b, loc, in, d[i], ArrayRef<int64_t>{i});
        auto type = NVVM::WGMMATypesAttr::get(&cx.ctx, bf16 ? NVVM::WGMMATypes::bf16
                                                            : NVVM::WGMMATypes::f16);
        result = NVVM::WgmmaMmaAsyncOp::create(
            b, loc, structTy, in, descA, descB,
            NVVM::MMAShapeAttr::get(&cx.ctx, 64, static_cast<int>(n), 16), type, type,
            NVVM::WGMMATypesAttr::get(&cx.ctx, NVVM::WGMMATypes::f32),
            NVVM::WGMMAScaleOutAttr::get(&cx.ctx, zero ? NVVM::WGMMAScaleOut::zero
                                                       : NVVM::WGMMAScaleOut::one),
            NVVM::WGMMAScaleInAttr::get(&cx.ctx, NVVM::WGMMAScaleIn::one),
            NVVM::WGMMAScaleInAttr::get(&cx.ctx, NVVM::WGMMAScaleIn::one),
            NVVM::MMALayoutAttr::get(&cx.ctx, NVVM::MMALayout::row),
            NVVM::MMALayoutAttr::get(&cx.ctx, NVVM::MMALayout::col), NVVM::MMAIntOverflowAttr());
      } else {
        result = inlineWgmma(structTy, n, bf16, descA, descB, scale0, d);
      }
      for (int64_t i = 0; i < regs; ++i)
        d[i] = LLVM::ExtractValueOp::create(b, loc, result, ArrayRef<int64_t>{i});
    }
    for (int64_t i = 0; i < regs; ++i) {
      Value p = LLVM::GEPOp::create(b, loc, ptr(0), arr, wgTiles[o.acc],
                                    ArrayRef<LLVM::GEPArg>{0, static_cast<int32_t>(i)},
                                    LLVM::GEPNoWrapFlags::inbounds);
      LLVM::StoreOp::create(b, loc, d[i], p);
    }
    return success();
  }

  /// `wgmma_wait N` as `wgmma.wait_group.sync.aligned N` in inline asm whose
  /// outputs are the accumulators' registers, tied to them as inputs (the
  /// form Triton's NVGPU lowering of WGMMAWaitGroupOp uses). The NVVM
  /// intrinsic has no register operands, so LLVM may move a read of an
  /// accumulator above it, and ptxas does not insert a wait for such a read
  /// (docs/architecture.md, "Hopper code generation"): a silent race. Tied
  /// through the asm, every later use reads the asm's results, which exist
  /// only after the wait; and with the registers tied in and out, one group
  /// kept in flight across a loop's back edge (`wgmma_wait 1`) keeps its
  /// accumulator in the same registers: ptxas 13 compiles the GEMM's
  /// consumer loop with `wgmma_wait 1` without serialisation and without
  /// moves, where the intrinsic made it serialise every wgmma (C7514).
  void wgmmaWait(unsigned pending) {
    std::vector<std::pair<kir::TileId, int64_t>> regs; // (tile, register)
    for (kir::TileId t : wgmmaTiles())
      for (int64_t i = 0; i < fragmentRegisters(k.tiles[t]); ++i)
        regs.emplace_back(t, i);
    std::string text = "wgmma.wait_group.sync.aligned " + std::to_string(pending) + ";";
    if (regs.empty()) {
      NVVM::WgmmaWaitGroupSyncOp::create(b, loc, static_cast<uint64_t>(pending));
      return;
    }
    std::string constraints;
    SmallVector<Value> operands;
    SmallVector<Type> fields;
    for (size_t i = 0; i < regs.size(); ++i) {
      bool f = k.tiles[regs[i].first].dtype == kir::DType::F32;
      constraints += std::string(i ? "," : "") + (f ? "=f" : "=r");
      fields.push_back(f ? f32() : i32());
    }
    for (size_t i = 0; i < regs.size(); ++i) {
      constraints += "," + std::to_string(i);
      operands.push_back(loadFragment(regs[i].first, regs[i].second));
    }
    constraints += ",~{memory}";
    auto structTy = LLVM::LLVMStructType::getLiteral(&cx.ctx, fields);
    auto asmOp = LLVM::InlineAsmOp::create(
        b, loc, structTy, operands, text, constraints, /*has_side_effects=*/true,
        /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
        LLVM::AsmDialectAttr::get(&cx.ctx, LLVM::AsmDialect::AD_ATT), ArrayAttr());
    for (size_t i = 0; i < regs.size(); ++i)
      storeFragment(regs[i].first, regs[i].second,
                    LLVM::ExtractValueOp::create(b, loc, asmOp.getResult(0),
                                                 ArrayRef<int64_t>{static_cast<int64_t>(i)}));
  }

  /// The warpgroup tiles that wgmma ops of the kernel accumulate into or
  /// read as register A operands (both stay tied through a wait).
  const std::vector<kir::TileId> &wgmmaTiles() {
    if (!accumulatorsKnown) {
      std::function<void(const kir::Block &)> walk = [&](const kir::Block &blk) {
        for (const kir::Op &op : blk.ops) {
          if (auto *w = op.as<kir::WgmmaOp>()) {
            if (std::find(accs.begin(), accs.end(), w->acc) == accs.end() && wgTiles[w->acc])
              accs.push_back(w->acc);
            if (w->a.kind == kir::Access::Kind::Tile && w->a.id < wgTiles.size() &&
                wgTiles[w->a.id] && std::find(accs.begin(), accs.end(), w->a.id) == accs.end())
              accs.push_back(w->a.id);
          } else if (auto *f = op.as<kir::ForOp>()) {
            walk(f->body);
          } else if (auto *r = op.as<kir::RoleOp>()) {
            walk(r->body);
          } else if (auto *i = op.as<kir::IfOp>()) {
            walk(i->thenBody);
            walk(i->elseBody);
          }
        }
      };
      walk(k.body);
      accumulatorsKnown = true;
    }
    return accs;
  }
  std::vector<kir::TileId> accs;
  bool accumulatorsKnown = false;

  /// By BarrierId: the barrier receives cluster arrivals (its waits acquire
  /// at cluster scope).
  const std::vector<bool> &clusterArrived() {
    if (!clusterArrivedKnown) {
      clusterArrivedBy = clusterArrivedBarriers(k);
      clusterArrivedKnown = true;
    }
    return clusterArrivedBy;
  }
  std::vector<bool> clusterArrivedBy;
  bool clusterArrivedKnown = false;

  /// wgmma.mma_async with a run-time scale-d (PTX ISA wgmma.mma_async:
  /// `d, a-desc, b-desc, scale-d, imm-scale-a, imm-scale-b, imm-trans-a,
  /// imm-trans-b`; trans 0/0 = A row-major (K-major), B column-major
  /// (K-major)). Outputs $0..$regs-1, then a-desc, b-desc, scale, and the
  /// accumulator inputs tied to the outputs.
  Value inlineWgmma(Type structTy, int64_t n, bool bf16, Value descA, Value descB, Value scale,
                    const SmallVector<Value> &d) {
    int64_t regs = n / 2;
    std::string ty = bf16 ? "bf16" : "f16";
    std::string text = "{\n.reg .pred p;\nsetp.ne.b32 p, $" + std::to_string(regs + 2) +
                       ", 0;\nwgmma.mma_async.sync.aligned.m64n" + std::to_string(n) + "k16.f32." +
                       ty + "." + ty + " {";
    std::string constraints;
    for (int64_t i = 0; i < regs; ++i) {
      text += (i ? ", $" : "$") + std::to_string(i);
      constraints += (i ? ",=f" : "=f");
    }
    text +=
        "}, $" + std::to_string(regs) + ", $" + std::to_string(regs + 1) + ", p, 1, 1, 0, 0;\n}";
    constraints += ",l,l,r";
    SmallVector<Value> operands = {descA, descB, scale};
    for (int64_t i = 0; i < regs; ++i) {
      constraints += "," + std::to_string(i);
      operands.push_back(d[i]);
    }
    auto asmOp = LLVM::InlineAsmOp::create(
        b, loc, structTy, operands, text, constraints, /*has_side_effects=*/true,
        /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
        LLVM::AsmDialectAttr::get(&cx.ctx, LLVM::AsmDialect::AD_ATT), ArrayAttr());
    return asmOp.getResult(0);
  }

  LogicalResult storeWarpgroupTile(const kir::StoreOp &o, std::string &error) {
    auto chunks = globalStoreChunks(o, error);
    if (!chunks)
      return failure();
    for (int64_t q = 0; q < chunks->count; ++q)
      chunks->emit(q);
    return success();
  }

  /// Chunk q: registers 2q, 2q + 1 (two adjacent columns of one row).
  std::optional<StoreChunks> globalStoreChunks(const kir::StoreOp &o, std::string &error) {
    const kir::TileDecl &t = k.tiles[o.src];
    if (o.dst.kind != kir::Access::Kind::Tensor || !wgTiles[o.src]) {
      error = "internal: warpgroup tile '" + t.name + "' is stored outside global memory";
      return std::nullopt;
    }
    const kir::TensorParam &p = k.params[o.dst.id];
    if (p.dtype != kir::DType::F32 && p.dtype != kir::DType::F16 && p.dtype != kir::DType::BF16) {
      error = "storing warpgroup tile '" + t.name + "' into " +
              std::string(kir::dtypeName(p.dtype)) + " is not lowered (F32, F16, BF16 are)";
      return std::nullopt;
    }
    // Row-major strides of the tensor, as values and as expressions.
    size_t rank = p.shape.size();
    std::vector<Value> strides(rank);
    std::vector<kir::IndexExpr> strideExprs(rank);
    Value s = c32(1);
    kir::IndexExpr se = kir::IndexExpr::constant(1);
    for (size_t i = rank; i-- > 0;) {
      strides[i] = s;
      strideExprs[i] = se;
      Value extent = cx.index(p.shape[i]);
      s = constOf(s) == 1 ? extent : Value(arith::MulIOp::create(b, loc, s, extent));
      se = se * p.shape[i];
    }
    std::vector<size_t> keep;
    Value base = c32(0);
    kir::IndexExpr baseExpr = kir::IndexExpr::constant(0);
    for (size_t i = 0; i < rank; ++i) {
      if (o.dst.slice.empty()) {
        keep.push_back(i);
        continue;
      }
      Value off = cx.index(o.dst.slice[i].offset);
      base = add(base, constOf(strides[i]) == 1
                           ? off
                           : Value(arith::MulIOp::create(b, loc, off, strides[i])));
      baseExpr = baseExpr + o.dst.slice[i].offset * strideExprs[i];
      if (!o.dst.slice[i].point)
        keep.push_back(i);
    }
    if (keep.size() != 2) {
      error = "internal: store of warpgroup tile '" + t.name + "' needs a 2-D destination";
      return std::nullopt;
    }
    Value rowStride = strides[keep[0]];
    bool unitCols = keep[1] == rank - 1;
    bool pairs = unitCols && knownMultiple(k, baseExpr) % 2 == 0 &&
                 knownMultiple(k, strideExprs[keep[0]]) % 2 == 0;
    Type et = elemType(p.dtype);
    auto arr = LLVM::LLVMArrayType::get(f32(), static_cast<unsigned>(t.shape[1] / 2));
    Value thread = threadInWarpgroup();
    Value warp = divu(thread, 32), lane = remu(thread, 32);
    // Row and column of register 0 of this thread (HopperLayout.h).
    Value row0 = add(mul(warp, 16), divu(lane, 4));
    Value col0 = mul(remu(lane, 4), 2);
    Value rowBase = add(base, arith::MulIOp::create(b, loc, row0, rowStride));
    Value rowBase8 = add(rowBase, arith::MulIOp::create(b, loc, c32(8), rowStride));
    auto colStride = strides[keep[1]];
    Value param = cx.params[o.dst.id];
    StoreChunks chunks;
    chunks.slotsPerChunk = 2;
    chunks.count = t.shape[1] / 4;
    chunks.emit = [this, src = o.src, et, arr, rowBase, rowBase8, col0, colStride, param,
                   pairs](int64_t q) {
      int64_t i = 2 * q;
      auto load = [&](int64_t r) -> Value {
        Value v;
        if (k.tiles[src].dtype == kir::DType::F32) {
          Value ptrv = LLVM::GEPOp::create(b, loc, ptr(0), arr, wgTiles[src],
                                           ArrayRef<LLVM::GEPArg>{0, static_cast<int32_t>(r)},
                                           LLVM::GEPNoWrapFlags::inbounds);
          v = LLVM::LoadOp::create(b, loc, f32(), ptrv);
        } else {
          // A 16-bit tile keeps registers r and r + 1 packed in i32 r / 2.
          Type half = elemType(k.tiles[src].dtype);
          Value pair = LLVM::BitcastOp::create(b, loc, VectorType::get({2}, half),
                                               loadFragment(src, r / 2));
          Value x = LLVM::ExtractElementOp::create(b, loc, pair, c32(r % 2));
          v = arith::ExtFOp::create(b, loc, f32(), x);
        }
        if (et != f32())
          v = arith::TruncFOp::create(b, loc, et, v);
        return v;
      };
      // Registers i, i+1 are columns 8*(i/4) + col0 + {0, 1} of row row0 (+8
      // when (i/2) is odd).
      Value rb = (i / 2) % 2 ? rowBase8 : rowBase;
      Value col = add(col0, c32(8 * (i / 4)));
      Value colOff =
          constOf(colStride) == 1 ? col : Value(arith::MulIOp::create(b, loc, col, colStride));
      Value elem = add(rb, colOff);
      Value v0 = load(i), v1 = load(i + 1);
      Value gp = LLVM::GEPOp::create(b, loc, ptr(1), et, param, ArrayRef<LLVM::GEPArg>{elem});
      if (pairs) {
        auto vt = VectorType::get({2}, et);
        Value vec = LLVM::UndefOp::create(b, loc, vt);
        vec = LLVM::InsertElementOp::create(b, loc, vec, v0, c32(0));
        vec = LLVM::InsertElementOp::create(b, loc, vec, v1, c32(1));
        LLVM::StoreOp::create(b, loc, vec, gp, /*alignment=*/2 * (et == f32() ? 4 : 2));
      } else {
        LLVM::StoreOp::create(b, loc, v0, gp);
        Value gp1 = LLVM::GEPOp::create(b, loc, ptr(1), et, param,
                                        ArrayRef<LLVM::GEPArg>{add(elem, colStride)});
        LLVM::StoreOp::create(b, loc, v1, gp1);
      }
    };
    return chunks;
  }

  LogicalResult op(const kir::Op &op, std::string &error) {
    if (auto *o = op.as<kir::RoleOp>())
      return role(*o, error);
    if (auto *o = op.as<kir::BarrierArriveOp>()) {
      arrive(*o);
      return success();
    }
    if (auto *o = op.as<kir::BarrierWaitOp>()) {
      wait(*o);
      return success();
    }
    if (auto *o = op.as<kir::TmaLoadOp>())
      return tmaLoad(*o, error);
    if (auto *o = op.as<kir::WgmmaOp>())
      return wgmma(*o, error);
    if (op.as<kir::WgmmaCommitOp>()) {
      NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
      groupOpen = false;
      return success();
    }
    if (auto *o = op.as<kir::WgmmaWaitOp>()) {
      wgmmaWait(o->pending);
      return success();
    }
    if (op.as<kir::FenceProxyAsyncOp>()) {
      NVVM::FenceProxyOp::create(
          b, loc, NVVM::ProxyKind::async_shared,
          NVVM::SharedSpaceAttr::get(&cx.ctx, NVVM::SharedSpace::shared_cta));
      return success();
    }
    if (auto *o = op.as<kir::TmaStoreOp>())
      return lowerTmaStore(*this, *o, error);
    if (op.as<kir::TmaStoreCommitOp>()) {
      lowerTmaStoreCommit(*this);
      return success();
    }
    if (auto *o = op.as<kir::TmaStoreWaitOp>()) {
      lowerTmaStoreWait(*this, *o);
      return success();
    }
    if (auto *o = op.as<kir::UnaryOp>())
      return lowerWarpgroupConvert(*this, *o, error);
    if (auto *o = op.as<kir::LoadOp>())
      return lowerLdmatrixLoad(*this, *o, error);
    if (auto *o = op.as<kir::StoreOp>()) {
      if (o->dst.kind == kir::Access::Kind::Tile)
        return lowerStmatrixStore(*this, *o, error);
      return storeWarpgroupTile(*o, error);
    }
    error = "internal: not a Hopper op";
    return failure();
  }
};

HopperLowering::HopperLowering(EmitContext &cx) : impl_(std::make_unique<Impl>(cx)) {}
HopperLowering::~HopperLowering() = default;

bool HopperLowering::isHopperOp(const kir::Kernel &k, const kir::Op &op) {
  auto wg = [&](kir::TileId t) {
    return t < k.tiles.size() && k.tiles[t].scope == kir::RegisterScope::Warpgroup;
  };
  if (auto *s = op.as<kir::StoreOp>())
    return wg(s->src);
  // The F32 -> 16-bit convert (register A); other warpgroup elementwise ops
  // are K1241 before codegen (Layout.cpp).
  if (auto *u = op.as<kir::UnaryOp>())
    return wg(u->dst) && u->kind == kir::UnaryKind::Convert;
  if (auto *l = op.as<kir::LoadOp>())
    return wg(l->dst);
  return op.as<kir::RoleOp>() || op.as<kir::BarrierArriveOp>() || op.as<kir::BarrierWaitOp>() ||
         op.as<kir::TmaLoadOp>() || op.as<kir::WgmmaOp>() || op.as<kir::WgmmaCommitOp>() ||
         op.as<kir::WgmmaWaitOp>() || op.as<kir::FenceProxyAsyncOp>() || op.as<kir::TmaStoreOp>() ||
         op.as<kir::TmaStoreCommitOp>() || op.as<kir::TmaStoreWaitOp>();
}

void HopperLowering::prologue() { impl_->prologue(); }

void HopperLowering::epilogue() {
  if (usesClusterSharing(impl_->k))
    lowerClusterSync(*impl_);
}

LogicalResult HopperLowering::op(const kir::Op &op, std::string &error) {
  return impl_->op(op, error);
}

void HopperLowering::resetGroupState() { impl_->groupOpen = false; }

std::optional<StoreChunks> HopperLowering::storeChunks(const kir::StoreOp &o, std::string &error) {
  if (o.dst.kind == kir::Access::Kind::Tile)
    return stmatrixStoreChunks(*impl_, o, error);
  return impl_->globalStoreChunks(o, error);
}

Value HopperLowering::warpgroupTile(kir::TileId t) const {
  return t < impl_->wgTiles.size() ? impl_->wgTiles[t] : Value();
}

} // namespace kina::codegen::detail
