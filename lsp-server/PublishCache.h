//===- PublishCache.h - Published diagnostics kept as JSON text -*- C++ -*-===//
//
// LSP publishes a file's diagnostics whole, so a keystroke in a file with
// thousands of diagnostics serialized all of them again (most of a
// keystroke: 6,945 diagnostics, 3 MB of JSON). This cache keeps each
// published diagnostic's JSON text, with its line numbers left out: it is
// reused while the diagnostic, its characters and the distances between its
// lines are the same, wherever its lines moved. A publish then costs the
// position look-ups and the copy of the text.
//
// One cache per document; not thread-safe (the server locks it).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "Protocol.h"
#include "diag/Diagnostic.h"
#include "diag/Source.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace kina::lsp {

class PublishCache {
public:
  /// The whole JSON-RPC message of textDocument/publishDiagnostics for
  /// `diagnostics` in `file` (as Transport::send would write it from
  /// toJSON(PublishDiagnosticsParams)): per diagnostic the cached text, or
  /// toJSON(convert(d)) on a miss. Keeps what the last two publishes used.
  std::string body(const std::string &uri, std::optional<int64_t> version,
                   const std::vector<Diagnostic> &diagnostics, const SourceFile &file,
                   const std::function<LspDiagnostic(const Diagnostic &)> &convert);
  size_t size() const { return entries_.size(); }
  /// How many diagnostics the last body() serialized afresh (tests).
  size_t lastMisses() const { return misses_; }

private:
  struct Entry {
    DiagId id;
    std::string message;
    std::vector<std::string> notes, labels;
    /// Characters, and lines relative to the first position's line.
    std::vector<int64_t> numbers;
    /// The JSON text split where each line number goes, and which
    /// position's line goes after each piece but the last.
    std::vector<std::string> pieces;
    std::vector<uint32_t> slots;
    uint64_t lastUsed = 0;
  };
  std::unordered_multimap<uint64_t, Entry> entries_;
  uint64_t generation_ = 0;
  size_t misses_ = 0;
  size_t lastBytes_ = 0;
};

} // namespace kina::lsp
