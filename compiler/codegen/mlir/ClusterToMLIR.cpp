//===- ClusterToMLIR.cpp - cluster multicast and cluster arrivals to NVVM -===//
//
// The cluster op family of the Hopper emitter (s3.md "Cluster multicast"):
// the CTAs of a cluster share their operands through TMA multicast and
// release each other's ring stages through remote mbarrier arrivals.
//
//  * `tma_load ... multicast`: cp.async.bulk.tensor.2d.shared::cluster.
//    global.mbarrier::complete_tx::bytes.multicast::cluster with ctaMask =
//    every CTA of the cluster (PTX ISA cp.async.bulk.tensor: the box lands
//    at the same CTA-relative offset in each destination CTA, and the
//    complete_tx signal goes to the mbarrier at the same CTA-relative offset
//    in each of them). The NVVM op's multicast_mask operand gives exactly
//    this form (HopperToMLIR.cpp passes clusterMulticastMask());
//  * `arrive B[s] cluster`: after the warpgroup barrier (the warpgroup's
//    earlier work, its wgmma_wait included, is ordered before), thread 0 of
//    the warpgroup arrives once on stage s of B in every CTA of the cluster:
//    `mapa.shared::cluster` of the barrier's address to rank r, then
//    `mbarrier.arrive.shared::cluster.b64 _, [remote]`;
//  * the memory order of that release, and of the waits on a barrier that
//    receives cluster arrivals, depends on how the released stages are read.
//    When only the async proxy reads a multicast destination (wgmma, TMA
//    store), every read is complete before the arrival (wgmma.wait_group,
//    cp.async.bulk.wait_group.read), so nothing is left for a fence to order:
//    the arrive keeps the default .release.cta and the wait .acquire.cta,
//    the form of CUTLASS's ClusterBarrier. `.release.cluster` would cost a
//    MEMBAR.ALL.CTA + MEMBAR.ALL.GPU before each remote arrival in the
//    consumer's loop (ptxas 13, sm_90a), and `.acquire.cluster` a CCTL.IVALL
//    after each wait. When a generic-proxy access (ld/ldmatrix, st, mma.sync
//    operands, cp.async) touches a multicast destination, an outstanding
//    generic read could still be in flight at the arrival: then the arrive
//    is `.release.cluster` and the waits on that barrier are
//    `mbarrier.try_wait.parity.acquire.cluster` (a retry loop in inline PTX,
//    since nvvm.mbarrier.try_wait.parity has no scope);
//  * a kernel that uses either construct ends with a cluster barrier
//    (barrier.cluster.arrive.release + wait.acquire, every thread): no CTA
//    exits while a peer may still multicast into its shared memory or
//    arrive on its barriers. The start (barrier init, fence.mbarrier_init
//    .release.cluster, cluster barrier before any role) is the cluster
//    launch's prologue in HopperToMLIR.cpp.
//
//===----------------------------------------------------------------------===//
#include "codegen/mlir/HopperEmit.h"

