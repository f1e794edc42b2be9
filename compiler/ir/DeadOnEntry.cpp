//===- DeadOnEntry.cpp - Register tiles a loop body overwrites first ------===//
//
// One forward walk of the body decides, for every register tile, what the
// body does to it first on every path: reads it (its entry value is live),
// overwrites it whole (dead at entry), or neither (undecided: the ops after
// decide). Branches merge (both overwrite => overwrite; either reads =>
// read). An inner loop is walked for its first iteration, with its variable
// bound to its start so that `zero_when (k = 0)` folds, and once for a
// later iteration; its first-iteration overwrites count after it only when
// the checker proved it runs.
//
//===----------------------------------------------------------------------===//
#include "ir/DeadOnEntry.h"

#include <map>
#include <optional>

namespace kina::ir {
namespace {

enum class First : uint8_t { Read, Overwrite };
using Decided = std::map<TileId, First>;
using Bindings = std::map<VarId, int64_t>;

/// Inner loops deeper than this are not walked twice (the walk would be
/// exponential in the nesting); every tile they touch counts as read.
constexpr unsigned kMaxDepth = 6;

std::optional<int64_t> evaluate(const IndexExpr &e, const Bindings &vars) {
  using K = IndexExpr::Kind;
  switch (e.kind()) {
  case K::Const:
    return e.value();
  case K::Var: {
    auto it = vars.find(e.index());
    if (it == vars.end())
      return std::nullopt;
    return it->second;
  }
  case K::Not: {
    auto a = evaluate(e.lhs(), vars);
    if (!a)
      return std::nullopt;
    return *a == 0 ? 1 : 0;
  }
  case K::Dim:
  case K::BlockId:
  case K::WarpId:
  case K::WarpgroupId:
  case K::ClusterRank:
    return std::nullopt;
  default:
    break;
  }
  auto a = evaluate(e.lhs(), vars);
  auto b = evaluate(e.rhs(), vars);
  if (!a || !b)
    return std::nullopt;
  switch (e.kind()) {
  case K::Add:
    return *a + *b;
  case K::Sub:
    return *a - *b;
  case K::Mul:
    return *a * *b;
  case K::Eq:
    return *a == *b;
  case K::Ne:
    return *a != *b;
  case K::Lt:
    return *a < *b;
  case K::Le:
    return *a <= *b;
  case K::Gt:
    return *a > *b;
  case K::Ge:
    return *a >= *b;
  case K::And:
    return (*a != 0) && (*b != 0);
  case K::Or:
    return (*a != 0) || (*b != 0);
  default:
    return std::nullopt; // divisions: not needed for the conditions that matter
  }
}

class Walk {
public:
  explicit Walk(const Kernel &k) : k_(k) {}

  /// What `blk` does first to each register tile, with `vars` bound.
  Decided block(const Block &blk, Bindings vars, unsigned depth) {
    Decided d;
    for (const Op &op : blk.ops)
      this->op(op, vars, depth, d);
    return d;
  }

private:
  const Kernel &k_;

  bool isRegister(uint32_t t) const {
    return t < k_.tiles.size() && k_.tiles[t].space == MemSpace::Register;
  }
  void read(TileId t, Decided &d) const {
    if (isRegister(t))
      d.emplace(t, First::Read); // no effect once decided
  }
  void overwrite(TileId t, Decided &d) const {
    if (isRegister(t))
      d.emplace(t, First::Overwrite);
  }
  void read(const Access &a, Decided &d) const {
    if (a.kind == Access::Kind::Tile)
      read(a.id, d);
  }
  void read(const Operand &o, Decided &d) const {
    if (o.kind == Operand::Kind::Tile)
      read(o.tile, d);
  }
  /// Every register tile an op (and its regions) names counts as read.
  void readAll(const Block &blk, Decided &d) const {
    for (const Op &op : blk.ops)
      readAll(op, d);
  }
  void readAll(const Op &op, Decided &d) const {
    if (auto *o = op.as<ForOp>())
      return readAll(o->body, d);
    if (auto *o = op.as<IfOp>()) {
      readAll(o->thenBody, d);
      return readAll(o->elseBody, d);
    }
    if (auto *o = op.as<RoleOp>())
      return readAll(o->body, d);
    Decided local;
    Bindings none;
    leaf(op, none, local);
    for (const auto &[t, first] : local)
      read(t, d);
  }

