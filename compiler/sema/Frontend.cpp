//===- Frontend.cpp - Parse and check one file ----------------------------===//
//
// analyze() parses, checks and assembles the sorted diagnostics. With
// FrontendOptions::diagnosticsOnly (what `kina check` needs) the items are
// split into contiguous ranges of about equal text, each range is checked by
// its own Checker on its own thread (CheckOptions::onlyItems: a callee in
// another range is re-checked silently for its capabilities), and the
// per-range diagnostics are concatenated in item order. File-level
// diagnostics (duplicate item names) come from the first range only. The
// concatenation is the sequence a single Checker reports, so the sorted
// result is the same; CheckerTest compares the two on every stdlib and lit
// file.
//
//===----------------------------------------------------------------------===//
#include "sema/Frontend.h"
#include "syntax/TuneParams.h"

#include <algorithm>
#include <thread>

namespace kina::sema {

namespace {

/// Below this much item text, one thread is faster than starting more.
constexpr uint64_t kMinBytesPerThread = 32 * 1024;
constexpr unsigned kMaxThreads = 8;

uint64_t itemBytes(const syntax::Item &item) {
  return item.span.end > item.span.begin ? item.span.end - item.span.begin : 1;
}

/// `items` (in file order) cut into at most `parts` contiguous, non-empty
/// ranges of about equal text.
std::vector<std::vector<int>> splitItems(const syntax::Module &m, const std::vector<int> &items,
                                         unsigned parts) {
  uint64_t total = 0;
  for (int i : items)
    total += itemBytes(m.items[i]);
  std::vector<std::vector<int>> ranges(1);
  uint64_t before = 0;
  for (int i : items) {
    // Range r holds the items that start in the r-th slice of the text.
    size_t r = static_cast<size_t>(before * parts / std::max<uint64_t>(total, 1));
    if (r >= ranges.size() && !ranges.back().empty())
      ranges.emplace_back();
    ranges.back().push_back(i);
    before += itemBytes(m.items[i]);
  }
  return ranges;
}

/// The diagnostics of checking `items` (all items when empty) with every
/// item's result discarded: the diagnostics-only path.
std::vector<Diagnostic> checkDiagnosticsOnly(const syntax::Module &m, const CheckOptions &base,
                                             const std::vector<int> &items, unsigned threads) {
  // Checker::run checks the selected items once each, in file order.
  std::vector<int> all;
  for (int i : items)
    if (i >= 0 && static_cast<size_t>(i) < m.items.size())
      all.push_back(i);
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  if (items.empty())
    for (size_t i = 0; i < m.items.size(); ++i)
      all.push_back(static_cast<int>(i));
  if (threads <= 1 || all.size() < 2) {
    DiagnosticSink sink;
    CheckOptions co = base;
    co.onlyItems = items;
    (void)check(m, co, sink);
    return sink.take();
  }
  std::vector<std::vector<int>> ranges = splitItems(m, all, threads);
  std::vector<std::vector<Diagnostic>> out(ranges.size());
  auto checkRange = [&](size_t r) {
    DiagnosticSink sink;
    CheckOptions co = base;
    co.onlyItems = ranges[r];
    co.fileDiagnostics = r == 0;
    (void)check(m, co, sink); // the program is freed on this thread too
    out[r] = sink.take();
  };
  std::vector<std::thread> workers;
  for (size_t r = 1; r < ranges.size(); ++r)
    workers.emplace_back(checkRange, r);
  checkRange(0);
  for (std::thread &w : workers)
    w.join();
  std::vector<Diagnostic> merged;
  for (std::vector<Diagnostic> &d : out)
    std::move(d.begin(), d.end(), std::back_inserter(merged));
  return merged;
}

} // namespace

unsigned checkThreads(const syntax::Module &m, const FrontendOptions &options) {
  if (!options.diagnosticsOnly)
    return 1;
  if (options.threads != 0)
    return options.threads;
  unsigned hw = std::max(1u, std::min(std::thread::hardware_concurrency(), kMaxThreads));
  uint64_t total = 0;
  if (options.onlyItems.empty())
    for (const syntax::Item &item : m.items)
      total += itemBytes(item);
  for (int i : options.onlyItems)
    if (i >= 0 && static_cast<size_t>(i) < m.items.size())
      total += itemBytes(m.items[i]);
  return static_cast<unsigned>(std::clamp<uint64_t>(total / kMinBytesPerThread, 1, hw));
}

Analysis analyze(const SourceFile &file, const FrontendOptions &options) {
  Analysis a;
  syntax::ParseOptions po;
  po.instantiateTuneDefaults = false; // instantiated below at options.tunePoint
  a.parse = syntax::parse(file, po);
  a.diagnostics = a.parse.diagnostics;
  // Kernels with tune parameters are checked as their instance at one point.
  for (Diagnostic &d : syntax::checkTuneDeclarations(a.parse.module))
    a.diagnostics.push_back(std::move(d));
  for (Diagnostic &d : syntax::instantiateTuneParams(a.parse.module, options.tunePoint))
    a.diagnostics.push_back(std::move(d));
  bool syntaxErrors = false;
  for (const Diagnostic &d : a.diagnostics)
    syntaxErrors |= d.severity() == Severity::Error;
  // Items the parser could build are still checked, so one typo does not hide
  // every semantic error; nesting/size failures leave nothing to check.
  CheckOptions co;
  co.target = options.target;
  co.backend = options.backend;
  co.sourceText = file.text();
  co.onlyItems = options.onlyItems;
  if (!options.onlyKernel.empty() && co.onlyItems.empty()) {
    const auto &items = a.parse.module.items;
    auto isKernel = [&](const syntax::Item &it) { return it.kind == syntax::ItemKind::Kernel; };
    if (std::any_of(items.begin(), items.end(), [&](const syntax::Item &it) {
          return isKernel(it) && it.name.name == options.onlyKernel;
        }))
      for (size_t i = 0; i < items.size(); ++i)
        if (!isKernel(items[i]) || items[i].name.name == options.onlyKernel)
          co.onlyItems.push_back(static_cast<int>(i));
  }
  std::vector<Diagnostic> semantic;
  if (options.diagnosticsOnly) {
    co.ideTables = false;
    unsigned threads = checkThreads(a.parse.module, options);
    semantic = checkDiagnosticsOnly(a.parse.module, co, co.onlyItems, threads);
  } else {
    DiagnosticSink sink;
    a.program = check(a.parse.module, co, sink);
    semantic = sink.take();
  }
  // Semantic errors inside an item with a syntax error are likely cascades.
  std::vector<Span> brokenItems;
  if (syntaxErrors)
    for (const syntax::Item &item : a.parse.module.items)
      for (const Diagnostic &d : a.parse.diagnostics)
        if (d.span.begin >= item.span.begin && d.span.begin <= item.span.end)
          brokenItems.push_back(item.span);
  for (Diagnostic &d : semantic) {
    bool inBroken = false;
    for (Span s : brokenItems)
      inBroken |= d.span.begin >= s.begin && d.span.begin <= s.end;
    if (!inBroken)
      a.diagnostics.push_back(std::move(d));
  }
  sortDiagnostics(a.diagnostics);
  return a;
}

} // namespace kina::sema
