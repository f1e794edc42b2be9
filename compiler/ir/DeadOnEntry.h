//===- DeadOnEntry.h - Register tiles a loop body overwrites first -*- C++ -*-===//
//
// A register tile whose value at the entry of a `for` body is never read
// (every path through the body overwrites it before reading it) need not be
// kept alive across the loop's back edge. In a persistent GEMM the
// accumulator is such a tile: each tile iteration's first wgmma has
// `zero_when (k = 0)`, so the previous tile's accumulator is dead once the
// epilogue has read it. Codegen marks such tiles undefined at the body's
// entry, which frees their registers during the epilogue (without it the
// accumulator and the epilogue's temporaries are live together and spill).
//
// The analysis is conservative: an op it does not know reads every tile.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "ir/TileIR.h"

#include <map>
#include <vector>

namespace kina::ir {

/// Answers, for the for loops of one kernel, which register tiles are dead
/// at the body's entry. A warpgroup tile is never dead where a wgmma group
/// may still be in flight at the body's entry (from before the loop or from
/// the previous iteration): the group writes its accumulator, and reads a
/// register A operand, asynchronously, so those registers must stay
/// reserved until a wait.
class DeadOnEntry {
public:
  explicit DeadOnEntry(const Kernel &kernel);
  /// The register tiles whose value at the entry of `loop`'s body (a loop
  /// of this kernel) is never read, in TileId order.
  std::vector<TileId> tiles(const ForOp &loop) const;

private:
  const Kernel &kernel_;
  std::map<const ForOp *, bool> groupInFlightAtEntry_;
};

} // namespace kina::ir
