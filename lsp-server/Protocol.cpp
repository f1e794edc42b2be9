//===- Protocol.cpp - LSP 3.17 structures and their JSON forms ------------===//
//
// The one place that spells LSP field names. fromJSON is written against a
// tiny ObjectReader that records the path of the first bad field and never
// throws (nlohmann's accessors are only used after a type check).
//
//===----------------------------------------------------------------------===//
#include "Protocol.h"

namespace kina::lsp {

namespace {

const char *typeName(const json &v) { return v.type_name(); }

/// Joins a field name (or "[i]") with the error of the value below it.
std::string joinPath(const std::string &head, const std::string &inner) {
  if (inner.rfind("expected", 0) == 0 || inner.rfind("missing", 0) == 0)
    return head + ": " + inner;
  if (inner.rfind("[", 0) == 0)
    return head + inner;
  return head + "." + inner;
}

bool fromJSON(const json &v, std::string &out, std::string &error) {
  if (!v.is_string()) {
    error = std::string("expected a string, got ") + typeName(v);
    return false;
  }
  out = v.get<std::string>();
  return true;
}

bool fromJSON(const json &v, int64_t &out, std::string &error) {
  if (!v.is_number_integer()) {
    error = std::string("expected an integer, got ") + typeName(v);
    return false;
  }
  // get<int64_t> wraps an unsigned value above INT64_MAX to a negative one.
  if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
    error = "expected a 64-bit signed integer, got " + v.dump();
    return false;
  }
  out = v.get<int64_t>();
  return true;
}

bool fromJSON(const json &v, uint32_t &out, std::string &error) {
  if (v.is_number_unsigned() && v.get<uint64_t>() > UINT32_MAX) {
    error = "expected an unsigned 32-bit integer, got " + v.dump();
    return false;
  }
  int64_t i = 0;
  if (!fromJSON(v, i, error))
    return false;
  if (i < 0 || i > static_cast<int64_t>(UINT32_MAX)) {
    error = "expected an unsigned 32-bit integer, got " + std::to_string(i);
    return false;
  }
  out = static_cast<uint32_t>(i);
  return true;
}

static bool fromJSON(const json &v, std::map<std::string, int64_t> &out, std::string &error) {
  if (!v.is_object()) {
    error = std::string("expected an object, got ") + typeName(v);
    return false;
  }
  for (auto it = v.begin(); it != v.end(); ++it) {
    int64_t value = 0;
    std::string inner;
    if (!fromJSON(it.value(), value, inner)) {
      error = it.key() + ": " + inner;
      return false;
    }
    out[it.key()] = value;
  }
  return true;
}

template <class T> bool fromJSON(const json &v, std::vector<T> &out, std::string &error) {
  if (!v.is_array()) {
    error = std::string("expected an array, got ") + typeName(v);
    return false;
  }
  out.clear();
  for (size_t i = 0; i < v.size(); ++i) {
    T item;
    std::string inner;
    if (!fromJSON(v[i], item, inner)) {
      error = joinPath("[" + std::to_string(i) + "]", inner);
      return false;
    }
    out.push_back(std::move(item));
  }
  return true;
}

/// Maps the fields of one JSON object; remembers the first error with its path.
class ObjectReader {
public:
  ObjectReader(const json &v, std::string &error) : v_(v), error_(error) {
    if (!v.is_object()) {
      error_ = std::string("expected an object, got ") + typeName(v);
      ok_ = false;
    }
  }
  explicit operator bool() const { return ok_; }

  template <class T> ObjectReader &req(const char *key, T &out) {
    if (!ok_)
      return *this;
    auto it = v_.find(key);
    if (it == v_.end()) {
      error_ = std::string(key) + ": missing";
      ok_ = false;
      return *this;
    }
    read(key, *it, out);
    return *this;
  }
  /// Absent or null leaves `out` untouched.
  template <class T> ObjectReader &opt(const char *key, T &out) {
    if (!ok_)
      return *this;
    auto it = v_.find(key);
    if (it == v_.end() || it->is_null())
      return *this;
    read(key, *it, out);
    return *this;
  }
  template <class T> ObjectReader &opt(const char *key, std::optional<T> &out) {
    if (!ok_)
      return *this;
    auto it = v_.find(key);
    if (it == v_.end() || it->is_null())
      return *this;
    T value{};
    read(key, *it, value);
    if (ok_)
      out = std::move(value);
    return *this;
  }

private:
  template <class T> void read(const char *key, const json &field, T &out) {
    std::string inner;
    if (!fromJSON(field, out, inner)) {
      error_ = joinPath(key, inner);
      ok_ = false;
    }
  }

