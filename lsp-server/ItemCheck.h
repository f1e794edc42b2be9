//===- ItemCheck.h - Incremental, item-by-item checking of one file -*- C++ -*-===//
//
// What makes diagnostics fast while typing (issue 6, DESIGN.md §3.7): the
// file is re-parsed on every edit through a syntax::ParseCache (only the
// edited item is parsed and lowered again; the others are used in place, not
// copied), and only the items whose result may have changed are re-checked
// with kina::sema (CheckOptions::onlyItems), on a Module of the items they
// need: their own nodes and their callees', and every other item as a
// header (name, kind, spans), which is all a check reads of an item it
// neither checks nor reaches by name. A keystroke costs the edited item plus
// a few words per item of the file. The result of each checked item
// (its diagnostics, type annotations, local symbols, references to other
// items, kernel summary) is kept with spans relative to the item's start,
// keyed by a hash of:
//   - the target and the backend;
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
/// annotations, symbols and kernel summaries of all items, and the file's
/// Module, only on first use (hover, inlay hints, completion, navigation,
/// signature help), from the items' cached results and parses: building and
/// freeing them for every item was most of a keystroke in a large file.
/// Thread-safe: the lazy parts are built once, under once_flags.
struct CheckedFile {
  /// Equal to kina::sema::analyze(file, target).diagnostics (sorted).
  std::vector<Diagnostic> diagnostics;
  const std::vector<sema::TypeAnnotation> &annotations() const;
  /// Item symbols first (all references included), then each item's locals
  /// (SymbolInfo::item is the item's index in `module`).
  const std::vector<sema::SymbolInfo> &symbols() const;
  /// In item order (as sema::CheckedProgram::kernels).
  const std::vector<sema::KernelSummary> &kernels() const;
  /// The parsed file (items, expressions; for signature help and dims):
  /// equals syntax::parse(file).module.
  const syntax::Module &module() const;
  unsigned itemsChecked = 0; ///< how many items this check re-checked
  unsigned itemsReused = 0;  ///< how many came from the cache
  bool tableParsed = false;  ///< parsed by the table parser (no syntax error)

  struct Parts; ///< what the lazy tables are built from (ItemCheck.cpp)
  std::shared_ptr<const Parts> parts;

private:
  friend class ItemCheckCache; // sets module_ when a full check assembled it
  void materialize() const;
  mutable std::once_flag built_, moduleBuilt_;
  mutable std::vector<sema::TypeAnnotation> annotations_;
  mutable std::vector<sema::SymbolInfo> symbols_;
  mutable std::vector<sema::KernelSummary> kernels_;
  mutable std::shared_ptr<const syntax::Module> module_;
};

class ItemCheckCache {
public:
  /// Parses and checks `file` for `target` and `backend` (sema's
  /// CheckOptions::backend: "ptx" or "tileir"), re-checking only what changed
  /// since the previous calls (see the file comment). The file is kept until
  /// the next call (the next parse finds the edit by comparing with it).
  std::shared_ptr<const CheckedFile> check(std::shared_ptr<const SourceFile> file,
                                           const std::string &target,
                                           const std::string &backend = "ptx");
  /// The same on a copy of `file` (tests).
  std::shared_ptr<const CheckedFile> check(const SourceFile &file, const std::string &target,
                                           const std::string &backend = "ptx") {
    return check(std::make_shared<const SourceFile>(file.path(), file.text()), target, backend);
  }

  /// Cached item results (for tests and memory accounting).
  size_t size() const;
  /// How many times the file-level check ran (tests: it is kept by the
  /// layout of the item headers).
  size_t fileLevelChecks() const {
    std::lock_guard<std::mutex> lock(mu_);
    return fileLevelChecks_;
  }

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
  /// What the keys need of each item of a part of the parse, computed once
  /// per part (a part is reused only while its text is unchanged), by the
  /// part's address (the entry keeps the part alive). Under mu_.
  struct PartFacts;
  std::unordered_map<const void *, std::shared_ptr<PartFacts>> facts_;
  /// The last file-level check's result, by the layout of the item headers
  /// (ItemCheck.cpp); spans relative to the items they lie in. Under mu_.
  struct RelSpan {
    int item = -1; ///< -1: the empty span at 0
    uint32_t offset = 0, length = 0;
  };
  struct FileLevel {
    uint64_t key = 0;
    bool valid = false;
    std::vector<Diagnostic> diagnostics;
    std::vector<std::vector<RelSpan>> spans; ///< per diagnostic: span, labels, fix-its
    std::vector<sema::SymbolInfo> symbols;   ///< the items' symbols, no references
    std::vector<RelSpan> symbolSpans;
  };
  FileLevel fileLevel_;
  size_t fileLevelChecks_ = 0;
  template <class BeginOf> static Span absolute(RelSpan r, BeginOf begin) {
    if (r.item < 0)
      return Span{0, 0};
    uint32_t b = static_cast<uint32_t>(begin(static_cast<size_t>(r.item))) + r.offset;
    return Span{b, b + r.length};
  }
  uint64_t generation_ = 0;
};
} // namespace kina::lsp

#endif // KINA_LSP_WITH_SEMA
