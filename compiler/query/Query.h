//===- Query.h - Typed inputs and memoized derived queries ------*- C++ -*-===//
//
// The two kinds of cells of the incremental core (DESIGN.md §3.7):
//
//   Input<K, V>  set by the single writer (file text per URI, target settings);
//   Query<K, V>  a pure function of other cells, memoized per key, with the
//                cells it read recorded as dependencies.
//
// Both are owned by whoever defines them (e.g. the analysis database of the
// language server) and register with a Database. Values are held as
// std::shared_ptr<const V>, so a reader keeps what it got even after a later
// revision replaces the memo. Early cutoff compares values with `==` when V
// has one; a V without `==` always counts as changed when re-executed.
//
// Example (the toy queries of tests/unit/query):
//
//   Database db;
//   Input<std::string, std::string> text(db, "text");
//   Query<std::string, std::vector<std::string>> items(db, "items",
//       [&](QueryContext &ctx, const std::string &file) {
//         return splitByBlankLines(*ctx.get(text, file)); });
//   text.set("a.kina", "...");
//   auto snap = db.snapshot();
//   auto v = snap->get(items, "a.kina");
//
//===----------------------------------------------------------------------===//
#pragma once

#include "query/Database.h"

#include <concepts>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <utility>

namespace kina::query {

//===----------------------------------------------------------------------===//
// Key helpers
//===----------------------------------------------------------------------===//

inline size_t hashCombine(size_t seed, size_t value) {
  return seed ^ (value + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2));
}

/// Default key hash: std::hash, extended to std::pair and std::tuple.
template <class K> struct KeyHash {
  size_t operator()(const K &k) const { return std::hash<K>{}(k); }
};
template <class A, class B> struct KeyHash<std::pair<A, B>> {
  size_t operator()(const std::pair<A, B> &k) const {
    return hashCombine(KeyHash<A>{}(k.first), KeyHash<B>{}(k.second));
  }
};
template <class... Ts> struct KeyHash<std::tuple<Ts...>> {
  size_t operator()(const std::tuple<Ts...> &k) const {
    size_t seed = 0;
    std::apply([&](const auto &...e) { ((seed = hashCombine(seed, KeyHash<std::decay_t<decltype(e)>>{}(e))), ...); }, k);
    return seed;
  }
};

/// Human-readable key for the execution log: strings and numbers print as
/// themselves, pairs as "a,b"; types with an ADL `toDebugString` use it.
template <class K> std::string describeKey(const K &k) {
  if constexpr (std::is_convertible_v<const K &, std::string_view>)
    return std::string(std::string_view(k));
  else if constexpr (std::is_arithmetic_v<K>)
    return std::to_string(k);
  else if constexpr (requires { toDebugString(k); })
    return toDebugString(k);
  else if constexpr (requires {
                       k.first;
                       k.second;
                     })
    return describeKey(k.first) + "," + describeKey(k.second);
  else
    return "?";
}

/// Equality used for early cutoff.
template <class V> bool valuesEqual(const V &a, const V &b) {
  if constexpr (std::equality_comparable<V>)
    return a == b;
  else
    return false;
}

//===----------------------------------------------------------------------===//
// Input
//===----------------------------------------------------------------------===//

/// An input cell per key. set/remove are writer-only; fetch is for readers.
template <class K, class V, class Hash = KeyHash<K>> class Input final : public QueryBase {
public:
  using Key = K;
  using Value = V;

  Input(Database &db, std::string name) : QueryBase(db, std::move(name)) {}

  /// Stores `value` for `key`. Bumps the revision (cancelling in-flight reads)
  /// only when the value differs from the current one. Returns whether it did.
  bool set(const K &key, V value) {
    return database().write([&](Revision next) {
      Slot &s = slot(key);
      if (s.value && valuesEqual(*s.value, value))
        return false;
      s.value = std::make_shared<const V>(std::move(value));
      s.changedAt = next;
      return true;
    });
  }

  /// Makes `key` unset again (readers then see null). Returns whether it was set.
  bool remove(const K &key) {
    return database().write([&](Revision next) {
      Slot &s = slot(key);
      if (!s.value)
        return false;
      s.value.reset();
      s.changedAt = next;
      return true;
    });
  }

  /// Reader entry point; use QueryContext::get, which polls cancellation.
  std::shared_ptr<const V> fetch(QueryContext &ctx, const K &key) {
    Slot &s = slot(key);
    ctx.recordDependency(&s);
    return s.value; // stable: writers are excluded while a snapshot exists
  }

private:
  struct Slot final : SlotBase {
    std::shared_ptr<const V> value;
    Revision changedAt = 0;
    bool maybeChangedAfter(QueryContext &, Revision since) override { return changedAt > since; }
  };

  Slot &slot(const K &key) {
    std::lock_guard<std::mutex> lock(mapMutex_);
    auto &p = slots_[key];
    if (!p)
      p = std::make_unique<Slot>();
    return *p;
  }

  std::mutex mapMutex_;
  std::unordered_map<K, std::unique_ptr<Slot>, Hash> slots_;
};

