//===- Splice.h - Move items' parses into one Module ------------*- C++ -*-===//
#pragma once

#include "syntax/Parser.h"

namespace kina::syntax {

/// Appends `item` (its module and diagnostics) to `into`, every span moved by
/// `delta` bytes and every node id renumbered past the nodes already there.
/// The empty span at offset 0 (no span) stays as it is.
void appendItemParse(ParseResult &into, const ParseCache::Item &item, int64_t delta);

/// The module half of appendItemParse.
void appendModule(Module &to, const Module &from, int64_t delta);

/// The diagnostics half of appendItemParse.
void appendShiftedDiagnostics(std::vector<Diagnostic> &to, const std::vector<Diagnostic> &from,
                              int64_t delta);

/// Appends each item of `from` as a header only: its kind, span, keyword
/// span and name, moved by `delta`; no dims, requirements, parameters,
/// result or body (no node of `from`). What a check of other items reads of
/// an item it neither checks nor reaches by name (see kina-lsp's
/// ItemCheck.cpp).
void appendItemHeaders(Module &to, const Module &from, int64_t delta);

} // namespace kina::syntax
