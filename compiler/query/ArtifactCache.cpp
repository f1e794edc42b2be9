//===- ArtifactCache.cpp - Content hashing for the artifact cache ---------===//
#include "query/ArtifactCache.h"

namespace kina::query {

uint64_t contentHash(std::string_view bytes) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  // Final avalanche (splitmix64) so that nearby inputs spread over all bits.
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ULL;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebULL;
  h ^= h >> 31;
  return h ^ bytes.size();
}

size_t ArtifactKeyHash::operator()(const ArtifactKey &k) const {
  size_t h = k.contentHash;
  h ^= std::hash<std::string>{}(k.target) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  h ^= std::hash<std::string>{}(k.kind) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h;
}

} // namespace kina::query
