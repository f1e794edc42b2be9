//===- TmaStoreToMLIR.cpp - tma_store and its bulk groups to NVVM ---------===//
//
// `tma_store dst <- src` is a bulk tensor copy shared::cta -> global
// (PTX ISA cp.async.bulk.tensor, .global.shared::cta.bulk_group). Bulk
// groups are per thread, so one fixed thread issues, commits and waits:
// thread 0 of the warpgroup.
//
//  * tma_store: a warpgroup barrier first (`bar.sync 1+wg, 128`), so that
//    the 128 threads' generic writes of the stage and their proxy fences are
//    ordered before the async-proxy read; then thread 0 issues one box per
//    128-byte panel of the stage (box [rows, 64] for 16-bit types, the map
//    of planTensorMaps), coordinates inner first;
//  * tma_store_commit: thread 0, cp.async.bulk.commit_group;
//  * tma_store_wait N: thread 0, cp.async.bulk.wait_group.read N (the
//    shared source of all but the newest N groups may be rewritten), then
//    the warpgroup barrier, so no thread rewrites the stage before that;
//  * the end of a role that stores: thread 0, cp.async.bulk.wait_group 0
//    (the writes to global memory are complete, not only the reads of
//    shared memory, before the block may exit).
//
//===----------------------------------------------------------------------===//
#include "codegen/mlir/HopperEmit.h"

namespace kina::codegen::detail {

using namespace mlir;
namespace kir = kina::ir;

LogicalResult lowerTmaStore(HopperEmit &e, const kir::TmaStoreOp &o, std::string &error) {
  int map = tensorMapIndex(e.cx.maps, e.k, o);
  if (map < 0 || static_cast<size_t>(map) >= e.cx.tensorMaps.size()) {
    error = "internal: tma_store has no tensor map parameter";
    return failure();
  }
  const SharedTileLayout &sl = *e.cx.layout.shared[o.src.id];
  int64_t panelCols = e.cx.maps[map].boxCols;
  int64_t panels = sl.panelled ? sl.cols / panelCols : 1;
  Value base = e.tileByteOffset(o.src);
  Value col0 = e.cx.index(o.dst.slice[1].offset), row0 = e.cx.index(o.dst.slice[0].offset);
  Value desc = e.cx.tensorMaps[map];
  e.warpgroupBarrier();
  e.elected([&] {
    for (int64_t p = 0; p < panels; ++p) {
      Value src = e.sharedAt(e.add(base, e.c32(p * static_cast<int64_t>(sl.panelBytes))));
      SmallVector<Value> coords = {e.add(col0, e.c32(p * panelCols)), row0}; // innermost first
      NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp::create(e.b, e.loc, desc, src, coords, Value(),
                                                         NVVM::TMAStoreMode::TILE, Value());
    }
  });
  return success();
}

void lowerTmaStoreCommit(HopperEmit &e) {
  e.elected([&] { NVVM::CpAsyncBulkCommitGroupOp::create(e.b, e.loc); });
}

void lowerTmaStoreWait(HopperEmit &e, const kir::TmaStoreWaitOp &o) {
  e.elected([&] {
    NVVM::CpAsyncBulkWaitGroupOp::create(e.b, e.loc, static_cast<uint32_t>(o.pending),
                                         UnitAttr::get(&e.cx.ctx));
  });
  e.warpgroupBarrier();
}

void lowerTmaStoreRoleEnd(HopperEmit &e) {
  e.elected([&] { NVVM::CpAsyncBulkWaitGroupOp::create(e.b, e.loc, 0u, UnitAttr()); });
}

bool hasTmaStore(const kir::Block &blk) {
  for (const kir::Op &op : blk.ops) {
    if (op.as<kir::TmaStoreOp>())
      return true;
    if (auto *f = op.as<kir::ForOp>(); f && hasTmaStore(f->body))
      return true;
    if (auto *i = op.as<kir::IfOp>(); i && (hasTmaStore(i->thenBody) || hasTmaStore(i->elseBody)))
      return true;
    if (auto *r = op.as<kir::RoleOp>(); r && hasTmaStore(r->body))
      return true;
  }
  return false;
}

} // namespace kina::codegen::detail
