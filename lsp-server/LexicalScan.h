//===- LexicalScan.h - Interim lexical facts about a Kina file --*- C++ -*-===//
//
// What can be known about a file without parsing it: tokens (for semantic
// highlighting of keywords, literals, comments, operators and item names),
// bracket structure (folding ranges; unclosed/unmatched bracket diagnostics
// with a fix-it), and the outline of items (`kernel`/`tile`/`fn` NAME at the
// top level, with their `shared`/`register`/`let` declarations).
//
// This is an interim source for the language server while the syntax layer
// is being written. TODO(kina::syntax::parse): take the outline and the
// syntax diagnostics from the AST and the tree-sitter CST instead, and keep
// only the comment/bracket folding here. The keyword lists below are to be
// replaced by kina::syntax::keywords() (grammar/ is the one syntax source).
//
// Pure and thread-safe.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "Analysis.h"

namespace kina::lsp {

struct LexicalSummary {
  std::vector<SemanticToken> tokens;
  std::vector<FoldInfo> folds;
  std::vector<SymbolInfo> symbols;
  std::vector<KernelInfo> kernels;
  std::vector<Diagnostic> diagnostics;
  bool operator==(const LexicalSummary &other) const;
};

LexicalSummary scanLexically(const SourceFile &file);

/// Word lists used by completion (same lists the scanner classifies with).
const std::vector<std::string> &kinaKeywords();
const std::vector<std::string> &kinaPrimitiveOps();
const std::vector<std::string> &kinaDTypes();
const std::vector<std::string> &kinaPlacements();

bool sameDiagnostics(const std::vector<Diagnostic> &a, const std::vector<Diagnostic> &b);

} // namespace kina::lsp
