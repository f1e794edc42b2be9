//===- QueryEngineTest.cpp - What the incremental core re-executes --------===//
//
// Toy queries in the shape of the compiler's pipeline: a file is split into
// "items" by blank lines (parse), each item is projected on its own (item
// signature), "checked" (word count) and "compiled" for a target. Each test
// edits inputs and asserts the exact list of executions from the engine's
// execution log, which is how DESIGN.md §3.7's promise ("an edit inside one
// kernel's body re-checks only that kernel") is pinned down.
//
//===----------------------------------------------------------------------===//
#include "query/Query.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <sstream>
#include <thread>

using namespace kina::query;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

namespace {

std::vector<std::string> splitItems(const std::string &text) {
  std::vector<std::string> items;
  std::istringstream in(text);
  std::string line, cur;
  while (std::getline(in, line)) {
    if (line.find_first_not_of(" \t") == std::string::npos) {
      if (!cur.empty())
        items.push_back(cur);
      cur.clear();
      continue;
    }
    cur += line;
    cur += '\n';
  }
  if (!cur.empty())
    items.push_back(cur);
  return items;
}

int wordCount(const std::string &s) {
  std::istringstream in(s);
  std::string w;
  int n = 0;
  while (in >> w)
    ++n;
  return n;
}

using FileItem = std::pair<std::string, int>;

/// The toy pipeline. `total(file)` sums the per-item checks.
struct ToyDb {
  Database db;
  Input<std::string, std::string> text{db, "text"};
  Input<std::string, std::string> target{db, "target"};
  Query<std::string, std::vector<std::string>> items{
      db, "items", [this](QueryContext &ctx, const std::string &file) {
        auto t = ctx.get(text, file);
        return t ? splitItems(*t) : std::vector<std::string>{};
      }};
  Query<std::string, int> itemCount{db, "itemCount", [this](QueryContext &ctx, const std::string &f) {
                                      return static_cast<int>(ctx.get(items, f)->size());
                                    }};
  Query<FileItem, std::string> item{db, "item", [this](QueryContext &ctx, const FileItem &k) {
                                      auto all = ctx.get(items, k.first);
                                      return k.second < static_cast<int>(all->size())
                                                 ? (*all)[k.second]
                                                 : std::string();
                                    }};
  Query<FileItem, int> check{db, "check", [this](QueryContext &ctx, const FileItem &k) {
                               return wordCount(*ctx.get(item, k));
                             }};
  Query<std::string, int> total{db, "total", [this](QueryContext &ctx, const std::string &f) {
                                  int n = *ctx.get(itemCount, f), sum = 0;
                                  for (int i = 0; i < n; ++i)
                                    sum += *ctx.get(check, FileItem{f, i});
                                  return sum;
                                }};
  Query<FileItem, std::string> codegen{
      db, "codegen", [this](QueryContext &ctx, const FileItem &k) {
        auto t = ctx.get(target, "gpu");
        return (t ? *t : std::string("none")) + ":" + std::to_string(*ctx.get(check, k));
      }};

  ToyDb() { db.setRecordExecutions(true); }

