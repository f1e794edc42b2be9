//===- ArtifactCacheTest.cpp - LRU and content hashing of artifacts -------===//
#include "query/ArtifactCache.h"

#include <gtest/gtest.h>

using namespace kina::query;

namespace {

ArtifactKey key(std::string_view src, std::string target = "sm_80", std::string kind = "ptx") {
  return ArtifactKey{contentHash(src), std::move(target), std::move(kind)};
}

TEST(ContentHash, StableAndSensitive) {
  EXPECT_EQ(contentHash("kernel k {}"), contentHash("kernel k {}"));
  EXPECT_NE(contentHash("kernel k {}"), contentHash("kernel k {} "));
  EXPECT_NE(contentHash(""), contentHash(std::string_view("\0", 1)));
  EXPECT_NE(contentHash("ab"), contentHash("ba"));
}

TEST(ArtifactCache, KeyedByHashTargetAndKind) {
  ArtifactCache<std::string> cache(8);
  cache.insert(key("k"), std::make_shared<const std::string>("ptx80"), 5);
  EXPECT_EQ(*cache.lookup(key("k")), "ptx80");
  EXPECT_EQ(cache.lookup(key("k", "sm_90a")), nullptr);
  EXPECT_EQ(cache.lookup(key("k", "sm_80", "cubin")), nullptr);
  EXPECT_EQ(cache.lookup(key("k2")), nullptr);
  EXPECT_EQ(cache.hits(), 1u);
  EXPECT_EQ(cache.misses(), 3u);
}

TEST(ArtifactCache, EvictsLeastRecentlyUsedByCount) {
  ArtifactCache<int> cache(2);
  cache.insert(key("a"), std::make_shared<const int>(1), 1);
  cache.insert(key("b"), std::make_shared<const int>(2), 1);
  ASSERT_NE(cache.lookup(key("a")), nullptr); // a is now most recent
  cache.insert(key("c"), std::make_shared<const int>(3), 1);
  EXPECT_NE(cache.lookup(key("a")), nullptr);
  EXPECT_EQ(cache.lookup(key("b")), nullptr);
  EXPECT_NE(cache.lookup(key("c")), nullptr);
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_EQ(cache.evictions(), 1u);
}

TEST(ArtifactCache, EvictsByBytesAndRefusesOversizedValues) {
  ArtifactCache<std::string> cache(100, 10);
  cache.insert(key("a"), std::make_shared<const std::string>("aaaaaa"), 6);
  cache.insert(key("b"), std::make_shared<const std::string>("bbbbbb"), 6);
  EXPECT_EQ(cache.lookup(key("a")), nullptr);
  EXPECT_EQ(cache.bytes(), 6u);
  cache.insert(key("huge"), std::make_shared<const std::string>("x"), 11);
  EXPECT_EQ(cache.lookup(key("huge")), nullptr);
  EXPECT_NE(cache.lookup(key("b")), nullptr);
  // Replacing a key adjusts the byte count instead of double counting.
  cache.insert(key("b"), std::make_shared<const std::string>("b"), 1);
  EXPECT_EQ(cache.bytes(), 1u);
}

TEST(ArtifactCache, GetOrComputeComputesOncePerKey) {
  ArtifactCache<std::string> cache(4);
  int computed = 0;
  auto make = [&] {
    ++computed;
    return std::string("ptx");
  };
  auto size = [](const std::string &s) { return s.size(); };
  EXPECT_EQ(*cache.getOrCompute(key("k"), make, size), "ptx");
  EXPECT_EQ(*cache.getOrCompute(key("k"), make, size), "ptx");
  EXPECT_EQ(computed, 1);
  cache.clear();
  cache.getOrCompute(key("k"), make, size);
  EXPECT_EQ(computed, 2);
}

} // namespace
