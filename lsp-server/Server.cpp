//===- Server.cpp - The LSP server: lifecycle, dispatch, features ---------===//
//
// Message validation and dispatch first, then lifecycle and text sync (main
// thread), then one small binding per feature (worker threads) that converts
// between LSP positions (UTF-16) and the analysis layer's byte spans.
//
//===----------------------------------------------------------------------===//
#include "Server.h"
#ifdef KINA_LSP_TUNE
#include "TuneHover.h"
#endif
#include "LineRequests.h"

#include "query/Cancellation.h"

#include <algorithm>

namespace kina::lsp {

namespace {

constexpr int kMaxCancelledRetries = 3;

template <class T> T parseParams(const json &params) {
  T out;
  std::string error;
  if (!fromJSON(params, out, error))
    throw LspError{ErrorCode::InvalidParams, "invalid params: " + error};
  return out;
}

/// The `textDocument` of requests that take only a document.
TextDocumentIdentifier textDocumentParam(const json &params) {
  TextDocumentIdentifier doc;
  std::string error;
  if (!params.is_object() || !params.contains("textDocument") ||
      !fromJSON(params["textDocument"], doc, error))
    throw LspError{ErrorCode::InvalidParams, "invalid params: textDocument is required"};
  return doc;
}

Position toPosition(const SourceFile &f, uint32_t offset) {
  LineCol lc = f.utf16LineCol(std::min<uint32_t>(offset, f.text().size()));
  return {lc.line, lc.column};
}
Range toRange(const SourceFile &f, Span s) { return {toPosition(f, s.begin), toPosition(f, s.end)}; }
uint32_t toOffset(const SourceFile &f, Position p) { return f.offsetOfUtf16({p.line, p.character}); }
Span toSpan(const SourceFile &f, const Range &r) {
  uint32_t b = toOffset(f, r.start), e = toOffset(f, r.end);
  return b <= e ? Span{b, e} : Span{e, b};
}

SymbolKind symbolKind(SymbolCategory c) {
  switch (c) {
  case SymbolCategory::Kernel:
  case SymbolCategory::TileFunction:
  case SymbolCategory::HostFunction:
    return SymbolKind::Function;
  case SymbolCategory::SharedTile:
  case SymbolCategory::RegisterTile:
  case SymbolCategory::Variable:
    return SymbolKind::Variable;
  }
  return SymbolKind::Variable;
}

CompletionItemKind completionKind(CompletionCategory c) {
  switch (c) {
  case CompletionCategory::Keyword:
    return CompletionItemKind::Keyword;
  case CompletionCategory::PrimitiveOp:
    return CompletionItemKind::Function;
  case CompletionCategory::DType:
    return CompletionItemKind::Struct;
  case CompletionCategory::Placement:
    return CompletionItemKind::EnumMember;
  case CompletionCategory::Capability:
    return CompletionItemKind::Constant;
  case CompletionCategory::Name:
    return CompletionItemKind::Variable;
  }
  return CompletionItemKind::Keyword;
}

/// LSP relative encoding of sorted single-line tokens.
std::vector<uint32_t> encodeTokens(const SourceFile &f, const std::vector<SemanticToken> &tokens) {
  std::vector<uint32_t> data;
  data.reserve(tokens.size() * 5);
  uint32_t prevLine = 0, prevChar = 0;
  for (const SemanticToken &t : tokens) {
    Position b = toPosition(f, t.span.begin), e = toPosition(f, t.span.end);
    if (e.line != b.line || e.character <= b.character)
      continue;
    data.push_back(b.line - prevLine);
    data.push_back(b.line == prevLine ? b.character - prevChar : b.character);
    data.push_back(e.character - b.character);
    data.push_back(static_cast<uint32_t>(t.type));
    data.push_back(t.modifiers);
    prevLine = b.line;
    prevChar = b.character;
  }
  return data;
}

/// One edit turning `before` into `after` (common prefix and suffix kept),
/// in whole 5-integer tokens.
std::vector<SemanticTokensEdit> diffTokens(const std::vector<uint32_t> &before,
                                           const std::vector<uint32_t> &after) {
  size_t prefix = 0;
  while (prefix + 5 <= before.size() && prefix + 5 <= after.size() &&
         std::equal(before.begin() + prefix, before.begin() + prefix + 5, after.begin() + prefix))
    prefix += 5;
  size_t suffix = 0;
  while (suffix + 5 <= before.size() - prefix && suffix + 5 <= after.size() - prefix &&
         std::equal(before.end() - suffix - 5, before.end() - suffix, after.end() - suffix - 5))
    suffix += 5;
  if (prefix == before.size() && prefix == after.size())
    return {};
  SemanticTokensEdit edit;
  edit.start = static_cast<uint32_t>(prefix);
  edit.deleteCount = static_cast<uint32_t>(before.size() - prefix - suffix);
  edit.data.assign(after.begin() + prefix, after.end() - suffix);
  return {edit};
}

std::string idKey(const json &id) { return id.dump(); }

} // namespace

//===----------------------------------------------------------------------===//
// Construction and the message loop
//===----------------------------------------------------------------------===//

Server::Server(Transport &transport, Logger &log, ServerOptions options)
    : transport_(transport), log_(log), options_(std::move(options)), analysis_(options_.analysis),
      scheduler_(
          analysis_, log_,
          [this](const std::string &uri, int64_t version,
                 std::shared_ptr<const std::vector<Diagnostic>> diags,
                 std::shared_ptr<const SourceFile> file) {
            publishDiagnostics(uri, version, *diags, std::move(file));
          },
          options_.maxConcurrentBuilds),
      pool_(options_.requestThreads) {
  scheduler_.setDebounceLimit(options_.maxDebounce);
  registerHandlers();
}

Server::~Server() = default;

int Server::exitCode() const { return state_ == State::ShutDown ? 0 : 1; }

int Server::run() {
  while (!exitRequested_) {
    Incoming in = transport_.read();
    if (in.kind == Incoming::Kind::Eof) {
      log_.info(state_ == State::ShutDown ? "input closed after shutdown"
                                          : "input closed without shutdown/exit");
      break;
    }
    if (in.kind == Incoming::Kind::FramingError) {
      replyError(nullptr, static_cast<ErrorCode>(in.errorCode), in.error);
      continue;
    }
    try {
      handleMessage(in.message);
    } catch (const std::exception &e) {
      // Never reached by design (handlers are contained); a last guard so
      // that no well-framed message can end the session.
      log_.error(std::string("handling a message failed: ") + e.what());
      if (in.message.is_object() && in.message.contains("method")) {
        auto id = in.message.find("id");
        if (id != in.message.end() && (id->is_number_integer() || id->is_string()))
          replyError(*id, ErrorCode::InternalError, std::string("internal error: ") + e.what());
      }
    }
    if (options_.sync)
      waitIdle();
  }
  waitIdle();
  return exitCode();
}

void Server::waitIdle() {
  // Requests may schedule diagnostics and the other way round: settle both.
  for (int i = 0; i < 2; ++i) {
    pool_.waitIdle();
    scheduler_.waitIdle();
  }
}

void Server::reply(const json &id, json result) {
  transport_.send({{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}});
}

void Server::replyError(const json &id, ErrorCode code, const std::string &message) {
  transport_.send({{"jsonrpc", "2.0"},
                   {"id", id},
                   {"error", {{"code", static_cast<int>(code)}, {"message", message}}}});
}

void Server::notify(const std::string &method, json params) {
  transport_.send({{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}});
}

void Server::call(const std::string &method, json params,
                  std::function<void(const json &)> onResult) {
  std::string id = "kina-" + std::to_string(nextCallId_++);
  pendingCalls_[json(id).dump()] = std::move(onResult);
  transport_.send(
      {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}});
}

