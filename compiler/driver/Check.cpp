//===- Check.cpp - `kina check FILE...` -----------------------------------===//
//
// Parses and checks each file, prints every diagnostic (text or JSON) and
// exits 1 when any error was reported.
//
//===----------------------------------------------------------------------===//
#include "diag/Render.h"
#include "driver/Commands.h"
#include "driver/DiagnosticJson.h"
#include "driver/SourceLoader.h"
#include "sema/Frontend.h"
#include "tileir/CheckFile.h"

#include "llvm/Support/BuryPointer.h"
#include "llvm/Support/Error.h"

#include <iostream>
#include <memory>

namespace kina::driver {

int runCheckCommand(const CheckOptions &options) {
  bool anyError = false;
  bool anyUnreadable = false;
  nlohmann::json all = nlohmann::json::array();
  for (const std::string &path : options.files) {
    std::string error;
    auto file = loadSource(path, error);
    if (!file) {
      std::cerr << "kina: error: " << error << "\n";
      anyUnreadable = true;
      continue;
    }
    sema::FrontendOptions fe;
    fe.target = options.common.target;
    fe.backend = options.backend;
    bool tileIr = options.backend == "tileir";
    fe.diagnosticsOnly = !tileIr; // items are checked on every core (Tile IR needs the program)
    fe.tunePoint = options.common.tunePoint;
    auto analysis = std::make_unique<sema::Analysis>(sema::analyze(*file, fe));
    if (tileIr)
      tileir::checkFileForTileIr(*analysis, options.common.target, analysis->diagnostics);
    for (const Diagnostic &d : analysis->diagnostics)
      anyError |= d.severity() == Severity::Error;
    if (options.common.format == DiagnosticsFormat::Json) {
      all.push_back(fileDiagnosticsToJson(analysis->diagnostics, *file));
    } else {
      RenderOptions render;
      render.color = options.common.color;
      for (const Diagnostic &d : analysis->diagnostics)
        std::cerr << renderDiagnostic(d, *file, render);
    }
    // The process exits after the last file: as clang's -disable-free does,
    // leave its syntax tree to the OS (freeing it costs a tenth of a check).
    if (&path == &options.files.back())
      llvm::BuryPointer(std::move(analysis));
  }
  if (options.common.format == DiagnosticsFormat::Json)
    std::cout << all.dump(2) << "\n";
  if (anyUnreadable)
    return UsageError;
  return anyError ? InputErrors : Success;
}

} // namespace kina::driver
