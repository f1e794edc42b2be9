//===- Spelling.h - "Did you mean" support ----------------------*- C++ -*-===//
//
// Edit distance and closest-candidate search, shared by every diagnostic that
// suggests a spelling (keywords, names, builtins, dtypes).
//
//===----------------------------------------------------------------------===//
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kina {

/// Levenshtein distance between two strings.
unsigned editDistance(std::string_view a, std::string_view b);

/// The candidate closest to `word` within `maxDistance` edits (ties: first),
/// excluding `word` itself; empty when none is close enough.
std::string closestSpelling(std::string_view word, const std::vector<std::string> &candidates,
                            unsigned maxDistance);

} // namespace kina
