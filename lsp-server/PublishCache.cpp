//===- PublishCache.cpp - Published diagnostics kept as JSON text ---------===//
//
// A miss serializes the diagnostic with placeholder line numbers (no file
// has 4e9 lines: sources are at most 64 MiB) and cuts the text at them; a
// hit pastes the current lines between the pieces.
//
//===----------------------------------------------------------------------===//
#include "PublishCache.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace kina::lsp {
namespace {

constexpr uint32_t kPlaceholder = 4000000000u; // line of position k: kPlaceholder + k

uint64_t mix(uint64_t h, uint64_t v) {
  return h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
}

uint64_t hashText(std::string_view s) { return std::hash<std::string_view>{}(s); }

Position position(const SourceFile &f, uint32_t offset) {
  LineCol lc = f.utf16LineCol(std::min<uint32_t>(offset, f.text().size()));
  return {lc.line, lc.column};
}

std::string dump(const json &j) {
  return j.dump(-1, ' ', false, json::error_handler_t::replace); // as Transport::send
}

} // namespace

std::string PublishCache::body(const std::string &uri, std::optional<int64_t> version,
                               const std::vector<Diagnostic> &diagnostics, const SourceFile &file,
                               const std::function<LspDiagnostic(const Diagnostic &)> &convert) {
  ++generation_;
  misses_ = 0;
  // The keys of the message and of params in the order nlohmann writes them.
  std::string out;
  out.reserve(lastBytes_ + 4096); // about the last body's size: no regrowth
  out += R"({"jsonrpc":"2.0","method":"textDocument/publishDiagnostics","params":{"diagnostics":[)";
  std::vector<Position> pos;
  std::vector<int64_t> numbers;
  for (size_t n = 0; n < diagnostics.size(); ++n) {
    const Diagnostic &d = diagnostics[n];
    // Position k: 0 and 1 the diagnostic's range, 2 + 2i and 3 + 2i label i's.
    pos.clear();
    pos.push_back(position(file, d.span.begin));
    pos.push_back(position(file, d.span.end));
    for (const SpanLabel &l : d.labels) {
      pos.push_back(position(file, l.span.begin));
      pos.push_back(position(file, l.span.end));
    }
    numbers.clear();
    uint64_t h = mix(static_cast<uint64_t>(d.id), hashText(d.message));
    for (const Position &p : pos) {
      numbers.push_back(p.character);
      numbers.push_back(static_cast<int64_t>(p.line) - pos[0].line);
    }
    for (int64_t v : numbers)
      h = mix(h, static_cast<uint64_t>(v));
    for (const std::string &note : d.notes)
      h = mix(h, hashText(note));
    for (const SpanLabel &l : d.labels)
      h = mix(h, hashText(l.message));

    Entry *hit = nullptr;
    for (auto [it, end] = entries_.equal_range(h); it != end && !hit; ++it) {
      const Entry &e = it->second;
      if (e.id != d.id || e.message != d.message || e.numbers != numbers || e.notes != d.notes ||
          e.labels.size() != d.labels.size())
        continue;
      bool same = true;
      for (size_t i = 0; i < d.labels.size() && same; ++i)
        same = e.labels[i] == d.labels[i].message;
      if (same)
        hit = &it->second;
    }
    if (!hit) {
      ++misses_;
      LspDiagnostic l = convert(d);
      l.range.start.line = kPlaceholder;
      l.range.end.line = kPlaceholder + 1;
      for (size_t i = 0; i < l.relatedInformation.size(); ++i) {
        l.relatedInformation[i].location.range.start.line = kPlaceholder + 2 + 2 * i;
        l.relatedInformation[i].location.range.end.line = kPlaceholder + 3 + 2 * i;
      }
      std::string text = dump(toJSON(l));
      Entry e;
      e.id = d.id;
      e.message = d.message;
      e.notes = d.notes;
      for (const SpanLabel &sl : d.labels)
        e.labels.push_back(sl.message);
      e.numbers = numbers;
      // Cut at every `"line":N`: the key is written unescaped only as a key
      // (inside a string its quotes are escaped), and every line is ours.
      static constexpr std::string_view kKey = R"("line":)";
      size_t from = 0, at;
      while ((at = text.find(kKey, from)) != std::string::npos) {
        size_t digits = at + kKey.size();
        char *stop = nullptr;
        unsigned long value = std::strtoul(text.c_str() + digits, &stop, 10);
        e.pieces.push_back(text.substr(from, digits - from));
        e.slots.push_back(static_cast<uint32_t>(value - kPlaceholder));
        from = stop - text.c_str();
      }
      e.pieces.push_back(text.substr(from));
      hit = &entries_.emplace(h, std::move(e))->second;
    }
    hit->lastUsed = generation_;
    if (n)
      out += ',';
    for (size_t k = 0; k < hit->pieces.size(); ++k) {
      out += hit->pieces[k];
      if (k < hit->slots.size())
        out += std::to_string(pos[hit->slots[k]].line);
    }
  }
  out += R"(],"uri":)";
  out += dump(json(uri));
  if (version)
    out += R"(,"version":)" + std::to_string(*version);
  out += "}}";
  lastBytes_ = out.size();
  // Keep what the last two publishes used.
  for (auto it = entries_.begin(); it != entries_.end();)
    it = it->second.lastUsed + 1 < generation_ ? entries_.erase(it) : std::next(it);
  return out;
}

} // namespace kina::lsp
