//===- SmComparisonLintTest.cpp - No sm_ ladders outside the registry -----===//
//
// STYLE.md 4: scans compiler/ (except compiler/target) and lsp-server/ for
// architecture comparisons, after checking that the scanner itself flags
// what it should and nothing else.
//
//===----------------------------------------------------------------------===//
#include "target/SmComparisonLint.h"

#include "TestSupport.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace kina::target;

namespace {

TEST(SmComparisonLint, FlagsLadders) {
  for (const char *bad : {
           R"(if (target == "sm_90a") useWgmma();)",
           R"(bool hopper = "sm_90" != name;)",
           R"(if (name.starts_with("sm_9")) {})",
           R"(if (arch.find("sm_") == 0) {})",
           R"(if (t == TargetId::Sm90a) {})",
           R"(if (TargetId::Sm80 < t) {})",
           R"(if (cc >= 80) emitCpAsync();)",
           R"(if (smVersion < 90) return;)",
           R"(bool ok = computeCapability >= 75;)",
           R"(if (info.ccMajor >= 9) {})",
       })
    EXPECT_EQ(findSmComparisons(bad).size(), 1u) << bad;
}

TEST(SmComparisonLint, AcceptsRegistryUse) {
  for (const char *good : {
           R"(const TargetInfo *t = lookupTarget("sm_80");)",
           R"(std::string defaultTarget = "sm_80";)",
           R"(if (hasCapability(t, CapabilityId::CpAsync)) {})",
           R"(// if (cc >= 80) in a comment is fine)",
           R"(/* target == "sm_90a" */ int x = 1;)",
           R"(for (int i = 0; i < 80; ++i) {})",
           R"(if (ccache >= 1) {})",
           R"(if (target == "sm_90a") {} // kina-allow-sm-compare: parsing a legacy flag)",
       })
    EXPECT_TRUE(findSmComparisons(good).empty()) << good;
}

TEST(SmComparisonLint, ReportsLineNumbersAcrossBlockComments) {
  auto found = findSmComparisons("int a;\n/* start\n cc >= 80 \n end */\nif (cc >= 80) {}\n");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].line, 5u);
}

TEST(SmComparisonLint, SourceTreeHasNoLaddersOutsideTheRegistry) {
  namespace fs = std::filesystem;
  fs::path root = test::sourceRoot();
  std::string report;
  unsigned scanned = 0;
  for (const char *dir : {"compiler", "lsp-server"}) {
    std::error_code ec;
    if (!fs::is_directory(root / dir))
      continue;
    for (auto it = fs::recursive_directory_iterator(root / dir, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      fs::path p = it->path();
      std::string rel = fs::relative(p, root).generic_string();
      if (rel.starts_with("compiler/target/") || !it->is_regular_file())
        continue;
      std::string ext = p.extension().string();
      if (ext != ".cpp" && ext != ".h" && ext != ".hpp" && ext != ".cc" && ext != ".def" &&
          ext != ".inc")
        continue;
      std::ifstream in(p);
      std::stringstream ss;
      ss << in.rdbuf();
      ++scanned;
      for (const SmComparison &c : findSmComparisons(ss.str()))
        report += rel + ":" + std::to_string(c.line) + ": " + c.text + "\n";
    }
  }
  EXPECT_TRUE(report.empty())
      << "Architecture comparisons outside compiler/target (STYLE.md 4). Ask the registry "
         "instead (hasCapability, targetsWith, TargetInfo limits):\n"
      << report;
  RecordProperty("files_scanned", static_cast<int>(scanned));
}

} // namespace
