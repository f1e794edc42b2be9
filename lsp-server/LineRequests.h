//===- LineRequests.h - kina/linesAt and kina/sourceOf -----------*- C++ -*-===//
//
// The synchronised PTX/SASS views (issue 17, part 3). Both requests read
// only cached artifacts (AnalysisSnapshot::linesAt / sourceLineOf): the
// clients call them on every cursor move.
//
//   kina/linesAt  {textDocument, position}
//     -> {kernel, target, first, last, ptxCached, sassCached, ptx: [..], sass: [..]}
//        first/last: the statement's Kina lines (0-based, LSP style; null when
//        the cursor is on no statement); ptx/sass: 0-based lines of the
//        kina/ptx and kina/sass texts to highlight.
//   kina/sourceOf {textDocument, kernel, kind: "ptx"|"sass", line}
//     -> {line} (0-based Kina line, null when unmapped or not cached)
//
//===----------------------------------------------------------------------===//
#pragma once

#include "Analysis.h"
#include "Protocol.h"

namespace kina::lsp {

json linesAtRequest(AnalysisSnapshot &snap, const json &params);
json sourceOfRequest(AnalysisSnapshot &snap, const json &params);

} // namespace kina::lsp
