//===- Protocol.h - The Hopper protocol model and its proofs ----*- C++ -*-===//
//
// Private to compiler/sema. The mbarrier / TMA / wgmma protocol of one
// `warpgroup_grid` as a small program over protocol events (docs/checks.md,
// "Hopper protocol proofs"). ProtocolExtract.cpp builds it from the checked
// AST; ProtocolEngine.cpp proves it: it unrolls every warpgroup's program for
// each loop-trip count of a small-model sample, simulates the barrier rings
// with vector clocks (happens-before), and checks the rules below on the
// concrete traces. Everything the model cannot express is kept as an
// `outside` entry and reported as a coded "cannot prove" error: the engine
// never accepts what it did not prove.
//
// Index expressions of the model (stage, round, conditions, loop bounds) are
// affine-periodic in the loop variables: built from constants, loop
// variables, `warpgroup_id`, the one symbolic trip count `n` (plus a
// constant), +, -, * by a constant, and / and mod by a constant, and the
// ring counter's product of a loop variable and `n` (`(t / G) * n + k`).
// A persistent tile loop adds a second count, the block's tile count m. For
// such programs every check is local to a window of iterations whose length
// is bounded by the stage counts and the constants, so the sample of (m, n)
// of ProtocolEngine.cpp covers every m and n (docs/checks.md says why).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "diag/Diagnostic.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kina::sema::protocol {

using XId = uint32_t;
constexpr XId kNoX = UINT32_MAX;

/// One node of an index expression of the model.
enum class XOp : uint8_t {
  Const, ///< value
  Var,   ///< slot `value` (a loop variable, a `let`, warpgroup_id)
  Param, ///< the symbolic trip count n plus `value`
  Tiles, ///< the block's tile count m of the persistent tile loop plus `value`
  Add,
  Sub,
  Mul,
  Div,
  Mod,
  Neg,
  Eq,
  Ne,
  Lt,
  Le,
  Gt,
  Ge,
  Unknown, ///< outside the model: `why` says what it is
};

struct XNode {
  XOp op = XOp::Const;
  int64_t value = 0;
  XId a = kNoX, b = kNoX;
  Span span;
  std::string why; ///< Unknown: "`block_id 0`"
};

struct BarrierInfo {
  std::string name;
  int64_t stages = 1;
  int64_t arrivals = 1;
  Span span;         ///< the declaration
  Span arrivalsSpan; ///< the `arrivals=` value (fix-it target)
};

struct SharedTileInfo {
  std::string name;
  int64_t stages = 0; ///< leading stage dimension; 0 when the tile has none
  Span span;
};

/// A region of a shared tile: one stage (`stage` an index) or all of it.
struct RegionRef {
  int tile = -1;
  XId stage = kNoX; ///< kNoX: the whole tile
};

enum class EvKind : uint8_t {
  Wait,        ///< wait B[stage] round R
  Arrive,      ///< arrive B[stage] [expect_tx E]
  TmaLoad,     ///< tma_load dst <- src completes B[stage]
  Wgmma,       ///< acc <- wgmma acc A B
  Commit,      ///< wgmma_commit
  WgmmaWait,   ///< wgmma_wait N
  FenceProxy,  ///< fence_proxy_async
  SharedWrite, ///< a generic store into a shared tile
  SharedRead,  ///< a generic load of a shared tile
  AccAccess,   ///< a generic read or write of a warpgroup register tile
  TmaStore,    ///< tma_store dst <- src: an async-proxy read of `reads[0]`
  StoreCommit, ///< tma_store_commit
  StoreWait,   ///< tma_store_wait N
};

