//===- Frontend.cpp - Parse and check one file ----------------------------===//
#include "sema/Frontend.h"

namespace kina::sema {

Analysis analyze(const SourceFile &file, const FrontendOptions &options) {
  Analysis a;
  a.parse = syntax::parse(file);
  a.diagnostics = a.parse.diagnostics;
  bool syntaxErrors = false;
  for (const Diagnostic &d : a.diagnostics)
    syntaxErrors |= d.severity() == Severity::Error;
  // Items the parser could build are still checked, so one typo does not hide
  // every semantic error; nesting/size failures leave nothing to check.
  DiagnosticSink sink;
  CheckOptions co;
  co.target = options.target;
  co.sourceText = file.text();
  co.onlyItems = options.onlyItems;
  a.program = check(a.parse.module, co, sink);
  // Semantic errors inside an item with a syntax error are likely cascades.
  std::vector<Span> brokenItems;
  if (syntaxErrors)
    for (const syntax::Item &item : a.parse.module.items)
      for (const Diagnostic &d : a.parse.diagnostics)
        if (d.span.begin >= item.span.begin && d.span.begin <= item.span.end)
          brokenItems.push_back(item.span);
  for (const Diagnostic &d : sink.diagnostics()) {
    bool inBroken = false;
    for (Span s : brokenItems)
      inBroken |= d.span.begin >= s.begin && d.span.begin <= s.end;
    if (!inBroken)
      a.diagnostics.push_back(d);
  }
  sortDiagnostics(a.diagnostics);
  return a;
}

} // namespace kina::sema