void Server::handleMessage(const json &message) {
  if (!message.is_object()) {
    replyError(nullptr, ErrorCode::InvalidRequest,
               std::string("a JSON-RPC message must be an object, got ") + message.type_name());
    return;
  }
  json id = nullptr;
  bool hasId = message.contains("id");
  if (hasId) {
    id = message["id"];
    if (!id.is_number_integer() && !id.is_string()) {
      replyError(nullptr, ErrorCode::InvalidRequest, "id must be an integer or a string");
      return;
    }
  }
  auto version = message.find("jsonrpc");
  if (version == message.end() || *version != "2.0") {
    replyError(id, ErrorCode::InvalidRequest, "jsonrpc must be \"2.0\"");
    return;
  }
  auto methodIt = message.find("method");
  if (methodIt == message.end()) {
    if (hasId && (message.contains("result") || message.contains("error"))) {
      // A response to one of our requests (workspace/configuration, ...).
      auto it = pendingCalls_.find(idKey(id));
      if (it == pendingCalls_.end()) {
        log_.error("response to unknown request " + id.dump());
        return;
      }
      auto onResult = std::move(it->second);
      pendingCalls_.erase(it);
      if (message.contains("error")) {
        log_.error("client answered " + id.dump() + " with an error: " + message["error"].dump());
        return;
      }
      try {
        onResult(message["result"]);
      } catch (const std::exception &e) {
        log_.error("handling the response to " + id.dump() + " failed: " + e.what());
      }
      return;
    }
    replyError(id, ErrorCode::InvalidRequest, "a request or notification needs a method");
    return;
  }
  if (!methodIt->is_string()) {
    replyError(id, ErrorCode::InvalidRequest, "method must be a string");
    return;
  }
  std::string method = methodIt->get<std::string>();
  json params = message.contains("params") ? message["params"] : json(nullptr);
  if (!params.is_null() && !params.is_object() && !params.is_array()) {
    if (hasId)
      replyError(id, ErrorCode::InvalidParams, "params must be an object or an array");
    return;
  }

  if (hasId) {
    dispatchRequest(id, method, params);
    return;
  }

  // Notifications: never answered.
  if (method == "exit") {
    exitRequested_ = true;
    return;
  }
  if (state_ == State::Uninitialized) {
    log_.error("notification " + method + " before initialize: dropped");
    return;
  }
  if (state_ == State::ShutDown && method != "$/cancelRequest") {
    log_.error("notification " + method + " after shutdown: dropped");
    return;
  }
  auto it = notifications_.find(method);
  if (it == notifications_.end()) {
    if (method.rfind("$/", 0) != 0)
      log_.info("unhandled notification " + method);
    return;
  }
  try {
    it->second(params);
  } catch (const LspError &e) {
    log_.error(method + ": " + e.message);
  } catch (const std::exception &e) {
    log_.error(method + " failed: " + e.what());
  }
}

