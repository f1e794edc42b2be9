//===- Database.h - Revisions, snapshots and dependency tracking -*- C++ -*-===//
//
// The runtime of Kina's incremental core, on the salsa / rust-analyzer model
// (DESIGN.md §3.7). A Database owns the global revision counter and the
// reader/writer discipline; the memo tables live in the typed Input<K, V> and
// Query<K, V> objects of Query.h, which register themselves with a Database.
//
// Threading: ONE writer thread changes inputs (Input::set / Input::remove);
// any number of reader threads take Snapshots and read queries through the
// snapshot's QueryContext. A write first raises a "pending write" flag, which
// makes every in-flight read of the older revision observe cancellation at its
// next poll (every QueryContext::get polls), then waits for those readers to
// release their snapshots, bumps the revision and applies the change. New
// snapshots wait while a write is pending, so writers never starve. A thread
// must not write while it holds a snapshot (that would deadlock; asserted).
//
// Memo validity is red-green: a derived memo verified at revision R is reused
// at R' > R when none of its recorded dependencies changed after R; otherwise
// it is re-executed, and when the new value equals the old one its
// `changedAt` stays put, so dependents are not re-executed (early cutoff).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "query/Cancellation.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <stdexcept>
#include <string>
#include <vector>

namespace kina::query {

/// Monotonic counter of input changes; 1 is the first revision.
using Revision = uint64_t;

class Database;
class QueryContext;

/// Thrown when a derived query (transitively) reads itself on one thread.
class QueryCycle : public std::logic_error {
public:
  using std::logic_error::logic_error;
};

/// Type-erased base of every memo slot (one per (query, key)). Slots are owned
/// by their query and never move, so dependents can hold raw pointers.
class SlotBase {
public:
  virtual ~SlotBase() = default;
  /// Brings this slot up to date with the context's revision (re-executing it
  /// when an input it read changed) and answers whether its value changed
  /// after `since`. May throw Cancelled or QueryCycle.
  virtual bool maybeChangedAfter(QueryContext &ctx, Revision since) = 0;
};

/// What every Input and Query shares: a name for logs and counters.
class QueryBase {
public:
  QueryBase(Database &db, std::string name);
  virtual ~QueryBase();
  QueryBase(const QueryBase &) = delete;
  QueryBase &operator=(const QueryBase &) = delete;

  const std::string &name() const { return name_; }
  Database &database() const { return db_; }
  /// Number of times this query's function ran (0 for inputs).
  uint64_t executionCount() const { return executions_.load(); }
  /// Drops memoized values last verified before `olderThan`; they are
  /// recomputed on the next read. Dependency edges are kept. Writer only.
  virtual void sweep(Revision olderThan) {}

protected:
  void countExecution() { executions_.fetch_add(1, std::memory_order_relaxed); }

private:
  Database &db_;
  std::string name_;
  std::atomic<uint64_t> executions_{0};
};

/// The per-snapshot view that query functions receive. Records which slots a
/// running query reads. One QueryContext is used by one thread at a time.
class QueryContext {
public:
  QueryContext(Database &db, Revision revision, CancellationToken token)
      : db_(db), revision_(revision), token_(std::move(token)) {}

  Database &database() const { return db_; }
  Revision revision() const { return revision_; }

  /// Reads an Input or a Query at this context's revision and, when called from
  /// inside a query function, records the dependency. Returns a shared value
  /// (null for an input that was never set). Polls cancellation first.
  template <class Q> auto get(Q &q, const typename Q::Key &key) {
    checkCancelled();
    return q.fetch(*this, key);
  }

  /// True when the request was cancelled or a writer is waiting.
  bool isCancelled() const;
  /// Throws Cancelled when isCancelled().
  void checkCancelled() const {
    if (isCancelled())
      throw Cancelled();
  }