  const json &v_;
  std::string &error_;
  bool ok_ = true;
};

/// Follows a path of object keys; null when any step is missing.
const json &dig(const json &v, std::initializer_list<const char *> path) {
  static const json null;
  const json *cur = &v;
  for (const char *k : path) {
    if (!cur->is_object())
      return null;
    auto it = cur->find(k);
    if (it == cur->end())
      return null;
    cur = &*it;
  }
  return *cur;
}

bool flag(const json &v, std::initializer_list<const char *> path) {
  const json &f = dig(v, path);
  return f.is_boolean() && f.get<bool>();
}

} // namespace

//===----------------------------------------------------------------------===//

json toJSON(const Position &p) { return {{"line", p.line}, {"character", p.character}}; }
json toJSON(const Range &r) { return {{"start", toJSON(r.start)}, {"end", toJSON(r.end)}}; }
json toJSON(const Location &l) { return {{"uri", l.uri}, {"range", toJSON(l.range)}}; }
json toJSON(const TextEdit &e) { return {{"range", toJSON(e.range)}, {"newText", e.newText}}; }

bool fromJSON(const json &v, Position &p, std::string &error) {
  return bool(ObjectReader(v, error).req("line", p.line).req("character", p.character));
}
bool fromJSON(const json &v, Range &r, std::string &error) {
  return bool(ObjectReader(v, error).req("start", r.start).req("end", r.end));
}
bool fromJSON(const json &v, TextDocumentIdentifier &t, std::string &error) {
  return bool(ObjectReader(v, error).req("uri", t.uri));
}
static bool fromJSON(const json &v, VersionedTextDocumentIdentifier &t, std::string &error) {
  return bool(ObjectReader(v, error).req("uri", t.uri).req("version", t.version));
}
static bool fromJSON(const json &v, TextDocumentItem &t, std::string &error) {
  return bool(ObjectReader(v, error)
                  .req("uri", t.uri)
                  .opt("languageId", t.languageId)
                  .req("version", t.version)
                  .req("text", t.text));
}
bool fromJSON(const json &v, TextDocumentPositionParams &p, std::string &error) {
  return bool(ObjectReader(v, error).req("textDocument", p.textDocument).req("position", p.position));
}

bool fromJSON(const json &v, InitializeParams &p, std::string &error) {
  ObjectReader r(v, error);
  std::optional<std::string> rootUri;
  if (!r.opt("rootUri", rootUri))
    return false;
  p.rootUri = rootUri;
  const json &pid = dig(v, {"processId"});
  if (pid.is_number_integer())
    p.processId = pid.get<int64_t>();
  const json &caps = dig(v, {"capabilities"});
  if (!caps.is_null() && !caps.is_object()) {
    error = "capabilities: expected an object";
    return false;
  }
  ClientCapabilities &c = p.capabilities;
  c.diagnosticVersionSupport =
      flag(caps, {"textDocument", "publishDiagnostics", "versionSupport"});
  c.diagnosticRelatedInformation =
      flag(caps, {"textDocument", "publishDiagnostics", "relatedInformation"});
  c.codeDescriptionSupport =
      flag(caps, {"textDocument", "publishDiagnostics", "codeDescriptionSupport"});
  c.hierarchicalDocumentSymbols =
      flag(caps, {"textDocument", "documentSymbol", "hierarchicalDocumentSymbolSupport"});
  c.workspaceConfiguration = flag(caps, {"workspace", "configuration"});
  c.workDoneProgress = flag(caps, {"window", "workDoneProgress"});
  c.snippetSupport = flag(caps, {"textDocument", "completion", "completionItem", "snippetSupport"});
  p.initializationOptions = dig(v, {"initializationOptions"});
  return true;
}

bool fromJSON(const json &v, KinaSettings &s, std::string &error) {
  if (v.is_null())
    return true;
  if (!ObjectReader(v, error)
           .opt("target", s.target)
           .opt("backend", s.backend)
           .opt("debounceMs", s.debounceMs)
           .opt("path", s.path))
    return false;
  if (s.backend && !s.backend->empty() && *s.backend != "ptx" && *s.backend != "tileir") {
    error = "backend must be \"ptx\" or \"tileir\" (as `kina check --backend`), not \"" +
            *s.backend + "\"";
    return false;
  }
  return true;
}

