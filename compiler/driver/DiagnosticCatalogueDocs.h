//===- DiagnosticCatalogueDocs.h - docs/diagnostics.md ----------*- C++ -*-===//
//
// Renders the diagnostic catalogue (Diagnostics.def) as Markdown; the
// checked-in docs/diagnostics.md must equal this output (a test checks it).
//
//===----------------------------------------------------------------------===//
#pragma once

#include <string>

namespace kina::driver {

std::string renderDiagnosticCatalogueMarkdown();
std::string renderDiagnosticCatalogueText();

} // namespace kina::driver