  /// Merges a region's decisions into d for the tiles d has not decided:
  /// a read anywhere is a read; an overwrite counts only when `sure`.
  static void mergeOne(Decided &d, const Decided &region, bool sure) {
    for (const auto &[t, first] : region)
      if (first == First::Read || sure)
        d.emplace(t, first);
  }

  void op(const Op &op, Bindings &vars, unsigned depth, Decided &d) {
    if (auto *o = op.as<LetOp>()) {
      if (auto v = evaluate(o->value, vars))
        vars[o->var] = *v;
      else
        vars.erase(o->var);
      return;
    }
    if (auto *o = op.as<IfOp>()) {
      if (auto c = evaluate(o->cond, vars))
        return mergeOne(d, block(*c ? o->thenBody : o->elseBody, vars, depth), true);
      Decided a = block(o->thenBody, vars, depth), b = block(o->elseBody, vars, depth);
      for (const auto &[t, first] : a) {
        if (d.count(t))
          continue;
        auto other = b.find(t);
        if (first == First::Read || (other != b.end() && other->second == First::Read))
          d.emplace(t, First::Read);
        else if (other != b.end())
          d.emplace(t, First::Overwrite);
      }
      for (const auto &[t, first] : b)
        if (first == First::Read)
          d.emplace(t, First::Read);
      return;
    }
    if (auto *o = op.as<RoleOp>())
      return mergeOne(d, block(o->body, vars, depth), false);
    if (auto *o = op.as<ForOp>()) {
      if (depth >= kMaxDepth) {
        Decided all;
        readAll(o->body, all);
        return mergeOne(d, all, false);
      }
      Bindings firstVars = vars, laterVars = vars;
      if (auto lo = evaluate(o->lower, vars))
        firstVars[o->var] = *lo;
      else
        firstVars.erase(o->var);
      laterVars.erase(o->var);
      Decided first = block(o->body, firstVars, depth + 1);
      Decided later = block(o->body, laterVars, depth + 1);
      for (const auto &[t, f] : first)
        if (f == First::Read || o->runsAtLeastOnce)
          d.emplace(t, f);
      // Tiles the first iteration leaves alone may be read by a later one.
      for (const auto &[t, f] : later)
        if (f == First::Read && !first.count(t))
          d.emplace(t, First::Read);
      return;
    }
    leaf(op, vars, d);
  }

  /// Ops without regions: reads before the overwrite of the same op.
  void leaf(const Op &op, const Bindings &vars, Decided &d) const {
    if (op.as<LetOp>() || op.as<CpAsyncCommitOp>() || op.as<CpAsyncWaitOp>() ||
        op.as<BlockSyncOp>() || op.as<BarrierArriveOp>() || op.as<BarrierWaitOp>() ||
        op.as<WgmmaCommitOp>() || op.as<WgmmaWaitOp>() || op.as<FenceProxyAsyncOp>() ||
        op.as<TmaStoreCommitOp>() || op.as<TmaStoreWaitOp>())
      return;
    if (auto *o = op.as<FillOp>())
      return overwrite(o->dst, d);
    if (auto *o = op.as<CpAsyncOp>()) {
      read(o->dst, d);
      return read(o->src, d);
    }
    if (auto *o = op.as<MmaOp>()) {
      read(o->acc, d);
      read(o->a, d);
      read(o->b, d);
      return overwrite(o->dst, d);
    }
    if (auto *o = op.as<LoadOp>()) {
      read(o->src, d);
      return overwrite(o->dst, d);
    }
    if (auto *o = op.as<StoreOp>()) {
      read(o->src, d);
      return read(o->dst, d);
    }
    if (auto *o = op.as<UnaryOp>()) {
      read(o->src, d);
      return overwrite(o->dst, d);
    }
    if (auto *o = op.as<BinaryOp>()) {
      read(o->lhs, d);
      read(o->rhs, d);
      return overwrite(o->dst, d);
    }
    if (auto *o = op.as<ReduceOp>()) {
      read(o->src, d);
      return overwrite(o->dst, d);
    }
    if (auto *o = op.as<TransposeOp>()) {
      read(o->src, d);
      return overwrite(o->dst, d);
    }
    if (auto *o = op.as<TmaLoadOp>()) {
      read(o->dst, d);
      return read(o->src, d);
    }
    if (auto *o = op.as<TmaStoreOp>()) {
      read(o->dst, d);
      return read(o->src, d);
    }
    if (auto *o = op.as<WgmmaOp>()) {
      read(o->a, d);
      read(o->b, d);
      auto zero = evaluate(o->zeroWhen, vars);
      if (zero && *zero != 0)
        return overwrite(o->acc, d);
      return read(o->acc, d);
    }
    // An op this analysis does not know: it reads every tile it might name.
    for (size_t t = 0; t < k_.tiles.size(); ++t)
      read(static_cast<TileId>(t), d);
  }
};

/// Whether a wgmma group may be in flight after a block, given whether one
/// may be before it; records the state at every for body's entry.
class GroupFlow {
public:
  explicit GroupFlow(std::map<const ForOp *, bool> &entry) : entry_(entry) {}

