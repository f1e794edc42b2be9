//===- Server.h - The LSP server: lifecycle, dispatch, features -*- C++ -*-===//
//
// clangd's ClangdLSPServer for Kina: binds the protocol (Protocol.h) to the
// analysis API (Analysis.h). The main thread reads messages, keeps the
// lifecycle (initialize → initialized → … → shutdown → exit), applies text
// changes (Documents.h) and configuration, and dispatches: feature requests
// run on a worker pool, each on its own analysis snapshot; diagnostics are
// published by the Scheduler. Every request is contained: a failure inside a
// handler becomes an error response plus a log line, and the server stays up.
// `$/cancelRequest` cancels the request's token; the reply is then
// RequestCancelled (-32800).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "Analysis.h"
#include "Documents.h"
#include "Logger.h"
#include "Protocol.h"
#include "PublishCache.h"
#include "Scheduler.h"
#include "ThreadPool.h"
#include "Transport.h"
#include "query/Cancellation.h"

#include <atomic>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>

namespace kina::lsp {

struct ServerOptions {
  /// Replay mode: after each message, wait until every worker is idle, so
  /// that transcripts produce their output in a fixed order.
  bool sync = false;
  unsigned requestThreads = 2;
  unsigned maxConcurrentBuilds = 2;
  /// Base of codeDescription.href (the catalogue code is appended after '#').
  std::string diagnosticsDocsUrl;
  /// The longest diagnostics debounce; a larger `debounceMs` is clamped to it
  /// (a client's huge value must not overflow the scheduler's clock).
  Millis maxDebounce{10000};
  /// `kina/run` starts the `kina` driver as a child process; when false it
  /// answers RequestFailed instead (the fuzz target: no process from input).
  bool allowChildProcesses = true;
  /// Publish diagnostics from their cached JSON text (PublishCache.h); off:
  /// every publish serializes every diagnostic (tests compare the two).
  bool cachePublishedJson = true;
  AnalysisOptions analysis;
};

/// What a request handler gets besides its params.
struct RequestContext {
  json id;
  query::CancellationToken token;
};

class Server {
public:
  using RequestHandler = std::function<json(const json &params, RequestContext &ctx)>;
  using NotificationHandler = std::function<void(const json &params)>;

  Server(Transport &transport, Logger &log, ServerOptions options);
  ~Server();

  /// Reads and handles messages until `exit` or end of input. Returns the
  /// process exit code: 0 after shutdown + exit, 1 otherwise (LSP 3.17).
  int run();

  /// Handles one decoded message (what run() does per message).
  void handleMessage(const json &message);
  /// Waits until no request or diagnostics work is pending.
  void waitIdle();
  bool exitRequested() const { return exitRequested_; }
  int exitCode() const;

  /// Adds (or replaces) a request method. `onWorker` runs it on the pool.
  void registerRequest(const std::string &method, RequestHandler handler, bool onWorker = true);

private:
  enum class State { Uninitialized, Running, ShutDown };

  void registerHandlers();
  void reply(const json &id, json result);
  void replyError(const json &id, ErrorCode code, const std::string &message);
  void notify(const std::string &method, json params);
  /// Sends a server→client request; `onResult` runs on the main thread.
  void call(const std::string &method, json params, std::function<void(const json &)> onResult);
  void dispatchRequest(const json &id, const std::string &method, const json &params);
  void runRequest(const json &id, const std::string &method, const json &params,
                  const RequestHandler &handler, RequestContext ctx);

  // Lifecycle and synchronization (main thread).
  json onInitialize(const json &params);
  void onInitialized();
  void onDidOpen(const json &params);
  void onDidChange(const json &params);
  void onDidClose(const json &params);
  void onDidChangeConfiguration(const json &params);
  void onCancel(const json &params);
  void pullConfiguration();
  void applySettings(const KinaSettings &settings);
  void publishDiagnostics(const std::string &uri, int64_t version,
                          const std::vector<Diagnostic> &diagnostics,
                          std::shared_ptr<const SourceFile> file);

  // Features (worker threads).
  LspDiagnostic toLsp(const Diagnostic &d, const SourceFile &file, const std::string &uri) const;
  json hover(const json &params, RequestContext &ctx);
  json inlayHints(const json &params, RequestContext &ctx);
  json semanticTokensFull(const json &params, RequestContext &ctx);
  json semanticTokensDelta(const json &params, RequestContext &ctx);
  json definition(const json &params, RequestContext &ctx);
  json references(const json &params, RequestContext &ctx);
  json rename(const json &params, RequestContext &ctx);
  json documentSymbols(const json &params, RequestContext &ctx);
  json foldingRanges(const json &params, RequestContext &ctx);
  json completion(const json &params, RequestContext &ctx);
  json signatureHelp(const json &params, RequestContext &ctx);
  json codeActions(const json &params, RequestContext &ctx);
  json codeLenses(const json &params, RequestContext &ctx);
  json kernelArtifact(const json &params, RequestContext &ctx, ArtifactKind kind);
  /// After a cubin build: republish the file's diagnostics with the build's
  /// remarks (K0850, K0851; LineViews.h), valid until the next edit.
  void publishWithRemarks(AnalysisSnapshot &snap, const std::string &uri,
                          std::shared_ptr<const SourceFile> file);
  json runKernel(const json &params, RequestContext &ctx);

  Transport &transport_;
  Logger &log_;
  ServerOptions options_;
  Analysis analysis_;
  DocumentStore documents_; // main thread only
  Scheduler scheduler_;
  ThreadPool pool_;

  State state_ = State::Uninitialized;
  std::atomic<bool> exitRequested_{false};
  ClientCapabilities client_;
  std::map<std::string, std::pair<RequestHandler, bool>> requests_;
  std::map<std::string, NotificationHandler> notifications_;

  std::mutex inflightMutex_;
  std::map<std::string, query::CancellationSource> inflight_; ///< by id.dump()

  int nextCallId_ = 1;
  std::map<std::string, std::function<void(const json &)>> pendingCalls_; // main thread

  std::mutex publishMutex_;
  std::map<std::string, PublishCache> publishCaches_; ///< by uri, under publishMutex_

  std::mutex tokensMutex_;
  uint64_t nextTokensId_ = 1;
  std::map<std::string, std::pair<std::string, std::vector<uint32_t>>> lastTokens_;
};

} // namespace kina::lsp
