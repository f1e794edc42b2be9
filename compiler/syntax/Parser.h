//===- Parser.h - Parse Kina source into an AST -----------------*- C++ -*-===//
//
// Parsing never fails: it always yields a Module plus syntax diagnostics
// (rust-analyzer's "syntax is a value"). The CST comes from the tables
// tree-sitter generated: TableParser on error-free text, the tree-sitter
// runtime (with its error recovery) otherwise; this layer turns ERROR and
// MISSING nodes into located, specific messages and lowers the CST to the
// AST in Ast.h.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "diag/Diagnostic.h"
#include "syntax/Ast.h"

#include <memory>

struct TSLanguage;

extern "C" const TSLanguage *tree_sitter_kina(void);

namespace kina::syntax {

struct ParseResult {
  Module module;
  std::vector<Diagnostic> diagnostics;
  /// False when the tree-sitter runtime parsed (the text has a syntax error
  /// or the table parser gave up).
  bool tableParsed = false;
};

struct ParseOptions {
  /// Deeper nesting than this is reported (K0008) instead of lowered.
  unsigned maxNesting = 256;
};

/// Parses and lowers one file. Never crashes on any input bytes.
ParseResult parse(const SourceFile &file, const ParseOptions &options = {});

/// The Kina keywords, taken from the generated parser's symbol table.
const std::vector<std::string> &keywords();

} // namespace kina::syntax
