//===- Builder.h - Building tile IR kernels ---------------------*- C++ -*-===//
//
// KernelBuilder is the API the frontend (checked AST -> tile IR) and the unit
// tests use to construct an ir::Kernel. It keeps an insertion point (the
// innermost open `for`/`if` region), hands out ids for dims, params, tiles,
// variables and async-copy group tokens, and tracks the open cp_async group
// so callers never manage tokens by hand: cpAsync() joins the open group,
// cpAsyncCommit() closes it and returns its token.
//
// The builder does not validate: call ir::verify() on the finished kernel.
// Misuse of the nesting API (endFor without beginFor, ...) is recorded and
// reported by finish() as an error string, never a crash.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "ir/TileIR.h"

#include "llvm/Support/Error.h"

namespace kina::ir {

class KernelBuilder {
public:
  explicit KernelBuilder(std::string name, Span span = {});

  // ---- signature ----
  DimId addDim(std::string name, Span span = {});
  IndexExpr dim(DimId d) const { return IndexExpr::dim(d); }
  ParamId addTensor(std::string name, DType dtype, std::vector<IndexExpr> shape,
                    bool writable = false, Span span = {});
  /// The kernel's result tensor (writable, passed after the inputs).
  ParamId addResult(std::string name, DType dtype, std::vector<IndexExpr> shape, Span span = {});
  /// A scalar parameter `(eps : F32)`; use it with ScalarExpr::param.
  ScalarId addScalar(std::string name, DType dtype, Span span = {});
  void addRequirement(IndexExpr condition, std::string text, Span span = {});
  void addCapability(std::string name);
  void setBlockGrid(IndexExpr g0, IndexExpr g1 = IndexExpr::constant(1),
                    IndexExpr g2 = IndexExpr::constant(1));
  void setWarpGrid(int64_t w0, int64_t w1 = 1);
  /// `warpgroup_grid [g]` (instead of a warp grid): 128 * g threads per block.
  void setWarpgroups(int64_t g);
  /// `cluster [c0, c1, c2]` on the block grid.
  void setCluster(int64_t c0, int64_t c1 = 1, int64_t c2 = 1);

  // ---- storage ----
  TileId addSharedTile(std::string name, DType dtype, std::vector<int64_t> shape, Span span = {},
                       SharedLayout layout = SharedLayout::None);
  TileId addRegisterTile(std::string name, DType dtype, std::vector<int64_t> shape, Span span = {},
                         RegisterScope scope = RegisterScope::Warp);
  /// `shared name : Barrier[stages, arrivals=arrivals]`.
  BarrierId addBarrier(std::string name, int64_t stages, int64_t arrivals, Span span = {});

  // ---- ops, appended at the insertion point ----
  /// `let name = value in`: returns the variable to reference with IndexExpr::var.
  VarId let(std::string name, IndexExpr value, Span span = {});
  void fill(TileId dst, ScalarExpr value, Span span = {});
  /// Joins the open async group (opening one if none is open).
  void cpAsync(Access dst, Access src, Span span = {});
  /// Closes the open group and returns its token (opens an empty one if none).
  TokenId cpAsyncCommit(Span span = {});
  /// `cp_async_wait_group pending`; pending = 0 is `cp_async_wait_all`.
  void cpAsyncWait(unsigned pending, Span span = {});
  void blockSync(Span span = {});
  void mma(TileId dst, TileId acc, Access a, Access b, Span span = {}, bool transB = false,
           bool dp4a = false);
  void load(TileId dst, Access src, Span span = {});
  void store(Access dst, TileId src, bool convert = false, Span span = {});
  void unary(UnaryKind kind, TileId dst, Operand src, Span span = {});
  void binary(BinaryKind kind, TileId dst, Operand lhs, Operand rhs, Span span = {});
  void rowReduce(ReduceKind kind, TileId dst, TileId src, Span span = {});
  /// `col_sum` / `col_max`: [R, C] -> [1, C].
  void colReduce(ReduceKind kind, TileId dst, TileId src, Span span = {});
  void transpose(TileId dst, TileId src, Span span = {});
  // Masks and ragged edges (Masked.cpp).
  void maskedLoad(TileId dst, Access src, ScalarExpr fill, Span span = {});
  void maskedCpAsync(Access dst, Access src, Span span = {});
  void maskedStore(Access dst, TileId src, bool convert = false, Span span = {});
  void indexTile(TileId dst, unsigned axis, Span span = {});
  void select(TileId dst, CompareKind cmp, Operand lhs, Operand rhs, Operand onTrue,
              Operand onFalse, Span span = {});
  // Atomics (Atomics.cpp): `dst <- atomic_add src`, possibly masked.
  void atomicStore(Access dst, TileId src, AtomicKind kind, bool masked, Span span = {});