  // ---- used by Input / Query (engine internals) ----
  struct Frame {
    const SlotBase *slot;
    std::vector<SlotBase *> deps;
  };
  void recordDependency(SlotBase *slot);
  bool isActive(const SlotBase *slot) const;
  /// Pushes a frame for a running query; popped by the returned guard.
  class FrameGuard {
  public:
    FrameGuard(QueryContext &ctx, const SlotBase *slot) : ctx_(ctx) {
      ctx_.stack_.push_back(Frame{slot, {}});
    }
    ~FrameGuard() { ctx_.stack_.pop_back(); }
    std::vector<SlotBase *> takeDeps() { return std::move(ctx_.stack_.back().deps); }

  private:
    QueryContext &ctx_;
  };

private:
  Database &db_;
  Revision revision_;
  CancellationToken token_;
  std::vector<Frame> stack_;
};

/// A consistent read view: holds the database's read lock for its lifetime.
/// Release it promptly; a pending write waits for it (and cancels it).
class Snapshot {
public:
  Snapshot(Database &db, CancellationToken token);
  ~Snapshot();
  Snapshot(const Snapshot &) = delete;
  Snapshot &operator=(const Snapshot &) = delete;

  Revision revision() const { return ctx_.revision(); }
  QueryContext &context() { return ctx_; }
  /// Top-level read (no dependency is recorded).
  template <class Q> auto get(Q &q, const typename Q::Key &key) { return ctx_.get(q, key); }

private:
  std::shared_lock<std::shared_mutex> lock_;
  QueryContext ctx_;
};

class Database {
public:
  Database() = default;
  Database(const Database &) = delete;
  Database &operator=(const Database &) = delete;

  /// The newest revision (thread-safe).
  Revision revision() const { return revision_.load(); }
  /// Takes a read snapshot of the newest revision; waits while a write is
  /// pending. `token` adds an external cancellation (e.g. `$/cancelRequest`).
  std::unique_ptr<Snapshot> snapshot(CancellationToken token = {});
  /// True while some writer waits for, or holds, the write lock.
  bool writePending() const { return pendingWrites_.load(std::memory_order_relaxed) > 0; }

  /// Runs `apply(newRevision)` under the write lock after cancelling readers.
  /// `apply` returns true when it changed something; only then the revision is
  /// bumped (the callee must stamp changes with the revision it was given).
  /// Writes nest: Input::set inside `apply` joins the enclosing write, so
  /// several inputs change under one revision bump (one cancellation).
  template <class F> bool write(F &&apply) {
    if (Revision *open = openWriteOnThisThread())
      return apply(*open);
    WriteLock lock(*this);
    Revision next = revision_.load() + 1;
    OpenWrite scope(*this, next);
    if (!apply(next))
      return false;
    revision_.store(next);
    return true;
  }

  /// Drops memo values not verified since `olderThan` in every query.
  void sweep(Revision olderThan);

  /// Execution log for tests and debugging: when enabled, each query
  /// execution appends "name(key)". Off by default (it would grow).
  void setRecordExecutions(bool on);
  bool recordingExecutions() const { return recordExecutions_.load(std::memory_order_relaxed); }
  std::vector<std::string> takeExecutions();
  void noteExecution(const std::string &name, const std::string &key);

private:
  friend class Snapshot;
  friend class QueryBase;
  /// The revision being written by this thread into this database, if any.
  Revision *openWriteOnThisThread();
  class OpenWrite {
  public:
    OpenWrite(Database &db, Revision &next);
    ~OpenWrite();

  private:
    Database *prevDb_;
    Revision *prevNext_;
  };
  class WriteLock {
  public:
    explicit WriteLock(Database &db);
    ~WriteLock();

  private:
    Database &db_;
  };

  std::shared_mutex rw_;
  std::mutex gate_; ///< held by a writer while it waits; keeps new readers out
  std::atomic<Revision> revision_{1};
  std::atomic<int> pendingWrites_{0};

  std::mutex registryMutex_;
  std::vector<QueryBase *> queries_;

  std::mutex logMutex_;
  std::atomic<bool> recordExecutions_{false};
  std::vector<std::string> executions_;
};

} // namespace kina::query
