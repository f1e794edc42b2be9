//===- DiagnosticJson.h - Diagnostics as JSON for tools ---------*- C++ -*-===//
//
// `--diagnostics-format=json`: one object per file with a `diagnostics`
// array. Positions are 0-based lines and UTF-16 columns (as in LSP) plus
// byte offsets, so editors and scripts need no conversion.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "diag/Diagnostic.h"

#include <nlohmann/json.hpp>

namespace kina::driver {

nlohmann::json diagnosticToJson(const Diagnostic &d, const SourceFile &file);
nlohmann::json fileDiagnosticsToJson(const std::vector<Diagnostic> &diags,
                                     const SourceFile &file);

} // namespace kina::driver
