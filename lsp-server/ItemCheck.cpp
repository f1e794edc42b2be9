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
#include "syntax/Splice.h"

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
/// file's annotations, symbols, kernel summaries and Module when a feature
/// first asks.
struct CheckedFile::Parts {
  std::vector<std::shared_ptr<const ItemCheckCache::ItemResult>> results;
  std::vector<uint32_t> itemBegin;
  std::vector<bool> isKernel;
  std::vector<sema::SymbolInfo> itemSymbols; ///< kind Item, no references yet
  syntax::ItemizedParse parse;               ///< the Module, in pieces
};

/// Per item of one part of the parse: its text's hash and the names it
/// uses; and, for the current set of item names, which of them are items.
struct ItemCheckCache::PartFacts {
  std::shared_ptr<const syntax::ParseCache::Item> keep; ///< the address stays this part's
  struct PerItem {
    uint64_t textHash = 0;
    uint64_t nameHash = 0;
    /// The header as the file-level check reads it: name, kind, and the
    /// spans of its keyword and its name relative to the item's start.
    uint64_t headerHash = 0;
    std::vector<std::string> identifiers; ///< sorted, unique, the own name excluded
    uint64_t itemNamesFor = 0;            ///< the names hash `itemNames` is for
    bool itemNamesValid = false;
    std::vector<std::string_view>
        itemNames; ///< identifiers that name items (views into identifiers)
  };
  std::vector<PerItem> items;
  uint64_t lastUsed = 0;
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

/// As syntax::appendModule moves a span (the empty span at 0 is no span).
Span moved(Span s, int64_t delta) { return s.begin == 0 && s.end == 0 ? s : shifted(s, delta); }

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

/// The parse as one Module: the whole file's parse itself when it is one
/// part in place, else every part's nodes copied into one.
std::shared_ptr<const syntax::Module> wholeModule(const syntax::ItemizedParse &p) {
  if (p.parts.size() == 1 && p.parts[0].delta == 0)
    return std::shared_ptr<const syntax::Module>(p.parts[0].item, &p.parts[0].item->module);
  return std::make_shared<const syntax::Module>(p.assemble().module);
}

} // namespace

