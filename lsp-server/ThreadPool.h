//===- ThreadPool.h - Fixed pool of workers for LSP requests ----*- C++ -*-===//
//
// Feature requests (hover, completion, semantic tokens, ...) run here, off
// the main thread, each on its own analysis snapshot. FIFO, fixed size.
// waitIdle() is for the lit-test mode, which replays transcripts in order.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace kina::lsp {

class ThreadPool {
public:
  explicit ThreadPool(unsigned threads);
  /// Finishes queued tasks, then joins.
  ~ThreadPool();
  void post(std::function<void()> task);
  /// Blocks until the queue is empty and no task runs.
  void waitIdle();

private:
  void loop();
  std::mutex mu_;
  std::condition_variable cv_, idleCv_;
  std::deque<std::function<void()>> queue_;
  unsigned running_ = 0;
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

} // namespace kina::lsp
