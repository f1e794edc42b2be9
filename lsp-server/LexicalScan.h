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

/// Scans one file, or one segment of a file (see splitItems) when
/// `endsFile` is false: then labels and fix-its for unclosed brackets speak
/// of "the next item" instead of "the end of the file".
LexicalSummary scanLexically(const SourceFile &file, bool endsFile = true);

/// A top-level slice of a file: from one item keyword (`kernel`, `tile`,
/// `fn` at brace depth 0) to the next. The first segment starts at 0.
struct Segment {
  uint32_t begin = 0;
  std::string text;
  bool operator==(const Segment &) const = default;
};
/// Cuts a file into segments, in one pass. Cuts happen only at brace depth
/// 0, so an edit inside one item's body changes only that segment's text.
std::vector<Segment> splitItems(const std::string &text);

/// Shifts every span of `s` by `offset` bytes and appends it to `into`.
void appendShifted(LexicalSummary &into, const LexicalSummary &s, uint32_t offset);

/// Word lists used by completion (same lists the scanner classifies with).
const std::vector<std::string> &kinaKeywords();
const std::vector<std::string> &kinaPrimitiveOps();
const std::vector<std::string> &kinaDTypes();
const std::vector<std::string> &kinaPlacements();

bool sameDiagnostics(const std::vector<Diagnostic> &a, const std::vector<Diagnostic> &b);

} // namespace kina::lsp
