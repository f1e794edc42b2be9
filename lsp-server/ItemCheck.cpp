//===- ItemCheck.cpp - Incremental, item-by-item checking of one file -----===//
//
// Keys first (text hashes, the name graph between items), then the checks
// of the items that missed the cache, then the merge that rebuilds the file's
// result exactly as kina::sema::analyze (sema/Frontend.cpp) assembles it.
//
//===----------------------------------------------------------------------===//
#include "ItemCheck.h"

#ifdef KINA_LSP_WITH_SEMA

#include "query/ArtifactCache.h"


#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>
#include <optional>
#include <set>

namespace kina::lsp {

/// One item's check result, spans relative to the item's first byte.
struct ItemCheckCache::ItemResult {
  std::vector<Diagnostic> diagnostics;
  /// Per diagnostic, per label / fix-it: "" when its span is relative to
  /// this item, else the name of the callee item it points into (relative
  /// to that item; the key covers the callee's text, so the offset holds).
  std::vector<std::vector<std::string>> labelAnchors, fixitAnchors;
  std::vector<sema::TypeAnnotation> annotations;
  std::vector<sema::SymbolInfo> locals;                     ///< item = -1
  std::vector<std::pair<std::string, Span>> itemReferences; ///< uses of items
  std::optional<sema::KernelSummary> kernel;                ///< item = -1
  /// A name-resolution diagnostic's suggestions read every item name.
  bool dependsOnAllNames = false;
  uint64_t namesHash = 0;
};

/// The items' results and where they now start: enough to build the
/// file's annotations and symbols when a feature first asks.
struct CheckedFile::Parts {
  std::vector<std::shared_ptr<const ItemCheckCache::ItemResult>> results;
  std::vector<uint32_t> itemBegin;
  std::vector<sema::SymbolInfo> itemSymbols; ///< kind Item, no references yet
};

namespace {

/// When more items than this miss the cache, one full check is cheaper than
/// one check per item (each also re-checks its callees).
constexpr size_t kMaxSeparateChecks = 4;

uint64_t mix(uint64_t h, uint64_t v) {
  return h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
}

Span shifted(Span s, int64_t delta) {
  return {static_cast<uint32_t>(s.begin + delta), static_cast<uint32_t>(s.end + delta)};
}

bool within(Span s, Span item) { return item.begin <= s.begin && s.end <= item.end; }
bool startsIn(Span s, Span item) { return item.begin <= s.begin && s.begin <= item.end; }

bool sameDiagnostic(const Diagnostic &a, const Diagnostic &b) {
  return a.id == b.id && a.span == b.span && a.message == b.message;
}

/// Identifiers of `text`, comments skipped (an over-approximation of the
/// names an item uses: enough for dependency keys).
std::set<std::string_view> identifiers(std::string_view text) {
  std::set<std::string_view> out;
  size_t i = 0, n = text.size();
  while (i < n) {
    char c = text[i];
    if (c == '/' && i + 1 < n && text[i + 1] == '/') {
      while (i < n && text[i] != '\n')
        ++i;
      continue;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t b = i;
      while (i < n && (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_'))
        ++i;
      out.insert(text.substr(b, i - b));
      continue;
    }
    ++i;
  }
  return out;
}

} // namespace

std::shared_ptr<const CheckedFile> ItemCheckCache::check(const SourceFile &file,
                                                          const std::string &target) {
  auto out = std::make_shared<CheckedFile>();
  syntax::ParseResult parse;
  {
    // Items' parses are kept once the file is edited: opened-only files
    // (most of a workspace) keep none.
    std::lock_guard<std::mutex> lock(parseMu_);
    parse = parses_++ == 0 ? syntax::parse(file) : parseCache_.parse(file);
  }
  out->tableParsed = parse.tableParsed;
  const syntax::Module &m = parse.module;
  const std::string &text = file.text();
  const size_t n = m.items.size();
  auto itemText = [&](size_t i) {
    Span s = m.items[i].span;
    if (s.begin > text.size() || s.end > text.size() || s.end < s.begin)
      return std::string_view();
    return std::string_view(text).substr(s.begin, s.end - s.begin);
  };

  // ---- keys ----
  std::map<std::string, int> firstDefinition;
  for (size_t i = 0; i < n; ++i)
    if (m.items[i].name.valid())
      firstDefinition.emplace(m.items[i].name.name, static_cast<int>(i));
  std::unordered_map<std::string_view, int> itemByName; // views into firstDefinition
  itemByName.reserve(firstDefinition.size());
  uint64_t namesHash = 0;
  for (const auto &[name, index] : firstDefinition) {
    namesHash = mix(namesHash, query::contentHash(name));
    itemByName.emplace(name, index);
  }
  std::vector<uint64_t> textHash(n);
  std::vector<std::vector<int>> uses(n);
  std::vector<std::shared_ptr<const std::vector<std::string>>> idents(n);
  {
    // An item's identifiers depend on its text only: scanned once per text
    // (a keystroke rescans one item, not the file).
    std::lock_guard<std::mutex> lock(mu_);
    // Items in the common prefix or suffix of the previous text keep their
    // hash (found by place; only the edited items are hashed again).
    size_t common = std::min(previousText_.size(), text.size());
    size_t prefix =
        std::mismatch(text.begin(), text.begin() + common, previousText_.begin()).first -
        text.begin();
    size_t suffix = 0;
    while (suffix < common - prefix &&
           text[text.size() - 1 - suffix] == previousText_[previousText_.size() - 1 - suffix])
      ++suffix;
    int64_t delta = static_cast<int64_t>(text.size()) - static_cast<int64_t>(previousText_.size());
    auto previousHash = [&](int64_t begin, int64_t end) -> std::optional<uint64_t> {
      auto it = std::lower_bound(previousHashes_.begin(), previousHashes_.end(), begin,
                                 [](const PlacedHash &p, int64_t b) { return p.begin < b; });
      if (it == previousHashes_.end() || it->begin != begin || it->end != end)
        return std::nullopt;
      return it->hash;
    };
    std::vector<PlacedHash> placed(n);
    for (size_t i = 0; i < n; ++i) {
      std::string_view t = itemText(i);
      Span sp = m.items[i].span;
      std::optional<uint64_t> known;
      if (sp.end <= prefix)
        known = previousHash(sp.begin, sp.end);
      else if (sp.begin >= text.size() - suffix)
        known = previousHash(sp.begin - delta, sp.end - delta);
      textHash[i] = known ? *known : query::contentHash(t);
      placed[i] = {sp.begin, sp.end, textHash[i]};
      auto &slot = identifiers_[textHash[i]];
      if (!slot.names) {
        // The names the item uses; its own name (after the keyword) is not a use.
        std::string_view body = t;
        const syntax::Ident &own = m.items[i].name;
        if (own.valid() && own.span.end >= m.items[i].span.begin &&
            own.span.end - m.items[i].span.begin <= t.size())
          body = t.substr(own.span.end - m.items[i].span.begin);
        auto names = std::make_shared<std::vector<std::string>>();
        for (std::string_view id : identifiers(body))
          names->emplace_back(id);
        slot.names = std::move(names);
      }
      slot.lastUsed = generation_ + 1;
      idents[i] = slot.names;
    }
    std::sort(placed.begin(), placed.end(),
              [](const PlacedHash &a, const PlacedHash &b) { return a.begin < b.begin; });
    previousHashes_ = std::move(placed);
    previousText_ = text;
  }
  for (size_t i = 0; i < n; ++i)
    for (const std::string &id : *idents[i]) {
      auto it = itemByName.find(id);
      if (it != itemByName.end() && it->second != static_cast<int>(i))
        uses[i].push_back(it->second);
    }
  const uint64_t targetHash = query::contentHash(target);
  std::vector<uint64_t> key(n);
  std::vector<std::set<int>> reachedBy(n);
  for (size_t i = 0; i < n; ++i) {
    // The item's text and the texts of everything it reaches by name.
    std::set<int> &reached = reachedBy[i];
    std::vector<int> work = uses[i];
    while (!work.empty()) {
      int j = work.back();
      work.pop_back();
      if (j == static_cast<int>(i) || !reached.insert(j).second)
        continue;
      work.insert(work.end(), uses[j].begin(), uses[j].end());
    }
    uint64_t k = mix(targetHash, textHash[i]);
    for (int j : reached) // by index: the order of names in the file
      k = mix(mix(k, query::contentHash(m.items[j].name.name)), textHash[j]);
    key[i] = k;
  }

  // ---- look-ups ----
  std::vector<std::shared_ptr<const ItemResult>> results(n);
  std::vector<int> misses;
  uint64_t generation;
  {
    std::lock_guard<std::mutex> lock(mu_);
    generation = ++generation_;
    for (size_t i = 0; i < n; ++i) {
      auto it = entries_.find(key[i]);
      if (it != entries_.end() &&
          (!it->second.result->dependsOnAllNames || it->second.result->namesHash == namesHash)) {
        results[i] = it->second.result;
        it->second.lastUsed = generation;
      } else {
        misses.push_back(static_cast<int>(i));
      }
    }
  }

  // ---- checks ----
  sema::CheckOptions base;
  base.target = target;
  base.sourceText = text;
  base.exprTypeTable = false; // nothing here reads CheckedProgram::exprTypes
  auto runCheck = [&](std::vector<int> only, DiagnosticSink &sink) {
    sema::CheckOptions co = base;
    co.onlyItems = std::move(only);
    return sema::check(m, co, sink);
  };
  // File-level verdicts (duplicate item names): a check of no item.
  DiagnosticSink fileSink;
  sema::CheckedProgram fileProgram = runCheck({-1}, fileSink);
  std::vector<Diagnostic> fileLevel = fileSink.take();

  std::vector<Diagnostic> orphans; // from checked items, outside every checked item
  std::vector<std::shared_ptr<const ItemResult>> fresh;
  std::vector<int> freshIndex;
  auto harvest = [&](const sema::CheckedProgram &p, std::vector<Diagnostic> diags,
                     const std::vector<int> &items) {
    for (const Diagnostic &f : fileLevel) {
      auto it = std::find_if(diags.begin(), diags.end(),
                             [&](const Diagnostic &d) { return sameDiagnostic(d, f); });
      if (it != diags.end())
        diags.erase(it);
    }
    std::map<int, ItemResult> byItem;
    std::set<int> uncacheable;
    auto owner = [&](Span s) -> std::optional<int> {
      for (int i : items)
        if (startsIn(s, m.items[i].span))
          return i;
      return std::nullopt;
    };
    bool anyOrphan = false;
    for (Diagnostic &d : diags) {
      auto i = owner(d.span);
      if (!i) {
        orphans.push_back(d);
        anyOrphan = true;
        continue;
      }
      Span item = m.items[*i].span;
      bool inside = within(d.span, item);
      // Secondary spans may point into the item or into a callee it reaches.
      auto anchor = [&](Span &s) -> std::string {
        if (within(s, item)) {
          s = shifted(s, -static_cast<int64_t>(item.begin));
          return "";
        }
        for (int j : reachedBy[*i])
          if (within(s, m.items[j].span)) {
            s = shifted(s, -static_cast<int64_t>(m.items[j].span.begin));
            return m.items[j].name.name;
          }
        inside = false;
        return "";
      };
      std::vector<std::string> labelAnchors, fixitAnchors;
      for (SpanLabel &l : d.labels)
        labelAnchors.push_back(anchor(l.span));
      for (FixIt &f : d.fixits)
        fixitAnchors.push_back(anchor(f.span));
      if (!inside)
        uncacheable.insert(*i);
      ItemResult &r = byItem[*i];
      r.dependsOnAllNames |= d.info().diagClass == DiagClass::Name;
      d.span = shifted(d.span, -static_cast<int64_t>(item.begin));
      r.diagnostics.push_back(std::move(d));
      r.labelAnchors.push_back(std::move(labelAnchors));
      r.fixitAnchors.push_back(std::move(fixitAnchors));
    }
    for (const sema::TypeAnnotation &a : p.annotations)
      for (int i : items)
        if (within(a.span, m.items[i].span)) {
          sema::TypeAnnotation rel = a;
          rel.span = shifted(a.span, -static_cast<int64_t>(m.items[i].span.begin));
          byItem[i].annotations.push_back(std::move(rel));
          break;
        }
    for (const sema::SymbolInfo &s : p.symbolInfos) {
      if (s.kind == sema::SymbolKind::Item) {
        for (Span r : s.references)
          for (int i : items)
            if (within(r, m.items[i].span)) {
              byItem[i].itemReferences.push_back(
                  {s.name, shifted(r, -static_cast<int64_t>(m.items[i].span.begin))});
              break;
            }
        continue;
      }
      if (std::find(items.begin(), items.end(), s.item) == items.end())
        continue; // a callee's, checked silently
      Span item = m.items[s.item].span;
      int64_t delta = -static_cast<int64_t>(item.begin);
      sema::SymbolInfo rel = s;
      bool inside = within(s.definition, item);
      rel.definition = shifted(s.definition, delta);
      for (Span &r : rel.references) {
        inside &= within(r, item);
        r = shifted(r, delta);
      }
      if (!inside)
        uncacheable.insert(s.item);
      rel.item = -1;
      byItem[s.item].locals.push_back(std::move(rel));
    }
    for (const sema::KernelSummary &k : p.kernels)
      if (std::find(items.begin(), items.end(), k.item) != items.end()) {
        sema::KernelSummary rel = k;
        rel.item = -1;
        byItem[k.item].kernel = std::move(rel);
      }
    for (int i : items) {
      ItemResult &r = byItem[i];
      r.namesHash = namesHash;
      auto shared = std::make_shared<const ItemResult>(std::move(r));
      results[i] = shared;
      if (!anyOrphan && !uncacheable.count(i)) {
        fresh.push_back(shared);
        freshIndex.push_back(i);
      }
    }
  };
  if (!misses.empty()) {
    if (misses.size() > kMaxSeparateChecks || misses.size() == n) {
      // One full check (as `kina check` does); every item's result is fresh.
      DiagnosticSink sink;
      sema::CheckedProgram p = runCheck({}, sink);
      std::vector<int> all(n);
      for (size_t i = 0; i < n; ++i)
        all[i] = static_cast<int>(i);
      harvest(p, sink.take(), all);
    } else {
      // One check per item: with several selected items, a selected callee
      // reached first from a selected caller would report into the caller's
      // scratch sink (sema::CheckOptions::onlyItems checks callees silently).
      for (int i : misses) {
        DiagnosticSink sink;
        sema::CheckedProgram p = runCheck({i}, sink);
        harvest(p, sink.take(), {i});
      }
    }
  }
  bool full = misses.size() > kMaxSeparateChecks || (!misses.empty() && misses.size() == n);
  out->itemsChecked = static_cast<unsigned>(full ? n : misses.size());
  out->itemsReused = static_cast<unsigned>(n - out->itemsChecked);

  // ---- merge, as sema::analyze assembles its result ----
  bool syntaxErrors = false;
  for (const Diagnostic &d : parse.diagnostics)
    syntaxErrors |= d.severity() == Severity::Error;
  std::vector<Span> brokenItems;
  if (syntaxErrors)
    for (const syntax::Item &item : m.items)
      for (const Diagnostic &d : parse.diagnostics)
        if (d.span.begin >= item.span.begin && d.span.begin <= item.span.end)
          brokenItems.push_back(item.span);
  auto keep = [&](const Diagnostic &d) {
    for (Span s : brokenItems)
      if (d.span.begin >= s.begin && d.span.begin <= s.end)
        return false;
    return true;
  };
  out->diagnostics = parse.diagnostics;
  for (const Diagnostic &d : fileLevel)
    if (keep(d))
      out->diagnostics.push_back(d);
  auto parts = std::make_shared<CheckedFile::Parts>();
  for (const sema::SymbolInfo &s : fileProgram.symbolInfos)
    if (s.kind == sema::SymbolKind::Item) {
      parts->itemSymbols.push_back(s);
      parts->itemSymbols.back().references.clear();
    }
  auto anchorBase = [&](const std::string &anchor, int64_t own) -> int64_t {
    if (anchor.empty())
      return own;
    auto it = firstDefinition.find(anchor);
    return it == firstDefinition.end() ? own : m.items[it->second].span.begin;
  };
  for (size_t i = 0; i < n; ++i) {
    const ItemResult &r = *results[i];
    int64_t delta = m.items[i].span.begin;
    for (size_t k = 0; k < r.diagnostics.size(); ++k) {
      Diagnostic d = r.diagnostics[k];
      d.span = shifted(d.span, delta);
      for (size_t l = 0; l < d.labels.size(); ++l)
        d.labels[l].span = shifted(d.labels[l].span, anchorBase(r.labelAnchors[k][l], delta));
      for (size_t f = 0; f < d.fixits.size(); ++f)
        d.fixits[f].span = shifted(d.fixits[f].span, anchorBase(r.fixitAnchors[k][f], delta));
      if (keep(d))
        out->diagnostics.push_back(std::move(d));
    }
    if (m.items[i].kind == syntax::ItemKind::Kernel) {
      sema::KernelSummary k = r.kernel ? *r.kernel : sema::KernelSummary{};
      k.item = static_cast<int>(i);
      out->kernels.push_back(std::move(k));
    }
  }
  parts->results = results;
  parts->itemBegin.resize(n);
  for (size_t i = 0; i < n; ++i)
    parts->itemBegin[i] = m.items[i].span.begin;
  out->parts = std::move(parts);
  for (const Diagnostic &d : orphans)
    if (keep(d))
      out->diagnostics.push_back(d);
  sortDiagnostics(out->diagnostics);

  // ---- cache upkeep: keep what the last two checks used ----
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (size_t f = 0; f < fresh.size(); ++f)
      entries_[key[freshIndex[f]]] = Entry{fresh[f], generation};
    for (auto it = entries_.begin(); it != entries_.end();)
      it = it->second.lastUsed + 1 < generation_ ? entries_.erase(it) : std::next(it);
    for (auto it = identifiers_.begin(); it != identifiers_.end();)
      it = it->second.lastUsed + 1 < generation_ ? identifiers_.erase(it) : std::next(it);
  }
  out->module = std::make_shared<const syntax::Module>(std::move(parse.module));
  return out;
}

const std::vector<sema::TypeAnnotation> &CheckedFile::annotations() const {
  materialize();
  return annotations_;
}

const std::vector<sema::SymbolInfo> &CheckedFile::symbols() const {
  materialize();
  return symbols_;
}

void CheckedFile::materialize() const {
  std::call_once(built_, [&] {
    if (!parts)
      return;
    const Parts &p = *parts;
    std::map<std::string, size_t> itemSymbol;
    for (const sema::SymbolInfo &s : p.itemSymbols) {
      itemSymbol.emplace(s.name, symbols_.size());
      symbols_.push_back(s);
    }
    for (size_t i = 0; i < p.results.size(); ++i) {
      const ItemCheckCache::ItemResult &r = *p.results[i];
      int64_t delta = p.itemBegin[i];
      for (sema::TypeAnnotation a : r.annotations) {
        a.span = shifted(a.span, delta);
        annotations_.push_back(std::move(a));
      }
      for (const auto &[name, span] : r.itemReferences)
        if (auto it = itemSymbol.find(name); it != itemSymbol.end())
          symbols_[it->second].references.push_back(shifted(span, delta));
    }
    for (size_t i = 0; i < p.results.size(); ++i)
      for (sema::SymbolInfo s : p.results[i]->locals) {
        int64_t delta = p.itemBegin[i];
        s.definition = shifted(s.definition, delta);
        for (Span &r : s.references)
          r = shifted(r, delta);
        s.item = static_cast<int>(i);
        symbols_.push_back(std::move(s));
      }
  });
}

size_t ItemCheckCache::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return entries_.size();
}

} // namespace kina::lsp

#endif // KINA_LSP_WITH_SEMA
