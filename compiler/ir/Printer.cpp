//===- Printer.cpp - Textual form of the tile IR --------------------------===//
//
// Prints a Kernel as indented text: the signature (dims, params, requires,
// grids, tiles) followed by the structured op list. Names of dims, tiles and
// vars are used where they are in range; out-of-range ids print as `?N` so
// that malformed IR can still be printed while debugging.
//
//===----------------------------------------------------------------------===//
#include "ir/Printer.h"

#include <cstdio>
#include <sstream>

namespace kina::ir {
namespace {

using Kind = IndexExpr::Kind;

int precedence(Kind k) {
  switch (k) {
  case Kind::Or:
    return 1;
  case Kind::And:
    return 2;
  case Kind::Not:
    return 3;
  case Kind::Eq:
  case Kind::Ne:
  case Kind::Lt:
  case Kind::Le:
  case Kind::Gt:
  case Kind::Ge:
    return 4;
  case Kind::Add:
  case Kind::Sub:
    return 5;
  case Kind::Mul:
  case Kind::Div:
  case Kind::Mod:
    return 6;
  default:
    return 7;
  }
}

std::string formatDouble(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", v);
  std::string s = buf;
  if (s.find_first_of(".eEn") == std::string::npos)
    s += ".0";
  return s;
}

class Printer {
public:
  explicit Printer(const Kernel &k) : k_(k) {}

  std::string index(const IndexExpr &e, int parentPrec = 0) const {
    std::string s;
    switch (e.kind()) {
    case Kind::Const:
      return std::to_string(e.value());
    case Kind::Dim:
      return e.index() < k_.dims.size() ? k_.dims[e.index()].name
                                        : "?dim" + std::to_string(e.index());
    case Kind::BlockId:
      return "block_id " + std::to_string(e.index());
    case Kind::WarpId:
      return "warp_id " + std::to_string(e.index());
    case Kind::WarpgroupId:
      return "warpgroup_id";
    case Kind::ClusterRank:
      return "cluster_rank";
    case Kind::Var:
      return varName(e.index());
    case Kind::Not:
      s = "not " + index(e.lhs(), precedence(Kind::Not));
      break;
    case Kind::FloorDiv:
    case Kind::CeilDiv:
      s = std::string(indexKindSpelling(e.kind())) + " " + index(e.lhs(), 8) + " " +
          index(e.rhs(), 8);
      break;
    default: {
      int p = precedence(e.kind());
      s = index(e.lhs(), p) + " " + indexKindSpelling(e.kind()) + " " + index(e.rhs(), p + 1);
      break;
    }
    }
    return precedence(e.kind()) < parentPrec ? "(" + s + ")" : s;
  }

  std::string varName(VarId v) const {
    return v < k_.vars.size() ? "%" + k_.vars[v].name : "%?var" + std::to_string(v);
  }
  std::string tileName(TileId t) const {
    return t < k_.tiles.size() ? "%" + k_.tiles[t].name : "%?tile" + std::to_string(t);
  }
  std::string paramName(ParamId p) const {
    return p < k_.params.size() ? "%" + k_.params[p].name : "%?param" + std::to_string(p);
  }

  std::string access(const Access &a) const {
    std::string s = a.kind == Access::Kind::Tensor ? paramName(a.id) : tileName(a.id);
    if (a.slice.empty())
      return s;
    s += "[";
    for (size_t i = 0; i < a.slice.size(); ++i) {
      if (i)
        s += ", ";
      s += index(a.slice[i].offset);
      if (!a.slice[i].point)
        s += " ..+ " + std::to_string(a.slice[i].size);
    }
    return s + "]";
  }

  std::string barrierName(BarrierId b) const {
    return b < k_.barriers.size() ? "%" + k_.barriers[b].name : "%?barrier" + std::to_string(b);
  }

  std::string scalarName(ScalarId p) const {
    return p < k_.scalars.size() ? "%" + k_.scalars[p].name : "%?scalar" + std::to_string(p);
  }

  /// `1.5`, `%eps`, `convert F32 (%k * 16)`, `(%eps * 2.0)`.
  std::string scalar(const ScalarExpr &e) const {
    using K = ScalarExpr::Kind;
    switch (e.kind()) {
    case K::Const:
      return formatDouble(e.value());
    case K::Param:
      return scalarName(e.param());
    case K::Index:
      return "convert " + std::string(dtypeName(e.dtype())) + " (" + index(e.index()) + ")";
    case K::Convert:
      return "convert " + std::string(dtypeName(e.dtype())) + " " + scalar(e.operand());
    case K::Neg:
      return "(-" + scalar(e.operand()) + ")";
    case K::Math:
      return std::string(unaryKindName(static_cast<UnaryKind>(e.mathKind()))) + " " +
             scalar(e.operand());
    default:
      return "(" + scalar(e.lhs()) + " " + scalarKindSpelling(e.kind()) + " " + scalar(e.rhs()) +
             ")";
    }
  }

  std::string operand(const Operand &o) const {
    return o.kind == Operand::Kind::Tile ? tileName(o.tile) : scalar(o.scalar);
  }

