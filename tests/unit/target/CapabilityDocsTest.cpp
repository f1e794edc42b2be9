//===- CapabilityDocsTest.cpp - docs/capabilities.md is not stale ---------===//
//
// The checked-in page must equal renderCapabilitiesMarkdown() byte for byte.
//
//===----------------------------------------------------------------------===//
#include "target/CapabilityDocs.h"
#include "target/Registry.h"

#include "TestSupport.h"

#include <gtest/gtest.h>

using namespace kina::target;

namespace {

TEST(CapabilityDocs, CheckedInPageMatchesTheRegistry) {
  auto onDisk = test::readSourceFile("docs/capabilities.md");
  ASSERT_TRUE(onDisk) << "docs/capabilities.md is missing; generate it with:\n  "
                      << kCapabilitiesDocsRegenCommand;
  EXPECT_TRUE(*onDisk == renderCapabilitiesMarkdown())
      << "docs/capabilities.md is stale (the registry changed). Regenerate it with:\n  "
      << kCapabilitiesDocsRegenCommand;
}

TEST(CapabilityDocs, MentionsEveryTargetAndCapability) {
  std::string md = renderCapabilitiesMarkdown();
  for (const TargetInfo &t : allTargets())
    EXPECT_NE(md.find("`" + std::string(t.name) + "`"), std::string::npos) << t.name;
  for (const CapabilityInfo &c : allCapabilities())
    EXPECT_NE(md.find("`" + std::string(c.name) + "`"), std::string::npos) << c.name;
  EXPECT_EQ(md, renderCapabilitiesMarkdown()); // deterministic
}

} // namespace
