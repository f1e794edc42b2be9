//===- Source.cpp - Source text and line/column mapping -------------------===//
#include "diag/Source.h"

#include <algorithm>
#include <cstring>

namespace kina {

SourceFile::SourceFile(std::string path, std::string text)
    : path_(std::move(path)), text_(std::move(text)) {
  lineStarts_.push_back(0);
  // memchr: the language server builds this table on every keystroke.
  const char *begin = text_.data(), *end = begin + text_.size();
  for (const char *p = begin; (p = static_cast<const char *>(std::memchr(p, '\n', end - p)));)
    lineStarts_.push_back(static_cast<uint32_t>(++p - begin));
}

SourceFile::SourceFile(const SourceFile &previous, uint32_t begin, uint32_t end,
                       std::string_view replacement)
    : path_(previous.path_) {
  const std::string &old = previous.text_;
  end = std::min<uint32_t>(end, old.size());
  begin = std::min(begin, end);
  text_.reserve(old.size() - (end - begin) + replacement.size());
  text_.append(old, 0, begin).append(replacement).append(old, end, std::string::npos);
  // Line starts up to `begin` stay (their `\n` lies before it); those after
  // `end` move by the edit's length; the replacement brings its own.
  const std::vector<uint32_t> &was = previous.lineStarts_;
  auto keptEnd = std::upper_bound(was.begin(), was.end(), begin);
  auto movedBegin = std::upper_bound(keptEnd, was.end(), end);
  lineStarts_.reserve((keptEnd - was.begin()) + (was.end() - movedBegin) + 8);
  lineStarts_.assign(was.begin(), keptEnd);
  const char *p = replacement.data(), *stop = p + replacement.size();
  while ((p = static_cast<const char *>(std::memchr(p, '\n', stop - p))))
    lineStarts_.push_back(static_cast<uint32_t>(begin + (++p - replacement.data())));
  const uint32_t delta = static_cast<uint32_t>(replacement.size()) - (end - begin); // mod 2^32
  for (auto it = movedBegin; it != was.end(); ++it)
    lineStarts_.push_back(*it + delta);
}

std::string_view SourceFile::slice(Span span) const {
  uint32_t begin = std::min<uint32_t>(span.begin, text_.size());
  uint32_t end = std::min<uint32_t>(std::max(span.end, begin), text_.size());
  return std::string_view(text_).substr(begin, end - begin);
}

LineCol SourceFile::byteLineCol(uint32_t offset) const {
  offset = std::min<uint32_t>(offset, text_.size());
  auto it = std::upper_bound(lineStarts_.begin(), lineStarts_.end(), offset);
  uint32_t line = static_cast<uint32_t>(it - lineStarts_.begin()) - 1;
  return {line, offset - lineStarts_[line]};
}

static bool isContinuation(unsigned char c) { return (c & 0xC0) == 0x80; }

LineCol SourceFile::charLineCol(uint32_t offset) const {
  LineCol lc = byteLineCol(offset);
  std::string_view prefix = std::string_view(text_).substr(lineStarts_[lc.line], lc.column);
  return {lc.line, countCodePoints(prefix)};
}

LineCol SourceFile::utf16LineCol(uint32_t offset) const {
  LineCol lc = byteLineCol(offset);
  std::string_view prefix = std::string_view(text_).substr(lineStarts_[lc.line], lc.column);
  uint32_t units = 0;
  for (size_t i = 0; i < prefix.size(); ++i) {
    auto c = static_cast<unsigned char>(prefix[i]);
    if (isContinuation(c))
      continue;
    units += (c >= 0xF0 && c < 0xF8) ? 2 : 1; // 4-byte sequences are surrogate pairs
  }
  return {lc.line, units};
}

uint32_t SourceFile::offsetOfUtf16(LineCol position) const {
  if (position.line >= lineStarts_.size())
    return static_cast<uint32_t>(text_.size());
  uint32_t offset = lineStarts_[position.line];
  uint32_t units = 0;
  while (offset < text_.size() && text_[offset] != '\n' && units < position.column) {
    auto c = static_cast<unsigned char>(text_[offset]);
    units += (c >= 0xF0 && c < 0xF8) ? 2 : 1;
    ++offset;
    while (offset < text_.size() && isContinuation(static_cast<unsigned char>(text_[offset])))
      ++offset;
  }
  return offset;
}

std::string_view SourceFile::lineText(uint32_t line) const {
  if (line >= lineStarts_.size())
    return {};
  uint32_t begin = lineStarts_[line];
  uint32_t end = line + 1 < lineStarts_.size() ? lineStarts_[line + 1] - 1
                                               : static_cast<uint32_t>(text_.size());
  if (end > begin && text_[end - 1] == '\r')
    --end;
  return std::string_view(text_).substr(begin, end - begin);
}

uint32_t countCodePoints(std::string_view text) {
  uint32_t count = 0;
  for (char c : text)
    if (!isContinuation(static_cast<unsigned char>(c)))
      ++count;
  return count;
}

bool isValidUtf8(std::string_view text, uint32_t *firstBadOffset) {
  size_t i = 0;
  while (i < text.size()) {
    auto c = static_cast<unsigned char>(text[i]);
    size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    bool ok = len != 0 && i + len <= text.size();
    for (size_t k = 1; ok && k < len; ++k)
      ok = isContinuation(static_cast<unsigned char>(text[i + k]));
    if (ok && len == 2 && c < 0xC2)
      ok = false; // overlong
    if (!ok) {
      if (firstBadOffset)
        *firstBadOffset = static_cast<uint32_t>(i);
      return false;
    }
    i += len;
  }
  return true;
}

} // namespace kina
