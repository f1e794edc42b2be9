//===- Cancellation.h - Cooperative cancellation for queries ----*- C++ -*-===//
//
// Long-running work polls a CancellationToken; nobody is interrupted
// asynchronously. A token is cancelled either explicitly (an LSP
// `$/cancelRequest`) or, inside the query engine, implicitly when a writer
// wants to change an input (see Database.h). Query code that notices
// cancellation throws `Cancelled`; the engine catches it at the snapshot
// boundary. Never call checkCancelled() from inside a callback invoked by LLVM
// frames: exceptions must not cross LLVM code (STYLE.md §5).
//
//===----------------------------------------------------------------------===//
#pragma once

#include <atomic>
#include <exception>
#include <memory>

namespace kina::query {

/// Thrown by QueryContext::checkCancelled(); unwinds query frames only.
class Cancelled : public std::exception {
public:
  const char *what() const noexcept override { return "query cancelled"; }
};

/// A cheap, copyable read-only view of a cancellation flag. A default token is
/// never cancelled.
class CancellationToken {
public:
  CancellationToken() = default;
  bool isCancelled() const { return flag_ && flag_->load(std::memory_order_relaxed); }
  explicit operator bool() const { return isCancelled(); }

private:
  friend class CancellationSource;
  explicit CancellationToken(std::shared_ptr<const std::atomic<bool>> flag)
      : flag_(std::move(flag)) {}
  std::shared_ptr<const std::atomic<bool>> flag_;
};

/// Owns a cancellation flag; hands out tokens and sets the flag. Thread-safe.
class CancellationSource {
public:
  CancellationSource() : flag_(std::make_shared<std::atomic<bool>>(false)) {}
  CancellationToken token() const { return CancellationToken(flag_); }
  void cancel() { flag_->store(true, std::memory_order_relaxed); }
  bool isCancelled() const { return flag_->load(std::memory_order_relaxed); }

private:
  std::shared_ptr<std::atomic<bool>> flag_;
};

} // namespace kina::query
