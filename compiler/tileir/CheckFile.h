//===- CheckFile.h - `kina check --backend=tileir` on a checked file -*- C++ -*-===//
//
// The Tile IR half of a file's check, shared by `kina check --backend=tileir`,
// the language server (kina.backend = "tileir") and the property harness, so
// that all three prove the same thing: after sema accepts the file, every
// kernel is lowered to tile IR and then to Tile IR bytecode at the version a
// build would emit, and the registry's requirements are checked for the
// target. What the backend cannot express is K1125 at the construct, a
// missing feature or version K1122, a target without a Tile IR backend K1124.
// Library kina_tileir_check: tileir + lower (kina_tileir itself has no sema).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "diag/Diagnostic.h"
#include "sema/Frontend.h"
#include "tileir/CheckedLowering.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kina::tileir {

/// The Tile IR target for `targetName`, or nullopt after appending K1124 at
/// `span`.
std::optional<Target> targetOrDiagnose(const std::string &targetName, Span span,
                                       std::vector<Diagnostic> &diags);

struct FileCheck {
  /// The version the kernels were lowered at (nullopt: K1124 or K1122 was
  /// reported before any lowering).
  std::optional<CheckVersion> version;
  /// Every kernel that lowered and met the requirements, by name.
  std::vector<std::pair<std::string, LoweredKernel>> kernels;
};

/// Checks every kernel of `analysis` for the Tile IR backend and appends what
/// fails to `diags`. Does nothing when `diags` already holds an error (sema's
/// verdict comes first). `version` pins the version (the language server
/// keeps one per target); without it the installed tileiras is asked
/// (versionForCheck). A kernel whose tile IR lowering fails is skipped: that
/// is an internal error the PTX build reports (K1210).
FileCheck checkFileForTileIr(const sema::Analysis &analysis, const std::string &targetName,
                             std::vector<Diagnostic> &diags,
                             const std::optional<CheckVersion> &version = std::nullopt);

} // namespace kina::tileir
