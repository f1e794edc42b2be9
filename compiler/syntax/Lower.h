//===- Lower.h - CST to AST lowering (internal to syntax) -------*- C++ -*-===//
#pragma once

#include "syntax/Cst.h"
#include "syntax/Parser.h"

#include <optional>
#include <tree_sitter/api.h>

namespace kina::syntax {

/// tree-sitter symbol and field ids of the node kinds the lowering reads.
struct CstIds {
#define KINA_CST_NODE(NAME) TSSymbol NAME = 0;
#define KINA_CST_NODE_AS(MEMBER, NAME) TSSymbol MEMBER = 0;
#define KINA_CST_FIELD(NAME) TSFieldId f_##NAME = 0;
#include "syntax/CstNodes.def"
#undef KINA_CST_NODE
#undef KINA_CST_FIELD
  static const CstIds &get();
};

/// A number literal the lowering could not represent.
struct InvalidLiteral {
  Span span;
  bool isFloat = false; ///< a float beyond the largest double, else an integer beyond 64 bits
};

struct LowerResult {
  bool nestingExceeded = false;
  Span deepestSpan;
  std::vector<InvalidLiteral> invalidLiterals;
};

/// Reserves the module's arenas for lowering a CST of `nodes` nodes.
void reserveForCstNodes(Module &module, size_t nodes);

LowerResult lowerTree(const Cst &cst, const SourceFile &file, Module &module, unsigned maxNesting);

} // namespace kina::syntax
