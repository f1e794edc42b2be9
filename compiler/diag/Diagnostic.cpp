//===- Diagnostic.cpp - The diagnostic catalogue --------------------------===//
#include "diag/Diagnostic.h"

#include <algorithm>
#include <tuple>

namespace kina {

const std::vector<DiagInfo> &diagCatalogue() {
  static const std::vector<DiagInfo> catalogue = {
#define KINA_DIAG(ID, CODE, CLASS, SEVERITY, TITLE, HELP)                                          \
  DiagInfo{DiagId::ID, CODE, DiagClass::CLASS, Severity::SEVERITY, TITLE, HELP},
#include "diag/Diagnostics.def"
#undef KINA_DIAG
  };
  return catalogue;
}

const DiagInfo &diagInfo(DiagId id) { return diagCatalogue()[static_cast<size_t>(id)]; }

std::string_view diagClassName(DiagClass c) {
  switch (c) {
  case DiagClass::Syntax: return "syntax";
  case DiagClass::Shape: return "shape";
  case DiagClass::Divisibility: return "divisibility";
  case DiagClass::Bounds: return "bounds";
  case DiagClass::Placement: return "placement";
  case DiagClass::Capability: return "capability";
  case DiagClass::Fence: return "fence";
  case DiagClass::DType: return "dtype";
  case DiagClass::Resource: return "resource";
  case DiagClass::Effect: return "effect";
  case DiagClass::Name: return "name";
  case DiagClass::Toolchain: return "toolchain";
  }
  return "unknown";
}

std::string_view severityName(Severity s) {
  switch (s) {
  case Severity::Error: return "error";
  case Severity::Warning: return "warning";
  case Severity::Note: return "note";
  }
  return "error";
}

bool DiagnosticSink::hasErrors() const {
  return std::any_of(diags_.begin(), diags_.end(),
                     [](const Diagnostic &d) { return d.severity() == Severity::Error; });
}

void sortDiagnostics(std::vector<Diagnostic> &diags) {
  std::stable_sort(diags.begin(), diags.end(), [](const Diagnostic &a, const Diagnostic &b) {
    return std::tie(a.span.begin, a.span.end) < std::tie(b.span.begin, b.span.end);
  });
  diags.erase(std::unique(diags.begin(), diags.end(),
                          [](const Diagnostic &a, const Diagnostic &b) {
                            return a.id == b.id && a.span == b.span && a.message == b.message;
                          }),
              diags.end());
}

} // namespace kina
