//===- FuzzParser.cpp - libFuzzer target: the syntax layer ----------------===//
//
// Any bytes are a .kina file. Checks what kina_syntax promises
// (docs/architecture.md, the syntax row): parse() returns, every diagnostic
// span lies inside the text, and a ParseCache that saw another text first
// (the editor's case: the input's first half, then the whole input) gives
// the same diagnostics as a fresh parse. A broken promise aborts, which the
// fuzzer records as a crash.
//
//===----------------------------------------------------------------------===//
#include "FuzzCommon.h"

#include "syntax/Parser.h"

using namespace kina;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  SourceFile file("fuzz.kina", text);
  syntax::ParseResult fresh = syntax::parse(file);
  fuzz::expectSpansInside(fresh.diagnostics, text.size(), "parse");

  syntax::ParseCache cache;
  SourceFile before("fuzz.kina", text.substr(0, size / 2));
  fuzz::expectSpansInside(cache.parse(before).diagnostics, before.text().size(), "cache(before)");
  syntax::ParseResult cached = cache.parse(file);
  fuzz::expectSameDiagnostics(fresh.diagnostics, cached.diagnostics, "ParseCache vs parse");
  return 0;
}
