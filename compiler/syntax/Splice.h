//===- Splice.h - Move one item's parse into a file's parse -----*- C++ -*-===//
#pragma once

#include "syntax/Parser.h"

namespace kina::syntax {

/// Appends `item` (its module and diagnostics) to `into`, every span moved by
/// `delta` bytes and every node id renumbered past the nodes already there.
/// The empty span at offset 0 (no span) stays as it is.
void appendItemParse(ParseResult &into, const ParseCache::Item &item, int64_t delta);

} // namespace kina::syntax