  void block(const Block &b, int depth) {
    for (const Op &op : b.ops)
      this->op(op, depth);
  }

  void op(const Op &op, int depth) {
    std::string ind(2 * depth, ' ');
    out_ << ind;
    std::visit([&](const auto &o) { emit(o, depth, ind); }, op.node);
  }

  void emit(const LetOp &o, int, const std::string &) {
    out_ << "let " << varName(o.var) << " = " << index(o.value) << "\n";
  }
  void emit(const FillOp &o, int, const std::string &) {
    out_ << tileName(o.dst) << " <- fill " << scalar(o.value) << "\n";
  }
  void emit(const CpAsyncOp &o, int, const std::string &) {
    out_ << "cp_async " << access(o.dst) << " <- " << (o.masked ? "masked " : "") << access(o.src)
         << " group #" << o.group << "\n";
  }
  void emit(const CpAsyncCommitOp &o, int, const std::string &) {
    out_ << "cp_async_commit #" << o.group << "\n";
  }
  void emit(const CpAsyncWaitOp &o, int, const std::string &) {
    out_ << "cp_async_wait_group " << o.pending;
    if (!o.completes.empty()) {
      out_ << " completes [";
      for (size_t i = 0; i < o.completes.size(); ++i)
        out_ << (i ? ", #" : "#") << o.completes[i];
      out_ << "]";
    }
    out_ << "\n";
  }
  void emit(const BlockSyncOp &, int, const std::string &) { out_ << "block_sync\n"; }
  void emit(const MmaOp &o, int, const std::string &) {
    out_ << tileName(o.dst) << (o.dp4a ? " <- dp4a_mma " : " <- mma ") << tileName(o.acc) << ", "
         << access(o.a) << ", " << (o.transB ? "transpose " : "") << access(o.b) << "\n";
  }
  void emit(const LoadOp &o, int, const std::string &) {
    out_ << tileName(o.dst) << " <- load " << access(o.src);
    if (o.masked)
      out_ << " masked fill " << scalar(o.fill);
    out_ << "\n";
  }
  void emit(const StoreOp &o, int, const std::string &) {
    out_ << "store " << access(o.dst) << (o.masked ? " masked" : "") << " <- "
         << (o.convert ? "convert " : "")
         << (o.atomic == AtomicKind::Add   ? "atomic_add "
             : o.atomic == AtomicKind::Max ? "atomic_max "
             : o.atomic == AtomicKind::Min ? "atomic_min "
                                           : "")
         << tileName(o.src) << "\n";
  }
  void emit(const IndexTileOp &o, int, const std::string &) {
    out_ << tileName(o.dst) << " <- " << (o.axis == 0 ? "row_index" : "col_index") << "\n";
  }
  void emit(const SelectOp &o, int, const std::string &) {
    out_ << tileName(o.dst) << " <- select (" << compareKindName(o.cmp) << " " << operand(o.lhs)
         << ", " << operand(o.rhs) << "), " << operand(o.onTrue) << ", " << operand(o.onFalse)
         << "\n";
  }
  void emit(const UnaryOp &o, int, const std::string &) {
    out_ << tileName(o.dst) << " <- " << unaryKindName(o.kind) << " " << operand(o.src) << "\n";
  }
  void emit(const BinaryOp &o, int, const std::string &) {
    out_ << tileName(o.dst) << " <- " << binaryKindName(o.kind) << " " << operand(o.lhs) << ", "
         << operand(o.rhs) << "\n";
  }
  void emit(const ReduceOp &o, int, const std::string &) {
    out_ << tileName(o.dst) << " <- "
         << (o.columns ? colReduceKindName(o.kind) : reduceKindName(o.kind)) << " "
         << tileName(o.src) << "\n";
  }
  void emit(const TransposeOp &o, int, const std::string &) {
    out_ << tileName(o.dst) << " <- transpose " << tileName(o.src) << "\n";
  }
  void emit(const ForOp &o, int depth, const std::string &ind) {
    out_ << "for " << varName(o.var) << " in (" << index(o.lower) << " .. " << index(o.upper);
    if (o.step.asConstant() != std::optional<int64_t>(1))
      out_ << " step " << index(o.step);
    out_ << ") {\n";
    block(o.body, depth + 1);
    out_ << ind << "}\n";
  }
  void emit(const IfOp &o, int depth, const std::string &ind) {
    out_ << "if " << index(o.cond) << " {\n";
    block(o.thenBody, depth + 1);
    if (!o.elseBody.ops.empty()) {
      out_ << ind << "} else {\n";
      block(o.elseBody, depth + 1);
    }
    out_ << ind << "}\n";
  }