void Server::dispatchRequest(const json &id, const std::string &method, const json &params) {
  if (method == "initialize") {
    if (state_ != State::Uninitialized) {
      replyError(id, ErrorCode::InvalidRequest, "initialize was already called");
      return;
    }
  } else if (state_ == State::Uninitialized) {
    replyError(id, ErrorCode::ServerNotInitialized, "the server is not initialized");
    return;
  } else if (state_ == State::ShutDown) {
    replyError(id, ErrorCode::InvalidRequest, "the server is shutting down");
    return;
  }
  auto it = requests_.find(method);
  if (it == requests_.end()) {
    replyError(id, ErrorCode::MethodNotFound, "method not found: " + method);
    return;
  }
  RequestContext ctx;
  ctx.id = id;
  if (!it->second.second) {
    runRequest(id, method, params, it->second.first, ctx);
    return;
  }
  query::CancellationSource source;
  ctx.token = source.token();
  {
    std::lock_guard<std::mutex> lock(inflightMutex_);
    inflight_[idKey(id)] = source;
  }
  RequestHandler handler = it->second.first;
  pool_.post([this, id, method, params, handler, ctx]() mutable {
    runRequest(id, method, params, handler, ctx);
    std::lock_guard<std::mutex> lock(inflightMutex_);
    inflight_.erase(idKey(id));
  });
}

void Server::runRequest(const json &id, const std::string &method, const json &params,
                        const RequestHandler &handler, RequestContext ctx) {
  for (int attempt = 0;; ++attempt) {
    if (ctx.token.isCancelled()) {
      replyError(id, ErrorCode::RequestCancelled, "request cancelled");
      return;
    }
    try {
      json result = handler(params, ctx);
      reply(id, std::move(result));
      return;
    } catch (const LspError &e) {
      replyError(id, e.code, e.message);
      return;
    } catch (const query::Cancelled &) {
      if (ctx.token.isCancelled()) {
        replyError(id, ErrorCode::RequestCancelled, "request cancelled");
        return;
      }
      // The text changed under the request: retry on the new revision.
      if (attempt + 1 >= kMaxCancelledRetries) {
        replyError(id, ErrorCode::ContentModified, "the document changed during " + method);
        return;
      }
    } catch (const std::exception &e) {
      log_.error(method + " " + id.dump() + " failed: " + e.what());
      replyError(id, ErrorCode::InternalError, method + " failed: " + e.what());
      return;
    } catch (...) {
      log_.error(method + " " + id.dump() + " failed with an unknown exception");
      replyError(id, ErrorCode::InternalError, method + " failed");
      return;
    }
  }
}

void Server::registerRequest(const std::string &method, RequestHandler handler, bool onWorker) {
  requests_[method] = {std::move(handler), onWorker};
}

void Server::registerHandlers() {
  registerRequest(
      "initialize", [this](const json &p, RequestContext &) { return onInitialize(p); }, false);
  registerRequest(
      "shutdown",
      [this](const json &, RequestContext &) {
        state_ = State::ShutDown;
        return json(nullptr);
      },
      false);
  notifications_["initialized"] = [this](const json &) { onInitialized(); };
  notifications_["textDocument/didOpen"] = [this](const json &p) { onDidOpen(p); };
  notifications_["textDocument/didChange"] = [this](const json &p) { onDidChange(p); };
  notifications_["textDocument/didClose"] = [this](const json &p) { onDidClose(p); };
  notifications_["textDocument/didSave"] = [](const json &) {};
  notifications_["workspace/didChangeConfiguration"] = [this](const json &p) {
    onDidChangeConfiguration(p);
  };
  notifications_["$/cancelRequest"] = [this](const json &p) { onCancel(p); };

  auto bind = [this](json (Server::*fn)(const json &, RequestContext &)) {
    return [this, fn](const json &p, RequestContext &ctx) { return (this->*fn)(p, ctx); };
  };
  registerRequest("textDocument/hover", bind(&Server::hover));
  registerRequest("textDocument/inlayHint", bind(&Server::inlayHints));
  registerRequest("textDocument/semanticTokens/full", bind(&Server::semanticTokensFull));
  registerRequest("textDocument/semanticTokens/full/delta", bind(&Server::semanticTokensDelta));
  registerRequest("textDocument/definition", bind(&Server::definition));
  registerRequest("textDocument/references", bind(&Server::references));
  registerRequest("textDocument/rename", bind(&Server::rename));
  registerRequest("textDocument/documentSymbol", bind(&Server::documentSymbols));
  registerRequest("textDocument/foldingRange", bind(&Server::foldingRanges));
  registerRequest("textDocument/completion", bind(&Server::completion));
  registerRequest("textDocument/signatureHelp", bind(&Server::signatureHelp));
  registerRequest("textDocument/codeAction", bind(&Server::codeActions));
  registerRequest("textDocument/codeLens", bind(&Server::codeLenses));
  registerRequest("kina/ptx", [this](const json &p, RequestContext &c) {
    return kernelArtifact(p, c, ArtifactKind::Ptx);
  });
  registerRequest("kina/sass", [this](const json &p, RequestContext &c) {
    return kernelArtifact(p, c, ArtifactKind::Sass);
  });
  registerRequest("kina/tileIR", [this](const json &p, RequestContext &c) {
    return kernelArtifact(p, c, ArtifactKind::TileIR);
  });
  registerRequest("kina/registerReport", [this](const json &p, RequestContext &c) {
    return kernelArtifact(p, c, ArtifactKind::RegisterReport);
  });
  registerRequest("kina/run", bind(&Server::runKernel));
  // Synchronised PTX/SASS views (LineRequests.h): cached artifacts only.
  registerRequest("kina/linesAt", [this](const json &p, RequestContext &c) {
    return linesAtRequest(*analysis_.snapshot(c.token), p);
  });
  registerRequest("kina/sourceOf", [this](const json &p, RequestContext &c) {
    return sourceOfRequest(*analysis_.snapshot(c.token), p);
  });
}

