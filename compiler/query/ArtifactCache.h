//===- ArtifactCache.h - LRU cache of expensive build artifacts -*- C++ -*-===//
//
// PTX, cubin, SASS and register reports are computed only when asked for
// (hover on a kernel, code lens, `kina/ptx`, a build) and are cached here by
// (content hash of the kernel's source, target, artifact kind), not in the
// revision-based memo tables: they survive edits elsewhere in the file and
// undo/redo, and they are bounded by an LRU on entry count and byte cost so
// that memory does not grow with a long editing session (DESIGN.md §3.7).
//
// Thread-safe. Two threads missing on the same key may both compute; the
// second insert wins. Values are shared and immutable.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

namespace kina::query {

/// 64-bit content hash (FNV-1a with a final avalanche); stable across runs.
uint64_t contentHash(std::string_view bytes);

struct ArtifactKey {
  uint64_t contentHash = 0; ///< hash of everything the artifact depends on
  std::string target;       ///< e.g. "sm_90a"
  std::string kind;         ///< e.g. "ptx", "cubin", "registers"
  bool operator==(const ArtifactKey &) const = default;
};

struct ArtifactKeyHash {
  size_t operator()(const ArtifactKey &k) const;
};

template <class V> class ArtifactCache {
public:
  /// Keeps at most `maxEntries` values and at most `maxBytes` of total cost.
  explicit ArtifactCache(size_t maxEntries, size_t maxBytes = SIZE_MAX)
      : maxEntries_(maxEntries), maxBytes_(maxBytes) {}

  /// The cached value, refreshed as most recently used; null on a miss.
  std::shared_ptr<const V> lookup(const ArtifactKey &key) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = index_.find(key);
    if (it == index_.end()) {
      ++misses_;
      return nullptr;
    }
    ++hits_;
    lru_.splice(lru_.begin(), lru_, it->second);
    return it->second->value;
  }

  /// Inserts (or replaces) a value with the given cost in bytes, evicting the
  /// least recently used entries beyond the limits. A value costing more
  /// than maxBytes is not kept.
  void insert(const ArtifactKey &key, std::shared_ptr<const V> value, size_t cost) {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = index_.find(key); it != index_.end()) {
      bytes_ -= it->second->cost;
      lru_.erase(it->second);
      index_.erase(it);
    }
    if (cost > maxBytes_ || maxEntries_ == 0)
      return;
    lru_.push_front(Entry{key, std::move(value), cost});
    index_.emplace(key, lru_.begin());
    bytes_ += cost;
    while (index_.size() > maxEntries_ || bytes_ > maxBytes_) {
      Entry &last = lru_.back();
      bytes_ -= last.cost;
      index_.erase(last.key);
      lru_.pop_back();
      ++evictions_;
    }
  }

  /// lookup, or compute + insert on a miss. `compute` runs without the lock;
  /// `cost` measures the computed value.
  std::shared_ptr<const V> getOrCompute(const ArtifactKey &key, const std::function<V()> &compute,
                                        const std::function<size_t(const V &)> &cost) {
    if (auto hit = lookup(key))
      return hit;
    auto value = std::make_shared<const V>(compute());
    insert(key, value, cost(*value));
    return value;
  }

  void clear() {
    std::lock_guard<std::mutex> lock(mu_);
    index_.clear();
    lru_.clear();
    bytes_ = 0;
  }

  size_t size() const {
    std::lock_guard<std::mutex> lock(mu_);
    return index_.size();
  }
  size_t bytes() const {
    std::lock_guard<std::mutex> lock(mu_);
    return bytes_;
  }
  uint64_t hits() const {
    std::lock_guard<std::mutex> lock(mu_);
    return hits_;
  }
  uint64_t misses() const {
    std::lock_guard<std::mutex> lock(mu_);
    return misses_;
  }
  uint64_t evictions() const {
    std::lock_guard<std::mutex> lock(mu_);
    return evictions_;
  }

private:
  struct Entry {
    ArtifactKey key;
    std::shared_ptr<const V> value;
    size_t cost;
  };
  const size_t maxEntries_;
  const size_t maxBytes_;
  mutable std::mutex mu_;
  std::list<Entry> lru_; ///< most recently used first
  std::unordered_map<ArtifactKey, typename std::list<Entry>::iterator, ArtifactKeyHash> index_;
  size_t bytes_ = 0;
  uint64_t hits_ = 0, misses_ = 0, evictions_ = 0;
};

} // namespace kina::query
