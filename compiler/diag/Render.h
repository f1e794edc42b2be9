//===- Render.h - Render diagnostics as text --------------------*- C++ -*-===//
//
// clang/rustc-style text: `file:line:col: error[K0101]: message`, the source
// line with carets under the primary span, labelled secondary spans, notes and
// fix-its. Columns are 1-based code points.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "diag/Diagnostic.h"

#include <string>

namespace kina {

struct RenderOptions {
  bool color = false;
};

std::string renderDiagnostic(const Diagnostic &d, const SourceFile &file,
                             const RenderOptions &options = {});

} // namespace kina
