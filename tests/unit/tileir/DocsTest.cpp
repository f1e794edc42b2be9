//===- DocsTest.cpp - docs/tile-ir.md is generated from the registry ------===//
#include "tileir/Requirements.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

using namespace kina::tileir;

namespace {

TEST(TileIrDocs, CheckedInPageMatchesTheRegistry) {
  std::ifstream in(std::string(KINA_TEST_SOURCE_ROOT) + "/docs/tile-ir.md", std::ios::binary);
  ASSERT_TRUE(in) << "docs/tile-ir.md is missing; generate it with:\n  " << kTileIrDocsRegenCommand;
  std::ostringstream ss;
  ss << in.rdbuf();
  EXPECT_TRUE(ss.str() == renderTileIrMarkdown())
      << "docs/tile-ir.md is stale (the registry changed). Regenerate it with:\n  "
      << kTileIrDocsRegenCommand;
}

TEST(TileIrDocs, EveryRowIsOnThePage) {
  std::string md = renderTileIrMarkdown();
  for (const FeatureRow &f : allFeatures())
    EXPECT_NE(md.find("| " + std::string(f.name) + " |"), std::string::npos) << f.name;
  for (const TargetRow &t : allTargets())
    EXPECT_NE(md.find("| " + std::string(t.name) + " | " + t.minVersion.str() + " |"),
              std::string::npos)
        << t.name;
  EXPECT_NE(md.find("| f8E5M3FNU | — | — | Yes | sm_107+ |"), std::string::npos);
  EXPECT_NE(md.find("KINA_TILEIRAS"), std::string::npos);
  EXPECT_NE(md.find("KINA_TILEIR_VERSION"), std::string::npos);
}

} // namespace