bool fromJSON(const json &v, DidOpenTextDocumentParams &p, std::string &error) {
  return bool(ObjectReader(v, error).req("textDocument", p.textDocument));
}
static bool fromJSON(const json &v, TextDocumentContentChangeEvent &c, std::string &error) {
  return bool(ObjectReader(v, error).opt("range", c.range).req("text", c.text));
}
bool fromJSON(const json &v, DidChangeTextDocumentParams &p, std::string &error) {
  return bool(
      ObjectReader(v, error).req("textDocument", p.textDocument).req("contentChanges", p.contentChanges));
}
bool fromJSON(const json &v, DidCloseTextDocumentParams &p, std::string &error) {
  return bool(ObjectReader(v, error).req("textDocument", p.textDocument));
}

//===----------------------------------------------------------------------===//

json toJSON(const LspDiagnostic &d) {
  json j = {{"range", toJSON(d.range)},
            {"severity", static_cast<int>(d.severity)},
            {"code", d.code},
            {"source", d.source},
            {"message", d.message}};
  if (d.codeHref)
    j["codeDescription"] = {{"href", *d.codeHref}};
  if (!d.relatedInformation.empty()) {
    json rel = json::array();
    for (const auto &r : d.relatedInformation)
      rel.push_back({{"location", toJSON(r.location)}, {"message", r.message}});
    j["relatedInformation"] = std::move(rel);
  }
  return j;
}

bool fromJSON(const json &v, LspDiagnostic &d, std::string &error) {
  ObjectReader r(v, error);
  if (!r.req("range", d.range).req("message", d.message))
    return false;
  const json &code = dig(v, {"code"});
  if (code.is_string())
    d.code = code.get<std::string>();
  else if (code.is_number_integer())
    d.code = code.dump();
  const json &sev = dig(v, {"severity"});
  int64_t severity = 0;
  std::string ignored; // a bad severity is left at the default, as LSP allows
  if (fromJSON(sev, severity, ignored) && severity >= 1 && severity <= 4)
    d.severity = static_cast<DiagnosticSeverity>(severity);
  return true;
}

json toJSON(const PublishDiagnosticsParams &p) {
  json diags = json::array();
  for (const auto &d : p.diagnostics)
    diags.push_back(toJSON(d));
  json j = {{"uri", p.uri}, {"diagnostics", std::move(diags)}};
  if (p.version)
    j["version"] = *p.version;
  return j;
}

json toJSON(const Hover &h) {
  json j = {{"contents", {{"kind", "markdown"}, {"value", h.markdown}}}};
  if (h.range)
    j["range"] = toJSON(*h.range);
  return j;
}

json toJSON(const InlayHint &h) {
  return {{"position", toJSON(h.position)},
          {"label", h.label},
          {"kind", static_cast<int>(h.kind)},
          {"paddingLeft", h.paddingLeft}};
}
bool fromJSON(const json &v, InlayHintParams &p, std::string &error) {
  return bool(ObjectReader(v, error).req("textDocument", p.textDocument).req("range", p.range));
}

json toJSON(const SemanticTokens &t) { return {{"resultId", t.resultId}, {"data", t.data}}; }
json toJSON(const SemanticTokensDelta &d) {
  json edits = json::array();
  for (const auto &e : d.edits)
    edits.push_back({{"start", e.start}, {"deleteCount", e.deleteCount}, {"data", e.data}});
  return {{"resultId", d.resultId}, {"edits", std::move(edits)}};
}
bool fromJSON(const json &v, SemanticTokensDeltaParams &p, std::string &error) {
  return bool(ObjectReader(v, error)
                  .req("textDocument", p.textDocument)
                  .req("previousResultId", p.previousResultId));
}
json semanticTokenLegend() {
  // Order matches kina::lsp::SemanticTokenType in Analysis.h.
  return {{"tokenTypes",
           {"keyword", "type", "function", "variable", "parameter", "number", "comment",
            "operator", "enumMember", "macro"}},
          {"tokenModifiers", {"declaration", "readonly", "defaultLibrary"}}};
}

bool fromJSON(const json &v, ReferenceParams &p, std::string &error) {
  if (!fromJSON(v, p.position, error))
    return false;
  const json &inc = dig(v, {"context", "includeDeclaration"});
  p.includeDeclaration = inc.is_boolean() && inc.get<bool>();
  return true;
}

bool fromJSON(const json &v, RenameParams &p, std::string &error) {
  return fromJSON(v, p.position, error) && bool(ObjectReader(v, error).req("newName", p.newName));
}

