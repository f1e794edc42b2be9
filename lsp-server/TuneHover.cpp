//===- TuneHover.cpp - Hover on a kernel's tune parameters ----------------===//
#include "TuneHover.h"

#include "tune/Cache.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <sstream>
#include <vector>

namespace kina::lsp {

namespace {

bool isWord(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

struct Decl {
  std::string name;
  std::vector<std::string> values;
  std::string def;
  uint32_t nameBegin = 0;
};

/// `tune NAME in {v, ...} = d` declarations between [begin, end).
std::vector<Decl> scanDecls(std::string_view text, size_t begin, size_t end) {
  std::vector<Decl> out;
  for (size_t at = text.find("tune", begin); at != std::string_view::npos && at < end;
       at = text.find("tune", at + 4)) {
    if ((at > 0 && isWord(text[at - 1])) || (at + 4 < text.size() && isWord(text[at + 4])))
      continue;
    size_t i = at + 4;
    auto skip = [&] {
      while (i < end && std::isspace(static_cast<unsigned char>(text[i])))
        ++i;
    };
    auto word = [&] {
      size_t b = i;
      while (i < end && isWord(text[i]))
        ++i;
      return std::string(text.substr(b, i - b));
    };
    skip();
    Decl d;
    d.nameBegin = static_cast<uint32_t>(i);
    d.name = word();
    skip();
    if (d.name.empty() || word() != "in")
      continue;
    skip();
    if (i >= end || text[i] != '{')
      continue;
    ++i;
    while (i < end && text[i] != '}') {
      skip();
      std::string v = word();
      if (!v.empty())
        d.values.push_back(v);
      skip();
      if (i < end && text[i] == ',')
        ++i;
      else if (v.empty())
        break;
    }
    if (i >= end || text[i] != '}')
      continue;
    ++i;
    skip();
    if (i < end && text[i] == '=') {
      ++i;
      skip();
      d.def = word();
    }
    out.push_back(std::move(d));
  }
  return out;
}

} // namespace

std::optional<TuneHover> tuneHover(std::string_view text, uint32_t offset,
                                   const std::string &cachePath) {
  if (offset > text.size())
    return std::nullopt;
  size_t b = offset, e = offset;
  while (b > 0 && isWord(text[b - 1]))
    --b;
  while (e < text.size() && isWord(text[e]))
    ++e;
  if (b == e)
    return std::nullopt;
  std::string word(text.substr(b, e - b));
  // The enclosing kernel: from the last `kernel` keyword at a line start
  // before the word to the next item keyword.
  size_t start = std::string_view::npos;
  for (size_t at = text.rfind("kernel", b); at != std::string_view::npos;
       at = at ? text.rfind("kernel", at - 1) : std::string_view::npos) {
    if ((at == 0 || text[at - 1] == '\n') && at + 6 < text.size() && !isWord(text[at + 6])) {
      start = at;
      break;
    }
    if (at == 0)
      break;
  }
  if (start == std::string_view::npos)
    return std::nullopt;
  size_t stop = text.size();
  for (const char *kw : {"\nkernel ", "\ntile ", "\nfn "}) {
    size_t n = text.find(kw, start + 1);
    if (n != std::string_view::npos && n < stop)
      stop = n;
  }
  if (b >= stop)
    return std::nullopt;
  size_t nameEnd = start + 6;
  while (nameEnd < stop && std::isspace(static_cast<unsigned char>(text[nameEnd])))
    ++nameEnd;
  size_t kb = nameEnd;
  while (nameEnd < stop && isWord(text[nameEnd]))
    ++nameEnd;
  std::string kernel(text.substr(kb, nameEnd - kb));
  size_t header = text.find('{', start);
  // Declarations lie in the header (before the body's brace; the candidate
  // braces are skipped by the scan itself).
  std::vector<Decl> decls = scanDecls(text, start, stop);
  const Decl *hit = nullptr;
  for (const Decl &d : decls)
    if (d.name == word)
      hit = &d;
  if (!hit)
    return std::nullopt;
  (void)header;
  uint64_t points = 1;
  for (const Decl &d : decls)
    points *= std::max<size_t>(d.values.size(), 1);
  std::ostringstream md;
  md << "**tune " << hit->name << "** = " << hit->def
     << " (the default point, which the editor checks)\n\n"
     << "candidates {";
  for (size_t i = 0; i < hit->values.size(); ++i)
    md << (i ? ", " : "") << hit->values[i];
  md << "}; the lattice of `" << kernel << "` has " << points << " points (";
  for (size_t i = 0; i < decls.size(); ++i)
    md << (i ? " x " : "") << decls[i].values.size() << " " << decls[i].name;
  md << "). Check another with `kina check --param " << hit->name << "=...`, all with "
     << "`--all-points`; `kina tune` measures them.";
  // Tuned points from the cache: the fastest per shape.
  tune::TuneCache cache(cachePath.empty() ? tune::defaultCachePath() : cachePath);
  std::map<std::string, tune::Record> best;
  for (tune::Record &r : cache.load())
    if (r.kernel == kernel && r.ok && !r.winner) {
      std::string key = r.shape + " " + r.env.device;
      auto it = best.find(key);
      if (it == best.end() || r.medianMs < it->second.medianMs)
        best[key] = std::move(r);
    }
  if (!best.empty()) {
    md << "\n\nTuned (" << cache.path() << "):";
    for (const auto &[key, r] : best) {
      md << "\n- " << r.shape << " on " << r.env.device << ": `" << r.point << "`, " << r.medianMs
         << " ms";
      if (r.tflops > 0)
        md << ", " << static_cast<int>(r.tflops + 0.5) << " TFLOP/s";
    }
  }
  return TuneHover{Span{static_cast<uint32_t>(b), static_cast<uint32_t>(e)}, md.str()};
}

bool kernelIsTunable(std::string_view text, uint32_t nameOffset) {
  if (nameOffset >= text.size())
    return false;
  size_t stop = text.size();
  for (const char *kw : {"\nkernel ", "\ntile ", "\nfn "}) {
    size_t n = text.find(kw, nameOffset);
    if (n != std::string_view::npos && n < stop)
      stop = n;
  }
  // The header ends at the first parameter's `(`.
  size_t paren = text.find('(', nameOffset);
  if (paren != std::string_view::npos && paren < stop)
    stop = paren;
  return !scanDecls(text, nameOffset, stop).empty();
}

} // namespace kina::lsp
