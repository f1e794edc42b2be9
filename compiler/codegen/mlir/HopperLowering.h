//===- HopperLowering.h - sm_90a ops of the tile IR to MLIR ------*- C++ -*-===//
//
// The Hopper op family (roles, mbarriers, TMA, wgmma, proxy fence and the
// stores of warpgroup tiles) has its own emitter, HopperToMLIR.cpp, which
// shares the tile emitter's context (TileToMLIR.cpp): its builder, index
// expressions, thread id, shared arena and parameters. The tile emitter
// forwards every op for which isHopperOp() holds, calls prologue() once at
// the function entry and resetGroupState() where control flow joins.
//
// Only compiler/codegen/mlir includes this header.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "codegen/HopperLayout.h"
#include "codegen/Layout.h"
#include "ir/TileIR.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kina::codegen::detail {

/// What the Hopper emitter borrows from the tile emitter.
struct EmitContext {
  mlir::MLIRContext &ctx;
  mlir::OpBuilder &b;
  mlir::Location loc;
  const ir::Kernel &kernel;
  const KernelLayout &layout;
  /// An index expression as an i32 (or i1 for conditions) at the insertion point.
  std::function<mlir::Value(const ir::IndexExpr &)> index;
  /// Emits a region of ops through the tile emitter (role bodies).
  std::function<mlir::LogicalResult(const ir::Block &, std::string &)> block;
  mlir::Value tid;  ///< i32 thread index in the block
  mlir::Value smem; ///< !llvm.ptr<3>: the arena base (1024-aligned when layout.alignBase1024)
  std::vector<mlir::Value> params;     ///< !llvm.ptr<1> per tensor parameter
  std::vector<mlir::Value> tensorMaps; ///< !llvm.ptr (byval, grid_constant) per TensorMapUse
  std::vector<TensorMapUse> maps;
};

/// A store of a [64, N] warpgroup tile split into chunks of consecutive
/// fragment registers: emit(q) stores registers [q * slotsPerChunk,
/// (q + 1) * slotsPerChunk), q in [0, count).
struct StoreChunks {
  int64_t slotsPerChunk = 1;
  int64_t count = 0;
  std::function<void(int64_t)> emit;
};

class HopperLowering {
public:
  explicit HopperLowering(EmitContext &cx);
  ~HopperLowering();

  /// Roles, barrier ops, TMA, wgmma ops, the proxy fence, and stores whose
  /// source is a warpgroup tile.
  static bool isHopperOp(const ir::Kernel &kernel, const ir::Op &op);
  /// At the function entry: allocas of the warpgroup tiles, then the
  /// mbarrier initialisation (thread 0), fence.mbarrier_init and bar.sync.
  void prologue();
  /// At the function end: the cluster barrier of a kernel whose CTAs share
  /// shared memory or barriers (ClusterToMLIR.cpp); nothing otherwise.
  void epilogue();
  mlir::LogicalResult op(const ir::Op &op, std::string &error);
  /// Forget whether a wgmma group is open (a wgmma.fence is emitted before
  /// the next wgmma): called at region boundaries.
  void resetGroupState();
  /// The alloca of a [64, N] warpgroup tile's N/2 F32 fragment registers
  /// (the elementwise ops of an epilogue, TileToMLIR.cpp, read and write them).
  mlir::Value warpgroupTile(ir::TileId t) const;
  /// The store of an F32 warpgroup tile (to global memory, or stmatrix into
  /// a shared stage) in chunks, its addresses emitted now.
  std::optional<StoreChunks> storeChunks(const ir::StoreOp &o, std::string &error);

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// The per-thread register count a kernel is launched with when its roles
/// set budgets (ir::launchRegisters), 0 otherwise (no maxnreg attribute).
unsigned roleLaunchRegisters(const ir::Kernel &kernel);

} // namespace kina::codegen::detail
