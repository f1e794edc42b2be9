//===- Spelling.cpp - "Did you mean" support ------------------------------===//
#include "diag/Spelling.h"

#include <algorithm>

namespace kina {

unsigned editDistance(std::string_view a, std::string_view b) {
  std::vector<unsigned> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j)
    prev[j] = static_cast<unsigned>(j);
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = static_cast<unsigned>(i);
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1])});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string closestSpelling(std::string_view word, const std::vector<std::string> &candidates,
                            unsigned maxDistance) {
  std::string best;
  unsigned bestDistance = maxDistance + 1;
  for (const std::string &c : candidates) {
    unsigned d = editDistance(word, c);
    if (d > 0 && d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return best;
}

} // namespace kina