//===----------------------------------------------------------------------===//
// Query
//===----------------------------------------------------------------------===//

/// A derived, memoized function of other cells. The function must be pure
/// with respect to what it reads through the QueryContext; long functions
/// should call ctx.checkCancelled() now and then.
template <class K, class V, class Hash = KeyHash<K>> class Query final : public QueryBase {
public:
  using Key = K;
  using Value = V;
  using Function = std::function<V(QueryContext &, const K &)>;

  Query(Database &db, std::string name, Function fn)
      : QueryBase(db, std::move(name)), fn_(std::move(fn)) {}

  /// Reader entry point; use QueryContext::get, which polls cancellation.
  std::shared_ptr<const V> fetch(QueryContext &ctx, const K &key) {
    Slot &s = slot(key);
    auto state = s.ensure(ctx, /*needValue=*/true);
    ctx.recordDependency(&s);
    return state.value;
  }

  /// Drops the memoized value for `key` (kept: its dependency edges and
  /// change stamp); the next read recomputes it. Any thread.
  void evict(const K &key) {
    Slot *s = find(key);
    if (!s)
      return;
    std::lock_guard<std::mutex> lock(s->mu);
    s->value.reset();
  }

  void sweep(Revision olderThan) override {
    std::lock_guard<std::mutex> lock(mapMutex_);
    for (auto &[key, s] : slots_) {
      std::lock_guard<std::mutex> slotLock(s->mu);
      if (s->verifiedAt < olderThan)
        s->value.reset();
    }
  }

private:
  struct Slot final : SlotBase {
    Slot(Query &q, K key) : q(q), key(std::move(key)) {}

    struct State {
      std::shared_ptr<const V> value;
      Revision changedAt;
    };

    bool maybeChangedAfter(QueryContext &ctx, Revision since) override {
      return ensure(ctx, /*needValue=*/false).changedAt > since;
    }

    /// Verifies or re-executes this memo at ctx.revision(). With needValue
    /// false, a memo whose value was swept is verified without re-executing.
    State ensure(QueryContext &ctx, bool needValue) {
      if (ctx.isActive(this))
        throw QueryCycle("query cycle through " + q.name() + "(" + describeKey(key) + ")");
      std::lock_guard<std::mutex> lock(mu);
      const Revision now = ctx.revision();
      bool inputsUnchanged = false;
      if (hasMemo && verifiedAt == now) {
        inputsUnchanged = true;
      } else if (hasMemo) {
        inputsUnchanged = true;
        for (SlotBase *dep : deps) {
          if (dep->maybeChangedAfter(ctx, verifiedAt)) {
            inputsUnchanged = false;
            break;
          }
        }
        if (inputsUnchanged)
          verifiedAt = now;
      }
      if (inputsUnchanged && (value || !needValue))
        return {value, changedAt};

      ctx.checkCancelled();
      q.countExecution();
      if (q.database().recordingExecutions())
        q.database().noteExecution(q.name(), describeKey(key));
      std::shared_ptr<const V> fresh;
      std::vector<SlotBase *> freshDeps;
      {
        QueryContext::FrameGuard frame(ctx, this);
        fresh = std::make_shared<const V>(q.fn_(ctx, key));
        freshDeps = frame.takeDeps();
      }
      // Early cutoff: an equal value keeps its old change stamp. A value that
      // was only swept (inputs unchanged) is equal by purity.
      bool same = inputsUnchanged || (value && valuesEqual(*value, *fresh));
      if (!same || !hasMemo)
        changedAt = now;
      value = std::move(fresh);
      deps = std::move(freshDeps);
      verifiedAt = now;
      hasMemo = true;
      return {value, changedAt};
    }

    Query &q;
    const K key;
    std::mutex mu;
    std::shared_ptr<const V> value;
    std::vector<SlotBase *> deps;
    Revision verifiedAt = 0;
    Revision changedAt = 0;
    bool hasMemo = false;
  };

  Slot &slot(const K &key) {
    std::lock_guard<std::mutex> lock(mapMutex_);
    auto &p = slots_[key];
    if (!p)
      p = std::make_unique<Slot>(*this, key);
    return *p;
  }

  Slot *find(const K &key) {
    std::lock_guard<std::mutex> lock(mapMutex_);
    auto it = slots_.find(key);
    return it == slots_.end() ? nullptr : it->second.get();
  }

  Function fn_;
  std::mutex mapMutex_;
  std::unordered_map<K, std::unique_ptr<Slot>, Hash> slots_;
};

} // namespace kina::query
