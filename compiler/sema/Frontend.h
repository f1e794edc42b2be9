//===- Frontend.h - Parse and check one file --------------------*- C++ -*-===//
//
// The one entry point the CLI and the language server share: text in,
// AST + checked program + every diagnostic out. It never throws or aborts.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "sema/Check.h"
#include "syntax/Parser.h"

#include <string>

namespace kina::sema {

struct FrontendOptions {
  std::string target = "sm_90a";
  std::vector<int> onlyItems;       ///< check only these items (see CheckOptions)
};

struct Analysis {
  syntax::ParseResult parse;
  CheckedProgram program;
  std::vector<Diagnostic> diagnostics; ///< syntax + semantic, sorted
};

Analysis analyze(const SourceFile &file, const FrontendOptions &options = {});

} // namespace kina::sema