//===----------------------------------------------------------------------===//
// Lifecycle, configuration, text synchronization (main thread)
//===----------------------------------------------------------------------===//

json Server::onInitialize(const json &params) {
  auto p = parseParams<InitializeParams>(params);
  client_ = p.capabilities;
  KinaSettings settings;
  std::string error;
  if (!p.initializationOptions.is_null()) {
    if (!fromJSON(p.initializationOptions, settings, error))
      throw LspError{ErrorCode::InvalidParams, "invalid initializationOptions: " + error};
    applySettings(settings);
  }
  state_ = State::Running;
  json kinaRequests = {"kina/ptx", "kina/sass",    "kina/tileIR",  "kina/registerReport",
                       "kina/run", "kina/linesAt", "kina/sourceOf"};
  return {
      {"serverInfo", {{"name", "kina-lsp"}, {"version", KINA_VERSION}}},
      {"capabilities",
       {{"positionEncoding", "utf-16"},
        {"textDocumentSync", {{"openClose", true}, {"change", 2}, {"save", false}}},
        {"hoverProvider", true},
        {"inlayHintProvider", true},
        {"semanticTokensProvider",
         {{"legend", semanticTokenLegend()}, {"full", {{"delta", true}}}, {"range", false}}},
        {"definitionProvider", true},
        {"referencesProvider", true},
        {"renameProvider", true},
        {"documentSymbolProvider", true},
        {"foldingRangeProvider", true},
        {"completionProvider", {{"triggerCharacters", {":"}}, {"resolveProvider", false}}},
        {"signatureHelpProvider", {{"triggerCharacters", {" "}}}},
        {"codeActionProvider", {{"codeActionKinds", {"quickfix"}}}},
        {"codeLensProvider", {{"resolveProvider", false}}},
        {"experimental", {{"kinaRequests", kinaRequests}}}}}};
}

void Server::onInitialized() {
  if (client_.workspaceConfiguration)
    pullConfiguration();
}

void Server::pullConfiguration() {
  call("workspace/configuration",
       configurationParams({"kina.target", "kina.debounceMs", "kina.path", "kina.backend"}),
       [this](const json &result) {
         if (!result.is_array() || result.size() < 2) {
           log_.error("workspace/configuration: expected 3 results, got " + result.dump());
           return;
         }
         KinaSettings s;
         if (result[0].is_string())
           s.target = result[0].get<std::string>();
         if (result[1].is_number_integer())
           s.debounceMs = result[1].get<int64_t>();
         if (result.size() > 2 && result[2].is_string())
           s.path = result[2].get<std::string>();
         if (result.size() > 3 && result[3].is_string()) {
           std::string backend = result[3].get<std::string>();
           if (backend.empty() || backend == "ptx" || backend == "tileir")
             s.backend = backend;
           else
             log_.error("kina.backend must be \"ptx\" or \"tileir\", not \"" + backend +
                        "\" (ignored)");
         }
         applySettings(s);
       });
}

void Server::applySettings(const KinaSettings &s) {
  if (s.path) {
    analysis_.setKinaPath(*s.path);
    log_.info("kina driver: " + (s.path->empty() ? std::string("searched for") : *s.path));
  }
  if (s.debounceMs) {
    // Clamped before it becomes a duration: a huge value must not overflow.
    int64_t ms = std::clamp<int64_t>(*s.debounceMs, 0, options_.maxDebounce.count());
    scheduler_.setDebounceOverride(Millis(ms));
    log_.info("debounce fixed at " + std::to_string(ms) + " ms");
  }
  if (s.backend) {
    analysis_.setBackend(*s.backend);
    log_.info("backend: " + (s.backend->empty() ? std::string("ptx") : *s.backend));
    if (state_ == State::Running && !s.target)
      documents_.forEach([&](const std::string &uri, const Document &doc) {
        scheduler_.update(uri, doc.version);
      });
  }
  if (s.target) {
    analysis_.setTarget(*s.target);
    log_.info("target: " + *s.target);
    // Target-dependent verdicts (capabilities) may change: recheck open files.
    if (state_ == State::Running)
      documents_.forEach(
          [&](const std::string &uri, const Document &doc) { scheduler_.update(uri, doc.version); });
  }
}

