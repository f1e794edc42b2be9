//===- Builder.cpp - Building tile IR kernels -----------------------------===//
//
// KernelBuilder: id allocation, the region stack for `for`/`if`, and the
// bookkeeping of the open cp_async group.
//
//===----------------------------------------------------------------------===//
#include "ir/Builder.h"

namespace kina::ir {

KernelBuilder::KernelBuilder(std::string name, Span span) {
  kernel_.name = std::move(name);
  kernel_.span = span;
}

DimId KernelBuilder::addDim(std::string name, Span span) {
  kernel_.dims.push_back(Dim{std::move(name), span});
  return static_cast<DimId>(kernel_.dims.size() - 1);
}

ParamId KernelBuilder::addTensor(std::string name, DType dtype, std::vector<IndexExpr> shape,
                                 bool writable, Span span) {
  kernel_.params.push_back(
      TensorParam{std::move(name), dtype, std::move(shape), writable, false, span});
  return static_cast<ParamId>(kernel_.params.size() - 1);
}

ParamId KernelBuilder::addResult(std::string name, DType dtype, std::vector<IndexExpr> shape,
                                 Span span) {
  kernel_.params.push_back(TensorParam{std::move(name), dtype, std::move(shape), true, true, span});
  return static_cast<ParamId>(kernel_.params.size() - 1);
}

ScalarId KernelBuilder::addScalar(std::string name, DType dtype, Span span) {
  kernel_.scalars.push_back(ScalarParam{std::move(name), dtype, span});
  return static_cast<ScalarId>(kernel_.scalars.size() - 1);
}

void KernelBuilder::addRequirement(IndexExpr condition, std::string text, Span span) {
  kernel_.requirements.push_back(Requirement{std::move(condition), std::move(text), span});
}

void KernelBuilder::addCapability(std::string name) {
  kernel_.capabilities.push_back(std::move(name));
}

void KernelBuilder::setBlockGrid(IndexExpr g0, IndexExpr g1, IndexExpr g2) {
  kernel_.blockGrid = {std::move(g0), std::move(g1), std::move(g2)};
}

void KernelBuilder::setWarpGrid(int64_t w0, int64_t w1) { kernel_.warpGrid = {w0, w1}; }

void KernelBuilder::setWarpgroups(int64_t g) { kernel_.warpgroups = g; }

void KernelBuilder::setCluster(int64_t c0, int64_t c1, int64_t c2) {
  kernel_.cluster = {c0, c1, c2};
}

TileId KernelBuilder::addSharedTile(std::string name, DType dtype, std::vector<int64_t> shape,
                                    Span span, SharedLayout layout) {
  kernel_.tiles.push_back(TileDecl{std::move(name), dtype, MemSpace::Shared, std::move(shape), span,
                                   layout, RegisterScope::Warp});
  return static_cast<TileId>(kernel_.tiles.size() - 1);
}

TileId KernelBuilder::addRegisterTile(std::string name, DType dtype, std::vector<int64_t> shape,
                                      Span span, RegisterScope scope) {
  kernel_.tiles.push_back(TileDecl{std::move(name), dtype, MemSpace::Register, std::move(shape),
                                   span, SharedLayout::None, scope});
  return static_cast<TileId>(kernel_.tiles.size() - 1);
}

BarrierId KernelBuilder::addBarrier(std::string name, int64_t stages, int64_t arrivals, Span span) {
  kernel_.barriers.push_back(BarrierDecl{std::move(name), stages, arrivals, span});
  return static_cast<BarrierId>(kernel_.barriers.size() - 1);
}

Block &KernelBuilder::current() {
  if (frames_.empty())
    return kernel_.body;
  Frame &f = frames_.back();
  if (auto *loop = std::get_if<ForOp>(&f.node))
    return loop->body;
  if (auto *role = std::get_if<RoleOp>(&f.node))
    return role->body;
  auto &branch = std::get<IfOp>(f.node);
  return f.inElse ? branch.elseBody : branch.thenBody;
}

void KernelBuilder::append(Op::Node node, Span span) {
  current().ops.push_back(Op{std::move(node), span});
}

VarId KernelBuilder::let(std::string name, IndexExpr value, Span span) {
  kernel_.vars.push_back(Var{std::move(name)});
  VarId v = static_cast<VarId>(kernel_.vars.size() - 1);
  append(LetOp{v, std::move(value)}, span);
  return v;
}

void KernelBuilder::fill(TileId dst, ScalarExpr value, Span span) {
  append(FillOp{dst, std::move(value)}, span);
}

void KernelBuilder::cpAsync(Access dst, Access src, Span span) {
  if (!openGroup_)
    openGroup_ = kernel_.numTokens++;
  append(CpAsyncOp{std::move(dst), std::move(src), *openGroup_}, span);
}

TokenId KernelBuilder::cpAsyncCommit(Span span) {
  if (!openGroup_)
    openGroup_ = kernel_.numTokens++;
  TokenId t = *openGroup_;
  openGroup_.reset();
  append(CpAsyncCommitOp{t}, span);
  committed_.push_back(t);
  return t;
}

void KernelBuilder::cpAsyncWait(unsigned pending, Span span) {
  CpAsyncWaitOp op;
  op.pending = pending;
  // Groups committed earlier in program order, except the newest `pending`.
  if (committed_.size() > pending)
    op.completes.assign(committed_.begin(), committed_.end() - pending);
  append(std::move(op), span);
}

void KernelBuilder::blockSync(Span span) { append(BlockSyncOp{}, span); }

void KernelBuilder::mma(TileId dst, TileId acc, Access a, Access b, Span span, bool transB,
                        bool dp4a) {
  append(MmaOp{dst, acc, std::move(a), std::move(b), transB, dp4a}, span);
}

void KernelBuilder::load(TileId dst, Access src, Span span) {
  append(LoadOp{dst, std::move(src)}, span);
}

void KernelBuilder::store(Access dst, TileId src, bool convert, Span span) {
  append(StoreOp{std::move(dst), src, convert}, span);
}

void KernelBuilder::unary(UnaryKind kind, TileId dst, Operand src, Span span) {
  append(UnaryOp{kind, dst, src}, span);
}

void KernelBuilder::binary(BinaryKind kind, TileId dst, Operand lhs, Operand rhs, Span span) {
  append(BinaryOp{kind, dst, lhs, rhs}, span);
}

void KernelBuilder::rowReduce(ReduceKind kind, TileId dst, TileId src, Span span) {
  append(ReduceOp{kind, dst, src}, span);
}

void KernelBuilder::colReduce(ReduceKind kind, TileId dst, TileId src, Span span) {
  append(ReduceOp{kind, dst, src, /*columns=*/true}, span);
}

void KernelBuilder::transpose(TileId dst, TileId src, Span span) {
  append(TransposeOp{dst, src}, span);
}

void KernelBuilder::barrierArrive(BarrierId b, IndexExpr stage, int64_t expectTxBytes, Span span) {
  append(BarrierArriveOp{b, std::move(stage), expectTxBytes}, span);
}

void KernelBuilder::barrierWait(BarrierId b, IndexExpr stage, IndexExpr round, Span span) {
  append(BarrierWaitOp{b, std::move(stage), std::move(round)}, span);
}

void KernelBuilder::tmaLoad(Access dst, Access src, BarrierId b, IndexExpr stage, Span span) {
  append(TmaLoadOp{std::move(dst), std::move(src), b, std::move(stage)}, span);
}

void KernelBuilder::tmaLoad(Access dst, Access src, BarrierId b, IndexExpr stage, bool multicast,
                            Span span) {
  append(TmaLoadOp{std::move(dst), std::move(src), b, std::move(stage), multicast}, span);
}

void KernelBuilder::barrierArriveCluster(BarrierId b, IndexExpr stage, Span span) {
  append(BarrierArriveOp{b, std::move(stage), 0, true}, span);
}

void KernelBuilder::wgmma(TileId acc, Access a, Access b, IndexExpr zeroWhen, Span span) {
  append(WgmmaOp{acc, std::move(a), std::move(b), std::move(zeroWhen)}, span);
}

void KernelBuilder::wgmmaCommit(Span span) { append(WgmmaCommitOp{}, span); }

void KernelBuilder::wgmmaWait(unsigned pending, Span span) { append(WgmmaWaitOp{pending}, span); }

void KernelBuilder::fenceProxyAsync(Span span) { append(FenceProxyAsyncOp{}, span); }

void KernelBuilder::tmaStore(Access dst, Access src, Span span) {
  append(TmaStoreOp{std::move(dst), std::move(src)}, span);
}

void KernelBuilder::tmaStoreCommit(Span span) { append(TmaStoreCommitOp{}, span); }

void KernelBuilder::tmaStoreWait(unsigned pending, Span span) {
  append(TmaStoreWaitOp{pending}, span);
}

IndexExpr KernelBuilder::falseCondition() {
  return IndexExpr::binary(IndexExpr::Kind::Ne, IndexExpr::constant(0), IndexExpr::constant(0));
}

void KernelBuilder::beginRole(std::string name, int64_t firstWarpgroup, int64_t lastWarpgroup,
                              int64_t registers, Span span) {
  frames_.push_back(
      Frame{RoleOp{std::move(name), firstWarpgroup, lastWarpgroup, registers, {}}, span, false});
}

void KernelBuilder::endRole() {
  if (frames_.empty() || !std::holds_alternative<RoleOp>(frames_.back().node)) {
    if (misuse_.empty())
      misuse_ = "endRole() without a matching beginRole()";
    return;
  }
  Frame f = std::move(frames_.back());
  frames_.pop_back();
  append(std::move(f.node), f.span);
}

VarId KernelBuilder::beginFor(std::string name, IndexExpr lower, IndexExpr upper, Span span) {
  return beginFor(std::move(name), std::move(lower), std::move(upper), IndexExpr::constant(1),
                  span);
}

VarId KernelBuilder::beginFor(std::string name, IndexExpr lower, IndexExpr upper, IndexExpr step,
                              Span span) {
  kernel_.vars.push_back(Var{std::move(name)});
  VarId v = static_cast<VarId>(kernel_.vars.size() - 1);
  frames_.push_back(
      Frame{ForOp{v, std::move(lower), std::move(upper), {}, std::move(step)}, span, false});
  return v;
}

void KernelBuilder::endFor() {
  if (frames_.empty() || !std::holds_alternative<ForOp>(frames_.back().node)) {
    if (misuse_.empty())
      misuse_ = "endFor() without a matching beginFor()";
    return;
  }
  Frame f = std::move(frames_.back());
  frames_.pop_back();
  append(std::move(f.node), f.span);
}

void KernelBuilder::markLoopRuns() {
  for (auto it = frames_.rbegin(); it != frames_.rend(); ++it)
    if (auto *f = std::get_if<ForOp>(&it->node)) {
      f->runsAtLeastOnce = true;
      return;
    }
}

void KernelBuilder::beginIf(IndexExpr cond, Span span) {
  frames_.push_back(Frame{IfOp{std::move(cond), {}, {}}, span, false});
}

void KernelBuilder::beginElse() {
  if (frames_.empty() || !std::holds_alternative<IfOp>(frames_.back().node) ||
      frames_.back().inElse) {
    if (misuse_.empty())
      misuse_ = "beginElse() outside the then-region of an if";
    return;
  }
  frames_.back().inElse = true;
}

void KernelBuilder::endIf() {
  if (frames_.empty() || !std::holds_alternative<IfOp>(frames_.back().node)) {
    if (misuse_.empty())
      misuse_ = "endIf() without a matching beginIf()";
    return;
  }
  Frame f = std::move(frames_.back());
  frames_.pop_back();
  append(std::move(f.node), f.span);
}

llvm::Expected<Kernel> KernelBuilder::finish() {
  if (!misuse_.empty())
    return llvm::createStringError("tile IR builder for '" + kernel_.name + "': " + misuse_);
  if (!frames_.empty())
    return llvm::createStringError("tile IR builder for '" + kernel_.name +
                                   "': " + std::to_string(frames_.size()) +
                                   " region(s) left open (missing endFor/endIf/endRole)");
  Kernel k = std::move(kernel_);
  kernel_ = Kernel{};
  committed_.clear();
  openGroup_.reset();
  return k;
}

} // namespace kina::ir
