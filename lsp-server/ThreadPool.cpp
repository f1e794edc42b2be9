//===- ThreadPool.cpp - Fixed pool of workers for LSP requests ------------===//
#include "ThreadPool.h"

namespace kina::lsp {

ThreadPool::ThreadPool(unsigned threads) {
  if (threads == 0)
    threads = 1;
  for (unsigned i = 0; i < threads; ++i)
    threads_.emplace_back([this] { loop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  for (auto &t : threads_)
    t.join();
}

void ThreadPool::post(std::function<void()> task) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(std::move(task));
  }
  cv_.notify_one();
}

void ThreadPool::waitIdle() {
  std::unique_lock<std::mutex> lock(mu_);
  idleCv_.wait(lock, [&] { return queue_.empty() && running_ == 0; });
}

void ThreadPool::loop() {
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
      if (queue_.empty())
        return; // stop_ and drained
      task = std::move(queue_.front());
      queue_.pop_front();
      ++running_;
    }
    task(); // tasks contain their own failures (Server::runRequest)
    {
      std::lock_guard<std::mutex> lock(mu_);
      --running_;
    }
    idleCv_.notify_all();
  }
}

} // namespace kina::lsp