void Server::onDidChangeConfiguration(const json &params) {
  const json &settings = params.is_object() && params.contains("settings") ? params["settings"]
                                                                          : json(nullptr);
  if (settings.is_object() && settings.contains("kina")) {
    KinaSettings s;
    std::string error;
    if (!fromJSON(settings["kina"], s, error))
      throw LspError{ErrorCode::InvalidParams, "settings.kina: " + error};
    applySettings(s);
  }
  if (client_.workspaceConfiguration)
    pullConfiguration();
}

void Server::onDidOpen(const json &params) {
  auto p = parseParams<DidOpenTextDocumentParams>(params);
  documents_.open(p.textDocument.uri, std::move(p.textDocument.text), p.textDocument.version);
  const Document *doc = documents_.get(p.textDocument.uri);
  analysis_.setFile(p.textDocument.uri, doc->file, doc->version);
  scheduler_.update(p.textDocument.uri, doc->version, /*immediate=*/true);
}

void Server::onDidChange(const json &params) {
  auto p = parseParams<DidChangeTextDocumentParams>(params);
  const std::string &uri = p.textDocument.uri;
  std::string warning;
  if (!documents_.change(uri, p.textDocument.version, p.contentChanges, warning))
    throw LspError{ErrorCode::InvalidParams, "didChange for a document that is not open: " + uri};
  if (!warning.empty())
    log_.error("didChange " + uri + ": " + warning);
  const Document *doc = documents_.get(uri);
  analysis_.setFile(uri, doc->file, doc->version);
  scheduler_.update(uri, doc->version);
}

void Server::onDidClose(const json &params) {
  auto p = parseParams<DidCloseTextDocumentParams>(params);
  const std::string &uri = p.textDocument.uri;
  if (!documents_.close(uri))
    throw LspError{ErrorCode::InvalidParams, "didClose for a document that is not open: " + uri};
  analysis_.closeFile(uri);
  scheduler_.remove(uri);
  {
    std::lock_guard<std::mutex> lock(tokensMutex_);
    lastTokens_.erase(uri);
  }
  {
    std::lock_guard<std::mutex> lock(publishMutex_);
    publishCaches_.erase(uri);
  }
  // Clear the client's view of this file.
  notify("textDocument/publishDiagnostics", toJSON(PublishDiagnosticsParams{uri, {}, {}}));
}

void Server::onCancel(const json &params) {
  auto p = parseParams<CancelParams>(params);
  std::lock_guard<std::mutex> lock(inflightMutex_);
  auto it = inflight_.find(idKey(p.id));
  if (it != inflight_.end())
    it->second.cancel();
}

void Server::publishDiagnostics(const std::string &uri, int64_t version,
                                const std::vector<Diagnostic> &diagnostics,
                                std::shared_ptr<const SourceFile> file) {
  std::optional<int64_t> shownVersion;
  if (client_.diagnosticVersionSupport)
    shownVersion = version;
  if (options_.cachePublishedJson && !transport_.pretty()) {
    // Most diagnostics of a large file are those of the last publish.
    std::string body;
    {
      std::lock_guard<std::mutex> lock(publishMutex_);
      body = publishCaches_[uri].body(uri, shownVersion, diagnostics, *file,
                                      [&](const Diagnostic &d) { return toLsp(d, *file, uri); });
    }
    transport_.sendBody(body);
    return;
  }
  PublishDiagnosticsParams p;
  p.uri = uri;
  p.version = shownVersion;
  for (const Diagnostic &d : diagnostics)
    p.diagnostics.push_back(toLsp(d, *file, uri));
  notify("textDocument/publishDiagnostics", toJSON(p));
}

void Server::publishWithRemarks(AnalysisSnapshot &snap, const std::string &uri,
                                std::shared_ptr<const SourceFile> file) {
  std::vector<Diagnostic> remarks = snap.buildRemarks(uri);
  auto version = snap.version(uri);
  if (remarks.empty() || !version)
    return;
  std::vector<Diagnostic> all = snap.diagnostics(uri);
  all.insert(all.end(), remarks.begin(), remarks.end());
  sortDiagnostics(all);
  publishDiagnostics(uri, *version, all, std::move(file));
}

