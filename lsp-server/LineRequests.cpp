//===- LineRequests.cpp - kina/linesAt and kina/sourceOf -------------------===//
#include "LineRequests.h"

namespace kina::lsp {

namespace {

[[noreturn]] void invalid(const std::string &what) {
  throw LspError{ErrorCode::InvalidParams, "invalid params: " + what};
}

TextDocumentIdentifier documentOf(const json &params) {
  TextDocumentIdentifier doc;
  std::string error;
  if (!params.is_object() || !params.contains("textDocument") ||
      !fromJSON(params["textDocument"], doc, error))
    invalid("textDocument" + (error.empty() ? ": missing" : "." + error));
  return doc;
}

std::shared_ptr<const SourceFile> open(AnalysisSnapshot &snap, const std::string &uri) {
  auto f = snap.file(uri);
  if (!f)
    throw LspError{ErrorCode::InvalidParams, "document is not open: " + uri};
  return f;
}

json zeroBased(const std::vector<uint32_t> &lines) {
  json out = json::array();
  for (uint32_t l : lines)
    out.push_back(l - 1);
  return out;
}

} // namespace

json linesAtRequest(AnalysisSnapshot &snap, const json &params) {
  TextDocumentIdentifier doc = documentOf(params);
  Position pos;
  std::string error;
  if (!params.contains("position") || !fromJSON(params["position"], pos, error))
    invalid("position" + (error.empty() ? ": missing" : "." + error));
  auto f = open(snap, doc.uri);
  LinesAtResult r = snap.linesAt(doc.uri, f->offsetOfUtf16({pos.line, pos.character}));
  json out = {{"kernel", r.kernel.empty() ? json(nullptr) : json(r.kernel)},
              {"target", r.target},
              {"first", r.first ? json(r.first - 1) : json(nullptr)},
              {"last", r.last ? json(r.last - 1) : json(nullptr)},
              {"ptxCached", r.ptxCached},
              {"sassCached", r.sassCached},
              {"ptx", zeroBased(r.ptxLines)},
              {"sass", zeroBased(r.sassLines)},
              {"ptxFocus", r.ptxFocus ? json(r.ptxFocus - 1) : json(nullptr)},
              {"sassFocus", r.sassFocus ? json(r.sassFocus - 1) : json(nullptr)}};
  return out;
}

json sourceOfRequest(AnalysisSnapshot &snap, const json &params) {
  TextDocumentIdentifier doc = documentOf(params);
  if (!params.contains("kernel") || !params["kernel"].is_string())
    invalid("kernel: a kernel name is required");
  if (!params.contains("kind") || !params["kind"].is_string() ||
      (params["kind"] != "ptx" && params["kind"] != "sass"))
    invalid("kind: \"ptx\" or \"sass\"");
  if (!params.contains("line") || !params["line"].is_number_unsigned() ||
      params["line"].get<uint64_t>() > UINT32_MAX - 1)
    invalid("line: a 0-based line number");
  open(snap, doc.uri);
  auto line = snap.sourceLineOf(doc.uri, params["kernel"].get<std::string>(),
                                params["kind"] == "ptx" ? ArtifactKind::Ptx : ArtifactKind::Sass,
                                params["line"].get<uint32_t>() + 1);
  return {{"line", line ? json(*line - 1) : json(nullptr)}};
}

} // namespace kina::lsp
