//===- DiagnosticJson.cpp - Diagnostics as JSON for tools -----------------===//
#include "driver/DiagnosticJson.h"

namespace kina::driver {

static nlohmann::json rangeJson(Span span, const SourceFile &file) {
  LineCol a = file.utf16LineCol(span.begin), b = file.utf16LineCol(span.end);
  return {{"start", {{"line", a.line}, {"character", a.column}}},
          {"end", {{"line", b.line}, {"character", b.column}}},
          {"startOffset", span.begin},
          {"endOffset", span.end}};
}

nlohmann::json diagnosticToJson(const Diagnostic &d, const SourceFile &file) {
  const DiagInfo &info = d.info();
  nlohmann::json j = {{"code", info.code},
                      {"class", diagClassName(info.diagClass)},
                      {"severity", severityName(info.severity)},
                      {"message", d.message},
                      {"range", rangeJson(d.span, file)}};
  nlohmann::json labels = nlohmann::json::array();
  for (const SpanLabel &l : d.labels)
    labels.push_back({{"message", l.message}, {"range", rangeJson(l.span, file)}});
  j["labels"] = labels;
  j["notes"] = d.notes;
  nlohmann::json fixits = nlohmann::json::array();
  for (const FixIt &f : d.fixits)
    fixits.push_back(
        {{"title", f.title}, {"replacement", f.replacement}, {"range", rangeJson(f.span, file)}});
  j["fixits"] = fixits;
  return j;
}

nlohmann::json fileDiagnosticsToJson(const std::vector<Diagnostic> &diags,
                                     const SourceFile &file) {
  nlohmann::json arr = nlohmann::json::array();
  for (const Diagnostic &d : diags)
    arr.push_back(diagnosticToJson(d, file));
  return {{"file", file.path()}, {"diagnostics", arr}};
}

} // namespace kina::driver