  // ---- Hopper: barriers, TMA, wgmma ----
  /// `arrive b[stage]`, or with expectTxBytes > 0 `arrive b[stage] expect_tx E`.
  void barrierArrive(BarrierId b, IndexExpr stage, int64_t expectTxBytes = 0, Span span = {});
  void barrierWait(BarrierId b, IndexExpr stage, IndexExpr round, Span span = {});
  void tmaLoad(Access dst, Access src, BarrierId b, IndexExpr stage, Span span = {});
  /// `tma_load dst <- src multicast completes b[stage]` (multicast = true).
  void tmaLoad(Access dst, Access src, BarrierId b, IndexExpr stage, bool multicast, Span span);
  /// `arrive b[stage] cluster`: one arrival on the stage in every CTA of the cluster.
  void barrierArriveCluster(BarrierId b, IndexExpr stage, Span span = {});
  /// `acc <- wgmma acc a b zero_when (zeroWhen)`; pass IndexExpr::binary(Eq, 0, 1)
  /// or falseCondition() when there is no zero_when.
  void wgmma(TileId acc, Access a, Access b, IndexExpr zeroWhen = falseCondition(), Span span = {});
  void wgmmaCommit(Span span = {});
  void wgmmaWait(unsigned pending, Span span = {});
  void fenceProxyAsync(Span span = {});
  /// `tma_store dst <- src` (dst a global slice, src a swizzled shared stage).
  void tmaStore(Access dst, Access src, Span span = {});
  void tmaStoreCommit(Span span = {});
  void tmaStoreWait(unsigned pending, Span span = {});
  /// The constant-false condition (`0 != 0`), the default of zero_when.
  static IndexExpr falseCondition();

  // ---- structured control flow ----
  /// Opens `for name in (lower .. upper) {`; returns the loop variable.
  VarId beginFor(std::string name, IndexExpr lower, IndexExpr upper, Span span = {});
  /// Opens `for name in (lower .. upper step step) {`.
  VarId beginFor(std::string name, IndexExpr lower, IndexExpr upper, IndexExpr step,
                 Span span = {});
  void endFor();
  /// Marks the innermost open for loop as proved to run at least once.
  void markLoopRuns();
  /// Opens `role name (warpgroup first .. last) registers R {` (R = 0: none).
  void beginRole(std::string name, int64_t firstWarpgroup, int64_t lastWarpgroup,
                 int64_t registers = 0, Span span = {});
  void endRole();
  void beginIf(IndexExpr cond, Span span = {});
  /// Switches the insertion point from the then-region to the else-region.
  void beginElse();
  void endIf();

  // ---- what has been declared so far ----
  const TileDecl &tileDecl(TileId t) const { return kernel_.tiles[t]; }
  const TensorParam &tensorParam(ParamId p) const { return kernel_.params[p]; }

  /// The finished kernel, or an error when regions are left open or the
  /// nesting API was misused. The builder is empty afterwards.
  llvm::Expected<Kernel> finish();

private:
  Block &current();
  void append(Op::Node node, Span span);

  Kernel kernel_;
  struct Frame {
    Op::Node node; // ForOp, IfOp or RoleOp under construction
    Span span;
    bool inElse = false;
  };
  std::vector<Frame> frames_;
  std::optional<TokenId> openGroup_;
  std::vector<TokenId> committed_; // straight-line commit order, for completes
  std::string misuse_;
};

} // namespace kina::ir