std::shared_ptr<const CheckedFile> ItemCheckCache::check(std::shared_ptr<const SourceFile> file,
                                                         const std::string &target,
                                                         const std::string &backend) {
  auto out = std::make_shared<CheckedFile>();
  auto parts = std::make_shared<CheckedFile::Parts>();
  {
    // Items' parses are kept once the file is edited: opened-only files
    // (most of a workspace) keep none.
    std::lock_guard<std::mutex> lock(parseMu_);
    parts->parse = parses_++ == 0 ? syntax::ItemizedParse::whole(syntax::parse(*file), file)
                                  : parseCache_.parseItems(file);
  }
  const syntax::ItemizedParse &parse = parts->parse;
  out->tableParsed = parse.tableParsed;
  const std::string &text = file->text();

  // ---- the items, where they lie (no copy) ----
  struct Slot {
    const syntax::Item *item;
    int64_t delta;
    size_t part;
  };
  std::vector<Slot> slots;
  slots.reserve(parse.itemCount());
  for (size_t p = 0; p < parse.parts.size(); ++p)
    for (const syntax::Item &it : parse.parts[p].item->module.items)
      slots.push_back({&it, parse.parts[p].delta, p});
  const size_t n = slots.size();
  auto itemSpan = [&](size_t i) { return moved(slots[i].item->span, slots[i].delta); };
  auto itemName = [&](size_t i) -> const std::string & { return slots[i].item->name.name; };

  // ---- keys ----
  std::vector<uint64_t> textHash(n);
  std::vector<std::vector<int>> uses(n);
  // The first definition of each name, and a hash of the set of item names
  // and their kinds (a name-resolution diagnostic's suggestions read them).
  std::unordered_map<std::string_view, int> itemByName;
  itemByName.reserve(n);
  uint64_t namesHash = 0;
  std::set<std::string_view> duplicated; // names defined more than once
  uint64_t headersKey = query::contentHash(target + "/" + backend);
  std::vector<PartFacts::PerItem *> facts(n);
  const uint64_t generation = [&] {
    std::lock_guard<std::mutex> lock(mu_);
    return ++generation_;
  }();
  {
    std::lock_guard<std::mutex> lock(mu_);
    // Facts per part: computed when the part is new (the edited item), then
    // found by its address.
    size_t i = 0;
    for (const syntax::ItemizedParse::Part &part : parse.parts) {
      auto &slot = facts_[part.item.get()];
      if (!slot || slot->keep != part.item) {
        slot = std::make_shared<PartFacts>();
        slot->keep = part.item;
        for (const syntax::Item &it : part.item->module.items) {
          PartFacts::PerItem f;
          Span sp = moved(it.span, part.delta);
          std::string_view t;
          if (sp.begin <= text.size() && sp.end <= text.size() && sp.begin <= sp.end)
            t = std::string_view(text).substr(sp.begin, sp.end - sp.begin);
          f.textHash = query::contentHash(t);
          f.nameHash = mix(query::contentHash(it.name.name), static_cast<uint64_t>(it.kind));
          uint64_t hh = mix(f.nameHash, it.name.valid());
          for (Span x : {it.keywordSpan, it.name.span})
            hh = mix(mix(hh, x.begin == 0 && x.end == 0 ? ~0ULL : x.begin - it.span.begin),
                     x.end - x.begin);
          f.headerHash = hh;
          // The names the item uses; its own name (after the keyword) is not a use.
          std::string_view body = t;
          Span own = moved(it.name.span, part.delta);
          if (it.name.valid() && own.end >= sp.begin && own.end - sp.begin <= t.size())
            body = t.substr(own.end - sp.begin);
          for (std::string_view id : identifiers(body))
            f.identifiers.emplace_back(id);
          slot->items.push_back(std::move(f));
        }
      }
      slot->lastUsed = generation;
      for (PartFacts::PerItem &f : slot->items)
        facts[i++] = &f;
    }
    for (size_t i = 0; i < n; ++i) {
      textHash[i] = facts[i]->textHash;
      headersKey = mix(headersKey, facts[i]->headerHash);
      if (!slots[i].item->name.valid())
        continue;
      if (itemByName.emplace(itemName(i), static_cast<int>(i)).second)
        namesHash += facts[i]->nameHash * 0x100000001b3ULL; // a set: order-free
      else
        duplicated.insert(itemName(i));
    }
    // Which identifiers name items: kept per item while the set of names
    // stays (a keystroke inside a body looks up one item's identifiers).
    for (size_t i = 0; i < n; ++i) {
      PartFacts::PerItem &f = *facts[i];
      if (!f.itemNamesValid || f.itemNamesFor != namesHash) {
        f.itemNames.clear();
        for (const std::string &id : f.identifiers)
          if (itemByName.count(id))
            f.itemNames.push_back(id);
        f.itemNamesFor = namesHash;
        f.itemNamesValid = true;
      }
      for (std::string_view name : f.itemNames) {
        auto it = itemByName.find(name);
        if (it != itemByName.end() && it->second != static_cast<int>(i))
          uses[i].push_back(it->second);
      }
    }
  }
  const uint64_t targetHash = query::contentHash(target + "/" + backend);
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
      k = mix(mix(k, query::contentHash(itemName(j))), textHash[j]);
    key[i] = k;
  }

  // ---- look-ups ----
  std::vector<std::shared_ptr<const ItemResult>> results(n);
  std::vector<int> misses;
  {
    std::lock_guard<std::mutex> lock(mu_);
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
  const bool full = misses.size() > kMaxSeparateChecks || (!misses.empty() && misses.size() == n);

  // ---- the Modules the checks read ----
  // A full check reads every item. An item check reads the item and what
  // it reaches by name (callees, transitively, and every item of a name
  // among them, so that a name means the same item), nothing else: its
  // result equals that on the whole Module (the tests compare), unless it
  // has a name-resolution diagnostic that may read other items (an unknown
  // function's suggestions read every item's name and kind): that item is
  // checked again on a Module of those nodes and every other item as a
  // header (name, kind, spans). The file-level
  // check reads only headers, and is kept by their layout (fileLevel_).
  sema::CheckOptions base;
  base.target = target;
  base.backend = backend;
  base.sourceText = text;
  base.exprTypeTable = false; // nothing here reads CheckedProgram::exprTypes
  auto runCheck = [&](const syntax::Module &m, std::vector<int> only, DiagnosticSink &sink) {
    sema::CheckOptions co = base;
    co.onlyItems = std::move(only);
    return sema::check(m, co, sink);
  };
  std::shared_ptr<const syntax::Module> whole;
  if (full)
    whole = wholeModule(parse);
  // The parts in `needPart` whole, and with `headers` every other item as a
  // header; `local` maps file item indices to the module's (-1: absent).
  auto moduleOf = [&](const std::vector<bool> &needPart, bool headers, std::vector<int> &local) {
    syntax::Module mod;
    local.assign(n, -1);
    size_t i = 0;
    for (size_t p = 0; p < parse.parts.size(); ++p) {
      const syntax::ItemizedParse::Part &part = parse.parts[p];
      size_t count = part.item->module.items.size();
      if (needPart[p] || headers) {
        for (size_t k = 0; k < count; ++k)
          local[i + k] = static_cast<int>(mod.items.size() + k);
        if (needPart[p])
          syntax::appendModule(mod, part.item->module, part.delta);
        else
          syntax::appendItemHeaders(mod, part.item->module, part.delta);
      }
      i += count;
    }
    return mod;
  };
  auto partsFor = [&](int item) {
    std::vector<bool> needPart(parse.parts.size(), false);
    std::vector<int> work{item};
    work.insert(work.end(), reachedBy[item].begin(), reachedBy[item].end());
    std::set<std::string_view> names;
    for (int j : work) {
      needPart[slots[j].part] = true;
      if (slots[j].item->name.valid())
        names.insert(itemName(j));
    }
    // Every definition of a duplicated name among them (rare: a scan), and
    // the items sharing a part with them come along (whole parts).
    for (std::string_view name : names)
      if (duplicated.count(name))
        for (size_t j = 0; j < n; ++j)
          if (slots[j].item->name.valid() && itemName(j) == name)
            needPart[slots[j].part] = true;
    return needPart;
  };

  // File-level verdicts (duplicate item names): a check of no item, on the
  // headers only and without the text, so that its result depends on the
  // headers' layout alone: kept with spans relative to their items.
  std::vector<Diagnostic> fileLevel;
  std::vector<sema::SymbolInfo> itemSymbols;
  {
    auto beginOf = [&](size_t i) { return itemSpan(i).begin; };
    std::unique_lock<std::mutex> lock(mu_);
    if (fileLevel_.valid && fileLevel_.key == headersKey) {
      fileLevel = fileLevel_.diagnostics;
      for (size_t k = 0; k < fileLevel.size(); ++k) {
        const std::vector<RelSpan> &rel = fileLevel_.spans[k];
        size_t r = 0;
        Diagnostic &d = fileLevel[k];
        d.span = absolute(rel[r++], beginOf);
        for (SpanLabel &l : d.labels)
          l.span = absolute(rel[r++], beginOf);
        for (FixIt &f : d.fixits)
          f.span = absolute(rel[r++], beginOf);
      }
      itemSymbols = fileLevel_.symbols;
      for (size_t k = 0; k < itemSymbols.size(); ++k)
        itemSymbols[k].definition = absolute(fileLevel_.symbolSpans[k], beginOf);
    } else {
      lock.unlock();
      std::vector<int> local;
      syntax::Module headers = moduleOf(std::vector<bool>(parse.parts.size(), false), true, local);
      // An item's extent is not part of the key (typing in a body changes
      // it): the check sees each item as empty at its start.
      for (syntax::Item &it : headers.items)
        it.span = Span{it.span.begin, it.span.begin};
      sema::CheckOptions co = base;
      co.sourceText = {};
      co.onlyItems = {-1};
      DiagnosticSink fileSink;
      sema::CheckedProgram fileProgram = sema::check(headers, co, fileSink);
      fileLevel = fileSink.take();
      for (const sema::SymbolInfo &sym : fileProgram.symbolInfos)
        if (sym.kind == sema::SymbolKind::Item) {
          itemSymbols.push_back(sym);
          itemSymbols.back().references.clear();
        }
      // Relative to the items they lie in (else not kept).
      FileLevel kept;
      kept.key = headersKey;
      kept.valid = true;
      auto relative = [&](Span sp, size_t hint) -> std::optional<RelSpan> {
        if (sp.begin == 0 && sp.end == 0)
          return RelSpan{-1, 0, 0};
        auto at = [&](size_t i) {
          return RelSpan{static_cast<int>(i), sp.begin - itemSpan(i).begin, sp.end - sp.begin};
        };
        if (hint < n && within(sp, itemSpan(hint)))
          return at(hint);
        // The items are in text order: the last one starting at or before it.
        size_t lo = 0, hi = n;
        while (lo < hi) {
          size_t mid = (lo + hi) / 2;
          if (itemSpan(mid).begin <= sp.begin)
            lo = mid + 1;
          else
            hi = mid;
        }
        if (lo > 0 && within(sp, itemSpan(lo - 1)))
          return at(lo - 1);
        return std::nullopt;
      };
      for (const Diagnostic &d : fileLevel) {
        std::vector<RelSpan> rel;
        std::vector<Span> all{d.span};
        for (const SpanLabel &l : d.labels)
          all.push_back(l.span);
        for (const FixIt &f : d.fixits)
          all.push_back(f.span);
        for (Span sp : all)
          if (auto r = relative(sp, n))
            rel.push_back(*r);
          else
            kept.valid = false;
        kept.diagnostics.push_back(d);
        kept.spans.push_back(std::move(rel));
      }
      for (const sema::SymbolInfo &sym : itemSymbols) {
        auto it = itemByName.find(sym.name); // an item's symbol is at its name
        std::optional<RelSpan> r =
            relative(sym.definition, it == itemByName.end() ? n : static_cast<size_t>(it->second));
        if (!r)
          kept.valid = false;
        kept.symbols.push_back(sym);
        kept.symbolSpans.push_back(r.value_or(RelSpan{}));
      }
      lock.lock();
      fileLevel_ = std::move(kept);
      ++fileLevelChecks_;
    }
  }

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
        if (startsIn(s, itemSpan(i)))
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
      Span item = itemSpan(*i);
      bool inside = within(d.span, item);
      // Secondary spans may point into the item or into a callee it reaches.
      auto anchor = [&](Span &s) -> std::string {
        if (within(s, item)) {
          s = shifted(s, -static_cast<int64_t>(item.begin));
          return "";
        }
        for (int j : reachedBy[*i])
          if (within(s, itemSpan(j))) {
            s = shifted(s, -static_cast<int64_t>(itemSpan(j).begin));
            return itemName(j);
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
        if (within(a.span, itemSpan(i))) {
          sema::TypeAnnotation rel = a;
          rel.span = shifted(a.span, -static_cast<int64_t>(itemSpan(i).begin));
          byItem[i].annotations.push_back(std::move(rel));
          break;
        }
    for (const sema::SymbolInfo &s : p.symbolInfos) {
      if (s.kind == sema::SymbolKind::Item) {
        for (Span r : s.references)
          for (int i : items)
            if (within(r, itemSpan(i))) {
              byItem[i].itemReferences.push_back(
                  {s.name, shifted(r, -static_cast<int64_t>(itemSpan(i).begin))});
              break;
            }
        continue;
      }
      if (std::find(items.begin(), items.end(), s.item) == items.end())
        continue; // a callee's, checked silently
      Span item = itemSpan(s.item);
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
    if (full) {
      // One full check (as `kina check` does); every item's result is fresh.
      DiagnosticSink sink;
      sema::CheckedProgram p = runCheck(*whole, {}, sink);
      std::vector<int> all(n);
      for (size_t i = 0; i < n; ++i)
        all[i] = static_cast<int>(i);
      harvest(p, sink.take(), all);
    } else {
      // One check per item: with several selected items, a selected callee
      // reached first from a selected caller would report into the caller's
      // scratch sink (sema::CheckOptions::onlyItems checks callees silently).
      for (int i : misses) {
        std::vector<bool> needPart = partsFor(i);
        for (bool headers : {false, true}) {
          std::vector<int> local;
          syntax::Module mod = moduleOf(needPart, headers, local);
          DiagnosticSink sink;
          sema::CheckedProgram p = runCheck(mod, {local[i]}, sink);
          std::vector<Diagnostic> diags = sink.take();
          // An unknown name's suggestions are the item's own bindings (sema
          // binds no item names in scopes); other name diagnostics (an
          // unknown function's suggestions) may read any item.
          bool byName = std::any_of(diags.begin(), diags.end(), [](const Diagnostic &d) {
            return d.info().diagClass == DiagClass::Name && d.id != DiagId::UnknownName;
          });
          if (byName && !headers)
            continue; // its suggestions read every item: again with the headers
          // The module's item indices as the file's.
          std::vector<int> file(mod.items.size(), -1);
          for (size_t j = 0; j < n; ++j)
            if (local[j] >= 0)
              file[local[j]] = static_cast<int>(j);
          auto toFile = [&](int k) {
            return k >= 0 && static_cast<size_t>(k) < file.size() ? file[k] : k;
          };
          for (sema::SymbolInfo &sym : p.symbolInfos)
            sym.item = toFile(sym.item);
          for (sema::KernelSummary &k : p.kernels)
            k.item = toFile(k.item);
          harvest(p, std::move(diags), {i});
          break;
        }
      }
    }
  }
  out->itemsChecked = static_cast<unsigned>(full ? n : misses.size());
  out->itemsReused = static_cast<unsigned>(n - out->itemsChecked);

  // ---- merge, as sema::analyze assembles its result ----
  bool syntaxErrors = false;
  for (const Diagnostic &d : parse.diagnostics)
    syntaxErrors |= d.severity() == Severity::Error;
  std::vector<Span> brokenItems;
  if (syntaxErrors)
    for (size_t i = 0; i < n; ++i)
      for (const Diagnostic &d : parse.diagnostics)
        if (d.span.begin >= itemSpan(i).begin && d.span.begin <= itemSpan(i).end)
          brokenItems.push_back(itemSpan(i));
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
  parts->itemSymbols = std::move(itemSymbols);
  auto anchorBase = [&](const std::string &anchor, int64_t own) -> int64_t {
    if (anchor.empty())
      return own;
    auto it = itemByName.find(anchor);
    return it == itemByName.end() ? own : itemSpan(it->second).begin;
  };
  parts->itemBegin.resize(n);
  parts->isKernel.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const ItemResult &r = *results[i];
    int64_t delta = itemSpan(i).begin;
    parts->itemBegin[i] = itemSpan(i).begin;
    parts->isKernel[i] = slots[i].item->kind == syntax::ItemKind::Kernel;
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
  }
  parts->results = std::move(results);
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
    for (auto it = facts_.begin(); it != facts_.end();)
      it = it->second->lastUsed + 1 < generation_ ? facts_.erase(it) : std::next(it);
  }
  if (whole)
    out->module_ = std::move(whole); // assembled anyway: kept (read by features)
  out->parts = std::move(parts);
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

const std::vector<sema::KernelSummary> &CheckedFile::kernels() const {
  materialize();
  return kernels_;
}

const syntax::Module &CheckedFile::module() const {
  std::call_once(moduleBuilt_, [&] {
    if (module_)
      return;
    if (!parts) {
      module_ = std::make_shared<const syntax::Module>();
      return;
    }
    module_ = wholeModule(parts->parse);
  });
  return *module_;
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
      if (p.isKernel[i]) {
        sema::KernelSummary k = r.kernel ? *r.kernel : sema::KernelSummary{};
        k.item = static_cast<int>(i);
        kernels_.push_back(std::move(k));
      }
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