LspDiagnostic Server::toLsp(const Diagnostic &d, const SourceFile &file,
                            const std::string &uri) const {
  LspDiagnostic out;
  out.range = toRange(file, d.span);
  switch (d.severity()) {
  case Severity::Error:
    out.severity = DiagnosticSeverity::Error;
    break;
  case Severity::Warning:
    out.severity = DiagnosticSeverity::Warning;
    break;
  case Severity::Note:
    out.severity = DiagnosticSeverity::Information;
    break;
  }
  out.code = std::string(d.info().code);
  if (!options_.diagnosticsDocsUrl.empty()) {
    std::string anchor(d.info().code);
    std::transform(anchor.begin(), anchor.end(), anchor.begin(), ::tolower);
    out.codeHref = options_.diagnosticsDocsUrl + "#" + anchor;
  }
  out.message = d.message;
  for (const std::string &note : d.notes)
    out.message += "\nnote: " + note;
  for (const SpanLabel &l : d.labels)
    out.relatedInformation.push_back({Location{uri, toRange(file, l.span)}, l.message});
  return out;
}

//===----------------------------------------------------------------------===//
// Features (worker threads)
//===----------------------------------------------------------------------===//

namespace {
/// The open document's text in this snapshot, or InvalidParams.
std::shared_ptr<const SourceFile> openFile(AnalysisSnapshot &snap, const std::string &uri) {
  auto f = snap.file(uri);
  if (!f)
    throw LspError{ErrorCode::InvalidParams, "document is not open: " + uri};
  return f;
}
} // namespace

json Server::hover(const json &params, RequestContext &ctx) {
  auto p = parseParams<TextDocumentPositionParams>(params);
  auto snap = analysis_.snapshot(ctx.token);
  auto f = openFile(*snap, p.textDocument.uri);
#ifdef KINA_LSP_TUNE
  if (auto t = tuneHover(f->text(), toOffset(*f, p.position)))
    return toJSON(Hover{t->markdown, toRange(*f, t->span)});
#endif
  auto h = snap->hover(p.textDocument.uri, toOffset(*f, p.position));
  if (!h)
    return nullptr;
  return toJSON(Hover{h->markdown, toRange(*f, h->span)});
}

json Server::inlayHints(const json &params, RequestContext &ctx) {
  auto p = parseParams<InlayHintParams>(params);
  auto snap = analysis_.snapshot(ctx.token);
  auto f = openFile(*snap, p.textDocument.uri);
  json out = json::array();
  for (const InlayHintInfo &h : snap->inlayHints(p.textDocument.uri, toSpan(*f, p.range)))
    out.push_back(toJSON(InlayHint{toPosition(*f, h.offset), h.label,
                                   h.isType ? InlayHintKind::Type : InlayHintKind::Parameter,
                                   h.isType}));
  return out;
}

json Server::semanticTokensFull(const json &params, RequestContext &ctx) {
  TextDocumentIdentifier doc;
  std::string error;
  if (!params.is_object() || !params.contains("textDocument") ||
      !fromJSON(params["textDocument"], doc, error))
    throw LspError{ErrorCode::InvalidParams,
                   "invalid params: textDocument" + (error.empty() ? ": missing" : "." + error)};
  auto snap = analysis_.snapshot(ctx.token);
  auto f = openFile(*snap, doc.uri);
  SemanticTokens t;
  t.data = encodeTokens(*f, snap->semanticTokens(doc.uri));
  std::lock_guard<std::mutex> lock(tokensMutex_);
  t.resultId = std::to_string(nextTokensId_++);
  lastTokens_[doc.uri] = {t.resultId, t.data};
  return toJSON(t);
}

json Server::semanticTokensDelta(const json &params, RequestContext &ctx) {
  auto p = parseParams<SemanticTokensDeltaParams>(params);
  auto snap = analysis_.snapshot(ctx.token);
  auto f = openFile(*snap, p.textDocument.uri);
  std::vector<uint32_t> data = encodeTokens(*f, snap->semanticTokens(p.textDocument.uri));
  std::lock_guard<std::mutex> lock(tokensMutex_);
  std::string resultId = std::to_string(nextTokensId_++);
  auto it = lastTokens_.find(p.textDocument.uri);
  json out;
  if (it != lastTokens_.end() && it->second.first == p.previousResultId) {
    out = toJSON(SemanticTokensDelta{resultId, diffTokens(it->second.second, data)});
  } else {
    // Unknown previous result: answer with the full tokens (allowed by LSP).
    out = toJSON(SemanticTokens{resultId, data});
  }
  lastTokens_[p.textDocument.uri] = {resultId, std::move(data)};
  return out;
}

json Server::definition(const json &params, RequestContext &ctx) {
  auto p = parseParams<TextDocumentPositionParams>(params);
  auto snap = analysis_.snapshot(ctx.token);
  auto f = openFile(*snap, p.textDocument.uri);
  json out = json::array();
  for (const FileSpan &s : snap->definition(p.textDocument.uri, toOffset(*f, p.position)))
    if (auto target = snap->file(s.uri))
      out.push_back(toJSON(Location{s.uri, toRange(*target, s.span)}));
  return out;
}