  bool block(const Block &blk, bool inFlight) {
    auto key = std::make_pair(&blk, inFlight);
    if (auto it = memo_.find(key); it != memo_.end())
      return it->second;
    bool s = inFlight;
    for (const Op &op : blk.ops) {
      if (op.as<WgmmaOp>() || op.as<WgmmaCommitOp>()) {
        s = true;
      } else if (auto *o = op.as<WgmmaWaitOp>()) {
        if (o->pending == 0)
          s = false;
      } else if (auto *o = op.as<ForOp>()) {
        bool end = loopBody(*o, s);
        if (end && !s)
          end = loopBody(*o, true); // the second iteration starts in flight
        s = s || end;               // zero iterations keep the state
      } else if (auto *o = op.as<IfOp>()) {
        s = block(o->thenBody, s) || block(o->elseBody, s);
      } else if (auto *o = op.as<RoleOp>()) {
        s = s || block(o->body, s);
      } else if (!isKnownNonGroupOp(op)) {
        s = true; // an op this analysis does not know may issue a group
      }
    }
    memo_[key] = s;
    return s;
  }

private:
  std::map<const ForOp *, bool> &entry_;
  std::map<std::pair<const Block *, bool>, bool> memo_;

  bool loopBody(const ForOp &loop, bool inFlight) {
    bool &e = entry_[&loop];
    e = e || inFlight;
    return block(loop.body, inFlight);
  }
  static bool isKnownNonGroupOp(const Op &op) {
    return op.as<LetOp>() || op.as<FillOp>() || op.as<CpAsyncOp>() || op.as<CpAsyncCommitOp>() ||
           op.as<CpAsyncWaitOp>() || op.as<BlockSyncOp>() || op.as<MmaOp>() || op.as<LoadOp>() ||
           op.as<StoreOp>() || op.as<UnaryOp>() || op.as<BinaryOp>() || op.as<ReduceOp>() ||
           op.as<TransposeOp>() || op.as<BarrierArriveOp>() || op.as<BarrierWaitOp>() ||
           op.as<TmaLoadOp>() || op.as<FenceProxyAsyncOp>() || op.as<TmaStoreOp>() ||
           op.as<TmaStoreCommitOp>() || op.as<TmaStoreWaitOp>();
  }
};

} // namespace

DeadOnEntry::DeadOnEntry(const Kernel &kernel) : kernel_(kernel) {
  GroupFlow flow(groupInFlightAtEntry_);
  (void)flow.block(kernel.body, false);
}

std::vector<TileId> DeadOnEntry::tiles(const ForOp &loop) const {
  auto it = groupInFlightAtEntry_.find(&loop);
  bool inFlight = it == groupInFlightAtEntry_.end() || it->second; // unknown loop: assume so
  Walk w(kernel_);
  Decided d = w.block(loop.body, {}, 0);
  std::vector<TileId> dead;
  for (const auto &[t, first] : d)
    if (first == First::Overwrite &&
        !(inFlight && kernel_.tiles[t].scope == RegisterScope::Warpgroup))
      dead.push_back(t);
  return dead;
}

} // namespace kina::ir