json toJSON(const WorkspaceEdit &e) {
  json changes = json::object();
  for (const auto &[uri, edits] : e.changes) {
    json list = json::array();
    for (const auto &te : edits)
      list.push_back(toJSON(te));
    changes[uri] = std::move(list);
  }
  return {{"changes", std::move(changes)}};
}

json toJSON(const DocumentSymbol &s) {
  json children = json::array();
  for (const auto &c : s.children)
    children.push_back(toJSON(c));
  return {{"name", s.name},
          {"detail", s.detail},
          {"kind", static_cast<int>(s.kind)},
          {"range", toJSON(s.range)},
          {"selectionRange", toJSON(s.selectionRange)},
          {"children", std::move(children)}};
}

json toJSON(const FoldingRange &f) {
  json j = {{"startLine", f.startLine}, {"endLine", f.endLine}};
  if (f.kind)
    j["kind"] = *f.kind;
  return j;
}

json toJSON(const CompletionItem &c) {
  json j = {{"label", c.label}, {"kind", static_cast<int>(c.kind)}};
  if (!c.detail.empty())
    j["detail"] = c.detail;
  if (!c.documentation.empty())
    j["documentation"] = {{"kind", "markdown"}, {"value", c.documentation}};
  return j;
}

json toJSON(const SignatureHelp &h) {
  json sigs = json::array();
  for (const auto &s : h.signatures) {
    json params = json::array();
    for (const auto &p : s.parameters)
      params.push_back({{"label", p}});
    json sig = {{"label", s.label}, {"parameters", std::move(params)}};
    if (!s.documentation.empty())
      sig["documentation"] = {{"kind", "markdown"}, {"value", s.documentation}};
    sigs.push_back(std::move(sig));
  }
  return {{"signatures", std::move(sigs)},
          {"activeSignature", h.activeSignature},
          {"activeParameter", h.activeParameter}};
}

bool fromJSON(const json &v, CodeActionParams &p, std::string &error) {
  ObjectReader r(v, error);
  if (!r.req("textDocument", p.textDocument).req("range", p.range))
    return false;
  const json &diags = dig(v, {"context", "diagnostics"});
  if (diags.is_null())
    return true;
  std::string inner;
  if (!fromJSON(diags, p.diagnostics, inner)) {
    error = joinPath("context.diagnostics", inner);
    return false;
  }
  return true;
}

json toJSON(const CodeAction &a) {
  json diags = json::array();
  for (const auto &d : a.diagnostics)
    diags.push_back(toJSON(d));
  return {{"title", a.title},
          {"kind", a.kind},
          {"diagnostics", std::move(diags)},
          {"edit", toJSON(a.edit)},
          {"isPreferred", a.isPreferred}};
}

json toJSON(const CodeLens &l) {
  return {{"range", toJSON(l.range)},
          {"command",
           {{"title", l.command.title},
            {"command", l.command.command},
            {"arguments", l.command.arguments}}}};
}

bool fromJSON(const json &v, CancelParams &p, std::string &error) {
  if (!v.is_object() || !v.contains("id")) {
    error = "id: missing";
    return false;
  }
  const json &id = v["id"];
  if (!id.is_number_integer() && !id.is_string()) {
    error = "id: expected an integer or a string";
    return false;
  }
  p.id = id;
  return true;
}

json progressBegin(const std::string &title, const std::string &message, bool cancellable) {
  return {{"kind", "begin"}, {"title", title}, {"message", message}, {"cancellable", cancellable}};
}
json progressReport(const std::string &message, std::optional<uint32_t> percentage) {
  json j = {{"kind", "report"}, {"message", message}};
  if (percentage)
    j["percentage"] = *percentage;
  return j;
}
json progressEnd(const std::string &message) { return {{"kind", "end"}, {"message", message}}; }

json configurationParams(const std::vector<std::string> &sections) {
  json items = json::array();
  for (const auto &s : sections)
    items.push_back({{"section", s}});
  return {{"items", std::move(items)}};
}

bool fromJSON(const json &v, KernelRequestParams &p, std::string &error) {
  ObjectReader r(v, error);
  if (!r.req("textDocument", p.textDocument)
           .opt("kernel", p.kernel)
           .opt("fn", p.kernel) // kina/run of a host function (host)
           .opt("position", p.position)
           .opt("target", p.target)
           .opt("dims", p.dims))
    return false;
  p.workDoneToken = dig(v, {"workDoneToken"});
  return true;
}

} // namespace kina::lsp
