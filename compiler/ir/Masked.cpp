//===- Masked.cpp - Masks and ragged edges in the tile IR -----------------===//
//
// The builder entry points and helpers of the masked op family: masked
// loads and stores (LoadOp/StoreOp with `masked`), index tiles and select
// (TileIR.h). The verifier's rules for them are in Verifier.cpp's
// checkMasked* functions.
//
//===----------------------------------------------------------------------===//
#include "ir/Builder.h"

namespace kina::ir {

void KernelBuilder::maskedLoad(TileId dst, Access src, ScalarExpr fill, Span span) {
  LoadOp op{dst, std::move(src)};
  op.masked = true;
  op.fill = std::move(fill);
  append(std::move(op), span);
}

void KernelBuilder::maskedCpAsync(Access dst, Access src, Span span) {
  if (!openGroup_)
    openGroup_ = kernel_.numTokens++;
  CpAsyncOp op{std::move(dst), std::move(src), *openGroup_};
  op.masked = true;
  append(std::move(op), span);
}

void KernelBuilder::maskedStore(Access dst, TileId src, bool convert, Span span) {
  StoreOp op{std::move(dst), src, convert};
  op.masked = true;
  append(std::move(op), span);
}

void KernelBuilder::indexTile(TileId dst, unsigned axis, Span span) {
  append(IndexTileOp{dst, axis}, span);
}

void KernelBuilder::select(TileId dst, CompareKind cmp, Operand lhs, Operand rhs, Operand onTrue,
                           Operand onFalse, Span span) {
  append(SelectOp{dst, cmp, std::move(lhs), std::move(rhs), std::move(onTrue), std::move(onFalse)},
         span);
}

std::string_view compareKindName(CompareKind k) {
  switch (k) {
  case CompareKind::Eq:
    return "eq";
  case CompareKind::Ne:
    return "ne";
  case CompareKind::Lt:
    return "lt";
  case CompareKind::Le:
    return "le";
  case CompareKind::Gt:
    return "gt";
  case CompareKind::Ge:
    return "ge";
  }
  return "?";
}

bool compareHolds(CompareKind k, double a, double b) {
  switch (k) {
  case CompareKind::Eq:
    return a == b;
  case CompareKind::Ne:
    return a != b;
  case CompareKind::Lt:
    return a < b;
  case CompareKind::Le:
    return a <= b;
  case CompareKind::Gt:
    return a > b;
  case CompareKind::Ge:
    return a >= b;
  }
  return false;
}

} // namespace kina::ir
