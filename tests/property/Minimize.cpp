//===- Minimize.cpp - Delta debugging of a failing program ----------------===//
#include "Minimize.h"

#include <cstring>
#include <set>
#include <vector>

namespace kina::property {

namespace {

std::vector<std::string> splitLines(const std::string &text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos)
      end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

std::string join(const std::vector<std::string> &lines, const std::vector<bool> &keep) {
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i)
    if (keep[i])
      out += lines[i] + "\n";
  return out;
}

/// Braces opened minus closed on a line, ignoring `//` comments.
int netBraces(const std::string &line) {
  int n = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '/' && i + 1 < line.size() && line[i + 1] == '/')
      break;
    n += line[i] == '{';
    n -= line[i] == '}';
  }
  return n;
}

bool startsItem(const std::string &line) {
  for (const char *kw : {"kernel ", "tile ", "fn "})
    if (line.rfind(kw, 0) == 0)
      return true;
  return false;
}

bool isIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

/// The identifiers of `s`, skipping `// comments`.
std::vector<std::string> identifiers(const std::string &s) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < s.size()) {
    if (s[i] == '/' && i + 1 < s.size() && s[i + 1] == '/')
      break;
    if (isIdentChar(s[i]) && !std::isdigit(static_cast<unsigned char>(s[i]))) {
      size_t j = i;
      while (j < s.size() && isIdentChar(s[j]))
        ++j;
      out.push_back(s.substr(i, j - i));
      i = j;
    } else if (std::isdigit(static_cast<unsigned char>(s[i]))) {
      while (i < s.size() && (isIdentChar(s[i]) || s[i] == '.'))
        ++i;
    } else {
      ++i;
    }
  }
  return out;
}

} // namespace

bool tilesWrittenBeforeRead(const std::string &text) {
  std::set<std::string> tiles, written;
  for (const std::string &raw : splitLines(text)) {
    if (startsItem(raw)) {
      tiles.clear();
      written.clear();
    }
    size_t first = raw.find_first_not_of(' ');
    std::string line = first == std::string::npos ? std::string() : raw.substr(first);
    for (const char *decl : {"register ", "shared "})
      if (line.rfind(decl, 0) == 0) {
        auto ids = identifiers(line.substr(std::strlen(decl)));
        // A barrier is initialised by the compiler; it is not a tile.
        if (!ids.empty() && line.find(": Barrier[") == std::string::npos)
          tiles.insert(ids[0]);
        line.clear();
      }
    std::string lhs, rhs = line;
    if (auto arrow = line.find("<-"); arrow != std::string::npos) {
      lhs = line.substr(0, arrow);
      rhs = line.substr(arrow + 2);
      if (lhs.rfind("cp_async ", 0) == 0)
        lhs = lhs.substr(9);
      if (lhs.rfind("tma_load ", 0) == 0)
        lhs = lhs.substr(9);
      // `acc <- wgmma acc ... zero_when (k = 0)` writes acc first.
      if (auto ids = identifiers(rhs); ids.size() > 1 && ids[0] == "wgmma")
        written.insert(ids[1]);
    }
    // Index expressions of the target are reads too.
    if (auto bracket = lhs.find('['); bracket != std::string::npos) {
      rhs.push_back(' ');
      rhs.append(lhs, bracket, std::string::npos);
    }
    for (const std::string &id : identifiers(rhs))
      if (tiles.count(id) && !written.count(id))
        return false;
    auto target = identifiers(lhs);
    if (!target.empty())
      written.insert(target[0]);
  }
  return true;
}

std::string minimize(const std::string &text,
                     const std::function<bool(const std::string &)> &stillFails, unsigned budget,
                     MinimizeStats *stats) {
  std::vector<std::string> lines = splitLines(text);
  std::vector<bool> keep(lines.size(), true);
  unsigned evaluations = 0;
  auto attempt = [&](std::vector<bool> candidate) {
    if (evaluations >= budget || candidate == keep)
      return false;
    ++evaluations;
    if (!stillFails(join(lines, candidate)))
      return false;
    keep = std::move(candidate);
    return true;
  };
  // The live lines, the matching closing line of each opener among them.
  auto closerOf = [&](size_t open) -> size_t {
    int depth = 0;
    for (size_t j = open; j < lines.size(); ++j) {
      if (!keep[j])
        continue;
      depth += netBraces(lines[j]);
      if (depth <= 0 && j > open)
        return j;
      if (depth <= 0 && j == open)
        return std::string::npos;
    }
    return std::string::npos;
  };

  bool changed = true;
  while (changed && evaluations < budget) {
    changed = false;
    // 1. Whole items: from an item's first line to the line before the next.
    for (size_t i = 0; i < lines.size(); ++i) {
      if (!keep[i] || !startsItem(lines[i]))
        continue;
      size_t end = i + 1;
      while (end < lines.size() && !(keep[end] && startsItem(lines[end])))
        ++end;
      std::vector<bool> c = keep;
      for (size_t j = i; j < end; ++j)
        c[j] = false;
      changed |= attempt(c);
    }
    // 2. Braced statements, outermost first: drop them whole, or unwrap.
    for (size_t i = 0; i < lines.size(); ++i) {
      if (!keep[i] || netBraces(lines[i]) <= 0 || startsItem(lines[i]))
        continue;
      size_t close = closerOf(i);
      if (close == std::string::npos)
        continue;
      std::vector<bool> c = keep;
      for (size_t j = i; j <= close; ++j)
        c[j] = false;
      if (attempt(c)) {
        changed = true;
        continue;
      }
      // `} else {` lines join two bodies; unwrap only simple blocks.
      if (netBraces(lines[close]) != -1 || lines[close].find('{') != std::string::npos)
        continue;
      c = keep;
      c[i] = false;
      c[close] = false;
      changed |= attempt(c);
    }
    // 3. Single brace-neutral lines.
    for (size_t i = 0; i < lines.size(); ++i) {
      if (!keep[i] || netBraces(lines[i]) != 0 ||
          lines[i].find_first_not_of(' ') == std::string::npos ||
          lines[i].rfind("// kina-property", 0) == 0) // keep the seed line
        continue;
      std::vector<bool> c = keep;
      c[i] = false;
      changed |= attempt(c);
    }
  }
  // Blank lines carry nothing.
  std::string out;
  unsigned after = 0;
  for (size_t i = 0; i < lines.size(); ++i)
    if (keep[i] && lines[i].find_first_not_of(' ') != std::string::npos) {
      out += lines[i] + "\n";
      ++after;
    }
  if (stats) {
    stats->evaluations = evaluations;
    stats->linesBefore = static_cast<unsigned>(lines.size());
    stats->linesAfter = after;
  }
  return out;
}

} // namespace kina::property
