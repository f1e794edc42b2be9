//===- Render.cpp - Render diagnostics as text ----------------------------===//
#include "diag/Render.h"

#include <algorithm>

namespace kina {
namespace {

struct Palette {
  const char *bold, *red, *yellow, *blue, *green, *reset;
};

const Palette &palette(bool color) {
  static const Palette on{"\033[1m",    "\033[1;31m", "\033[1;33m",
                          "\033[1;34m", "\033[1;32m", "\033[0m"};
  static const Palette off{"", "", "", "", "", ""};
  return color ? on : off;
}

/// Prints one source line with a marker row under [begin, end) bytes of it.
void renderSnippet(std::string &out, const SourceFile &file, Span span, char marker,
                   const std::string &label, const Palette &p, const char *markerColor) {
  LineCol start = file.byteLineCol(span.begin);
  std::string_view line = file.lineText(start.line);
  std::string lineNo = std::to_string(start.line + 1);
  std::string gutter(lineNo.size(), ' ');
  // A window of a long line (a 1 MB line once printed whole, with a caret
  // row as long): up to kShownBytes from a little before the span, with
  // `...` where the line goes on. Tabs become spaces so carets line up.
  constexpr uint32_t kShownBytes = 400, kContextBytes = 40;
  auto continuation = [&](uint32_t i) {
    return i < line.size() && (static_cast<unsigned char>(line[i]) & 0xC0) == 0x80;
  };
  uint32_t col = std::min<uint32_t>(start.column, static_cast<uint32_t>(line.size()));
  uint32_t from = col + kContextBytes > kShownBytes ? col - kContextBytes : 0;
  while (from > 0 && continuation(from))
    --from;
  uint32_t to = std::min<uint32_t>(from + kShownBytes, static_cast<uint32_t>(line.size()));
  while (to < line.size() && continuation(to))
    ++to;
  std::string shown = from > 0 ? "..." : "";
  for (char c : line.substr(from, to - from))
    shown += c == '\t' ? ' ' : c;
  if (to < line.size())
    shown += "...";
  uint32_t endCol =
      span.end > span.begin ? std::min<uint64_t>(uint64_t(col) + (span.end - span.begin), to) : col;
  endCol = std::max(endCol, col);
  uint32_t caretStart = (from > 0 ? 3 : 0) + countCodePoints(line.substr(from, col - from));
  uint32_t caretLen = std::max<uint32_t>(1, countCodePoints(line.substr(col, endCol - col)));
  out += p.blue + gutter + " |" + p.reset + "\n";
  out += std::string(p.blue) + lineNo + " |" + p.reset + " " + shown + "\n";
  out += std::string(p.blue) + gutter + " |" + p.reset + " " + std::string(caretStart, ' ') +
         markerColor + std::string(caretLen, marker);
  if (!label.empty())
    out += " " + label;
  out += std::string(p.reset) + "\n";
}

} // namespace

std::string renderDiagnostic(const Diagnostic &d, const SourceFile &file,
                             const RenderOptions &options) {
  const Palette &p = palette(options.color);
  const DiagInfo &info = d.info();
  LineCol lc = file.charLineCol(d.span.begin);
  std::string out;
  const char *sevColor = info.severity == Severity::Error ? p.red : p.yellow;
  out += std::string(p.bold) + file.path() + ":" + std::to_string(lc.line + 1) + ":" +
         std::to_string(lc.column + 1) + ": " + p.reset + sevColor +
         std::string(severityName(info.severity)) + "[" + std::string(info.code) + "]" + p.reset +
         p.bold + ": " + d.message + p.reset + "\n";
  renderSnippet(out, file, d.span, '^', "", p, sevColor);
  for (const SpanLabel &l : d.labels) {
    LineCol llc = file.charLineCol(l.span.begin);
    out += std::string(p.blue) + "  --> " + p.reset + file.path() + ":" +
           std::to_string(llc.line + 1) + ":" + std::to_string(llc.column + 1) + "\n";
    renderSnippet(out, file, l.span, '-', l.message, p, p.blue);
  }
  for (const std::string &n : d.notes)
    out += std::string(p.bold) + "  = note: " + p.reset + n + "\n";
  for (const FixIt &f : d.fixits) {
    out += std::string(p.green) + "  = fix: " + p.reset + f.title;
    if (!f.replacement.empty() && f.replacement.find('\n') == std::string::npos) {
      LineCol flc = file.charLineCol(f.span.begin);
      out += " (" + std::to_string(flc.line + 1) + ":" + std::to_string(flc.column + 1) + ")";
    }
    out += "\n";
  }
  return out;
}

} // namespace kina
