//===- Database.cpp - Revisions, snapshots and dependency tracking --------===//
//
// Implements the reader/writer discipline and the per-context dependency
// stack declared in Database.h.
//
//===----------------------------------------------------------------------===//
#include "query/Database.h"

#include <algorithm>

namespace kina::query {

namespace {
/// Snapshots held by this thread; writing while > 0 would self-deadlock.
thread_local int snapshotsHeldByThisThread = 0;
/// The write this thread has open (for nested writes).
thread_local Database *openWriteDb = nullptr;
thread_local Revision *openWriteNext = nullptr;
} // namespace

Revision *Database::openWriteOnThisThread() {
  return openWriteDb == this ? openWriteNext : nullptr;
}

Database::OpenWrite::OpenWrite(Database &db, Revision &next)
    : prevDb_(openWriteDb), prevNext_(openWriteNext) {
  openWriteDb = &db;
  openWriteNext = &next;
}

Database::OpenWrite::~OpenWrite() {
  openWriteDb = prevDb_;
  openWriteNext = prevNext_;
}

QueryBase::QueryBase(Database &db, std::string name) : db_(db), name_(std::move(name)) {
  std::lock_guard<std::mutex> lock(db_.registryMutex_);
  db_.queries_.push_back(this);
}

QueryBase::~QueryBase() {
  std::lock_guard<std::mutex> lock(db_.registryMutex_);
  auto &qs = db_.queries_;
  qs.erase(std::remove(qs.begin(), qs.end(), this), qs.end());
}

bool QueryContext::isCancelled() const { return token_.isCancelled() || db_.writePending(); }

void QueryContext::recordDependency(SlotBase *slot) {
  if (stack_.empty())
    return;
  auto &deps = stack_.back().deps;
  if (deps.empty() || deps.back() != slot)
    deps.push_back(slot);
}

bool QueryContext::isActive(const SlotBase *slot) const {
  return std::any_of(stack_.begin(), stack_.end(),
                     [&](const Frame &f) { return f.slot == slot; });
}

Snapshot::Snapshot(Database &db, CancellationToken token)
    : lock_([&db]() -> std::shared_lock<std::shared_mutex> {
        // Pass through the gate so that a waiting writer is not starved.
        std::lock_guard<std::mutex> gate(db.gate_);
        return std::shared_lock<std::shared_mutex>(db.rw_);
      }()),
      ctx_(db, db.revision(), std::move(token)) {
  ++snapshotsHeldByThisThread;
}

Snapshot::~Snapshot() { --snapshotsHeldByThisThread; }

std::unique_ptr<Snapshot> Database::snapshot(CancellationToken token) {
  return std::make_unique<Snapshot>(*this, std::move(token));
}

Database::WriteLock::WriteLock(Database &db) : db_(db) {
  if (snapshotsHeldByThisThread > 0)
    throw std::logic_error("kina::query: write attempted while this thread holds a snapshot");
  db_.pendingWrites_.fetch_add(1);
  db_.gate_.lock();
  db_.rw_.lock();
}

Database::WriteLock::~WriteLock() {
  db_.rw_.unlock();
  db_.gate_.unlock();
  db_.pendingWrites_.fetch_sub(1);
}

void Database::sweep(Revision olderThan) {
  WriteLock lock(*this);
  std::lock_guard<std::mutex> reg(registryMutex_);
  for (QueryBase *q : queries_)
    q->sweep(olderThan);
}

void Database::setRecordExecutions(bool on) {
  recordExecutions_.store(on);
}

std::vector<std::string> Database::takeExecutions() {
  std::lock_guard<std::mutex> lock(logMutex_);
  return std::move(executions_);
}

void Database::noteExecution(const std::string &name, const std::string &key) {
  std::lock_guard<std::mutex> lock(logMutex_);
  if (recordExecutions_)
    executions_.push_back(name + "(" + key + ")");
}

} // namespace kina::query
