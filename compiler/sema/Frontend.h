//===- Frontend.h - Parse and check one file --------------------*- C++ -*-===//
//
// The one entry point the CLI and the language server share: text in,
// AST + checked program + every diagnostic out. It never throws or aborts.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "sema/Check.h"
#include "syntax/Parser.h"
#include "target/Registry.h"

#include <map>
#include <string>

namespace kina::sema {

struct FrontendOptions {
  std::string target = std::string(target::defaultTargetName());
  std::string backend = "ptx";      ///< CheckOptions::backend
  std::vector<int> onlyItems;       ///< check only these items (see CheckOptions)
  /// `--kernel K` of build, run and report: when the file has a kernel K,
  /// every item but the file's other kernels is checked (tile and host
  /// functions are reported as always), so a sibling kernel the target
  /// cannot run (the wgmma kernel of a family on sm_80) does not stop K,
  /// as the tune lattice judges each kernel alone (tune/Lattice.cpp).
  std::string onlyKernel;
  /// Only Analysis::diagnostics is wanted (`kina check`): the IDE tables are
  /// not built, Analysis::program stays empty, and the items may be checked
  /// on several threads. The diagnostics equal those of a full analysis.
  bool diagnosticsOnly = false;
  /// With diagnosticsOnly: how many threads check items. 0 picks one per
  /// hardware thread (at most 8) for files large enough to gain from it.
  unsigned threads = 0;
  /// Tunable parameters (syntax/TuneParams.h): every kernel with `tune`
  /// parameters is checked at this point, a parameter not named here at its
  /// default (`--param BM=128`).
  std::map<std::string, int64_t> tunePoint;
};

struct Analysis {
  syntax::ParseResult parse;
  CheckedProgram program;              ///< empty with diagnosticsOnly
  std::vector<Diagnostic> diagnostics; ///< syntax + semantic, sorted
};

Analysis analyze(const SourceFile &file, const FrontendOptions &options = {});

/// How many threads analyze() checks `m` on: 1 without diagnosticsOnly,
/// options.threads when set, else one per hardware thread (at most 8) and
/// per 32 KiB of item text, at least 1.
unsigned checkThreads(const syntax::Module &m, const FrontendOptions &options);

} // namespace kina::sema