  void emit(const RoleOp &o, int depth, const std::string &ind) {
    out_ << "role " << o.name << " (warpgroup " << o.firstWarpgroup;
    if (o.lastWarpgroup != o.firstWarpgroup)
      out_ << " .. " << o.lastWarpgroup;
    out_ << ")";
    if (o.registers)
      out_ << " registers " << o.registers;
    out_ << " {\n";
    block(o.body, depth + 1);
    out_ << ind << "}\n";
  }
  void emit(const BarrierArriveOp &o, int, const std::string &) {
    out_ << "arrive " << barrierName(o.barrier) << "[" << index(o.stage) << "]";
    if (o.expectTxBytes)
      out_ << " expect_tx " << o.expectTxBytes;
    if (o.cluster)
      out_ << " cluster";
    out_ << "\n";
  }
  void emit(const BarrierWaitOp &o, int, const std::string &) {
    out_ << "wait " << barrierName(o.barrier) << "[" << index(o.stage) << "] round "
         << index(o.round, 8) << "\n";
  }
  void emit(const TmaLoadOp &o, int, const std::string &) {
    out_ << "tma_load " << access(o.dst) << " <- " << access(o.src)
         << (o.multicast ? " multicast" : "") << " completes " << barrierName(o.barrier) << "["
         << index(o.stage) << "]\n";
  }
  void emit(const WgmmaOp &o, int, const std::string &) {
    out_ << tileName(o.acc) << " <- wgmma " << tileName(o.acc) << ", " << access(o.a) << ", "
         << access(o.b);
    if (o.zeroWhen.asConstant() != std::optional<int64_t>(0))
      out_ << " zero_when " << index(o.zeroWhen, 8);
    out_ << "\n";
  }
  void emit(const WgmmaCommitOp &, int, const std::string &) { out_ << "wgmma_commit\n"; }
  void emit(const WgmmaWaitOp &o, int, const std::string &) {
    out_ << "wgmma_wait " << o.pending << "\n";
  }
  void emit(const FenceProxyAsyncOp &, int, const std::string &) { out_ << "fence_proxy_async\n"; }
  void emit(const TmaStoreOp &o, int, const std::string &) {
    out_ << "tma_store " << access(o.dst) << " <- " << access(o.src) << "\n";
  }
  void emit(const TmaStoreCommitOp &, int, const std::string &) { out_ << "tma_store_commit\n"; }
  void emit(const TmaStoreWaitOp &o, int, const std::string &) {
    out_ << "tma_store_wait " << o.pending << "\n";
  }

  std::string kernel() {
    out_ << "kernel @" << k_.name << " [";
    for (size_t i = 0; i < k_.dims.size(); ++i)
      out_ << (i ? ", " : "") << k_.dims[i].name;
    out_ << "]\n";
    for (const auto &p : k_.params) {
      out_ << "  " << (p.isResult ? "result" : "param") << " %" << p.name << " : tensor<"
           << dtypeName(p.dtype) << ", [";
      for (size_t i = 0; i < p.shape.size(); ++i)
        out_ << (i ? ", " : "") << index(p.shape[i]);
      out_ << "], cuda:global" << (p.writable && !p.isResult ? ", writable" : "") << ">\n";
    }
    for (const auto &p : k_.scalars)
      out_ << "  scalar %" << p.name << " : " << dtypeName(p.dtype) << "\n";
    for (const auto &r : k_.requirements)
      out_ << "  requires " << index(r.condition) << "\n";
    for (const auto &c : k_.capabilities)
      out_ << "  requires capability " << c << "\n";
    out_ << "  block_grid [" << index(k_.blockGrid[0]) << ", " << index(k_.blockGrid[1]);
    if (k_.blockGrid[2].asConstant() != std::optional<int64_t>(1))
      out_ << ", " << index(k_.blockGrid[2]);
    out_ << "]\n";
    if (k_.clusterSize() != 1)
      out_ << "  cluster [" << k_.cluster[0] << ", " << k_.cluster[1] << ", " << k_.cluster[2]
           << "]\n";
    if (k_.warpgroups > 0)
      out_ << "  warpgroup_grid [" << k_.warpgroups << "]\n";
    else
      out_ << "  warp_grid [" << k_.warpGrid[0] << ", " << k_.warpGrid[1] << "]\n";
    for (const auto &t : k_.tiles) {
      out_ << "  " << (t.space == MemSpace::Shared ? "shared" : "register") << " %" << t.name
           << " : tile<" << dtypeName(t.dtype) << ", [";
      for (size_t i = 0; i < t.shape.size(); ++i)
        out_ << (i ? ", " : "") << t.shape[i];
      out_ << "], " << memSpaceName(t.space);
      if (t.layout == SharedLayout::Swizzle128B)
        out_ << ", swizzle_128b";
      if (t.scope == RegisterScope::Warpgroup)
        out_ << ", warpgroup";
      out_ << ">\n";
    }
    for (const auto &b : k_.barriers)
      out_ << "  shared %" << b.name << " : barrier<" << b.stages << ", arrivals=" << b.arrivals
           << ">\n";
    out_ << "{\n";
    block(k_.body, 1);
    out_ << "}\n";
    return out_.str();
  }

private:
  const Kernel &k_;
  std::ostringstream out_;
};

} // namespace

std::string print(const Kernel &kernel) { return Printer(kernel).kernel(); }

std::string printIndex(const Kernel &kernel, const IndexExpr &e) {
  return Printer(kernel).index(e);
}

} // namespace kina::ir
