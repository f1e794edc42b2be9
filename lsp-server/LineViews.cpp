//===- LineViews.cpp - PTX/SASS per Kina statement for hover and views ----===//
#include "LineViews.h"

#ifdef KINA_LSP_WITH_CODEGEN

#include <algorithm>

namespace kina::lsp {

namespace {

struct LineShape {
  bool blank = true;
  uint32_t indent = 0;
  bool opensBlock = false; ///< ends with `{` (before a trailing comment)
  bool comment = false;    ///< only a comment
};

LineShape shapeOf(const SourceFile &f, uint32_t line0) {
  LineShape s;
  std::string_view t = f.lineText(line0);
  size_t i = t.find_first_not_of(" \t");
  if (i == std::string_view::npos)
    return s;
  s.blank = false;
  s.indent = static_cast<uint32_t>(i);
  std::string_view body = t.substr(i);
  s.comment = body.substr(0, 2) == "//";
  size_t c = body.find("//");
  if (c != std::string_view::npos)
    body = body.substr(0, c);
  size_t e = body.find_last_not_of(" \t\r");
  s.opensBlock = e != std::string_view::npos && body[e] == '{';
  return s;
}

bool isMapped(const std::vector<uint32_t> &mapped, uint32_t line1) {
  return std::binary_search(mapped.begin(), mapped.end(), line1);
}

/// The statement starting on mapped line `first` (1-based).
StatementLines extend(const SourceFile &f, uint32_t first, const std::vector<uint32_t> &mapped) {
  StatementLines s{first, first};
  LineShape head = shapeOf(f, first - 1);
  if (head.opensBlock)
    return s;
  for (uint32_t l = first + 1; l <= f.lineCount(); ++l) {
    LineShape sh = shapeOf(f, l - 1);
    if (sh.blank || sh.comment || sh.indent <= head.indent || isMapped(mapped, l))
      break;
    s.last = l;
  }
  return s;
}

} // namespace

std::optional<StatementLines> statementAt(const SourceFile &file, uint32_t offset,
                                          const std::vector<uint32_t> &mappedLines) {
  uint32_t c = file.byteLineCol(offset).line + 1;
  if (isMapped(mappedLines, c))
    return extend(file, c, mappedLines);
  LineShape here = shapeOf(file, c - 1);
  if (here.blank || here.comment)
    return std::nullopt;
  for (uint32_t l = c; l-- > 1;) {
    LineShape sh = shapeOf(file, l - 1);
    if (sh.blank || sh.comment)
      return std::nullopt;
    if (isMapped(mappedLines, l)) {
      StatementLines s = extend(file, l, mappedLines);
      if (s.last >= c)
        return s;
      return std::nullopt;
    }
    if (sh.indent < here.indent && sh.opensBlock)
      return std::nullopt;
  }
  return std::nullopt;
}

std::vector<uint32_t> listingLinesOf(const target::LineMap &map, StatementLines s) {
  std::vector<uint32_t> out;
  for (const target::MappedInstruction *i : map.ofLines(s.first, s.last))
    for (uint32_t l = i->listingLine; l <= std::max(i->listingLine, i->listingEnd); ++l)
      out.push_back(l);
  return out;
}

uint32_t focusLine(const std::vector<uint32_t> &lines) {
  uint32_t best = 0, bestLen = 0;
  for (size_t i = 0; i < lines.size();) {
    size_t j = i + 1;
    while (j < lines.size() && lines[j] - lines[j - 1] <= 3)
      ++j;
    if (j - i > bestLen) {
      bestLen = static_cast<uint32_t>(j - i);
      best = lines[i];
    }
    i = j;
  }
  return best;
}

namespace {

void section(std::string &md, const char *label, const char *fence,
             const std::vector<const target::MappedInstruction *> &instrs, unsigned maxLines) {
  md += "**" + std::string(label) + "**: " + target::LineMap::count(instrs).render() + "\n";
  md += std::string("```") + fence + "\n";
  unsigned shown = 0;
  for (const target::MappedInstruction *i : instrs) {
    if (shown == maxLines)
      break;
    // wgmma lists 128 accumulator registers: keep a hover line readable.
    constexpr size_t kWidth = 120;
    md += i->text.size() > kWidth ? i->text.substr(0, kWidth) + " …" : i->text;
    md += "\n";
    ++shown;
  }
  md += "```\n";
  if (instrs.size() > shown)
    md += "_(" + std::to_string(instrs.size() - shown) + " more in **Show " + label + "**)_\n";
}

} // namespace

std::string statementCodeMarkdown(const target::LineMap &ptx, const target::LineMap *sass,
                                  StatementLines s, const std::string &target, unsigned maxLines) {
  auto p = ptx.ofLines(s.first, s.last);
  std::vector<const target::MappedInstruction *> q;
  if (sass)
    q = sass->ofLines(s.first, s.last);
  if (p.empty() && q.empty())
    return "";
  std::string where = s.first == s.last
                          ? "line " + std::to_string(s.first)
                          : "lines " + std::to_string(s.first) + "–" + std::to_string(s.last);
  std::string md = "_Code of " + where + " (" + target + ")_\n\n";
  if (!p.empty())
    section(md, "PTX", "ptx", p, maxLines);
  if (!q.empty()) {
    if (!p.empty())
      md += "\n";
    section(md, "SASS", "sass", q, maxLines);
  }
  return md;
}

} // namespace kina::lsp

#endif // KINA_LSP_WITH_CODEGEN
