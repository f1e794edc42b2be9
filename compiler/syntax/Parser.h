//===- Parser.h - Parse Kina source into an AST -----------------*- C++ -*-===//
//
// Parsing never fails: it always yields a Module plus syntax diagnostics
// (rust-analyzer's "syntax is a value"). The CST comes from the generated
// tree-sitter parser; this layer turns ERROR/MISSING nodes into located,
// specific messages and lowers the rest to the AST in Ast.h.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "diag/Diagnostic.h"
#include "syntax/Ast.h"

#include <memory>

struct TSTree;
struct TSLanguage;

extern "C" const TSLanguage *tree_sitter_kina(void);

namespace kina::syntax {

/// Owning handle on a tree-sitter tree (kept for incremental re-parsing).
using TreeHandle = std::shared_ptr<TSTree>;

struct ParseResult {
  Module module;
  std::vector<Diagnostic> diagnostics;
  TreeHandle tree;
};

struct ParseOptions {
  /// A previous tree already edited with ts_tree_edit, for incremental parsing.
  TSTree *oldTree = nullptr;
  /// Deeper nesting than this is reported (K0008) instead of lowered.
  unsigned maxNesting = 256;
};

/// Parses and lowers one file. Never crashes on any input bytes.
ParseResult parse(const SourceFile &file, const ParseOptions &options = {});

/// The Kina keywords, taken from the generated parser's symbol table.
const std::vector<std::string> &keywords();

} // namespace kina::syntax
