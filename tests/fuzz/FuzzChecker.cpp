//===- FuzzChecker.cpp - libFuzzer target: parse + check ------------------===//
//
// Any bytes are a .kina file, checked as `kina check` does (sema::analyze)
// for a target picked by the first byte. Checks what kina_sema promises: it
// returns (never throws, never aborts), every diagnostic span lies inside the
// text, and the multi-threaded diagnostics-only analysis that `kina check`
// uses equals the sequential one.
//
//===----------------------------------------------------------------------===//
#include "FuzzCommon.h"

#include "sema/Frontend.h"

using namespace kina;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const char *const targets[] = {"sm_90a", "sm_80", "sm_100a", "sm_7x"};
  std::string target = size ? targets[data[0] % 4] : "sm_90a";
  std::string text(reinterpret_cast<const char *>(data) + (size ? 1 : 0), size ? size - 1 : 0);
  SourceFile file("fuzz.kina", text);

  sema::FrontendOptions full;
  full.target = target;
  sema::Analysis a = sema::analyze(file, full);
  fuzz::expectSpansInside(a.diagnostics, text.size(), "analyze");

  sema::FrontendOptions quick = full;
  quick.diagnosticsOnly = true;
  quick.threads = 2;
  sema::Analysis b = sema::analyze(file, quick);
  fuzz::expectSameDiagnostics(a.diagnostics, b.diagnostics, "diagnosticsOnly vs full");
  return 0;
}
