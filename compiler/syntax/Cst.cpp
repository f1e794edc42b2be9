//===- Cst.cpp - Flat CST queries and the copy from a tree-sitter tree ----===//
#include "syntax/Cst.h"

#include <utility>

namespace kina::syntax {

CstNodeId Cst::child(CstNodeId id, TSFieldId field) const {
  const CstNode &n = nodes[id];
  for (uint32_t i = 0; i < n.childCount; ++i)
    if (nodes[n.firstChild + i].field == field)
      return n.firstChild + i;
  return kNoCstNode;
}

CstNodeId Cst::firstChild(CstNodeId id) const {
  return nodes[id].childCount ? nodes[id].firstChild : kNoCstNode;
}

CstNodeId Cst::firstNamedChild(CstNodeId id) const {
  const CstNode &n = nodes[id];
  for (uint32_t i = 0; i < n.childCount; ++i)
    if (nodes[n.firstChild + i].named)
      return n.firstChild + i;
  return kNoCstNode;
}

uint32_t Cst::namedChildCount(CstNodeId id) const {
  const CstNode &n = nodes[id];
  uint32_t count = 0;
  for (uint32_t i = 0; i < n.childCount; ++i)
    count += nodes[n.firstChild + i].named;
  return count;
}

static CstNode copyNode(TSNode n, TSFieldId field) {
  CstNode c;
  c.begin = ts_node_start_byte(n);
  c.end = ts_node_end_byte(n);
  c.symbol = ts_node_symbol(n);
  c.field = field;
  c.named = ts_node_is_named(n);
  c.extra = ts_node_is_extra(n);
  c.missing = ts_node_is_missing(n);
  return c;
}

Cst cstFromTree(TSNode root) {
  Cst cst;
  cst.nodes.push_back(copyNode(root, 0));
  // Breadth by work list, not recursion: the tree may be deeply nested.
  std::vector<std::pair<CstNodeId, TSNode>> work{{0, root}};
  std::vector<std::pair<TSNode, TSFieldId>> children;
  while (!work.empty()) {
    auto [id, node] = work.back();
    work.pop_back();
    children.clear();
    TSTreeCursor cursor = ts_tree_cursor_new(node);
    if (ts_tree_cursor_goto_first_child(&cursor)) {
      do
        children.emplace_back(ts_tree_cursor_current_node(&cursor),
                              ts_tree_cursor_current_field_id(&cursor));
      while (ts_tree_cursor_goto_next_sibling(&cursor));
    }
    ts_tree_cursor_delete(&cursor);
    auto first = static_cast<uint32_t>(cst.nodes.size());
    cst.nodes[id].firstChild = first;
    cst.nodes[id].childCount = static_cast<uint32_t>(children.size());
    for (size_t i = 0; i < children.size(); ++i) {
      cst.nodes.push_back(copyNode(children[i].first, children[i].second));
      work.emplace_back(first + static_cast<uint32_t>(i), children[i].first);
    }
  }
  return cst;
}

} // namespace kina::syntax
