//===- Atomics.cpp - Atomic stores in the tile IR -------------------------===//
//
// `out[...] <- atomic_add v` (atomic_max, atomic_min; docs/language.md
// "Atomics"): a StoreOp with `atomic` set. Each element of the register tile
// is combined into the global destination with one relaxed atomic
// read-modify-write; a masked one touches only the elements inside the
// tensor. A result updated this way starts at zero (TensorParam::zeroInit).
//
//===----------------------------------------------------------------------===//
#include "ir/Builder.h"

namespace kina::ir {

void KernelBuilder::atomicStore(Access dst, TileId src, AtomicKind kind, bool masked, Span span) {
  if (dst.kind == Access::Kind::Tensor && dst.id < kernel_.params.size() &&
      kernel_.params[dst.id].isResult)
    kernel_.params[dst.id].zeroInit = true;
  StoreOp op{std::move(dst), src, false};
  op.masked = masked;
  op.atomic = kind;
  append(std::move(op), span);
}

} // namespace kina::ir