  int readTotal(const std::string &file) { return *db.snapshot()->get(total, file); }
  std::vector<std::string> log() { return db.takeExecutions(); }
};

const char *kThreeItems = "kernel a\n  x y\n\nkernel b\n  p q r\n\nkernel c\n  z\n";

TEST(QueryEngine, FirstReadExecutesEverythingOnce) {
  ToyDb t;
  t.text.set("f", kThreeItems);
  EXPECT_EQ(t.readTotal("f"), 4 + 5 + 3);
  EXPECT_THAT(t.log(), ElementsAre("total(f)", "itemCount(f)", "items(f)", "check(f,0)", "item(f,0)",
                                   "check(f,1)", "item(f,1)", "check(f,2)", "item(f,2)"));
  // Same revision: everything is memoized.
  EXPECT_EQ(t.readTotal("f"), 12);
  EXPECT_THAT(t.log(), IsEmpty());
}

TEST(QueryEngine, EditInsideOneItemRechecksOnlyThatItem) {
  ToyDb t;
  t.text.set("f", kThreeItems);
  t.readTotal("f");
  t.log();
  // Add a word to item 1 only.
  t.text.set("f", "kernel a\n  x y\n\nkernel b\n  p q r s\n\nkernel c\n  z\n");
  EXPECT_EQ(t.readTotal("f"), 13);
  // items re-runs (its input changed); itemCount and the per-item
  // projections re-run and cut off for items 0 and 2; of the checks only
  // check(f,1) re-executes. total re-executes because check(f,1) changed, and
  // its verification of check(f,2) re-runs the projection item(f,2).
  EXPECT_THAT(t.log(), ElementsAre("items(f)", "itemCount(f)", "item(f,0)", "item(f,1)",
                                   "check(f,1)", "total(f)", "item(f,2)"));
}

TEST(QueryEngine, EarlyCutoffWhenRecomputedValueIsEqual) {
  ToyDb t;
  t.text.set("f", kThreeItems);
  t.readTotal("f");
  t.log();
  // Rename a word: item 1 changes, its word count does not.
  t.text.set("f", "kernel a\n  x y\n\nkernel b\n  p q RR\n\nkernel c\n  z\n");
  EXPECT_EQ(t.readTotal("f"), 12);
  // check(f,1) re-executes and yields 5 again: total is NOT re-executed,
  // and neither are check(f,0) and check(f,2).
  EXPECT_THAT(t.log(), ElementsAre("items(f)", "itemCount(f)", "item(f,0)", "item(f,1)",
                                   "check(f,1)", "item(f,2)"));
}

TEST(QueryEngine, EditThatDoesNotChangeItemsStopsAtItems) {
  ToyDb t;
  t.text.set("f", kThreeItems);
  t.readTotal("f");
  t.log();
  // Extra blank lines between items: same items.
  t.text.set("f", "kernel a\n  x y\n\n\n\nkernel b\n  p q r\n\nkernel c\n  z\n");
  EXPECT_EQ(t.readTotal("f"), 12);
  EXPECT_THAT(t.log(), ElementsAre("items(f)"));
}

TEST(QueryEngine, SettingAnEqualValueDoesNotBumpTheRevision) {
  ToyDb t;
  t.text.set("f", kThreeItems);
  Revision r = t.db.revision();
  EXPECT_FALSE(t.text.set("f", kThreeItems));
  EXPECT_EQ(t.db.revision(), r);
  t.readTotal("f");
  t.log();
  EXPECT_FALSE(t.text.set("f", kThreeItems));
  t.readTotal("f");
  EXPECT_THAT(t.log(), IsEmpty());
}

TEST(QueryEngine, EditingAnotherFileReExecutesNothingHere) {
  ToyDb t;
  t.text.set("f", kThreeItems);
  t.text.set("g", "kernel g\n  one\n");
  t.readTotal("f");
  t.readTotal("g");
  t.log();
  t.text.set("g", "kernel g\n  one two\n");
  EXPECT_EQ(t.readTotal("f"), 12);
  EXPECT_THAT(t.log(), IsEmpty());
  EXPECT_EQ(t.readTotal("g"), 4);
  EXPECT_THAT(t.log(),
              ElementsAre("items(g)", "itemCount(g)", "item(g,0)", "check(g,0)", "total(g)"));
}

TEST(QueryEngine, TargetChangeReExecutesOnlyCodegen) {
  ToyDb t;
  t.text.set("f", kThreeItems);
  t.target.set("gpu", "sm_80");
  {
    auto s = t.db.snapshot();
    EXPECT_EQ(*s->get(t.codegen, FileItem{"f", 1}), "sm_80:5");
    EXPECT_EQ(*s->get(t.codegen, FileItem{"f", 2}), "sm_80:3");
    EXPECT_EQ(*s->get(t.total, "f"), 12);
  }
  t.log();
  t.target.set("gpu", "sm_90a");
  {
    auto s = t.db.snapshot();
    EXPECT_EQ(*s->get(t.codegen, FileItem{"f", 1}), "sm_90a:5");
    EXPECT_EQ(*s->get(t.codegen, FileItem{"f", 2}), "sm_90a:3");
    EXPECT_EQ(*s->get(t.total, "f"), 12);
  }
  EXPECT_THAT(t.log(), ElementsAre("codegen(f,1)", "codegen(f,2)"));
}

TEST(QueryEngine, ItemCountChangeAddsOnlyTheNewItem) {
  ToyDb t;
  t.text.set("f", kThreeItems);
  t.readTotal("f");
  t.log();
  t.text.set("f", std::string(kThreeItems) + "\nkernel d\n  w\n");
  EXPECT_EQ(t.readTotal("f"), 15);
  EXPECT_THAT(t.log(), ElementsAre("items(f)", "itemCount(f)", "total(f)", "item(f,0)", "item(f,1)",
                                   "item(f,2)", "check(f,3)", "item(f,3)"));
}

TEST(QueryEngine, RemovedInputReadsAsNullAndInvalidates) {
  ToyDb t;
  t.text.set("f", kThreeItems);
  EXPECT_EQ(t.readTotal("f"), 12);
  EXPECT_TRUE(t.text.remove("f"));
  EXPECT_FALSE(t.text.remove("f"));
  EXPECT_EQ(t.readTotal("f"), 0);
  // An input read before it was ever set is a dependency too.
  EXPECT_EQ(t.readTotal("new"), 0);
  t.text.set("new", "a b\n");
  EXPECT_EQ(t.readTotal("new"), 2);
}

TEST(QueryEngine, ConditionalDependenciesAreRecordedPerExecution) {
  Database db;
  db.setRecordExecutions(true);
  Input<std::string, bool> flag(db, "flag");
  Input<std::string, int> a(db, "a"), b(db, "b");
  Query<std::string, int> pick(db, "pick", [&](QueryContext &ctx, const std::string &k) {
    return *ctx.get(flag, k) ? *ctx.get(a, k) : *ctx.get(b, k);
  });
  flag.set("k", true);
  a.set("k", 1);
  b.set("k", 2);
  EXPECT_EQ(*db.snapshot()->get(pick, "k"), 1);
  b.set("k", 3); // not read by the last execution
  EXPECT_EQ(*db.snapshot()->get(pick, "k"), 1);
  EXPECT_THAT(db.takeExecutions(), ElementsAre("pick(k)"));
  flag.set("k", false);
  EXPECT_EQ(*db.snapshot()->get(pick, "k"), 3);
  a.set("k", 10); // no longer read
  EXPECT_EQ(*db.snapshot()->get(pick, "k"), 3);
  EXPECT_THAT(db.takeExecutions(), ElementsAre("pick(k)"));
}

TEST(QueryEngine, CycleIsReportedNotHung) {
  Database db;
  Query<int, int> *selfPtr = nullptr;
  Query<int, int> self(db, "self", [&](QueryContext &ctx, const int &k) {
    return k == 0 ? 0 : *ctx.get(*selfPtr, k) + 1;
  });
  selfPtr = &self;
  auto s = db.snapshot();
  EXPECT_EQ(*s->get(self, 0), 0);
  EXPECT_THROW(s->get(self, 1), QueryCycle);
}

TEST(QueryEngine, SweepAndEvictDropValuesButKeepChangeStamps) {
  ToyDb t;
  t.text.set("f", kThreeItems);
  t.readTotal("f");
  t.log();
  t.check.evict(FileItem{"f", 1});
  EXPECT_EQ(t.readTotal("f"), 12);
  EXPECT_THAT(t.log(), IsEmpty()); // total is still valid; check(f,1) not needed
  EXPECT_EQ(*t.db.snapshot()->get(t.check, FileItem{"f", 1}), 5);
  EXPECT_THAT(t.log(), ElementsAre("check(f,1)"));

  t.db.sweep(t.db.revision() + 1); // drop every value
  t.text.set("f", "kernel a\n  x y\n\nkernel b\n  p q r s\n\nkernel c\n  z\n");
  EXPECT_EQ(t.readTotal("f"), 13);
  // With the old values gone there is nothing to compare against: early
  // cutoff cannot apply, so everything below the edit re-executes once.
  EXPECT_THAT(t.log(), ElementsAre("items(f)", "itemCount(f)", "total(f)", "item(f,0)", "check(f,0)",
                                   "item(f,1)", "check(f,1)", "item(f,2)", "check(f,2)"));
  // A swept value whose inputs did not change re-runs only when its value is
  // needed, and it keeps its change stamp: swept memos that are merely
  // verified (itemCount(f) below, when total verifies) do not re-run.
  t.db.sweep(t.db.revision() + 1);
  t.text.set("g", "unrelated\n");
  EXPECT_EQ(*t.db.snapshot()->get(t.check, FileItem{"f", 0}), 4);
  EXPECT_THAT(t.log(), ElementsAre("check(f,0)", "item(f,0)", "items(f)"));
  t.db.sweep(t.db.revision() + 1);
  t.text.set("g", "unrelated again\n");
  EXPECT_EQ(*t.db.snapshot()->get(t.item, FileItem{"f", 2}), "kernel c\n  z\n");
  EXPECT_THAT(t.log(), ElementsAre("item(f,2)", "items(f)"));
  // 3 first reads + 1 after evict + 3 after the first sweep + check(f,0).
  EXPECT_EQ(t.check.executionCount(), 8u);
}

TEST(QueryEngine, SnapshotValuesOutliveLaterRevisions) {
  ToyDb t;
  t.text.set("f", kThreeItems);
  std::shared_ptr<const std::vector<std::string>> old;
  {
    auto s = t.db.snapshot();
    old = s->get(t.items, "f");
  }
  t.text.set("f", "one\n");
  EXPECT_EQ(old->size(), 3u);
  EXPECT_EQ(t.db.snapshot()->get(t.items, "f")->size(), 1u);
}

TEST(QueryEngine, WritingWhileHoldingASnapshotIsRefused) {
  ToyDb t;
  auto s = t.db.snapshot();
  EXPECT_THROW(t.text.set("f", "x"), std::logic_error);
}

TEST(QueryEngine, ExplicitTokenCancelsAQuery) {
  Database db;
  Input<int, int> in(db, "in");
  CancellationSource source;
  std::atomic<int> polls{0};
  Query<int, int> slow(db, "slow", [&](QueryContext &ctx, const int &k) {
    for (;;) {
      ++polls;
      if (polls == 3)
        source.cancel();
      ctx.checkCancelled();
    }
    return 0;
  });
  in.set(0, 1);
  auto s = db.snapshot(source.token());
  EXPECT_THROW(s->get(slow, 0), Cancelled);
  EXPECT_EQ(polls.load(), 3);
  EXPECT_EQ(slow.executionCount(), 1u);
}

TEST(QueryEngine, WriteCancelsInFlightReadOfOlderRevision) {
  Database db;
  db.setRecordExecutions(true);
  Input<int, int> in(db, "in");
  std::atomic<bool> started{false};
  Query<int, int> slow(db, "slow", [&](QueryContext &ctx, const int &k) {
    int v = *ctx.get(in, k);
    started = true;
    for (;;) {
      ctx.checkCancelled();
      if (v == 2) // the new revision's value finishes immediately
        return v * 10;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  });
  in.set(0, 1);
  std::atomic<bool> cancelled{false};
  std::thread reader([&] {
    auto s = db.snapshot();
    try {
      s->get(slow, 0);
    } catch (const Cancelled &) {
      cancelled = true;
    }
  });
  while (!started)
    std::this_thread::yield();
  in.set(0, 2); // blocks until the reader has let go
  reader.join();
  EXPECT_TRUE(cancelled);
  EXPECT_EQ(*db.snapshot()->get(slow, 0), 20);
  EXPECT_THAT(db.takeExecutions(), ElementsAre("slow(0)", "slow(0)"));
}

TEST(QueryEngine, ConcurrentReadersAgreeWithTheWriter) {
  ToyDb t;
  t.db.setRecordExecutions(false);
  t.text.set("f", kThreeItems);
  std::atomic<bool> stop{false};
  std::atomic<int> reads{0}, badReads{0};
  std::vector<std::thread> readers;
  for (int r = 0; r < 3; ++r)
    readers.emplace_back([&] {
      while (!stop) {
        try {
          auto s = t.db.snapshot();
          int total = *s->get(t.total, "f");
          // The text is always "w" repeated n times across one item.
          auto text = s->get(t.text, "f");
          if (total != wordCount(*text))
            ++badReads;
          ++reads;
        } catch (const Cancelled &) {
        }
      }
    });
  std::string text;
  for (int i = 0; i < 200; ++i) {
    text += "w ";
    t.text.set("f", text);
  }
  while (reads < 50)
    std::this_thread::yield();
  stop = true;
  for (auto &th : readers)
    th.join();
  EXPECT_EQ(badReads.load(), 0);
  EXPECT_EQ(t.readTotal("f"), 200);
}

} // namespace

namespace {
TEST(QueryEngine, NestedWritesShareOneRevision) {
  ToyDb t;
  Revision r = t.db.revision();
  bool changed = t.db.write([&](Revision) {
    bool a = t.text.set("f", "a\n");
    bool b = t.target.set("gpu", "sm_80");
    bool c = t.text.set("g", "b\n");
    return a || b || c;
  });
  EXPECT_TRUE(changed);
  EXPECT_EQ(t.db.revision(), r + 1);
  EXPECT_EQ(t.readTotal("f"), 1);
  EXPECT_FALSE(t.db.write([&](Revision) { return t.text.set("f", "a\n"); }));
  EXPECT_EQ(t.db.revision(), r + 1);
}
} // namespace