json Server::references(const json &params, RequestContext &ctx) {
  auto p = parseParams<ReferenceParams>(params);
  const auto &pos = p.position;
  auto snap = analysis_.snapshot(ctx.token);
  auto f = openFile(*snap, pos.textDocument.uri);
  json out = json::array();
  for (const FileSpan &s :
       snap->references(pos.textDocument.uri, toOffset(*f, pos.position), p.includeDeclaration))
    if (auto target = snap->file(s.uri))
      out.push_back(toJSON(Location{s.uri, toRange(*target, s.span)}));
  return out;
}

json Server::rename(const json &params, RequestContext &ctx) {
  auto p = parseParams<RenameParams>(params);
  const auto &pos = p.position;
  auto snap = analysis_.snapshot(ctx.token);
  auto f = openFile(*snap, pos.textDocument.uri);
  RenameResult r = snap->rename(pos.textDocument.uri, toOffset(*f, pos.position), p.newName);
  if (!r.error.empty())
    throw LspError{ErrorCode::RequestFailed, r.error};
  WorkspaceEdit edit;
  for (const auto &[uri, fix] : r.edits) {
    auto target = snap->file(uri);
    if (!target)
      continue;
    auto slot = std::find_if(edit.changes.begin(), edit.changes.end(),
                             [&](const auto &c) { return c.first == uri; });
    if (slot == edit.changes.end()) {
      edit.changes.push_back({uri, {}});
      slot = edit.changes.end() - 1;
    }
    slot->second.push_back(TextEdit{toRange(*target, fix.span), fix.replacement});
  }
  return toJSON(edit);
}

json Server::documentSymbols(const json &params, RequestContext &ctx) {
  TextDocumentIdentifier doc = textDocumentParam(params);
  auto snap = analysis_.snapshot(ctx.token);
  auto f = openFile(*snap, doc.uri);
  std::function<DocumentSymbol(const SymbolInfo &)> convert = [&](const SymbolInfo &s) {
    DocumentSymbol d{s.name, s.detail, symbolKind(s.category), toRange(*f, s.span),
                     toRange(*f, s.selection), {}};
    for (const auto &c : s.children)
      d.children.push_back(convert(c));
    return d;
  };
  json out = json::array();
  for (const SymbolInfo &s : snap->documentSymbols(doc.uri)) {
    if (client_.hierarchicalDocumentSymbols) {
      out.push_back(toJSON(convert(s)));
    } else {
      // Flat SymbolInformation for clients without hierarchy support.
      out.push_back({{"name", s.name},
                     {"kind", static_cast<int>(symbolKind(s.category))},
                     {"location", toJSON(Location{doc.uri, toRange(*f, s.span)})}});
      for (const auto &c : s.children)
        out.push_back({{"name", c.name},
                       {"kind", static_cast<int>(symbolKind(c.category))},
                       {"containerName", s.name},
                       {"location", toJSON(Location{doc.uri, toRange(*f, c.span)})}});
    }
  }
  return out;
}

json Server::foldingRanges(const json &params, RequestContext &ctx) {
  TextDocumentIdentifier doc = textDocumentParam(params);
  auto snap = analysis_.snapshot(ctx.token);
  auto f = openFile(*snap, doc.uri);
  json out = json::array();
  for (const FoldInfo &fold : snap->foldingRanges(doc.uri)) {
    uint32_t start = f->byteLineCol(fold.span.begin).line;
    uint32_t end = f->byteLineCol(fold.span.end).line;
    // Keep a closing bracket's line visible; comment runs fold whole.
    if (!fold.isComment)
      end = end > 0 ? end - 1 : 0;
    if (end <= start)
      continue;
    FoldingRange r{start, end, std::nullopt};
    if (fold.isComment)
      r.kind = "comment";
    out.push_back(toJSON(r));
  }
  return out;
}

json Server::completion(const json &params, RequestContext &ctx) {
  auto p = parseParams<TextDocumentPositionParams>(params);
  auto snap = analysis_.snapshot(ctx.token);
  auto f = openFile(*snap, p.textDocument.uri);
  json items = json::array();
  for (const CompletionEntry &e : snap->completion(p.textDocument.uri, toOffset(*f, p.position)))
    items.push_back(toJSON(CompletionItem{e.label, completionKind(e.category), e.detail, ""}));
  return {{"isIncomplete", false}, {"items", std::move(items)}};
}

json Server::signatureHelp(const json &params, RequestContext &ctx) {
  auto p = parseParams<TextDocumentPositionParams>(params);
  auto snap = analysis_.snapshot(ctx.token);
  auto f = openFile(*snap, p.textDocument.uri);
  auto s = snap->signatureHelp(p.textDocument.uri, toOffset(*f, p.position));
  if (!s)
    return nullptr;
  SignatureHelp h;
  h.signatures.push_back({s->label, s->documentation, s->parameters});
  h.activeParameter = s->activeParameter;
  return toJSON(h);
}

