//===- Scheduler.cpp - Per-document diagnostics workers, debounced --------===//
#include "Scheduler.h"

#include "query/Cancellation.h"

#include <algorithm>
#include <vector>

namespace kina::lsp {

using Clock = std::chrono::steady_clock;

Millis DebouncePolicy::compute(const std::deque<double> &historyMs) const {
  if (historyMs.empty())
    return min;
  std::vector<double> sorted(historyMs.begin(), historyMs.end());
  std::nth_element(sorted.begin(), sorted.begin() + sorted.size() / 2, sorted.end());
  double median = sorted[sorted.size() / 2];
  auto wanted = Millis(static_cast<int64_t>(median * rebuildRatio));
  return std::clamp(wanted, min, max);
}

struct Scheduler::Worker {
  std::string uri;
  std::mutex mu;
  std::condition_variable cv;
  bool pending = false;
  bool running = false;
  bool stop = false;
  int64_t latestVersion = 0;
  Clock::time_point deadline;
  std::deque<double> historyMs; ///< last rebuild durations
  std::thread thread;
};

Scheduler::Scheduler(Analysis &analysis, Logger &log, PublishFn publish,
                     unsigned maxConcurrentBuilds)
    : analysis_(analysis), log_(log), publish_(std::move(publish)),
      maxBuilds_(std::max(1u, maxConcurrentBuilds)) {}

Scheduler::~Scheduler() {
  std::map<std::string, std::unique_ptr<Worker>> workers;
  {
    std::lock_guard<std::mutex> lock(workersMutex_);
    workers.swap(workers_);
  }
  for (auto &[uri, w] : workers) {
    {
      std::lock_guard<std::mutex> lock(w->mu);
      w->stop = true;
    }
    w->cv.notify_all();
  }
  for (auto &[uri, w] : workers)
    w->thread.join();
}

Millis Scheduler::debounceLocked(const Worker &w) const {
  int64_t fixed = overrideMs_.load();
  Millis window = fixed >= 0 ? Millis(fixed) : policy_.compute(w.historyMs);
  return std::min(window, Millis(limitMs_.load()));
}

void Scheduler::update(const std::string &uri, int64_t version, bool immediate) {
  Worker *w;
  {
    std::lock_guard<std::mutex> lock(workersMutex_);
    auto &slot = workers_[uri];
    if (!slot) {
      slot = std::make_unique<Worker>();
      slot->uri = uri;
      Worker *raw = slot.get();
      slot->thread = std::thread([this, raw] { run(*raw); });
    }
    w = slot.get();
  }
  {
    std::lock_guard<std::mutex> lock(w->mu);
    w->latestVersion = version;
    w->pending = true;
    w->deadline = Clock::now() + (immediate ? Millis(0) : debounceLocked(*w));
  }
  w->cv.notify_all();
}

void Scheduler::remove(const std::string &uri) {
  std::unique_ptr<Worker> w;
  {
    std::lock_guard<std::mutex> lock(workersMutex_);
    auto it = workers_.find(uri);
    if (it == workers_.end())
      return;
    w = std::move(it->second);
    workers_.erase(it);
  }
  {
    std::lock_guard<std::mutex> lock(w->mu);
    w->stop = true;
  }
  w->cv.notify_all();
  w->thread.join();
}

void Scheduler::setDebounceOverride(std::optional<Millis> debounce) {
  overrideMs_.store(debounce ? std::clamp<int64_t>(debounce->count(), 0, limitMs_.load()) : -1);
}

void Scheduler::setDebounceLimit(Millis limit) {
  limitMs_.store(std::max<int64_t>(0, limit.count()));
}

Millis Scheduler::debounceFor(const std::string &uri) {
  std::lock_guard<std::mutex> lock(workersMutex_);
  auto it = workers_.find(uri);
  if (it == workers_.end()) {
    int64_t fixed = overrideMs_.load();
    return std::min(fixed >= 0 ? Millis(fixed) : policy_.min, Millis(limitMs_.load()));
  }
  std::lock_guard<std::mutex> wl(it->second->mu);
  return debounceLocked(*it->second);
}

void Scheduler::waitIdle() {
  for (;;) {
    bool busy = false;
    {
      std::lock_guard<std::mutex> lock(workersMutex_);
      for (auto &[uri, w] : workers_) {
        std::lock_guard<std::mutex> wl(w->mu);
        busy |= w->pending || w->running;
      }
    }
    if (!busy)
      return;
    std::this_thread::sleep_for(Millis(1));
  }
}

Scheduler::Stats Scheduler::stats() const {
  return Stats{published_.load(), dropped_.load(), retried_.load()};
}

void Scheduler::run(Worker &w) {
  std::unique_lock<std::mutex> lock(w.mu);
  for (;;) {
    w.cv.wait(lock, [&] { return w.stop || w.pending; });
    if (w.stop)
      return;
    // Debounce: every update pushes the deadline.
    while (!w.stop && w.pending && Clock::now() < w.deadline)
      w.cv.wait_until(lock, w.deadline);
    if (w.stop)
      return;
    if (!w.pending)
      continue;
    w.pending = false;
    w.running = true;
    lock.unlock();

    {
      std::unique_lock<std::mutex> build(buildMutex_);
      buildCv_.wait(build, [&] { return buildsRunning_ < maxBuilds_; });
      ++buildsRunning_;
    }
    auto start = Clock::now();
    bool cancelled = false;
    std::optional<int64_t> version;
    std::shared_ptr<const std::vector<Diagnostic>> diags;
    std::shared_ptr<const SourceFile> file;
    try {
      auto snap = analysis_.snapshot();
      version = snap->version(w.uri);
      if (version) {
        diags = snap->sharedDiagnostics(w.uri);
        file = snap->file(w.uri);
      }
    } catch (const query::Cancelled &) {
      cancelled = true;
    } catch (const std::exception &e) {
      log_.error("diagnostics of " + w.uri + " failed: " + e.what());
      version.reset();
    }
    double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    {
      std::lock_guard<std::mutex> build(buildMutex_);
      --buildsRunning_;
    }
    buildCv_.notify_one();

    lock.lock();
    if (cancelled) {
      // A newer revision exists; rebuild on it unless an update is queued.
      ++retried_;
      if (!w.pending) {
        w.pending = true;
        w.deadline = Clock::now();
      }
    } else {
      w.historyMs.push_back(ms);
      if (w.historyMs.size() > 10)
        w.historyMs.pop_front();
      if (version && *version == w.latestVersion && !w.stop) {
        // Published under the worker lock: no newer version can be recorded
        // between the check and the send.
        publish_(w.uri, *version, std::move(diags), std::move(file));
        ++published_;
      } else if (version) {
        ++dropped_;
        log_.verbose("dropped diagnostics of " + w.uri + " v" + std::to_string(*version) +
                     " (latest is v" + std::to_string(w.latestVersion) + ")");
      }
    }
    w.running = false;
    if (!w.pending && !w.stop) {
      // Idle: hand the freed analysis memory back (glibc keeps it otherwise;
      // RSS then only grows over a long session). At most once a second:
      // a trim walks the heap (milliseconds).
      static std::atomic<int64_t> lastTrimMs{0};
      int64_t now = std::chrono::duration_cast<Millis>(Clock::now().time_since_epoch()).count();
      int64_t last = lastTrimMs.load();
      if (now - last >= 1000 && lastTrimMs.compare_exchange_strong(last, now)) {
        lock.unlock();
        Analysis::trimMemory();
        lock.lock();
      }
    }
  }
}

} // namespace kina::lsp