namespace kina::codegen::detail {

using namespace mlir;
namespace kir = kina::ir;

namespace {

template <typename F> void walkOps(const kir::Block &blk, F &&f) {
  for (const kir::Op &op : blk.ops) {
    f(op);
    if (auto *l = op.as<kir::ForOp>())
      walkOps(l->body, f);
    else if (auto *r = op.as<kir::RoleOp>())
      walkOps(r->body, f);
    else if (auto *i = op.as<kir::IfOp>()) {
      walkOps(i->thenBody, f);
      walkOps(i->elseBody, f);
    }
  }
}

} // namespace

bool usesClusterSharing(const kir::Kernel &k) {
  if (k.clusterSize() <= 1)
    return false;
  bool uses = false;
  walkOps(k.body, [&](const kir::Op &op) {
    if (auto *t = op.as<kir::TmaLoadOp>(); t && t->multicast)
      uses = true;
    if (auto *a = op.as<kir::BarrierArriveOp>(); a && a->cluster)
      uses = true;
  });
  return uses;
}

bool clusterGenericAccess(const kir::Kernel &k) {
  std::vector<bool> multicastDst(k.tiles.size(), false);
  walkOps(k.body, [&](const kir::Op &op) {
    if (auto *t = op.as<kir::TmaLoadOp>(); t && t->multicast && t->dst.id < k.tiles.size())
      multicastDst[t->dst.id] = true;
  });
  auto touches = [&](const kir::Access &a) {
    return a.kind == kir::Access::Kind::Tile && a.id < k.tiles.size() && multicastDst[a.id];
  };
  bool generic = false;
  walkOps(k.body, [&](const kir::Op &op) {
    if (auto *l = op.as<kir::LoadOp>())
      generic = generic || touches(l->src);
    else if (auto *st = op.as<kir::StoreOp>())
      generic = generic || touches(st->dst);
    else if (auto *m = op.as<kir::MmaOp>())
      generic = generic || touches(m->a) || touches(m->b);
    else if (auto *c = op.as<kir::CpAsyncOp>())
      generic = generic || touches(c->dst);
  });
  return generic;
}

std::vector<bool> clusterArrivedBarriers(const kir::Kernel &k) {
  std::vector<bool> out(k.barriers.size(), false);
  if (k.clusterSize() <= 1 || !clusterGenericAccess(k))
    return out;
  walkOps(k.body, [&](const kir::Op &op) {
    if (auto *a = op.as<kir::BarrierArriveOp>(); a && a->cluster && a->barrier < out.size())
      out[a->barrier] = true;
  });
  return out;
}

Value clusterMulticastMask(HopperEmit &e) {
  // Bit r = the CTA of rank r (%cluster_ctarank) in the cluster; at most 8
  // CTAs (ir::Verifier), so the 16-bit mask always fits.
  int64_t n = e.k.clusterSize();
  return arith::ConstantOp::create(e.b, e.loc,
                                   e.b.getI16IntegerAttr(static_cast<int16_t>((1 << n) - 1)));
}

void lowerClusterArrive(HopperEmit &e, const kir::BarrierArriveOp &o) {
  e.warpgroupBarrier();
  Value stage = e.cx.index(o.stage);
  NVVM::MemScopeKind scope =
      clusterGenericAccess(e.k) ? NVVM::MemScopeKind::CLUSTER : NVVM::MemScopeKind::CTA;
  e.elected([&] {
    Value bar = e.barrierPtr(o.barrier, stage);
    for (int64_t r = 0; r < e.k.clusterSize(); ++r) {
      Value remote = NVVM::MapaOp::create(e.b, e.loc, e.ptr(7), bar, e.c32(r));
      NVVM::MBarrierArriveOp::create(e.b, e.loc, Type(), remote, Value(), scope, /*relaxed=*/false);
    }
  });
}

void lowerClusterWait(HopperEmit &e, Value bar, Value parity) {
  // The retry loop of nvvm.mbarrier.try_wait.parity, with the cluster-scope
  // acquire that the op cannot express. Labels inside `{ }` are local to
  // the block, so the asm may be inlined many times.
  Value addr = LLVM::PtrToIntOp::create(e.b, e.loc, e.i32(), bar);
  std::string text = "{\n.reg .pred p;\nKINA_CLUSTER_WAIT:\n"
                     "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [$0], $1, "
                     "10000000;\n@!p bra KINA_CLUSTER_WAIT;\n}";
  LLVM::InlineAsmOp::create(
      e.b, e.loc, TypeRange{}, ValueRange{addr, parity}, text, "r,r,~{memory}",
      /*has_side_effects=*/true, /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
      LLVM::AsmDialectAttr::get(&e.cx.ctx, LLVM::AsmDialect::AD_ATT), ArrayAttr());
}

void lowerClusterSync(HopperEmit &e) {
  // barrier.cluster.arrive is a release and barrier.cluster.wait an acquire
  // by default (PTX ISA barrier.cluster), both at cluster scope.
  NVVM::ClusterArriveOp::create(e.b, e.loc, UnitAttr::get(&e.cx.ctx));
  NVVM::ClusterWaitOp::create(e.b, e.loc, UnitAttr::get(&e.cx.ctx));
}

} // namespace kina::codegen::detail
