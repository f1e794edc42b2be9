//===- ItemCheck.h - Incremental, item-by-item checking of one file -*- C++ -*-===//
//
// What makes diagnostics fast while typing (issue 6, DESIGN.md §3.7): the
// file is re-parsed on every edit through a syntax::ParseCache (only the
// edited item is parsed and lowered again; the others are moved), and only
// the items whose result may have changed are re-checked
// with kina::sema (CheckOptions::onlyItems). The result of each checked item
// (its diagnostics, type annotations, local symbols, references to other
// items, kernel summary) is kept with spans relative to the item's start,
// keyed by a hash of:
//   - the target;
//   - the item's text;
//   - the text of every item it names, transitively (a caller is re-checked
//     when a callee's body changes: capabilities flow from callees);
//   - for items whose result has a name-resolution diagnostic (whose
//     suggestions come from every item's name), the set of all item names.
// An unchanged item's cached result is shifted to the item's new offset; a
// label or fix-it that points into a callee (e.g. "required here" at the
// callee's `requires`) is kept relative to that callee. A result is not
// cached when some span lies anywhere else (it is then recomputed every
// time), so the merged result always equals a from-scratch
// kina::sema::analyze of the same text (the tests compare).
//
// Thread-safety: check() may be called from several threads at once; the
// cache is locked only around look-ups and inserts, never while checking.
// The cache keeps the results used by the last two checks (undo-friendly,
// bounded: memory does not grow with the length of an editing session).
//
//===----------------------------------------------------------------------===//
#pragma once

#ifdef KINA_LSP_WITH_SEMA

#include "diag/Diagnostic.h"
#include "sema/Check.h"
#include "syntax/Parser.h"

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace kina::lsp {

/// One checked file, with absolute spans, as the IDE features read it.
/// Diagnostics are merged eagerly (every keystroke publishes them); the
/// annotations and symbols of all items only on first use (hover, inlay
/// hints, completion, navigation), from the items' cached results: merging
/// and freeing them for every item was most of a keystroke in a large file.
/// Thread-safe: the lazy parts are built once, under a once_flag.
struct CheckedFile {
  /// Equal to kina::sema::analyze(file, target).diagnostics (sorted).
  std::vector<Diagnostic> diagnostics;
  const std::vector<sema::TypeAnnotation> &annotations() const;
  /// Item symbols first (all references included), then each item's locals
  /// (SymbolInfo::item is the item's index in `module`).
  const std::vector<sema::SymbolInfo> &symbols() const;
  std::vector<sema::KernelSummary> kernels; ///< in item order
  /// The parsed file (items, expressions; for signature help and dims).
  std::shared_ptr<const syntax::Module> module;
  unsigned itemsChecked = 0; ///< how many items this check re-checked
  unsigned itemsReused = 0;  ///< how many came from the cache
  bool tableParsed = false;  ///< parsed by the table parser (no syntax error)

  struct Parts; ///< what the lazy tables are built from (ItemCheck.cpp)
  std::shared_ptr<const Parts> parts;

private:
  void materialize() const;
  mutable std::once_flag built_;
  mutable std::vector<sema::TypeAnnotation> annotations_;
  mutable std::vector<sema::SymbolInfo> symbols_;
};

class ItemCheckCache {
public:
  /// Parses and checks `file` for `target`, re-checking only what changed
  /// since the previous calls (see the file comment).
  std::shared_ptr<const CheckedFile> check(const SourceFile &file, const std::string &target);

  /// Cached item results (for tests and memory accounting).
  size_t size() const;

  struct ItemResult;

private:
  struct Entry {
    std::shared_ptr<const ItemResult> result;
    uint64_t lastUsed = 0;
  };
  mutable std::mutex mu_;
  /// Items' parses from the previous checks (see syntax::ParseCache). Only
  /// the thread holding parseMu_ parses with it.
  std::mutex parseMu_;
  syntax::ParseCache parseCache_;
  unsigned parses_ = 0;
  std::unordered_map<uint64_t, Entry> entries_;
  /// The identifiers of an item's text, by its content hash (same upkeep).
  struct Identifiers {
    std::shared_ptr<const std::vector<std::string>> names;
    uint64_t lastUsed = 0;
  };
  std::unordered_map<uint64_t, Identifiers> identifiers_;
  /// The last checked text and its items' hashes by place (under mu_).
  struct PlacedHash {
    uint32_t begin = 0, end = 0;
    uint64_t hash = 0;
  };
  std::string previousText_;
  std::vector<PlacedHash> previousHashes_;
  uint64_t generation_ = 0;
};

} // namespace kina::lsp

#endif // KINA_LSP_WITH_SEMA
