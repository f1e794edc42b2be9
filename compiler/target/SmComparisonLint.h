//===- SmComparisonLint.h - Finds architecture ladders in source -*- C++ -*-===//
//
// STYLE.md 4: only compiler/target compares `sm_` numbers. This scanner
// flags C++ lines outside the registry that do so: a string literal
// "sm_XY" next to ==, != or starts_with/find, a TargetId compared with
// ==, !=, <, >, or a number compared with a variable named cc, sm, arch,
// ccMajor, smVersion, computeCapability, ... (`cc >= 80`). Comments are ignored. A line may opt out with
// `// kina-allow-sm-compare: <reason>`. Used by a unit test over compiler/
// and lsp-server/.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kina::target {

struct SmComparison {
  unsigned line = 0; ///< 1-based
  std::string text;  ///< the offending line, trimmed
};

/// The offending lines of one C++ source text.
std::vector<SmComparison> findSmComparisons(std::string_view source);

} // namespace kina::target
