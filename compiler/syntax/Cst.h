//===- Cst.h - The flat concrete syntax tree the lowering reads -*- C++ -*-===//
//
// The visible nodes of a parse, as tree-sitter's node API presents them
// (hidden rules spliced into their parents, each child carrying its field),
// stored in one array with every node's children contiguous. Both parsers
// produce it: TableParser on error-free input, and a copy of the
// tree-sitter runtime's tree otherwise (cstFromTree).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "diag/Source.h"

#include <cstdint>
#include <tree_sitter/api.h>
#include <vector>

namespace kina::syntax {

using CstNodeId = uint32_t;
constexpr CstNodeId kNoCstNode = UINT32_MAX;

struct CstNode {
  uint32_t begin = 0, end = 0; ///< byte offsets
  uint32_t firstChild = 0, childCount = 0;
  TSSymbol symbol = 0; ///< public symbol, as ts_node_symbol gives it
  TSFieldId field = 0; ///< field in the parent, 0 for none
  bool named = false, extra = false, missing = false;
};

struct Cst {
  std::vector<CstNode> nodes;
  CstNodeId root = 0;
  /// Deepest nesting of `(`, `[` and `{` outside comments, and where.
  unsigned maxBracketDepth = 0;
  uint32_t deepestBracket = 0;

  const CstNode &operator[](CstNodeId id) const { return nodes[id]; }
  Span span(CstNodeId id) const { return {nodes[id].begin, nodes[id].end}; }
  /// The first child (named or not) carrying `field`, or kNoCstNode.
  CstNodeId child(CstNodeId id, TSFieldId field) const;
  /// The first child, named or anonymous, or kNoCstNode.
  CstNodeId firstChild(CstNodeId id) const;
  CstNodeId firstNamedChild(CstNodeId id) const;
  uint32_t namedChildCount(CstNodeId id) const;
};

/// Copies the visible nodes of a tree-sitter tree (the path taken for input
/// with syntax errors, where the runtime's error recovery is needed).
Cst cstFromTree(TSNode root);

} // namespace kina::syntax
