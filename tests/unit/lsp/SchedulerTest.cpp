//===- SchedulerTest.cpp - Debounce policy and the stale-result rule ------===//
#include "Scheduler.h"

#include <gtest/gtest.h>

#include <mutex>

using namespace kina::lsp;
using namespace std::chrono_literals;

namespace {

TEST(DebouncePolicy, MedianOfHistoryClampedTo50To500) {
  DebouncePolicy p;
  EXPECT_EQ(p.compute({}), 50ms);
  EXPECT_EQ(p.compute({1, 2, 3}), 50ms);
  EXPECT_EQ(p.compute({100, 300, 120}), 120ms);
  EXPECT_EQ(p.compute({900, 1000, 800}), 500ms);
}

struct Published {
  std::string uri;
  int64_t version;
  size_t diagnostics;
};

struct Fixture {
  Logger log{"/dev/null"};
  Analysis analysis;
  std::mutex mu;
  std::vector<Published> published;
  Scheduler scheduler{analysis, log,
                      [this](const std::string &uri, int64_t v,
                             std::shared_ptr<const std::vector<kina::Diagnostic>> d,
                             std::shared_ptr<const kina::SourceFile>) {
                        std::lock_guard<std::mutex> lock(mu);
                        published.push_back({uri, v, d->size()});
                      },
                      2};
  void set(const std::string &uri, const std::string &text, int64_t v) {
    analysis.setFile(uri, std::make_shared<const kina::SourceFile>(uri, text), v);
  }
};

TEST(Scheduler, NeverPublishesAResultForAnOlderVersion) {
  Fixture f;
  f.scheduler.setDebounceOverride(0ms);
  // The analysis already holds v2 when the worker is asked for v1: the
  // worker's snapshot sees v2 != latest (v1) and drops the result.
  f.set("u", "kernel k {", 1);
  f.set("u", "kernel k {}", 2);
  f.scheduler.update("u", 1, /*immediate=*/true);
  f.scheduler.waitIdle();
  EXPECT_TRUE(f.published.empty());
  EXPECT_EQ(f.scheduler.stats().droppedStale, 1u);
  f.scheduler.update("u", 2);
  f.scheduler.waitIdle();
  ASSERT_EQ(f.published.size(), 1u);
  EXPECT_EQ(f.published[0].version, 2);
}

TEST(Scheduler, DebounceCoalescesBursts) {
  Fixture f;
  f.scheduler.setDebounceOverride(150ms);
  for (int v = 1; v <= 5; ++v) {
    f.set("u", std::string(v, '{'), v);
    f.scheduler.update("u", v);
  }
  f.scheduler.waitIdle();
  ASSERT_EQ(f.published.size(), 1u);
  EXPECT_EQ(f.published[0].version, 5);
  EXPECT_GE(f.published[0].diagnostics, 1u);
  EXPECT_EQ(f.scheduler.debounceFor("u"), 150ms);
}

TEST(Scheduler, AdaptiveDebounceWithoutOverride) {
  Fixture f;
  f.scheduler.setDebounceOverride(std::nullopt);
  EXPECT_EQ(f.scheduler.debounceFor("u"), 50ms);
  f.set("u", "x", 1);
  f.scheduler.update("u", 1, /*immediate=*/true);
  f.scheduler.waitIdle();
  // Rebuilds of a one-byte file are far below 50 ms: clamped to the minimum.
  EXPECT_EQ(f.scheduler.debounceFor("u"), 50ms);
  ASSERT_EQ(f.published.size(), 1u);
}

TEST(Scheduler, HugeDebounceIsClampedNotOverflowed) {
  // A client's `debounceMs` of INT64_MAX once became a deadline of
  // now + INT64_MAX ms: a signed overflow in the clock arithmetic.
  Fixture f;
  f.scheduler.setDebounceOverride(std::chrono::milliseconds(INT64_MAX));
  EXPECT_EQ(f.scheduler.debounceFor("u"), 10000ms);
  f.scheduler.setDebounceLimit(0ms);
  EXPECT_EQ(f.scheduler.debounceFor("u"), 0ms);
  f.scheduler.setDebounceOverride(std::chrono::milliseconds(INT64_MAX));
  f.set("u", "{", 1);
  f.scheduler.update("u", 1);
  f.scheduler.waitIdle();
  ASSERT_EQ(f.published.size(), 1u);
  EXPECT_EQ(f.scheduler.debounceFor("u"), 0ms);
}

TEST(Scheduler, DocumentsAreIndependentAndRemovable) {
  Fixture f;
  f.scheduler.setDebounceOverride(0ms);
  f.set("a", "{", 1);
  f.set("b", "}", 1);
  f.scheduler.update("a", 1);
  f.scheduler.update("b", 1);
  f.scheduler.waitIdle();
  ASSERT_EQ(f.published.size(), 2u);
  f.scheduler.remove("a");
  f.scheduler.remove("a");
  f.set("b", "", 2);
  f.scheduler.update("b", 2);
  f.scheduler.waitIdle();
  EXPECT_EQ(f.published.back().uri, "b");
  EXPECT_EQ(f.published.back().version, 2);
}

} // namespace
