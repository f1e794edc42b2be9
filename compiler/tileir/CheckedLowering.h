//===- CheckedLowering.h - What `kina check --backend=tileir` proves -*- C++ -*-===//
//
// The Tile IR half of the check => build promise, shared by the driver
// (check, build, run) and the property harness: a checked, lowered
// ir::Kernel is written as bytecode at a version and its requirements are
// checked for the target. What the lowering cannot express is K1125 at the
// construct; a missing feature or version is K1122. Needs no assembler.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "diag/Diagnostic.h"
#include "tileir/Assembler.h"
#include "tileir/FromTileIR.h"
#include "tileir/Requirements.h"

#include <optional>
#include <string>
#include <vector>

namespace kina::tileir {

/// The newest version the writer has that `target` accepts (what checking
/// lowers at when no tileiras is installed).
std::optional<Version> writerVersionFor(Target target);

/// The version a check lowers at: the installed tileiras's choice (kept in
/// `assembler` for the build), else the writer's newest for the target.
/// Nullopt only when the writer has no version the target accepts.
struct CheckVersion {
  Version version;
  std::string describe; ///< for K1122 messages
  std::optional<AssemblerChoice> assembler;
};
std::optional<CheckVersion> versionForCheck(Target target);

/// Lowers and checks; appends a diagnostic and returns nullopt on failure.
/// `assembler` names the version's source in K1122 messages.
std::optional<LoweredKernel> lowerChecked(const ir::Kernel &kernel, Target target, Version version,
                                          const std::string &assembler,
                                          std::vector<Diagnostic> &diags);

} // namespace kina::tileir
