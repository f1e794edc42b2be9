//===- Source.h - Source text, spans and line/column mapping ----*- C++ -*-===//
//
// A SourceFile owns the text of one .kina file and maps byte offsets to
// 1-based line and UTF-8-aware column numbers. Spans are half-open byte
// ranges; every layer above (AST, diagnostics, LSP) speaks in spans.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kina {

/// Half-open byte range [begin, end) in one SourceFile.
struct Span {
  uint32_t begin = 0;
  uint32_t end = 0;
  bool empty() const { return begin == end; }
  bool contains(uint32_t offset) const { return begin <= offset && offset < end; }
  bool operator==(const Span &) const = default;
};

/// A 0-based line and a 0-based column counted in the chosen unit.
struct LineCol {
  uint32_t line = 0;
  uint32_t column = 0;
};

/// Immutable text of one file plus its line table.
class SourceFile {
public:
  SourceFile(std::string path, std::string text);
  /// `previous` with its bytes [begin, end) replaced by `replacement`: one
  /// copy of the text, and the line table updated around the edit rather
  /// than rebuilt (the language server makes one per keystroke).
  SourceFile(const SourceFile &previous, uint32_t begin, uint32_t end,
             std::string_view replacement);

  const std::string &path() const { return path_; }
  const std::string &text() const { return text_; }
  std::string_view slice(Span span) const;

  /// Line and column in bytes.
  LineCol byteLineCol(uint32_t offset) const;
  /// Line and column in Unicode code points (what humans count).
  LineCol charLineCol(uint32_t offset) const;
  /// Line and column in UTF-16 code units (what LSP counts by default).
  LineCol utf16LineCol(uint32_t offset) const;
  /// Inverse of utf16LineCol; clamps to the line end.
  uint32_t offsetOfUtf16(LineCol position) const;

  uint32_t lineCount() const { return static_cast<uint32_t>(lineStarts_.size()); }
  /// The text of a 0-based line without its newline.
  std::string_view lineText(uint32_t line) const;

private:
  std::string path_;
  std::string text_;
  std::vector<uint32_t> lineStarts_;
};

/// Number of UTF-8 lead bytes in text (invalid bytes count as one each).
uint32_t countCodePoints(std::string_view text);
/// True when text is valid UTF-8.
bool isValidUtf8(std::string_view text, uint32_t *firstBadOffset = nullptr);

} // namespace kina
