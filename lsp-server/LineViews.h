//===- LineViews.h - PTX/SASS per Kina statement for hover and views -*- C++ -*-===//
//
// Issue 17, parts 2 and 3. With line info (on for every editor build, see
// Artifacts.cpp) the cached PTX and SASS listings map each instruction to
// a Kina line (target/LineMap.h). This file turns a cursor position into
// "the statement under the cursor" and renders its instructions for hover,
// and answers the synchronised-view requests (kina/linesAt, kina/sourceOf).
// Only cached artifacts are read: a cursor move never compiles.
//
// The statement of a line: a line some instruction maps to (the start line
// of a tile-IR op's span), plus the lines after it that continue it (more
// indented, not blank, not mapped themselves), unless it opens a block
// (ends with `{`). A cursor on a continuation line (`wmma_mma`'s operands)
// belongs to the statement above it.
//
//===----------------------------------------------------------------------===//
#pragma once

#ifdef KINA_LSP_WITH_CODEGEN

#include "diag/Source.h"
#include "target/LineMap.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kina::lsp {

struct StatementLines {
  uint32_t first = 0; ///< 1-based, inclusive
  uint32_t last = 0;
};

/// The statement containing the line of `offset`, given the Kina lines that
/// instructions map to (sorted); nullopt on a line of no statement.
std::optional<StatementLines> statementAt(const SourceFile &file, uint32_t offset,
                                          const std::vector<uint32_t> &mappedLines);

/// Hover markdown for a statement: the PTX instructions of its lines
/// (trimmed to `maxLines`) with counts by class, then the SASS ones when a
/// SASS map is given. Empty when neither has an instruction there.
std::string statementCodeMarkdown(const target::LineMap &ptx, const target::LineMap *sass,
                                  StatementLines s, const std::string &target,
                                  unsigned maxLines = 12);

/// The 1-based listing lines of the instructions of Kina lines [s.first, s.last].
std::vector<uint32_t> listingLinesOf(const target::LineMap &map, StatementLines s);

/// Where a view should scroll for `lines` (sorted): the start of their
/// longest run (gaps of up to 2 lines, e.g. `.loc` directives, bridged), so
/// that an mma block wins over an address computation LLVM hoisted into the
/// prologue. 0 when `lines` is empty.
uint32_t focusLine(const std::vector<uint32_t> &lines);

} // namespace kina::lsp

#endif // KINA_LSP_WITH_CODEGEN