struct Event {
  EvKind kind = EvKind::Commit;
  Span span;          ///< the statement
  Span insertAt;      ///< where a statement inserted before this one goes
  std::string indent; ///< the statement's indentation (for inserted lines)
  std::string what;   ///< the statement as text, for messages
  int barrier = -1;
  XId stage = kNoX; ///< barrier stage
  XId round = kNoX; ///< Wait
  bool hasTx = false;
  int64_t txBytes = 0; ///< Arrive with expect_tx
  Span txSpan;
  RegionRef dst;                ///< TmaLoad, SharedWrite
  int64_t bytes = 0;            ///< TmaLoad: bytes of the copy
  std::vector<RegionRef> reads; ///< Wgmma operands, SharedRead
  int acc = -1;                 ///< Wgmma, AccAccess
  int regA = -1;                ///< Wgmma: a warpgroup register tile read as A
  bool accWrite = false;
  int64_t pending = 0; ///< WgmmaWait, StoreWait
  int loopDepth = 0;   ///< enclosing loops of the role (fix-its need depth 1)
  Span insertAfter;    ///< where a statement inserted after this one goes
  /// Cluster multicast (docs/architecture.md "Cluster multicast proofs"):
  /// a TmaLoad with `multicast` brings its bytes to this CTA's stage once
  /// per CTA of the cluster; an Arrive with `cluster` makes one arrival per
  /// CTA of the cluster. The model is one CTA; the peers run the same
  /// program (cluster-uniform control flow, checked by the walk), so their
  /// copies and arrivals on this CTA's barrier are counted here.
  bool multicast = false;
  bool cluster = false;
  Span clauseSpan; ///< the `multicast` / `cluster` keyword
};

enum class NodeKind : uint8_t { Event, Let, For, If };

struct Node {
  NodeKind kind = NodeKind::Event;
  Event event;
  int slot = -1; ///< Let, For: the variable's slot
  std::string varName;
  XId value = kNoX;             ///< Let
  XId start = kNoX, end = kNoX; ///< For
  XId step = kNoX;              ///< For: kNoX is 1
  XId cond = kNoX;              ///< If
  std::vector<uint32_t> body, elseBody;
  Span span;
};

struct RoleInfo {
  std::string name;
  int64_t first = 0, last = 0; ///< warpgroups, inclusive
  std::vector<uint32_t> body;  ///< nodes
  Span span;
  Span endInsert;        ///< after the role's last statement (fix-its)
  std::string endIndent; ///< that statement's indentation
};

/// A construct outside the model, reported as "cannot prove".
struct Outside {
  Span span;
  std::string what;
};

struct Program {
  std::vector<XNode> exprs;
  std::vector<Node> nodes;
  std::vector<BarrierInfo> barriers;
  std::vector<SharedTileInfo> tiles;
  std::vector<std::string> accs; ///< accumulator (warpgroup register tile) names
  std::vector<RoleInfo> roles;
  std::vector<Outside> outside;
  int slots = 0;
  int warpgroupSlot = -1; ///< the slot warpgroup_id is read from
  bool hasParam = false;  ///< a loop trip count is symbolic
  std::string paramText;  ///< `K / 64`, for messages
  int64_t paramMin = 0;   ///< the smallest n the requirements allow (proved)
  /// A persistent tile loop `for t in (block_id d .. T step G)`: modelled
  /// as a loop over the block's tile ordinals j = t / G in 0 .. m, m the
  /// block's tile count (any m >= 0 occurs: ceil((T - b) / G) for block b).
  bool hasTiles = false;
  std::string tilesText;             ///< `(M/128) * (N/256)` and the step, for messages
  std::vector<int> tileOrdinalSlots; ///< the slots of the model loops over j
  bool slotIsTileOrdinal(int64_t slot) const {
    for (int s : tileOrdinalSlots)
      if (s == slot)
        return true;
    return false;
  }
  Span gridSpan;
  /// CTAs per cluster of the enclosing block_grid (1 without clusters).
  int64_t clusterSize = 1;

  XId add(XNode n) {
    exprs.push_back(std::move(n));
    return XId(exprs.size() - 1);
  }
  uint32_t addNode(Node n) {
    nodes.push_back(std::move(n));
    return uint32_t(nodes.size() - 1);
  }
};

/// Proves the protocol of one warpgroup_grid; reports each violated rule
/// (K0620-K0659) once into `sink`.
void proveProtocol(const Program &program, DiagnosticSink &sink);

} // namespace kina::sema::protocol