json Server::codeActions(const json &params, RequestContext &ctx) {
  auto p = parseParams<CodeActionParams>(params);
  const std::string &uri = p.textDocument.uri;
  auto snap = analysis_.snapshot(ctx.token);
  auto f = openFile(*snap, uri);
  json out = json::array();
  for (const QuickFix &fix : snap->quickFixes(uri, toSpan(*f, p.range))) {
    CodeAction a;
    a.title = fix.title;
    a.diagnostics.push_back(toLsp(fix.diagnostic, *f, uri));
    std::vector<TextEdit> edits;
    for (const FixIt &e : fix.edits)
      edits.push_back({toRange(*f, e.span), e.replacement});
    a.edit.changes.push_back({uri, std::move(edits)});
    a.isPreferred = fix.diagnostic.fixits.size() == 1;
    out.push_back(toJSON(a));
  }
  return out;
}

json Server::codeLenses(const json &params, RequestContext &ctx) {
  TextDocumentIdentifier doc = textDocumentParam(params);
  auto snap = analysis_.snapshot(ctx.token);
  auto f = openFile(*snap, doc.uri);
  json out = json::array();
  for (const KernelInfo &k : snap->kernels(doc.uri)) {
    Range r = toRange(*f, k.nameSpan);
    json args = json::array({{{"uri", doc.uri}, {"kernel", k.name}}});
    out.push_back(toJSON(CodeLens{r, Command{"Run", "kina.run", args}}));
    out.push_back(toJSON(CodeLens{r, Command{"Show PTX", "kina.showPtx", args}}));
    out.push_back(toJSON(CodeLens{r, Command{"Register report", "kina.registerReport", args}}));
#ifdef KINA_LSP_TUNE
    if (kernelIsTunable(f->text(), k.nameSpan.begin))
      out.push_back(toJSON(CodeLens{r, Command{"Tune", "kina.tune", args}}));
#endif
  }
  // Host functions: Run (`kina run --fn`; host).
  for (const SymbolInfo &s : snap->documentSymbols(doc.uri))
    if (s.category == SymbolCategory::HostFunction) {
      json args = json::array({{{"uri", doc.uri}, {"kernel", s.name}}});
      out.push_back(toJSON(CodeLens{toRange(*f, s.selection), Command{"Run", "kina.run", args}}));
    }
  return out;
}

namespace {
/// The kernel a kina/* request is about: named, or the one at `position`.
std::string resolveKernel(AnalysisSnapshot &snap, const KernelRequestParams &p,
                          const SourceFile &f) {
  if (p.kernel)
    return *p.kernel;
  if (p.position)
    if (auto k = snap.kernelAt(p.textDocument.uri, toOffset(f, *p.position)))
      return k->name;
  throw LspError{ErrorCode::InvalidParams,
                 "name a kernel (\"kernel\") or place \"position\" inside one"};
}
} // namespace

json Server::kernelArtifact(const json &params, RequestContext &ctx, ArtifactKind kind) {
  auto p = parseParams<KernelRequestParams>(params);
  auto snap = analysis_.snapshot(ctx.token);
  auto f = openFile(*snap, p.textDocument.uri);
  std::string kernel = resolveKernel(*snap, p, *f);
  ArtifactResult r = snap->artifact(p.textDocument.uri, kernel, kind, p.target.value_or(""));
  if (!r.ok)
    throw LspError{ErrorCode::RequestFailed, r.error};
  if (kind == ArtifactKind::Sass || kind == ArtifactKind::RegisterReport)
    publishWithRemarks(*snap, p.textDocument.uri, f); // issue 17: K0850/K0851 at their line
  json out = {{"kernel", r.kernel}, {"target", r.target}, {"text", r.text}};
  if (!r.json.empty())
    out["report"] = json::parse(r.json, nullptr, /*allow_exceptions=*/false);
  return out;
}

json Server::runKernel(const json &params, RequestContext &ctx) {
  auto p = parseParams<KernelRequestParams>(params);
  if (!options_.allowChildProcesses)
    throw LspError{ErrorCode::RequestFailed, "kina/run is disabled in this server"};
  auto snap = analysis_.snapshot(ctx.token);
  auto f = openFile(*snap, p.textDocument.uri);
  std::string kernel = resolveKernel(*snap, p, *f);
  const json token = p.workDoneToken;
  auto progress = [&](const json &value) {
    if (!token.is_null())
      notify("$/progress", {{"token", token}, {"value", value}});
  };
  progress(progressBegin("kina: run " + kernel, "starting", /*cancellable=*/true));
  RunResult r;
  try {
    r = snap->run(p.textDocument.uri, kernel, p.target.value_or(""), p.dims,
                  [&](const std::string &step) { progress(progressReport(step, std::nullopt)); });
  } catch (const query::Cancelled &) {
    progress(progressEnd("cancelled"));
    throw;
  }
  if (!r.ok) {
    progress(progressEnd("failed"));
    throw LspError{ErrorCode::RequestFailed, r.error};
  }
  progress(progressEnd(r.status == "passed"    ? "done"
                       : r.status == "skipped" ? "skipped: no CUDA device"
                                               : "failed (exit " + std::to_string(r.exitCode) +
                                                     ")"));
  return {{"kernel", kernel}, {"status", r.status}, {"exitCode", r.exitCode},
          {"output", r.output}, {"command", r.command}, {"dims", r.dims}};
}

} // namespace kina::lsp
