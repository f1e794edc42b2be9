//===- Scheduler.h - Per-document diagnostics workers, debounced -*- C++ -*-===//
//
// clangd's TUScheduler, reduced to what Kina needs: each open document has a
// worker thread that, after a debounce window, takes an analysis snapshot,
// computes the document's diagnostics and publishes them, unless a newer
// version of the text has arrived meanwhile (then the result is dropped:
// stale diagnostics are never published).
//
// The debounce is adaptive (DebouncePolicy: the median of recent rebuild
// times, clamped to 50–500 ms) unless overridden (`debounceMs`; 0 publishes
// as soon as the check is done). A rebuild cancelled by a newer write is
// retried on the newer revision. At most `maxConcurrentBuilds` documents
// compute at once.
//
// Threading: update/remove/setDebounceOverride/waitIdle are called from the
// main thread; `publish` is called on worker threads (one at a time per
// document, in version order).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "Analysis.h"
#include "Logger.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

namespace kina::lsp {

using Millis = std::chrono::milliseconds;

/// clangd's DebouncePolicy: wait about as long as a rebuild takes.
struct DebouncePolicy {
  Millis min{50};
  Millis max{500};
  double rebuildRatio = 1.0;
  /// The window for the given recent rebuild durations (ms); `min` without history.
  Millis compute(const std::deque<double> &historyMs) const;
};

class Scheduler {
public:
  /// The diagnostics are shared with the analysis (a large file's are not
  /// copied per publish).
  using PublishFn = std::function<void(const std::string &uri, int64_t version,
                                       std::shared_ptr<const std::vector<Diagnostic>> diagnostics,
                                       std::shared_ptr<const SourceFile> file)>;

  Scheduler(Analysis &analysis, Logger &log, PublishFn publish, unsigned maxConcurrentBuilds);
  ~Scheduler();

  /// The document's text at `version` is now in the analysis; schedule its
  /// diagnostics. `immediate` skips the debounce (e.g. on open).
  void update(const std::string &uri, int64_t version, bool immediate = false);
  /// Stops the document's worker (after Analysis::closeFile).
  void remove(const std::string &uri);
  /// A fixed debounce, or the adaptive policy with std::nullopt.
  void setDebounceOverride(std::optional<Millis> debounce);
  /// No window is longer than `limit` (fixed or adaptive); default 10 s.
  void setDebounceLimit(Millis limit);
  /// The window the next update of `uri` would wait.
  Millis debounceFor(const std::string &uri);
  /// Blocks until no document has pending or running work.
  void waitIdle();

  struct Stats {
    uint64_t published = 0;
    uint64_t droppedStale = 0;
    uint64_t retriedAfterCancel = 0;
  };
  Stats stats() const;

private:
  struct Worker;
  void run(Worker &w);
  Millis debounceLocked(const Worker &w) const;

  Analysis &analysis_;
  Logger &log_;
  PublishFn publish_;
  DebouncePolicy policy_;
  std::atomic<int64_t> overrideMs_{-1};
  std::atomic<int64_t> limitMs_{10000};
  std::mutex workersMutex_;
  std::map<std::string, std::unique_ptr<Worker>> workers_;
  // Bounds concurrent rebuilds across documents.
  std::mutex buildMutex_;
  std::condition_variable buildCv_;
  unsigned buildsRunning_ = 0;
  unsigned maxBuilds_;
  std::atomic<uint64_t> published_{0}, dropped_{0}, retried_{0};
};

} // namespace kina::lsp
